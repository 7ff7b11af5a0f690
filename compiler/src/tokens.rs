//! Token counting (o200k).
