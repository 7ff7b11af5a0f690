//! The contract between generated code and the runtime: what the runtime may ask of a typed
//! call (the trait tables), and what a handler returns.

use std::any::TypeId;

use tokio_util::sync::CancellationToken;

/// Where a call runs (tool-level `route` in the definitions): the shared vocabulary.
pub use toolsurface_kernel::vocab::Route;

/// The session a follow-up call names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionTarget<'a> {
    pub id: i64,
    pub host: Option<&'a str>,
}

/// Answers the generated tables give about one typed call. Implemented by generated code for
/// its `Call` enum; the runtime never compares a tool name to a string literal.
pub trait CallInfo: Send + 'static {
    fn tool_name(&self) -> &'static str;
    /// "shell_session wait", or the tool name for a plain tool.
    fn display_name(&self) -> &'static str;
    fn is_parallel_safe(&self) -> bool;
    fn is_follow_up(&self) -> bool;
    fn is_poll(&self) -> bool;
    fn is_read_only(&self) -> bool;
    fn result_on_interrupt(&self) -> bool;
    fn route(&self) -> Route;
    fn session_target(&self) -> Option<SessionTarget<'_>>;
    /// The names the surface gives the runtime's request types (for the families' texts).
    fn tool_names(&self) -> &'static ToolNames;
}

/// What the compiled surface calls each runtime request type: the tool whose definition says
/// `implements:` that type. The generated code builds the table (`TOOL_NAMES`), the core puts
/// it in every [`CallContext`], and a family's text that points the model at another tool (or
/// names its own) asks it, so a tool renamed in its YAML is renamed in the texts too; the
/// runtime writes no tool name itself (`runtime/tests/core_no_name_literals.rs`).
#[derive(Clone, Copy, Debug)]
pub struct ToolNames {
    entries: &'static [ToolNameEntry],
}

/// One row of [`ToolNames`]: the request type's `TypeId` (as a function, so the table can be
/// a `static`) and the tool's name.
pub type ToolNameEntry = (fn() -> TypeId, &'static str);

impl ToolNames {
    /// No tools: every lookup answers `None` (texts then leave their pointers out).
    pub const NONE: ToolNames = ToolNames { entries: &[] };

    /// `(TypeId::of::<Request>, tool name)` per tool with an `implements:` type.
    pub const fn new(entries: &'static [ToolNameEntry]) -> Self {
        ToolNames { entries }
    }

    /// The name of the tool whose typed call becomes `T`, if the surface has one.
    pub fn of<T: 'static>(&self) -> Option<&'static str> {
        let wanted = TypeId::of::<T>();
        self.entries
            .iter()
            .find(|(id, _)| id() == wanted)
            .map(|(_, name)| *name)
    }

    /// [`ToolNames::of`], or `fallback` (a description, not a name) when the surface has none.
    pub fn or<T: 'static>(&self, fallback: &'static str) -> &'static str {
        self.of::<T>().unwrap_or(fallback)
    }
}

/// The runtime's own introspection request (introspect.yaml's `implements:`; the core
/// answers it, see `Runtime::introspect`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Introspect {
    pub target: String,
}

/// What a handler hands back on success.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolOutput {
    pub text: String,
    pub structured: Option<serde_json::Value>,
}

/// The `status` of a file tool's output when nothing was written and the content was staged
/// instead (write_file, file_edit, apply_patch declare it as an output shape).
pub const STAGED_STATUS: &str = "staged";

impl ToolOutput {
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput {
            text: text.into(),
            structured: None,
        }
    }

    /// Whether the call did not do what it was asked although the handler answered with its
    /// facts: a write whose content was staged, not written. Such a result goes back as an
    /// error result (`is_error`, MCP `isError: true`) carrying its structured output, so a
    /// client that branches on the error flag never counts an unwritten file as written.
    pub fn unapplied(&self) -> bool {
        self.structured
            .as_ref()
            .and_then(|s| s.get("status"))
            .and_then(serde_json::Value::as_str)
            == Some(STAGED_STATUS)
    }
}

/// The kinds of handler failure.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ToolError {
    /// Goes back to the model as an error result; the turn continues. The refusal is about the
    /// world the call met (no such file, the sha256 moved on, no such session), never about
    /// the arguments alone: those rules live in the definitions, enforced by `Call::parse`.
    #[error("{0}")]
    Model(String),
    /// Goes back to the model like [`ToolError::Model`], but the refusal is about the
    /// arguments alone: a rule the definitions do not state (a regex that does not compile,
    /// a key name outside the runtime's table), or a request a host built by hand that
    /// `Call::parse` would have refused. Kept apart so a test can hold that every call
    /// `Call::parse` accepts meets none of these but the listed ones.
    #[error("{0}")]
    Argument(String),
    /// Ends the turn.
    #[error("fatal: {0}")]
    Fatal(String),
}

impl ToolError {
    /// The text for the model, for the two kinds that go back to it (`None` for `Fatal`).
    pub fn model_text(&self) -> Option<&str> {
        match self {
            ToolError::Model(m) | ToolError::Argument(m) => Some(m),
            ToolError::Fatal(_) => None,
        }
    }
}

pub type HandlerResult = Result<ToolOutput, ToolError>;

/// Per-call context handed to a handler.
#[derive(Clone, Debug)]
pub struct CallContext {
    pub call_id: String,
    /// Cancelled when the turn is interrupted.
    pub cancel: CancellationToken,
    /// The host the call was routed to.
    pub host: String,
    pub rehearsal: bool,
    /// The surface's tool names (the call's [`CallInfo::tool_names`]).
    pub names: &'static ToolNames,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn only_a_staged_output_is_unapplied() {
        let with = |status: &str| ToolOutput {
            text: "t".into(),
            structured: Some(serde_json::json!({"status": status})),
        };
        assert!(with(STAGED_STATUS).unapplied());
        for done in ["written", "created", "edited", "applied"] {
            assert!(!with(done).unapplied(), "{done}");
        }
        assert!(!ToolOutput::text("Staged").unapplied());
        let nested = ToolOutput {
            text: "t".into(),
            structured: Some(serde_json::json!({"files": [{"status": "staged"}]})),
        };
        assert!(!nested.unapplied(), "only the output's own status counts");
    }
}
