//! Published schemas per dialect.
