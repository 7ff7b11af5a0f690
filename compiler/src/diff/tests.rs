//! Unit tests of the diff on the standard surface and the consolidation case.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::lock::Lock;

fn lock_of(dir: &str) -> Lock {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(dir);
    let sources = crate::read_dir(&root).unwrap();
    let ir = crate::compile(&sources).ir.unwrap();
    let emitted = crate::emit::surfaces(&ir).unwrap();
    Lock::build(&ir, &emitted, None)
}

#[test]
fn same_surface_has_no_findings() {
    let a = lock_of("tool-defs");
    let d = diff(&a, &a, None, &Options::default(), "a", "b");
    assert!(d.findings.is_empty(), "{:?}", d.findings);
    assert!(d.ledgers.is_empty());
    assert_eq!(d.worst(), None);
}

#[test]
fn consolidation_ledger_is_minus_18_on_every_family() {
    let a = lock_of("examples/consolidation/before");
    let b = lock_of("tool-defs");
    let opts = Options {
        role: Some("side_chat".into()),
        family: None,
    };
    let d = diff(&a, &b, None, &opts, "before", "after");
    let l = &d.ledgers[0];
    assert_eq!(l.net(), -18);
    assert_eq!(l.retired.len(), 6);
    let deltas: Vec<i64> = l.merges.iter().map(|m| m.delta).collect();
    assert_eq!(deltas.iter().sum::<i64>(), -12, "{deltas:?}");
    for f in &l.families {
        assert_eq!(f.tools.1 as i64 - f.tools.0 as i64, -18, "{}", f.family);
    }
}

#[test]
fn literal_alternations() {
    assert_eq!(
        compat::literal_alternation("^(?:tools|skills|hosts)$"),
        Some(vec!["tools".into(), "skills".into(), "hosts".into()])
    );
    assert_eq!(compat::literal_alternation("^[a-z]+$"), None);
}

/// A one-role, one-family surface with `tools` (file stem → YAML) and `extra` files.
fn small(tools: &[(&str, &str)], extra: &[(&str, &str)]) -> Lock {
    let mut files = vec![
        crate::SourceFile::new(
            "surface.yaml",
            "families:\n  chat: { dialect: openai-chat }\ntraits:\n  parallel_safe: { type: bool, default: false, doc: \"p\" }\n  follow_up: { type: bool, default: false, doc: \"f\" }\n  poll: { type: bool, default: false, doc: \"o\" }\n  read_only: { type: bool, default: false, doc: \"r\" }\n  result_on_interrupt: { type: bool, default: false, doc: \"i\" }\n",
        ),
        crate::SourceFile::new(
            "roles.yaml",
            format!(
                "r:\n  description: R.\n  tools: [{}]\n",
                tools.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
            ),
        ),
    ];
    for (n, body) in tools {
        files.push(crate::SourceFile::new(
            format!("tools/{n}.yaml"),
            format!("name: {n}\nobject: thing\ndescription: A thing.\n{body}"),
        ));
    }
    for (p, t) in extra {
        files.push(crate::SourceFile::new(*p, *t));
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let sources = crate::Sources {
        root: "t".into(),
        files,
    };
    let compiled = crate::compile(&sources);
    let ir = compiled.ir.unwrap_or_else(|| {
        panic!(
            "{}",
            crate::diag::render_all(&compiled.diagnostics, &sources)
        )
    });
    let emitted = crate::emit::surfaces(&ir).unwrap();
    Lock::build(&ir, &emitted, None)
}

fn verdicts(a: &Lock, b: &Lock) -> Vec<(String, Verdict)> {
    diff(a, b, None, &Options::default(), "a", "b")
        .findings
        .into_iter()
        .map(|f| (f.id, f.verdict))
        .collect()
}

const SEL: &str = "selector:\n  name: action\n  description: What.\nfields:\n  n:\n    type: integer\n    description: N.\nactions:\n  get:\n    required: [n]\n  put:\n    optional: [n]\n";

#[test]
fn selector_and_action_rules() {
    let a = small(&[("t", SEL)], &[]);
    let renamed = small(&[("t", &SEL.replace("name: action", "name: op"))], &[]);
    assert!(verdicts(&a, &renamed).contains(&("selector-renamed/r/t".into(), Verdict::Breaking)));
    let no_put = small(
        &[("t", &SEL.replace("  put:\n    optional: [n]\n", ""))],
        &[],
    );
    assert!(verdicts(&a, &no_put).contains(&("action-removed/r/t/put".into(), Verdict::Breaking)));
    let back = verdicts(&no_put, &a);
    assert!(
        back.contains(&("action-added/r/t/put".into(), Verdict::Compatible)),
        "{back:?}"
    );
    assert!(
        back.iter().all(|(_, v)| *v == Verdict::Compatible),
        "{back:?}"
    );
}

#[test]
fn type_rules() {
    let int = "fields:\n  x:\n    type: integer\n    description: X.\n";
    let num = "fields:\n  x:\n    type: number\n    description: X.\n";
    let (i, n) = (small(&[("t", int)], &[]), small(&[("t", num)], &[]));
    assert!(verdicts(&i, &n).contains(&("type-widened/r/t/x".into(), Verdict::Compatible)));
    assert!(verdicts(&n, &i).contains(&("type-narrowed/r/t/x".into(), Verdict::Breaking)));
    let p1 = "fields:\n  x:\n    type: string\n    pattern: '^[a-z]+$'\n    description: X.\n";
    let p2 = "fields:\n  x:\n    type: string\n    pattern: '^[a-z0-9]+$'\n    description: X.\n";
    let v = verdicts(&small(&[("t", p1)], &[]), &small(&[("t", p2)], &[]));
    assert!(
        v.contains(&("pattern-changed/r/t/x/pattern".into(), Verdict::Unknown)),
        "{v:?}"
    );
    let lit = "fields:\n  x:\n    type: string\n    pattern: '^(?:a|b)$'\n    description: X.\n";
    let v = verdicts(&small(&[("t", lit)], &[]), &small(&[("t", p1)], &[]));
    assert!(
        v.contains(&("pattern-changed/r/t/x/pattern".into(), Verdict::Compatible)),
        "{v:?}"
    );
    let e = "fields:\n  x:\n    type: enum\n    values: [a, b]\n    description: X.\n";
    let v = verdicts(&small(&[("t", e)], &[]), &small(&[("t", lit)], &[]));
    assert!(
        v.contains(&("type-widened/r/t/x".into(), Verdict::Compatible)),
        "{v:?}"
    );
}

#[test]
fn retired_and_aliased_removals_are_compatible() {
    let plain = "fields:\n  n:\n    type: integer\n    description: N.\nrequired: [n]\n";
    let a = small(&[("t", SEL), ("old_get", plain), ("gone", plain)], &[]);
    let b = small(
        &[("t", SEL)],
        &[
            (
                "aliases.yaml",
                "old_get:\n  tool: t\n  set: { action: get }\n",
            ),
            ("retired.yaml", "gone:\n  message: Use t.\n"),
        ],
    );
    let d = diff(&a, &b, None, &Options::default(), "a", "b");
    assert_eq!(d.worst(), Some(Verdict::Compatible), "{:?}", d.findings);
    let msgs: Vec<&str> = d.findings.iter().map(|f| f.message.as_str()).collect();
    assert!(
        msgs.contains(&"old_get: merged into t {action: get}"),
        "{msgs:?}"
    );
    assert!(msgs.contains(&"gone: retired: Use t."), "{msgs:?}");
    let l = &d.ledgers[0];
    assert_eq!((l.before, l.after, l.net()), (3, 1, -2));
    // Without the retired entry the removal breaks old transcripts.
    let c = small(
        &[("t", SEL)],
        &[(
            "aliases.yaml",
            "old_get:\n  tool: t\n  set: { action: get }\n",
        )],
    );
    assert!(verdicts(&a, &c).contains(&("tool-removed/r/gone".into(), Verdict::Breaking)));
}

/// A one-field tool `t` whose field `x` has the type written in `ty` (YAML lines under `x:`).
fn field_of(ty: &str) -> Lock {
    let body = format!("fields:\n  x:\n{ty}    description: X.\n");
    small(&[("t", &body)], &[])
}

#[test]
fn kind_member_and_bound_rules() {
    let has = |a: &str, b: &str, id: &str, v: Verdict| {
        let found = verdicts(&field_of(a), &field_of(b));
        assert!(found.contains(&(id.into(), v)), "{a} -> {b}: {found:?}");
    };
    let boolean = "    type: boolean\n";
    let string = "    type: string\n";
    let ab = "    type: enum\n    values: [a, b]\n";
    let abc = "    type: enum\n    values: [a, b, c]\n";
    let only_a = "    type: string\n    pattern: '^a$'\n";
    has(boolean, string, "type-changed/r/t/x", Verdict::Breaking);
    has(string, ab, "type-narrowed/r/t/x", Verdict::Breaking);
    has(ab, only_a, "type-narrowed/r/t/x", Verdict::Breaking);
    has(abc, ab, "enum-value-removed/r/t/x/c", Verdict::Breaking);
    has(ab, abc, "enum-value-added/r/t/x/c", Verdict::Compatible);
    has(
        string,
        only_a,
        "pattern-added/r/t/x/pattern",
        Verdict::Breaking,
    );
    has(
        only_a,
        string,
        "pattern-removed/r/t/x/pattern",
        Verdict::Compatible,
    );
    let lits = "    type: string\n    pattern: '^(?:a|b)$'\n";
    has(
        lits,
        only_a,
        "pattern-changed/r/t/x/pattern",
        Verdict::Breaking,
    );
    let arr = |min: u32, max: u32| {
        format!(
            "    type: array\n    items: {{ type: integer, minimum: {min} }}\n    max_items: {max}\n"
        )
    };
    has(
        &arr(1, 4),
        &arr(1, 8),
        "bound-widened/r/t/x/max_items",
        Verdict::Compatible,
    );
    has(
        &arr(1, 4),
        &arr(1, 2),
        "bound-narrowed/r/t/x/max_items",
        Verdict::Breaking,
    );
    has(
        &arr(1, 4),
        &arr(2, 4),
        "bound-narrowed/r/t/x[]/minimum",
        Verdict::Breaking,
    );
    let obj = |props: &str, required: &str| {
        format!("    type: object\n    properties: {{ {props} }}\n    required: [{required}]\n")
    };
    let p = |n: &str| format!("{n}: {{ type: string, description: P. }}");
    let old = obj(&format!("{}, {}", p("a"), p("b")), "a");
    has(
        &old,
        &obj(&p("a"), "a"),
        "field-removed/r/t/x.b",
        Verdict::Breaking,
    );
    let both = obj(&format!("{}, {}", p("a"), p("b")), "a, b");
    has(&old, &both, "required-added/r/t/x.b", Verdict::Breaking);
    let with_c = |req: &str| obj(&format!("{}, {}, {}", p("a"), p("b"), p("c")), req);
    has(
        &old,
        &with_c("a, c"),
        "required-added/r/t/x.c",
        Verdict::Breaking,
    );
    has(
        &old,
        &with_c("a"),
        "field-added/r/t/x.c",
        Verdict::Compatible,
    );
}

#[test]
fn selector_presence_route_and_trait_rules() {
    let plain = "fields:\n  n:\n    type: integer\n    description: N.\nrequired: [n]\n";
    let (sel, one) = (small(&[("t", SEL)], &[]), small(&[("t", plain)], &[]));
    assert!(verdicts(&sel, &one).contains(&("selector-removed/r/t".into(), Verdict::Breaking)));
    assert!(verdicts(&one, &sel).contains(&("selector-added/r/t".into(), Verdict::Breaking)));
    let local = small(&[("t", &format!("route: local\n{plain}"))], &[]);
    let v = verdicts(&one, &local);
    assert!(
        v.contains(&("route-changed/r/t".into(), Verdict::Compatible)),
        "{v:?}"
    );
    let safe = small(
        &[("t", &format!("{plain}traits: {{ parallel_safe: true }}\n"))],
        &[],
    );
    let v = verdicts(&one, &safe);
    assert!(
        v.contains(&(
            "trait-changed/r/t/parallel_safe".into(),
            Verdict::Compatible
        )),
        "{v:?}"
    );
}

/// A plain tool `t` whose `output:` is `out` (YAML lines under `output:`).
fn output_of(out: &str) -> Lock {
    let body = format!("fields: {{}}\noutput:\n{out}");
    small(&[("t", &body)], &[])
}

#[test]
fn output_rules_judge_from_the_reader_side() {
    let has = |a: &str, b: &str, id: &str, v: Verdict| {
        let found = verdicts(&output_of(a), &output_of(b));
        assert!(found.contains(&(id.into(), v)), "{a} -> {b}: {found:?}");
    };
    let obj = |props: &str, required: &str| {
        format!("  type: object\n  properties:\n{props}  required: [{required}]\n")
    };
    let n = "    n: { type: integer, description: N. }\n";
    let m = "    m: { type: string, description: M. }\n";
    let n_null = "    n: { type: integer, nullable: true, description: N. }\n";
    let k_ab = "    k: { type: enum, values: [a, b], description: K. }\n";
    let k_abc = "    k: { type: enum, values: [a, b, c], description: K. }\n";
    let both = format!("{n}{m}");
    has(
        &obj(&both, "n, m"),
        &obj(n, "n"),
        "output-field-removed/r/t/-/m",
        Verdict::Breaking,
    );
    has(
        &obj(n, "n"),
        &obj(&both, "n, m"),
        "output-field-added/r/t/-/m",
        Verdict::Compatible,
    );
    has(
        &obj(n, "n"),
        &obj(n, ""),
        "output-field-now-optional/r/t/-/n",
        Verdict::Breaking,
    );
    has(
        &obj(n, ""),
        &obj(n, "n"),
        "output-field-now-required/r/t/-/n",
        Verdict::Compatible,
    );
    has(
        &obj(n, "n"),
        &obj(n_null, "n"),
        "output-type-widened/r/t/-/n",
        Verdict::Breaking,
    );
    has(
        &obj(n_null, "n"),
        &obj(n, "n"),
        "output-type-narrowed/r/t/-/n",
        Verdict::Compatible,
    );
    has(
        &obj(k_ab, "k"),
        &obj(k_abc, "k"),
        "output-enum-value-added/r/t/-/k",
        Verdict::Breaking,
    );
    has(
        &obj(k_abc, "k"),
        &obj(k_ab, "k"),
        "output-enum-value-removed/r/t/-/k",
        Verdict::Compatible,
    );
    // A keyword kept verbatim (`json_schema:`) is read by no typed reader: compatible.
    let m_dated = "    m: { type: string, description: M., json_schema: { format: date-time } }\n";
    let m_dated_too = "    m: { type: string, description: M., json_schema: { format: date } }\n";
    for (a, b) in [(m, m_dated), (m_dated, m_dated_too), (m_dated, m)] {
        has(
            &obj(a, "m"),
            &obj(b, "m"),
            "output-keyword-changed/r/t/-/m",
            Verdict::Compatible,
        );
    }
    let m_int = "    m: { type: integer, description: M. }\n";
    has(
        &obj(m, "m"),
        &obj(m_int, "m"),
        "output-type-changed/r/t/-/m",
        Verdict::Breaking,
    );
    // Union shapes: one added is breaking, one dropped is not.
    let union = |shapes: &[&str]| {
        let mut s = String::from("  any_of:\n");
        for p in shapes {
            s.push_str(&format!(
                "    - {{ type: object, properties: {{ {p} }}, required: [{}] }}\n",
                p.split(':').next().unwrap()
            ));
        }
        s
    };
    let a = "a: { type: string, description: A. }";
    let b = "b: { type: string, description: B. }";
    let c = "c: { type: string, description: C. }";
    has(
        &union(&[a, b]),
        &union(&[a, b, c]),
        "output-shape-added/r/t/-",
        Verdict::Breaking,
    );
    has(
        &union(&[a, b, c]),
        &union(&[a, b]),
        "output-shape-removed/r/t/-",
        Verdict::Compatible,
    );
    // Declaring an output is compatible; removing one breaks result readers.
    let none = small(&[("t", "fields: {}\n")], &[]);
    let some = output_of(&obj(n, "n"));
    assert!(verdicts(&none, &some).contains(&("output-added/r/t/-".into(), Verdict::Compatible)));
    assert!(verdicts(&some, &none).contains(&("output-removed/r/t/-".into(), Verdict::Breaking)));
    // The published schema's bytes and tokens before → after; no tool array changes.
    let d = diff(
        &some,
        &output_of(&obj(&both, "n, m")),
        None,
        &Options::default(),
        "a",
        "b",
    );
    assert_eq!(d.outputs.len(), 1);
    let (before, after) = (
        d.outputs[0].before.as_ref().unwrap(),
        d.outputs[0].after.as_ref().unwrap(),
    );
    assert!(
        after.bytes > before.bytes && after.tokens > before.tokens,
        "{:?}",
        d.outputs
    );
    assert!(
        d.surfaces
            .iter()
            .all(|s| s.status == SurfaceStatus::Unchanged)
    );
    assert!(render::text(&d, false).contains(
        "output schemas (MCP outputSchema; Responses/Gemini where published): 1 change\n  t: "
    ));
    // An output change is an unlocked change: `check` sees the lock differ.
    assert!(!some.same_surface(&output_of(&obj(&both, "n, m"))));
}

#[test]
fn sandbox_loosening_is_breaking_and_tightening_compatible() {
    use crate::ir::{SandboxDevices, SandboxProfile};
    let a = lock_of("tool-defs");
    // The lock text keeps every role's policy.
    let reread = Lock::parse(&a.render()).unwrap();
    assert_eq!(reread.sandboxes, a.sandboxes);
    assert_eq!(a.sandboxes.len(), 4);
    let mut b = a.clone();
    for s in &mut b.sandboxes {
        match s.role.as_str() {
            // Loosened: network off -> on, devices none -> read-write, profile up.
            "steward" => {
                s.policy.network = true;
                s.policy.devices = SandboxDevices::ReadWrite;
                s.policy.profile = SandboxProfile::Full;
            }
            // Tightened: read-only, network on -> off.
            "main" => {
                s.policy.profile = SandboxProfile::ReadOnly;
                s.policy.network = false;
            }
            _ => {}
        }
    }
    assert!(!a.same_surface(&b), "a policy change must fail `check`");
    let d = diff(&a, &b, None, &Options::default(), "a", "b");
    let got: Vec<(&str, Verdict)> = d
        .findings
        .iter()
        .map(|f| (f.id.as_str(), f.verdict))
        .collect();
    assert_eq!(
        got,
        vec![
            ("sandbox-changed/main/profile", Verdict::Compatible),
            ("sandbox-changed/main/network", Verdict::Compatible),
            ("sandbox-changed/steward/profile", Verdict::Breaking),
            ("sandbox-changed/steward/network", Verdict::Breaking),
            ("sandbox-changed/steward/devices", Verdict::Breaking),
        ]
    );
    let steward = &d.findings[2];
    assert_eq!(
        steward.message,
        "role steward sandbox profile: workspace-write -> full (loosened)"
    );
    assert_eq!(steward.families.len(), 5, "{:?}", steward.families);
    assert!(steward.surfaces.is_empty(), "no published bytes change");
    assert!(d.is_breaking());
    // Reversed, the same changes are the other verdicts.
    let back = diff(&b, &a, None, &Options::default(), "b", "a");
    assert_eq!(back.count(Verdict::Breaking), 2);
    assert_eq!(back.count(Verdict::Compatible), 3);
    // A lock written before policies were recorded compares nothing.
    let mut old = a.clone();
    old.sandboxes.clear();
    assert!(
        diff(&old, &b, None, &Options::default(), "o", "b")
            .findings
            .is_empty()
    );
}

#[test]
fn a_description_change_names_the_texts_that_changed() {
    let message = |a: &Lock, b: &Lock| {
        let d = diff(a, b, None, &Options::default(), "a", "b");
        let f = d
            .findings
            .iter()
            .find(|f| f.id == "description-changed/r/t")
            .unwrap_or_else(|| panic!("no description finding in {:?}", verdicts(a, b)));
        f.message.clone()
    };
    let a = small(&[("t", SEL)], &[]);
    let field = small(&[("t", &SEL.replace("N.", "The n."))], &[]);
    let m = message(&a, &field);
    assert!(
        m.starts_with("t: description text of field n changed"),
        "{m}"
    );
    let both = small(
        &[("t", &SEL.replace("N.", "The n.").replace("What.", "Which."))],
        &[],
    );
    let m = message(&a, &both);
    assert!(
        m.starts_with("t: description text of field action, of field n changed"),
        "{m}"
    );
}

#[test]
fn a_published_description_is_placed_by_its_pointer() {
    use super::compat::TextPlace;
    let cases = [
        ("/function/description", TextPlace::Tool),
        (
            "/function/parameters/properties/n/description",
            TextPlace::Field("n"),
        ),
        (
            "/input_schema/properties/edits/items/properties/old/description",
            TextPlace::Field("edits"),
        ),
        // A field may be called like an output key: it is a field.
        (
            "/parameters/properties/output_schema/description",
            TextPlace::Field("output_schema"),
        ),
        // Every dialect's declared output is the output, not the input field of that name.
        ("/outputSchema/properties/n/description", TextPlace::Output),
        ("/output_schema/description", TextPlace::Output),
        (
            "/responseJsonSchema/properties/n/description",
            TextPlace::Output,
        ),
    ];
    for (pointer, want) in cases {
        assert_eq!(TextPlace::of(pointer), want, "{pointer}");
    }
}
