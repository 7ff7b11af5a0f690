//! Loading: YAML files -> model (with spans) -> checks -> IR.

use crate::{Compiled, Sources};

pub fn compile(_sources: &Sources) -> Compiled {
    Compiled {
        ir: None,
        diagnostics: Vec::new(),
    }
}

pub fn read_dir(root: &std::path::Path) -> std::io::Result<Sources> {
    Ok(Sources {
        root: root.display().to_string(),
        files: Vec::new(),
    })
}
