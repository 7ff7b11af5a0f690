//! The lock's record of declared outputs: per tool the output schema it publishes (MCP
//! `outputSchema`; Responses `output_schema` / Gemini `responseJsonSchema` where a family
//! turns them on) and, for a tool with actions, each action's own. Output schemas reach no
//! role × family array of the default dialects, so without this record an output change
//! would pass `check` unseen; with it, `check` fails on an unlocked output change and `diff`
//! judges it (`crate::diff`'s outputs findings).
//!
//! ```text
//! output read_file {"type":"object","anyOf":[...]}     # the tool's published output schema
//! output shell_session {"type":"object","anyOf":[...]}
//!   action poll {"type":"object",...}                    # tools with actions: each action's
//!   action list {"type":"object",...}
//! output partial -                                       # some actions declare none: no
//!   action one {"type":"object",...}                     # published schema, still recorded
//! ```

use std::fmt::Write as _;

use crate::emit::sha256_hex;
use crate::ir::Ir;

use super::{LockError, err, split};

/// One tool's declared outputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockedOutput {
    pub tool: String,
    /// The output schema the tool publishes (canonical JSON); `None` when some action
    /// declares no output (then no schema is published).
    pub published: Option<String>,
    /// Each action's output schema, declaration order; a plain tool's single action (name
    /// `None`) is its published schema and is not written separately.
    pub actions: Vec<LockedActionOutput>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockedActionOutput {
    /// `None`: the single action of a plain tool.
    pub name: Option<String>,
    pub json: String,
}

impl LockedOutput {
    /// The published schema's sha256 (hex), when there is one.
    pub fn sha256(&self) -> Option<String> {
        self.published.as_deref().map(|j| sha256_hex(j.as_bytes()))
    }

    /// The output schema of `action` (`None`: a plain tool's).
    pub fn action(&self, action: Option<&str>) -> Option<&str> {
        self.actions
            .iter()
            .find(|a| a.name.as_deref() == action)
            .map(|a| a.json.as_str())
    }
}

/// Every tool that declares an output somewhere, sorted by name.
pub(super) fn outputs_of(ir: &Ir) -> Vec<LockedOutput> {
    let mut out: Vec<LockedOutput> = ir
        .tools
        .iter()
        .filter_map(|t| {
            let actions: Vec<LockedActionOutput> = t
                .actions
                .iter()
                .filter_map(|a| {
                    Some(LockedActionOutput {
                        name: a.name.clone(),
                        json: crate::emit::action_output_schema(t, a.name.as_deref())?,
                    })
                })
                .collect();
            (!actions.is_empty()).then(|| LockedOutput {
                tool: t.name.clone(),
                published: crate::emit::published_output_schema(t),
                actions,
            })
        })
        .collect();
    out.sort_by(|a, b| a.tool.cmp(&b.tool));
    out
}

/// The `output` section of the lock file (nothing when no tool declares an output).
pub(super) fn render_outputs(outputs: &[LockedOutput], out: &mut String) {
    for o in outputs {
        out.push('\n');
        let _ = writeln!(
            out,
            "output {} {}",
            o.tool,
            o.published.as_deref().unwrap_or("-")
        );
        let plain = matches!(o.actions.as_slice(), [a] if a.name.is_none());
        if plain && o.published.is_some() {
            continue;
        }
        for a in &o.actions {
            let _ = writeln!(
                out,
                "  action {} {}",
                a.name.as_deref().unwrap_or("-"),
                a.json
            );
        }
    }
}

/// Checks that `text` is one JSON value (a hand edit that breaks it is refused by line).
fn json_text(text: &str, line: usize, what: &str) -> Result<String, LockError> {
    serde_json::from_str::<serde_json::Value>(text)
        .map_err(|e| err(line, format!("{what}: {e}")))?;
    Ok(text.to_owned())
}

/// An `output <tool> <json|->` line.
pub(super) fn parse_output(raw: &str, line: usize) -> Result<LockedOutput, LockError> {
    let (w, rest) = split(raw, 2).ok_or_else(|| err(line, "malformed `output` line"))?;
    let published = match rest {
        "-" => None,
        json => Some(json_text(json, line, "output")?),
    };
    Ok(LockedOutput {
        tool: w[1].to_owned(),
        published,
        actions: Vec::new(),
    })
}

/// An `  action <name|-> <json>` line under an `output` line.
pub(super) fn parse_output_action(
    o: &mut LockedOutput,
    inner: &str,
    line: usize,
) -> Result<(), LockError> {
    let (w, rest) = split(inner, 2).ok_or_else(|| err(line, "malformed output `action` line"))?;
    if w[0] != "action" {
        return Err(err(line, format!("unknown output entry `{}`", w[0])));
    }
    o.actions.push(LockedActionOutput {
        name: (w[1] != "-").then(|| w[1].to_owned()),
        json: json_text(rest, line, "output action")?,
    });
    Ok(())
}

/// After parsing: a plain tool's record (no action lines) is its single action's schema.
pub(super) fn finish_outputs(outputs: &mut [LockedOutput]) {
    for o in outputs.iter_mut() {
        if o.actions.is_empty()
            && let Some(json) = &o.published
        {
            o.actions.push(LockedActionOutput {
                name: None,
                json: json.clone(),
            });
        }
    }
    outputs.sort_by(|a, b| a.tool.cmp(&b.tool));
}
