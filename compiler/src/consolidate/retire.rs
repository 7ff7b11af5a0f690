//! `retire`: a tool leaves the surface. Its file goes, `retired.yaml` gains the entry a
//! model is shown when it still calls the name, roles and skills stop listing it, aliases
//! that led to it retire with it, and `tool("name")` references point at the first
//! replacement (when there is one). The message defaults to the tool's `replaceable_by:`.

use std::fmt::Write as _;

use super::merge::{Refusal, rewrite_lists_and_refs};
use super::render::{flow_list, scalar};
use super::{Plan, edit, replaceable, tool_path};
use crate::diag::Sources;
use crate::ir::Ir;

#[derive(Clone, Debug, Default)]
pub struct RetireRequest {
    pub name: String,
    pub message: Option<String>,
    pub replaced_by: Vec<String>,
}

pub fn plan_retire(ir: &Ir, sources: &Sources, req: &RetireRequest) -> Result<Plan, Refusal> {
    let Some(tool) = ir.tool(&req.name) else {
        let why = if ir.retired(&req.name).is_some() {
            format!("`{}` is already retired", req.name)
        } else {
            format!("`{}` is not a tool of this folder", req.name)
        };
        return Err(vec![why]);
    };
    let path = tool_path(&tool.name);
    let declared = sources
        .find(&path)
        .and_then(|id| sources.file(id).map(|f| (id, f)))
        .and_then(|(id, f)| replaceable::of_tool_text(id, &f.text));
    let message = match (&req.message, &declared) {
        (Some(m), _) => m.clone(),
        (None, Some(r)) => r.message.clone(),
        (None, None) => {
            return Err(vec![format!(
                "say what a model should do instead: --message \"…\" (or declare `replaceable_by:` in {path})"
            )]);
        }
    };
    if message.trim().is_empty() {
        return Err(vec!["--message is empty".to_owned()]);
    }
    let replaced_by: Vec<String> = if req.replaced_by.is_empty() {
        declared
            .map(|r| r.tools.into_iter().map(|t| t.v).collect())
            .unwrap_or_default()
    } else {
        req.replaced_by.clone()
    };
    let mut problems = Vec::new();
    for t in &replaced_by {
        if ir.tool(t).is_none() || *t == req.name {
            problems.push(format!("--replaced-by {t}: not a tool of this folder"));
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut plan = Plan::default();
    let aliases: Vec<&str> = ir
        .aliases
        .iter()
        .filter(|a| a.tool == req.name)
        .map(|a| a.name.as_str())
        .collect();
    if !aliases.is_empty()
        && let Some(text) = plan.text_of(sources, "aliases.yaml").map(str::to_owned)
    {
        let new = edit::remove_entries(&text, "aliases.yaml", &aliases).map_err(|e| vec![e])?;
        plan.put("aliases.yaml", new);
        plan.notes.push(format!(
            "aliases {} led to {}: retired with it (same message)",
            aliases.join(", "),
            req.name
        ));
    }
    let mut block = String::new();
    for n in std::iter::once(req.name.as_str()).chain(aliases.iter().copied()) {
        let _ = writeln!(block, "{n}:\n  message: {}", scalar(message.trim()));
        if !replaced_by.is_empty() {
            let _ = writeln!(block, "  replaced_by: {}", flow_list(&replaced_by));
        }
    }
    let retired = plan
        .text_of(sources, "retired.yaml")
        .unwrap_or("")
        .to_owned();
    plan.put("retired.yaml", edit::append_entries(&retired, &block));
    rewrite_lists_and_refs(
        sources,
        &[req.name.as_str()],
        None,
        // The family's shell when both shells replace it (`shell` and `exec_command` are
        // never in one surface), else the first replacement.
        if replaced_by.iter().any(|t| t == "shell")
            && replaced_by.iter().any(|t| t == "exec_command")
        {
            Some("shell_tool()")
        } else {
            replaced_by.first().map(String::as_str)
        },
        &mut plan,
    )?;
    plan.ledger = if replaced_by.is_empty() {
        format!("−1: {} retired: {}", req.name, message.trim())
    } else {
        format!(
            "−1: {} retired: {} [→ {}]",
            req.name,
            message.trim(),
            replaced_by.join(", ")
        )
    };
    Ok(plan)
}
