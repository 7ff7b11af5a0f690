//! Host-language generators: a [`crate::plan::Plan`] in, files out (no I/O here; the CLI's
//! `toolsurface gen` writes them). Each reads the plan alone and never the IR, so a rule
//! exists once as data and once per language as a small hand-written kernel and walk, which
//! the generator writes out verbatim beside the plan's data.

pub mod python;
pub mod typescript;

/// One generated file: its path relative to the output folder and its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct File {
    pub path: String,
    pub contents: String,
}

/// Published tool JSON, each distinct text once: the generated data refers to a tool's JSON by
/// its index here, so a tool shared by many surfaces is stored once.
#[derive(Default)]
pub(crate) struct Interned {
    pub(crate) list: Vec<String>,
    index: std::collections::HashMap<String, usize>,
}

impl Interned {
    /// The index of `text`, added when new.
    pub(crate) fn id(&mut self, text: &str) -> usize {
        if let Some(i) = self.index.get(text) {
            return *i;
        }
        let i = self.list.len();
        self.list.push(text.to_owned());
        self.index.insert(text.to_owned(), i);
        i
    }
}
