//! `defaults:` of an action: its own default for a field it takes, over the field's
//! `default:`. Checked like a field's default, lowered into that action's plan field, published
//! only where every action taking the field agrees, recorded on the lock's action and judged by
//! `diff` per action.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use toolsurface_compiler::diag::{Diagnostic, render_all};
use toolsurface_compiler::diff::{Options, Verdict, diff};
use toolsurface_compiler::emit;
use toolsurface_compiler::lock::Lock;
use toolsurface_compiler::{Ir, Sources};

use crate::support::{self, RUNTIME_TRAITS};

const SURFACE: &str = r#"
families:
  chat: { dialect: openai-chat }
  strict: { dialect: openai-chat, strict: true }
traits:
"#;

/// `reader`: `limit` shared by `lines` and `chars`, with `{field}` as the field's extra keys
/// and `{lines}` / `{chars}` as each action's extra keys.
fn reader(field: &str, lines: &str, chars: &str) -> String {
    format!(
        r#"name: reader
object: text
description: Read text.
selector: {{ name: mode, description: What to read }}
fields:
  id: {{ type: string, description: The text }}
  limit: {{ type: integer, minimum: 1, maximum: 100000, description: "lines: N lines; chars: N characters"{field} }}
actions:
  lines:
    description: By line.
    required: [id]
    optional: [limit]
    examples: [{{ id: a }}]{lines}
  chars:
    description: By character.
    required: [id]
    optional: [limit]
    examples: [{{ id: a }}]{chars}
"#
    )
}

fn compiled(tool: &str) -> (Vec<Diagnostic>, Option<Ir>, Sources) {
    let surface = format!("{}{}", SURFACE.trim_start(), RUNTIME_TRAITS);
    support::compile(&[
        ("roles.yaml", "r:\n  description: R.\n  tools: [reader]\n"),
        ("surface.yaml", &surface),
        ("tools/reader.yaml", tool),
    ])
}

fn ir(tool: &str) -> Ir {
    let surface = format!("{}{}", SURFACE.trim_start(), RUNTIME_TRAITS);
    support::ir(&[
        ("roles.yaml", "r:\n  description: R.\n  tools: [reader]\n"),
        ("surface.yaml", &surface),
        ("tools/reader.yaml", tool),
    ])
}

/// The diagnostics of `tool`, rendered (it must not compile).
fn refused(tool: &str) -> String {
    let (diags, ir, s) = compiled(tool);
    assert!(ir.is_none(), "compiled: {tool}");
    render_all(&diags, &s)
}

/// The published `limit` property of `reader` in `family`.
fn published_limit(ir: &Ir, family: &str) -> Value {
    let e = emit::surfaces(ir).unwrap();
    let e = e.iter().find(|e| e.family == family).unwrap();
    let tools: Value = serde_json::from_str(&e.bytes).unwrap();
    tools[0]["function"]["parameters"]["properties"]["limit"].clone()
}

/// Each action's `FieldPlan.default` of `limit`, in action order.
fn planned(ir: &Ir) -> Vec<Option<Value>> {
    let plan = toolsurface_compiler::plan::lower(ir).unwrap();
    let tool = plan.tools.iter().find(|t| t.name == "reader").unwrap();
    tool.actions
        .iter()
        .map(|a| {
            let f = a.object.fields.iter().find(|f| f.name == "limit").unwrap();
            f.default.clone()
        })
        .collect()
}

#[test]
fn an_actions_default_overrides_the_fields_for_that_action_only() {
    let ir = ir(&reader(
        ", default: 50",
        "",
        "\n    defaults: { limit: 4000 }",
    ));
    let tool = ir.tool("reader").unwrap();
    let chars = tool.action("chars").unwrap();
    assert_eq!(chars.defaults["limit"], json!(4000));
    assert_eq!(tool.default_in(chars, "limit"), Some(&json!(4000)));
    assert_eq!(
        tool.default_in(tool.action("lines").unwrap(), "limit"),
        Some(&json!(50))
    );
    // The plan (what the Rust conversion and the TypeScript / Python hosts read) per action.
    assert_eq!(planned(&ir), [Some(json!(50)), Some(json!(4000))]);
    // Without a field default, an action without its own has none.
    let ir = ir_of_own_only();
    assert_eq!(planned(&ir), [None, Some(json!(4000))]);
}

fn ir_of_own_only() -> Ir {
    ir(&reader("", "", "\n    defaults: { limit: 4000 }"))
}

#[test]
fn a_default_for_a_field_the_action_does_not_take_is_refused_with_its_span() {
    let text = refused(&reader("", "", "\n    defaults: { limt: 10, id: x }"));
    assert!(
        text.contains("tools/reader.yaml:19:17: error[undeclared-field]: `defaults` of action `chars` uses field `limt`, which tool `reader` does not declare"),
        "{text}"
    );
    assert!(text.contains("did you mean limit?"), "{text}");
    // `id` is declared and taken, but required: a default never applies.
    assert!(
        text.contains("tools/reader.yaml:19:27: error[bad-action-default]: `id` is required by action `chars`, so a default of it never applies"),
        "{text}"
    );
    // A field of the tool this action does not take.
    let tool = reader("", "", "\n    defaults: { limit: 10 }").replace(
        "    required: [id]\n    optional: [limit]\n    examples: [{ id: a }]\n    defaults",
        "    required: [id]\n    examples: [{ id: a }]\n    defaults",
    );
    let text = refused(&tool);
    assert!(
        text.contains("error[bad-action-default]: action `chars` does not take field `limit`"),
        "{text}"
    );
    assert!(text.contains("add it to the action's `optional`"), "{text}");
    // Not a mapping; and no `defaults:` at the tool level (a field's `default:` is that).
    let text = refused(&reader("", "", "\n    defaults: [limit]"));
    assert!(text.contains("error[wrong-type]"), "{text}");
    let text = refused(&format!("{}defaults: {{ limit: 1 }}\n", reader("", "", "")));
    assert!(text.contains("error[unknown-key]"), "{text}");
}

#[test]
fn a_default_of_the_wrong_type_is_refused_like_a_fields() {
    let text = refused(&reader("", "", "\n    defaults: { limit: many }"));
    assert!(
        text.contains("tools/reader.yaml:19:24: error[bad-default]: `defaults.limit` of action `chars` is a value of the wrong type: expected an integer, found a string"),
        "{text}"
    );
    let text = refused(&reader("", "", "\n    defaults: { limit: 0 }"));
    assert!(
        text.contains("error[bad-default]: `defaults.limit` of action `chars` is a value (0) outside the field's bounds"),
        "{text}"
    );
    // A field's own `default:` is refused with the same check.
    let text = refused(&reader(", default: many", "", ""));
    assert!(text.contains("error[bad-default]"), "{text}");
}

#[test]
fn a_shared_default_is_published_and_differing_ones_are_not() {
    // Every action the same (the field's, or the same own entry): published.
    let same = ir(&reader(
        ", default: 50",
        "",
        "\n    defaults: { limit: 50 }",
    ));
    assert_eq!(published_limit(&same, "chat")["default"], json!(50));
    let both_own = ir(&reader(
        "",
        "\n    defaults: { limit: 7 }",
        "\n    defaults: { limit: 7 }",
    ));
    assert_eq!(published_limit(&both_own, "chat")["default"], json!(7));
    // One differs: no `default` at all, and nothing added to the description.
    let differ = ir(&reader(
        ", default: 50",
        "",
        "\n    defaults: { limit: 4000 }",
    ));
    let limit = published_limit(&differ, "chat");
    assert!(limit.get("default").is_none(), "{limit}");
    assert_eq!(
        limit["description"],
        "lines/chars: lines: N lines; chars: N characters"
    );
    // Only one action with a default, the other without: they differ too.
    let limit = published_limit(&ir_of_own_only(), "chat");
    assert!(limit.get("default").is_none(), "{limit}");
    // Strict style publishes no default either way.
    assert!(published_limit(&same, "strict").get("default").is_none());
}

fn lock(tool: &str) -> Lock {
    let ir = ir(tool);
    let emitted = emit::surfaces(&ir).unwrap();
    Lock::build(&ir, &emitted, None)
}

fn findings(a: &Lock, b: &Lock) -> Vec<(String, Verdict, String)> {
    diff(a, b, None, &Options::default(), "a", "b")
        .findings
        .into_iter()
        .filter(|f| f.rule == "default-changed")
        .map(|f| (f.id, f.verdict, f.message))
        .collect()
}

#[test]
fn the_lock_records_an_actions_default() {
    let l = lock(&reader("", "", "\n    defaults: { limit: 4000 }"));
    let text = l.render();
    let chars = text
        .lines()
        .find(|l| l.starts_with("  action chars "))
        .unwrap();
    assert!(chars.contains(r#""defaults":{"limit":4000}"#), "{chars}");
    let lines = text
        .lines()
        .find(|l| l.starts_with("  action lines "))
        .unwrap();
    assert!(!lines.contains("defaults"), "{lines}");
    // Read back as written.
    assert_eq!(Lock::parse(&text).unwrap(), l);
}

#[test]
fn diff_judges_an_actions_default_per_action() {
    let own = |n: u32| reader("", "", &format!("\n    defaults: {{ limit: {n} }}"));
    let (none, a4000, a5000) = (
        lock(&reader("", "", "")),
        lock(&own(4000)),
        lock(&own(5000)),
    );
    // Changed: breaking, reported under the action.
    assert_eq!(
        findings(&a4000, &a5000),
        [(
            "default-changed/r/reader/chars/limit".to_owned(),
            Verdict::Breaking,
            "reader chars: limit default 4000 → 5000".to_owned()
        )]
    );
    // Added: compatible; removed: breaking.
    assert_eq!(
        findings(&none, &a4000),
        [(
            "default-changed/r/reader/chars/limit".to_owned(),
            Verdict::Compatible,
            "reader chars: limit default none → 4000".to_owned()
        )]
    );
    assert_eq!(findings(&a4000, &none)[0].1, Verdict::Breaking);
    // An action's own default over the field's: the action that changes is the one reported.
    let field50 = lock(&reader(", default: 50", "", ""));
    let over = lock(&reader(
        ", default: 50",
        "",
        "\n    defaults: { limit: 4000 }",
    ));
    assert_eq!(
        findings(&field50, &over),
        [(
            "default-changed/r/reader/chars/limit".to_owned(),
            Verdict::Breaking,
            "reader chars: limit default 50 → 4000".to_owned()
        )]
    );
    // The field's default moved into every action, unchanged: no finding (and no byte moves).
    let moved = lock(&reader(
        "",
        "\n    defaults: { limit: 50 }",
        "\n    defaults: { limit: 50 }",
    ));
    let d = diff(&field50, &moved, None, &Options::default(), "a", "b");
    assert!(d.findings.is_empty(), "{:?}", d.findings);
    // A field default changed under actions without their own: one finding for the field.
    let field60 = lock(&reader(", default: 60", "", ""));
    assert_eq!(
        findings(&field50, &field60),
        [(
            "default-changed/r/reader/limit".to_owned(),
            Verdict::Breaking,
            "reader.limit: default 50 → 60".to_owned()
        )]
    );
}
