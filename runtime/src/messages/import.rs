//! The JSONL transcript importer.
//!
//! # Format
//!
//! UTF-8, one JSON object per line; blank lines are ignored. Fields:
//!
//! | field         | type                 | notes                                              |
//! |---------------|----------------------|----------------------------------------------------|
//! | `id`          | string, required     | unique across the store                             |
//! | `session_id`  | string, required     | the conversation the message belongs to             |
//! | `channel`     | string or null       | optional; the channel (chat room, thread) it was in |
//! | `role`        | string, required     | `user`, `assistant`, `tool` or `system`             |
//! | `at`          | string, required     | RFC 3339, e.g. `2026-11-13T22:36:05+08:00`          |
//! | `content`     | string, required     | may be empty (e.g. a tool message with a result)    |
//! | `tool_result` | string, optional     | the output of a tool call                           |
//! | `reasoning`   | string, optional     | the model's reasoning text                          |
//! | `tool_calls`  | array, optional      | objects, each with a string `name` (and usually `id`, `arguments`) |
//! | `turn`        | integer ≥ 0, optional| groups messages into turns; absent → a turn starts at each user message |
//!
//! Unknown fields are errors (they are usually typos). Every line is validated before
//! anything is written; errors name their line numbers (1-based). The import is one
//! transaction: either every message is stored or none. Re-importing a message that is
//! already stored unchanged is a no-op; the same id with different fields is an error.

use std::collections::{BTreeSet, HashMap};
use std::io::BufRead;

use serde::Deserialize;

use super::store::{Message, MessageStore, Role, StoreError};
use super::time::parse_rfc3339;

/// At most this many line errors are reported.
const MAX_REPORTED_ERRORS: usize = 20;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    id: String,
    session_id: String,
    #[serde(default)]
    channel: Option<String>,
    role: String,
    at: String,
    content: String,
    #[serde(default)]
    tool_result: Option<String>,
    #[serde(default)]
    reasoning: Option<String>,
    #[serde(default)]
    tool_calls: Option<serde_json::Value>,
    #[serde(default)]
    turn: Option<i64>,
}

/// One invalid line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError {
    /// 1-based.
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("reading the transcript: {0}")]
    Io(#[from] std::io::Error),
    #[error("{}", render_line_errors(.errors, *.more))]
    Invalid {
        errors: Vec<LineError>,
        /// Errors beyond the reported ones.
        more: usize,
    },
    #[error("nothing imported: {0}")]
    Store(#[from] StoreError),
}

fn render_line_errors(errors: &[LineError], more: usize) -> String {
    let total = errors.len() + more;
    let mut s = format!(
        "nothing imported: {total} invalid line{}",
        if total == 1 { "" } else { "s" }
    );
    for e in errors {
        s.push_str("\n  ");
        s.push_str(&e.to_string());
    }
    if more > 0 {
        s.push_str(&format!("\n  … and {more} more"));
    }
    s
}

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// Non-blank lines read.
    pub messages: usize,
    pub inserted: usize,
    /// Already stored, identical.
    pub unchanged: usize,
    pub sessions: Vec<String>,
    pub channels: Vec<String>,
}

fn validate(line: Line) -> Result<Message, String> {
    let nonempty = |field: &str, v: &str| {
        if v.trim().is_empty() {
            Err(format!("`{field}` must not be empty"))
        } else {
            Ok(())
        }
    };
    nonempty("id", &line.id)?;
    nonempty("session_id", &line.session_id)?;
    if let Some(ch) = &line.channel {
        nonempty("channel", ch)?;
    }
    let role = Role::parse(&line.role).ok_or_else(|| {
        format!(
            "`role` is {:?}; expected one of user, assistant, tool, system",
            line.role
        )
    })?;
    parse_rfc3339(&line.at).map_err(|e| format!("`at`: {e}"))?;
    if let Some(t) = line.turn
        && t < 0
    {
        return Err(format!("`turn` must be ≥ 0, got {t}"));
    }
    let tool_calls = match line.tool_calls {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::Array(calls)) => {
            for (i, call) in calls.iter().enumerate() {
                let ok = call
                    .as_object()
                    .and_then(|o| o.get("name"))
                    .is_some_and(serde_json::Value::is_string);
                if !ok {
                    return Err(format!(
                        "`tool_calls[{i}]` must be an object with a string `name`"
                    ));
                }
            }
            Some(serde_json::Value::Array(calls).to_string())
        }
        Some(_) => return Err("`tool_calls` must be an array".into()),
    };
    Ok(Message {
        id: line.id,
        session_id: line.session_id,
        channel: line.channel,
        role,
        at: line.at,
        turn: line.turn,
        content: line.content,
        tool_result: line.tool_result,
        reasoning: line.reasoning,
        tool_calls,
    })
}

/// Parses and validates every line of `reader`, then stores all messages in one
/// transaction. See the module docs for the format.
pub fn import_jsonl(
    store: &dyn MessageStore,
    reader: impl BufRead,
) -> Result<ImportReport, ImportError> {
    let mut messages = Vec::new();
    let mut line_of: HashMap<String, usize> = HashMap::new();
    let mut errors = Vec::new();
    let mut more = 0usize;
    let mut push_err = |errors: &mut Vec<LineError>, line: usize, message: String| {
        if errors.len() < MAX_REPORTED_ERRORS {
            errors.push(LineError { line, message });
        } else {
            more += 1;
        }
    };
    for (idx, raw) in reader.lines().enumerate() {
        let n = idx + 1;
        let raw = match raw {
            Ok(r) => r,
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                push_err(&mut errors, n, "not valid UTF-8".into());
                continue;
            }
            Err(e) => return Err(ImportError::Io(e)),
        };
        let text = raw.trim();
        if text.is_empty() {
            continue;
        }
        let parsed = serde_json::from_str::<Line>(text)
            .map_err(|e| {
                // serde's message ends with "at line 1 column N"; the column is useful,
                // the line is not (each record is one line).
                let msg = e.to_string();
                match msg.rsplit_once(" at line 1 column ") {
                    Some((head, col)) => format!("{head} (column {col})"),
                    None => msg,
                }
            })
            .and_then(validate);
        match parsed {
            Ok(m) => {
                if let Some(first) = line_of.get(&m.id) {
                    push_err(
                        &mut errors,
                        n,
                        format!("duplicate id {:?} (first on line {first})", m.id),
                    );
                    continue;
                }
                line_of.insert(m.id.clone(), n);
                messages.push(m);
            }
            Err(msg) => push_err(&mut errors, n, msg),
        }
    }
    if !errors.is_empty() {
        return Err(ImportError::Invalid { errors, more });
    }
    let report = match store.insert(&messages) {
        Ok(r) => r,
        Err(StoreError::Conflict { id }) => {
            let line = line_of.get(&id).copied().unwrap_or(0);
            return Err(ImportError::Invalid {
                errors: vec![LineError {
                    line,
                    message: format!("message id {id:?} is already stored with different fields"),
                }],
                more: 0,
            });
        }
        Err(StoreError::Invalid { id, reason }) => {
            let line = line_of.get(&id).copied().unwrap_or(0);
            return Err(ImportError::Invalid {
                errors: vec![LineError {
                    line,
                    message: reason,
                }],
                more: 0,
            });
        }
        Err(e) => return Err(ImportError::Store(e)),
    };
    let sessions: BTreeSet<String> = messages.iter().map(|m| m.session_id.clone()).collect();
    let channels: BTreeSet<String> = messages.iter().filter_map(|m| m.channel.clone()).collect();
    Ok(ImportReport {
        messages: messages.len(),
        inserted: report.inserted,
        unchanged: report.unchanged,
        sessions: sessions.into_iter().collect(),
        channels: channels.into_iter().collect(),
    })
}
