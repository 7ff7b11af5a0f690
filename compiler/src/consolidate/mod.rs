//! Consolidation: the case study's three rules (delete, merge, keep) as code. `lint` finds
//! the candidates in a compiled surface (and, given usage data, in how models really call
//! it); `merge` and `retire` plan the edit of a definitions folder as new file texts, which
//! the CLI compiles in memory before writing anything. Pure: no I/O here, so every rule is
//! testable on strings and reusable by other front ends.

pub mod edit;
pub mod lint;
pub mod merge;
pub mod names;
pub mod render;
pub mod replaceable;
pub mod retire;
pub mod usage;

use crate::diag::Sources;

/// A planned change to a definitions folder: every file to write (path relative to the
/// folder, new text) and every file to delete, plus what to tell the user.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// Files to create or replace, path relative to the folder.
    pub write: Vec<(String, String)>,
    /// Files to delete, path relative to the folder.
    pub delete: Vec<String>,
    /// The ledger line (`−5: shell_poll, … → shell_session (new) by action: poll, …`).
    pub ledger: String,
    /// Things done on the user's behalf that deserve a look (rewritten references, …).
    pub notes: Vec<String>,
}

impl Plan {
    /// The folder's sources with this plan applied (for the in-memory check), still sorted
    /// by path.
    pub fn apply(&self, sources: &Sources) -> Sources {
        let mut out = sources.clone();
        out.files.retain(|f| !self.delete.contains(&f.path));
        for (path, text) in &self.write {
            match out.files.iter_mut().find(|f| &f.path == path) {
                Some(f) => f.text.clone_from(text),
                None => out
                    .files
                    .push(crate::diag::SourceFile::new(path.clone(), text.clone())),
            }
        }
        out.files.sort_by(|a, b| a.path.cmp(&b.path));
        out
    }

    /// Record a new text for `path`, replacing an earlier one in this plan.
    pub fn put(&mut self, path: &str, text: String) {
        match self.write.iter_mut().find(|(p, _)| p == path) {
            Some((_, t)) => *t = text,
            None => self.write.push((path.to_owned(), text)),
        }
    }

    /// The text `path` will have: this plan's version, else the folder's.
    pub fn text_of<'a>(&'a self, sources: &'a Sources, path: &str) -> Option<&'a str> {
        if self.delete.iter().any(|p| p == path) {
            return None;
        }
        self.write
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, t)| t.as_str())
            .or_else(|| {
                sources
                    .files
                    .iter()
                    .find(|f| f.path == path)
                    .map(|f| f.text.as_str())
            })
    }
}

/// The file of tool `name` inside a definitions folder.
pub fn tool_path(name: &str) -> String {
    format!("tools/{name}.yaml")
}
