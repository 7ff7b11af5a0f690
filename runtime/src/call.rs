//! The contract between generated code and the runtime: what the runtime may ask of a typed
//! call (the trait tables), and what a handler returns.

use tokio_util::sync::CancellationToken;

/// Where a call runs (tool-level `route` in the definitions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Route {
    /// The host the thread is bound to.
    ThreadHost,
    /// The host owning the session the call names.
    SessionHost,
    /// The runtime's own process.
    Local,
}

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
}

/// What a handler hands back on success.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolOutput {
    pub text: String,
    pub structured: Option<serde_json::Value>,
}

impl ToolOutput {
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput {
            text: text.into(),
            structured: None,
        }
    }
}

/// The two kinds of handler failure.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ToolError {
    /// Goes back to the model as an error result; the turn continues.
    #[error("{0}")]
    Model(String),
    /// Ends the turn.
    #[error("fatal: {0}")]
    Fatal(String),
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
}
