//! The example check, part of every compile (so build.rs, `surface!` and `check` refuse the
//! same folders): every `examples:` entry is decoded with the generated `Call::parse` rules
//! (through the plan interpreter, [`super::interp::CallChecker`]) in every role × family the
//! tool is published in, resident or appended by a skill. A refused example is an error at the example's own `file:line:col` carrying
//! the refusal the model would get; an action without any example is a warning.

use std::collections::BTreeMap;

use serde_json::Value;

use super::Plan;
use super::interp::CallChecker;
use crate::diag::Diagnostic;
use crate::ir::{Ir, Tool};

/// The `example-refused` errors of a valid IR and its plan. (`no-example` warnings are
/// `check`'s and `lint`'s, `load::examples::missing_examples`: a missing example refuses no
/// folder.)
pub fn check_examples(ir: &Ir, plan: &Plan) -> Vec<Diagnostic> {
    let mut d = Vec::new();
    // Per tool, per example index: refusal text -> the scopes that gave it.
    let mut refusals: BTreeMap<(usize, usize, usize), BTreeMap<String, Vec<String>>> =
        BTreeMap::new();
    for surface in &ir.surfaces {
        let Ok(plain) = CallChecker::new(plan, &surface.role, &surface.family) else {
            continue;
        };
        let scope = format!("{} × {}", surface.role, surface.family);
        for t in &surface.tools {
            decode_tool(ir, &plain, &t.name, &scope, &mut refusals);
        }
        for skill in &surface.skills {
            let Ok(with_skill) = CallChecker::new(plan, &surface.role, &surface.family)
                .and_then(|c| c.with_skills(&[skill.skill.as_str()]))
            else {
                continue;
            };
            let scope = format!("{scope} with skill {}", skill.skill);
            for t in &skill.tools {
                decode_tool(ir, &with_skill, &t.name, &scope, &mut refusals);
            }
        }
    }
    for ((tool_ix, action_ix, example_ix), by_message) in refusals {
        let tool = &ir.tools[tool_ix];
        let example = &tool.actions[action_ix].examples[example_ix];
        for (message, scopes) in by_message {
            d.push(
                Diagnostic::error(
                    "example-refused",
                    Some(example.span),
                    format!(
                        "example {} of {} is refused: {message}",
                        example_ix + 1,
                        what(tool, action_ix)
                    ),
                )
                .with_hint(format!(
                    "as Call::parse answers on {}; fix the example or the declaration",
                    cut_list(&scopes)
                )),
            );
        }
    }
    d
}

fn what(tool: &Tool, action_ix: usize) -> String {
    crate::load::examples::action_subject(tool, action_ix)
}

/// At most three scopes, then how many more.
fn cut_list(scopes: &[String]) -> String {
    let shown: Vec<&str> = scopes.iter().take(3).map(String::as_str).collect();
    match scopes.len().saturating_sub(3) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

/// Decode every example of `name` in one scope: as the JSON object, and for a freeform tool
/// of this family whose example is just its freeform field, also as the raw text a grammar
/// tool receives.
fn decode_tool(
    ir: &Ir,
    checker: &CallChecker<'_>,
    name: &str,
    scope: &str,
    refusals: &mut BTreeMap<(usize, usize, usize), BTreeMap<String, Vec<String>>>,
) {
    let Some(tool_ix) = ir.tools.iter().position(|t| t.name == name) else {
        return;
    };
    let tool = &ir.tools[tool_ix];
    let freeform = tool
        .freeform
        .as_ref()
        .filter(|ff| ff.families.iter().any(|f| f == checker.family()));
    for (action_ix, action) in tool.actions.iter().enumerate() {
        for (example_ix, example) in action.examples.iter().enumerate() {
            let mut forms: Vec<Value> = vec![example.arguments.clone()];
            if let (Some(ff), Value::Object(args)) = (freeform, &example.arguments)
                && args.len() == 1
                && let Some(Value::String(raw)) = args.get(&ff.field)
            {
                forms.push(Value::String(raw.clone()));
            }
            for form in &forms {
                let refusal = match checker.check(name, form) {
                    Err(e) => Some(e.message),
                    Ok(checked) if checked.action != action.name.as_deref() => Some(format!(
                        "it calls action {} instead",
                        checked.action.unwrap_or("(none)")
                    )),
                    Ok(_) => None,
                };
                if let Some(message) = refusal {
                    let scopes = refusals
                        .entry((tool_ix, action_ix, example_ix))
                        .or_default()
                        .entry(message)
                        .or_default();
                    if !scopes.iter().any(|s| s == scope) {
                        scopes.push(scope.to_owned());
                    }
                }
            }
        }
    }
}
