//! `examples:` per action (and per plain tool): argument objects as a model would send them.
//! Reading and the structural checks live here (each example is a mapping; on a tool with a
//! selector the example names its own action or leaves the selector out). Whether an example
//! is *accepted* is decided after lowering, by `plan::examples` (part of every compile), with
//! the generated `Call::parse` rules run by the plan interpreter: one parser, not two.

use crate::diag::{Diagnostic, Span};
use crate::ir::{Dialect, Example, Icon, OutputType, Publish, Tool};
use crate::load::model::{ActionDef, ToolDef};
use crate::load::read::{self, Diags, Sp, Struct};
use crate::load::yaml::{Node, Value};

/// One example as written: the mapping node (its entries in order).
#[derive(Clone, Debug, PartialEq)]
pub struct ExampleDef {
    pub node: Node,
}

/// `examples:` — a list of mappings. Anything else is reported and skipped.
pub fn read_examples(node: &Node, what: &str, d: &mut Diags) -> Vec<ExampleDef> {
    let Value::Seq(items) = &node.value else {
        d.push(
            read::wrong_type(
                node,
                &format!("examples of {what}"),
                "a list of argument objects",
            )
            .with_hint("examples:\n  - { path: src/main.rs }"),
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        match &item.value {
            Value::Map(_) => out.push(ExampleDef { node: item.clone() }),
            _ => d.push(read::wrong_type(
                item,
                &format!("an example of {what}"),
                "a mapping of arguments",
            )),
        }
    }
    out
}

/// The selector value an example writes, if any, with its span.
fn written_selector<'n>(example: &'n ExampleDef, selector: &str) -> Option<&'n Node> {
    match &example.node.value {
        Value::Map(entries) => entries
            .iter()
            .find(|(k, _)| k.as_str() == Some(selector))
            .map(|(_, v)| v),
        _ => None,
    }
}

/// Structural checks of one tool's examples: on a tool with a selector, an example that
/// writes the selector must name the action it is listed under (`example-action`); the
/// action it names must exist.
pub fn check_examples(tool: &ToolDef, d: &mut Diags) {
    let Some(sel) = &tool.selector else { return };
    let names: Vec<&str> = tool
        .actions
        .iter()
        .filter_map(|a| a.name.as_ref().map(|n| n.as_str()))
        .collect();
    for action in &tool.actions {
        let Some(aname) = &action.name else { continue };
        for ex in &action.examples {
            let Some(v) = written_selector(ex, sel.name.as_str()) else {
                continue;
            };
            match v.as_str() {
                Some(s) if s == aname.v => {}
                Some(s) if !names.contains(&s) => d.push(
                    Diagnostic::error(
                        "example-action",
                        Some(v.span),
                        format!(
                            "example for unknown action `{s}` (tool `{}` has {})",
                            tool.name.v,
                            names.join(", ")
                        ),
                    )
                    .with_hint(
                        crate::diag::did_you_mean(s, names.iter().copied()).unwrap_or_else(|| {
                            format!(
                                "list it under the action it calls, or leave `{}` out",
                                sel.name.v
                            )
                        }),
                    ),
                ),
                Some(s) => d.push(
                    Diagnostic::error(
                        "example-action",
                        Some(v.span),
                        format!(
                            "an example listed under action `{}` calls action `{s}`",
                            aname.v
                        ),
                    )
                    .with_hint(format!(
                        "move it under `actions: {s}: examples:`, or leave `{}` out",
                        sel.name.v
                    )),
                ),
                None => d.push(read::wrong_type(
                    v,
                    &format!("the `{}` of an example", sel.name.v),
                    "an action name",
                )),
            }
        }
    }
}

/// The IR examples of `action`: each mapping as JSON, the selector first (filled in from the
/// action's name when the example leaves it out).
pub fn lower_examples(action: &ActionDef, selector: Option<&str>) -> Vec<Example> {
    action
        .examples
        .iter()
        .map(|ex| {
            let mut args = serde_json::Map::new();
            if let (Some(sel), Some(name)) = (selector, &action.name) {
                args.insert(sel.to_owned(), serde_json::Value::String(name.v.clone()));
            }
            if let serde_json::Value::Object(written) = ex.node.to_json() {
                for (k, v) in written {
                    if selector == Some(k.as_str()) {
                        continue;
                    }
                    args.insert(k, v);
                }
            }
            Example {
                arguments: serde_json::Value::Object(args),
                span: example_span(ex),
            }
        })
        .collect()
}

/// Where an example is reported: its first key (the mapping's own span covers the whole
/// flow or block mapping, whose start is that key's position).
fn example_span(ex: &ExampleDef) -> Span {
    match &ex.node.value {
        Value::Map(entries) => entries.first().map(|(k, _)| k.span).unwrap_or(ex.node.span),
        _ => ex.node.span,
    }
}

/// A family's publishing switches (`input_examples`, `examples_in_description`,
/// `output_schema`), defaults from [`Publish::default_for`] its dialect.
pub fn read_publish(f: &Struct<'_>, dialect: Option<Dialect>, d: &mut Diags) -> Publish {
    let mut publish = dialect.map(Publish::default_for).unwrap_or_default();
    for (key, slot) in [
        ("input_examples", &mut publish.input_examples),
        (
            "examples_in_description",
            &mut publish.examples_in_description,
        ),
        ("output_schema", &mut publish.output_schema),
        (
            "parameters_json_schema",
            &mut publish.parameters_json_schema,
        ),
    ] {
        if let Some(v) = f.get(key).and_then(|n| read::boolean(n, key, d)) {
            *slot = v;
        }
    }
    let misplaced = |key: &str| {
        let takes = |x: &dyn crate::dialect::DialectRules| x.publish_keys().contains(&key);
        f.key_span(key)
            .filter(|_| dialect.is_some_and(|x| !takes(crate::dialect::rules(x))))
            .map(|span| {
                Diagnostic::error(
                    "misplaced-key",
                    Some(span),
                    format!(
                        "`{key}` applies only to the {} dialect",
                        crate::dialect::names_where(takes)
                    ),
                )
                .with_hint(match key {
                    "input_examples" => {
                        "other dialects can show examples with `examples_in_description: true`"
                    }
                    "parameters_json_schema" => "only Gemini has two parameter keys",
                    _ => "MCP always publishes `outputSchema`; other dialects have no slot for it",
                })
            })
    };
    for key in ["input_examples", "output_schema", "parameters_json_schema"] {
        d.extend(misplaced(key));
    }
    publish
}

/// An action's (or a plain tool's) `examples:`, and for actions of a selector tool their own
/// `output:`.
pub fn read_action_extras(
    s: &Struct<'_>,
    what: &str,
    with_output: bool,
    action: &mut ActionDef,
    cx: &mut super::shapes::ShapeCx<'_>,
    d: &mut Diags,
) {
    if let Some(n) = s.get("examples") {
        action.examples = read_examples(n, what, d);
    }
    if with_output && let Some(n) = s.get("output") {
        action.output = super::output::read_output_root(n, &format!("the output of {what}"), cx, d);
    }
}

/// The tool-level `output:` and `icon:` (one or a list); `examples:` at the top of a tool with a selector
/// is misplaced (examples belong to the action they call).
pub fn read_tool_extras(
    t: &Struct<'_>,
    name: &Sp<String>,
    cx: &mut super::shapes::ShapeCx<'_>,
    d: &mut Diags,
) -> (Option<OutputType>, Vec<Icon>) {
    if t.get("selector").is_some()
        && let Some(span) = t.key_span("examples")
    {
        d.push(
            Diagnostic::error(
                "misplaced-key",
                Some(span),
                "`examples` of a tool with actions belong under each action",
            )
            .with_hint("actions: { poll: { examples: [ { session_id: 3 } ] } }"),
        );
    }
    let output = t.get("output").and_then(|n| {
        super::output::read_output_root(n, &format!("the output of tool `{}`", name.v), cx, d)
    });
    let icons = match t.get("icon") {
        Some(crate::load::yaml::Node {
            value: crate::load::yaml::Value::Seq(items),
            ..
        }) => items
            .iter()
            .filter_map(|n| super::output::read_icon(n, d))
            .collect(),
        Some(n) => super::output::read_icon(n, d).into_iter().collect(),
        None => Vec::new(),
    };
    (output, icons)
}

/// "tool `shell_session` action=poll", or "tool `shell`" for a plain tool: how example
/// diagnostics name the action they are about.
pub fn action_subject(tool: &Tool, action_ix: usize) -> String {
    match (
        &tool.selector,
        tool.actions.get(action_ix).and_then(|a| a.name.as_ref()),
    ) {
        (Some(sel), Some(a)) => format!("tool `{}` {}={a}", tool.name, sel.name),
        _ => format!("tool `{}`", tool.name),
    }
}

/// The code of the `no-example` rule (lint reports it as its own finding, so the CLI's
/// compile step before lint leaves it out).
pub const NO_EXAMPLE: &str = "no-example";

/// The `no-example` rule, declared once: a warning for every action (or plain tool) of `tools`
/// without an example, at the action. `check` (through the facade's example validation) and
/// `lint` both report exactly these.
pub fn missing_examples<'t>(tools: impl IntoIterator<Item = &'t Tool>) -> Vec<Diagnostic> {
    let mut d = Vec::new();
    // A hosted tool's calls are the provider's to define: nothing to exemplify here.
    for tool in tools.into_iter().filter(|t| t.hosted.is_none()) {
        for (i, action) in tool.actions.iter().enumerate() {
            if action.examples.is_empty() {
                d.push(
                    Diagnostic::warning(
                        NO_EXAMPLE,
                        Some(action.span),
                        format!("{} has no example", action_subject(tool, i)),
                    )
                    .with_hint(match &action.name {
                        Some(_) => {
                            "add `examples: [ { ... } ]` to the action: one call a model could send"
                        }
                        None => {
                            "add `examples: [ { ... } ]` to the tool: one call a model could send"
                        }
                    }),
                );
            }
        }
    }
    d
}
