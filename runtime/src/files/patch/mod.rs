//! The `*** Begin Patch` format: what a parsed patch is ([`parse`] turns text into it,
//! including the optional `*** Device:` line and the leniencies models rely on) and how
//! one file's hunks are located and applied to its text ([`apply`]). Reading and writing
//! files is the precondition module's job. The rules are written down for models and
//! people in docs/apply-patch.md.

mod apply;
mod parse;

#[cfg(test)]
mod tests;

pub(crate) use apply::apply_chunks;
pub(crate) use parse::parse_patch;

/// One file operation of a patch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PatchOp {
    Add {
        path: String,
        content: String,
    },
    Delete {
        path: String,
    },
    Update {
        path: String,
        move_to: Option<String>,
        chunks: Vec<Chunk>,
    },
}

/// One line of a hunk, without its prefix character.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum HunkLine {
    /// ` line` (or an empty line between other hunk lines): must be in the file, is kept
    /// as the file has it.
    Context(String),
    /// `-line`: must be in the file, is removed.
    Remove(String),
    /// `+line`: written as the patch gives it.
    Add(String),
}

impl HunkLine {
    /// The line as the file must hold it before the change (context and removed lines).
    pub fn old(&self) -> Option<&str> {
        match self {
            HunkLine::Context(s) | HunkLine::Remove(s) => Some(s),
            HunkLine::Add(_) => None,
        }
    }
}

/// One `@@` hunk of an Update.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Chunk {
    /// The texts after one or more `@@` lines, in order: each is a line to find (after the
    /// previous one) above the hunk.
    pub context: Vec<String>,
    pub lines: Vec<HunkLine>,
    /// `*** End of File`: the hunk's old lines are the last lines of the file.
    pub end_of_file: bool,
}

impl Chunk {
    /// The lines the file must hold where the hunk applies (context and removed lines).
    pub fn old_lines(&self) -> Vec<&str> {
        self.lines.iter().filter_map(HunkLine::old).collect()
    }
}

/// A parsed patch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Patch {
    pub device: Option<String>,
    pub ops: Vec<PatchOp>,
}
