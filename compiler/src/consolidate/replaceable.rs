//! The optional `replaceable_by:` key of a tool: the tools that already do its job and one
//! sentence saying how (the case study's delete rule, written down where the tool is). The
//! loader checks its shape; `lint` turns it into a delete candidate and `retire` into the
//! retired entry's message.

use crate::diag::{Diagnostic, Span};
use crate::load::read::{self, Sp, Struct};
use crate::load::yaml::Node;

/// `replaceable_by: { tools: [shell, exec_command], message: Run `ls` in the shell. }`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replaceable {
    pub tools: Vec<Sp<String>>,
    pub message: String,
    /// Where the key's value was written.
    pub span: Span,
}

/// Read the value of a tool's `replaceable_by:` key, reporting every shape error.
pub fn read_replaceable(node: &Node, d: &mut Vec<Diagnostic>) -> Option<Replaceable> {
    let s = Struct::read(
        node,
        "replaceable_by",
        &["tools", "message"],
        &["tools", "message"],
        d,
    )?;
    let tools = s
        .get("tools")
        .map(|n| read::string_list(n, "replaceable_by tools", d))
        .unwrap_or_default();
    let message = s
        .get("message")
        .and_then(|n| read::string(n, "replaceable_by message", d))?;
    if message.v.trim().is_empty() {
        d.push(
            Diagnostic::error(
                "empty-message",
                Some(message.span),
                "replaceable_by needs a message saying how the other tools do the job",
            )
            .with_hint("e.g. message: Run `ls` in the shell."),
        );
    }
    Some(Replaceable {
        tools,
        message: message.v,
        span: s.span,
    })
}

/// The `replaceable_by:` of the tool file `text` (None when absent or malformed).
pub fn of_tool_text(file: crate::diag::FileId, text: &str) -> Option<Replaceable> {
    let mut d = Vec::new();
    let root = crate::load::yaml::parse(file, text, &mut d)?;
    let s = Struct::read(&root, "a tool", &[], &[], &mut d)?;
    read_replaceable(s.get("replaceable_by")?, &mut d)
}
