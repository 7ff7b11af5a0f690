//! What goes into [`super::Runtime::execute`] (a batch of parsed calls, and calls that failed
//! to parse) and what comes out (results in call order, or the fault that ended the turn).

use std::fmt;

use crate::call::CallInfo;

/// One entry of a batch.
#[derive(Debug)]
pub enum BatchItem<C> {
    /// A call that parsed.
    Call { call_id: String, call: C },
    /// A call that failed `Call::parse`; `error` is the model-facing text and becomes an
    /// error result in this position.
    Rejected { call_id: String, error: String },
}

impl<C> BatchItem<C> {
    pub fn call_id(&self) -> &str {
        match self {
            BatchItem::Call { call_id, .. } | BatchItem::Rejected { call_id, .. } => call_id,
        }
    }
}

/// The calls of one model response, in the order the model made them.
#[derive(Debug)]
pub struct Batch<C> {
    pub items: Vec<BatchItem<C>>,
}

impl<C> Default for Batch<C> {
    fn default() -> Self {
        Batch { items: Vec::new() }
    }
}

impl<C: CallInfo> Batch<C> {
    pub fn new() -> Self {
        Batch::default()
    }

    pub fn push(&mut self, call_id: impl Into<String>, call: C) -> &mut Self {
        self.items.push(BatchItem::Call {
            call_id: call_id.into(),
            call,
        });
        self
    }

    pub fn push_rejected(
        &mut self,
        call_id: impl Into<String>,
        error: impl Into<String>,
    ) -> &mut Self {
        self.items.push(BatchItem::Rejected {
            call_id: call_id.into(),
            error: error.into(),
        });
        self
    }

    /// The result of `Call::parse`, whichever it was.
    pub fn push_parsed<E: fmt::Display>(
        &mut self,
        call_id: impl Into<String>,
        parsed: Result<C, E>,
    ) -> &mut Self {
        match parsed {
            Ok(call) => self.push(call_id, call),
            Err(err) => self.push_rejected(call_id, err.to_string()),
        }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

impl<C: CallInfo> From<Vec<(String, C)>> for Batch<C> {
    fn from(calls: Vec<(String, C)>) -> Self {
        Batch {
            items: calls
                .into_iter()
                .map(|(call_id, call)| BatchItem::Call { call_id, call })
                .collect(),
        }
    }
}

impl<C: CallInfo, E: fmt::Display> FromIterator<(String, Result<C, E>)> for Batch<C> {
    fn from_iter<I: IntoIterator<Item = (String, Result<C, E>)>>(iter: I) -> Self {
        let mut batch = Batch::new();
        for (call_id, parsed) in iter {
            batch.push_parsed(call_id, parsed);
        }
        batch
    }
}

/// How a result came to be (the host may render interrupted results differently).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The handler ran and returned.
    Completed,
    /// The call did not run: it failed to parse, was refused in rehearsal or could not be
    /// routed.
    Refused,
    /// The turn was interrupted while the call ran, and the handler still handed back its
    /// result (partial for `result_on_interrupt` calls that stop early, or complete if it
    /// finished right then); it is kept.
    InterruptedKept,
    /// The turn was interrupted while the call ran, and its output was dropped.
    InterruptedDropped,
    /// The turn was interrupted before the call started.
    NotStarted,
}

/// One call's result, ready for the transcript.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolResult {
    pub call_id: String,
    pub is_error: bool,
    pub text: String,
    pub structured: Option<serde_json::Value>,
    pub outcome: Outcome,
}

impl ToolResult {
    pub(crate) fn error(call_id: String, text: String, outcome: Outcome) -> Self {
        ToolResult {
            call_id,
            is_error: true,
            text,
            structured: None,
            outcome,
        }
    }
}

/// A handler returned [`crate::call::ToolError::Fatal`]: the turn ends.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("turn ended: {display_name} (call {call_id}) failed: {message}")]
pub struct TurnFault {
    pub call_id: String,
    pub display_name: &'static str,
    pub message: String,
    /// Results of the calls that had finished when the fault happened, in call order.
    pub completed: Vec<ToolResult>,
}
