//! Rust code generation (quote!, prettyplease).
