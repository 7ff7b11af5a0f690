//! The conformance corpus (`toolsurface conformance`, `compiler/src/plan/conformance.rs`): calls
//! derived from a plan with the plan interpreter's verdicts and exact refusal texts.
//!
//! - The standard surface's corpus is checked in under `tests/conformance/` (the TypeScript and
//!   Python suites read it): it must equal what the compiler derives now
//!   (`UPDATE_EXPECT=1 cargo test --test suite conformance::` rewrites it).
//! - Every case must get the same verdict, message and typed call from the generated
//!   `Call::parse` as the interpreter recorded: on the standard surface (build.rs) and on a
//!   fixture with nested objects, arrays of objects and of arrays, every bound and constraint
//!   kind, aliases, retired names and a skill (`surface!`), and on a fixture with every field
//!   kind whose typed value is JSON (any, null, const, unions, open objects and maps, a tool's
//!   other keys). This is what holds the generated walk, the one-pass decoder and the
//!   interpreter to one set of rules.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use serde_json::Value;
use toolsurface_compiler::plan::{self, Plan};

mod fixture {
    toolsurface::surface!("tests/data/conformance");
}

mod kinds {
    toolsurface::surface!("tests/data/kinds");
}

fn plan_of(dir: &str) -> Plan {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let sources = toolsurface_compiler::read_dir(&root).unwrap();
    let compiled = toolsurface_compiler::compile(&sources);
    plan::lower(compiled.ir.as_ref().unwrap()).unwrap()
}

fn corpus_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance")
}

/// What a parser answered for one case, as the corpus records it.
fn answer<C: serde::Serialize>(r: Result<C, toolsurface::CallError>) -> Value {
    match r {
        Ok(call) => serde_json::json!({
            "verdict": "accept",
            "call": serde_json::to_string(&call).unwrap(),
        }),
        Err(e) => serde_json::json!({
            "verdict": "refuse",
            "kind": format!("{:?}", e.kind),
            "message": e.message,
        }),
    }
}

fn recorded(case: &Value) -> Value {
    let mut v = serde_json::Map::new();
    for key in ["verdict", "kind", "message"] {
        if let Some(x) = case.get(key) {
            v.insert(key.into(), x.clone());
        }
    }
    if let Some(call) = case.get("call") {
        v.insert("call".into(), Value::String(call.to_string()));
    }
    Value::Object(v)
}

/// A parser under test: (role, family, skills, name, raw arguments) → its answer, `None` when
/// it cannot build the scope.
type Parse<'a> = &'a dyn Fn(&str, &str, &[String], &str, &str) -> Option<Value>;

/// The generated `Call::parse_in` of whichever surface's `Call`, `Role`, `Family`, `Scope`
/// and `Skill` are in scope, on string names (`None` when a name is not the surface's).
macro_rules! parse_in {
    ($role:expr, $family:expr, $skills:expr, $name:expr, $raw:expr) => {{
        (|| {
            let role: Role = $role.parse().ok()?;
            let family: Family = $family.parse().ok()?;
            let skills: Vec<Skill> = $skills
                .iter()
                .map(|s| s.parse().ok())
                .collect::<Option<_>>()?;
            let scope = Scope::new(role, family).with_skills(&skills);
            Some(answer(Call::parse_in(&scope, $name, $raw)))
        })()
    }};
}

/// Run every case through `parse` (role, family, skills, name, raw); scope refusals are the
/// interpreter's own and skipped. Returns how many cases ran.
fn agree(cases: &[Value], parse: Parse<'_>) -> usize {
    let mut failures = Vec::new();
    let mut ran = 0;
    for case in cases {
        if case["kind"] == "Scope" {
            continue;
        }
        let s = |k: &str| case[k].as_str().unwrap();
        let skills: Vec<String> = case["skills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_owned())
            .collect();
        let Some(got) = parse(s("role"), s("family"), &skills, s("name"), s("raw")) else {
            failures.push(format!("scope not built for {case}"));
            continue;
        };
        ran += 1;
        let want = recorded(case);
        if got != want {
            failures.push(format!("{case}\n  generated: {got}\n  recorded:  {want}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ between the generated parser and the interpreter:\n{}",
        failures.len(),
        cases.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    ran
}

fn lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Every case of the corpus the plan of the folder `dir` derives.
fn cases_of(dir: &str) -> Vec<Value> {
    plan::conformance::corpus(&plan_of(dir))
        .iter()
        .flat_map(|(_, text)| lines(text))
        .collect()
}

#[test]
fn the_checked_in_corpus_is_what_the_plan_derives() {
    let files = plan::conformance::corpus(&plan_of("tool-defs"));
    let dir = corpus_dir();
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        for (name, text) in &files {
            std::fs::write(dir.join(name), text).unwrap();
        }
    }
    let mut present: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".jsonl"))
        .collect();
    present.sort();
    let mut expected: Vec<String> = files.iter().map(|(n, _)| n.clone()).collect();
    expected.sort();
    assert_eq!(present, expected, "files of tests/conformance/");
    for (name, text) in &files {
        let old = std::fs::read_to_string(dir.join(name)).unwrap();
        assert!(
            old == *text,
            "tests/conformance/{name} drifted from the definitions; regenerate with \
             `toolsurface conformance --out tests/conformance` (or UPDATE_EXPECT=1)"
        );
    }
    let cases: usize = files.iter().map(|(_, t)| t.lines().count()).sum();
    assert!(cases > 1500, "the corpus shrank to {cases} cases");
}

#[test]
fn the_generated_standard_parser_agrees_with_every_case() {
    use toolsurface::standard::{Call, Family, Role, Scope, Skill};
    let cases = cases_of("tool-defs");
    let ran = agree(&cases, &|role, family, skills, name, raw| {
        parse_in!(role, family, skills, name, raw)
    });
    assert!(ran > 1500, "{ran}");
}

#[test]
fn the_macro_parser_agrees_on_nested_objects_arrays_and_every_constraint() {
    use fixture::{Call, Family, Role, Scope, Skill};
    let cases = cases_of("tests/data/conformance");
    let accepted = cases.iter().filter(|c| c["verdict"] == "accept").count();
    let ran = agree(&cases, &|role, family, skills, name, raw| {
        parse_in!(role, family, skills, name, raw)
    });
    assert!(
        ran > 400 && accepted > 40,
        "{ran} cases, {accepted} accepted"
    );
    // The fixture's refusals reach into nested objects and array items.
    let messages: Vec<&str> = cases.iter().filter_map(|c| c["message"].as_str()).collect();
    for needle in [
        "op=start: spec: env[0]: key: ",
        "op=start: spec: limits: ",
        "op=start: matrix[1][0]: expected an integer from -5 to 5",
        "op=start: expected exactly one of reason, ticket; got none",
        "op=start: force and dry_run contradict each other.",
        "op=stop: a forced stop takes no reason.",
        "audit_log belongs to skill audit",
        "old_deploy was retired: ",
    ] {
        assert!(
            messages.iter().any(|m| m.contains(needle)),
            "no case refused with {needle:?}"
        );
    }
}

#[test]
fn the_macro_parser_agrees_on_any_null_const_unions_and_open_objects() {
    use kinds::{Call, Family, Role, Scope, Skill};
    let cases = cases_of("tests/data/kinds");
    let accepted = cases.iter().filter(|c| c["verdict"] == "accept").count();
    let ran = agree(&cases, &|role, family, skills, name, raw| {
        parse_in!(role, family, skills, name, raw)
    });
    assert!(
        ran > 300 && accepted > 80,
        "{ran} cases, {accepted} accepted"
    );
    let messages: Vec<&str> = cases.iter().filter_map(|c| c["message"].as_str()).collect();
    let calls: Vec<String> = cases
        .iter()
        .filter_map(|c| c.get("call").map(Value::to_string))
        .collect();
    for needle in [
        "shape: maybe_text: expected a string of at most 5 characters or null, got ",
        "shape: mode: expected {\"a\":1,\"b\":[1.5,\"x\"]}, got ",
        "shape: version: expected 2, got 3",
        "shape: choice: expected an integer of at least 0, a string matching ^[a-z]+$ or an object, got ",
        "shape: exclusive: expected exactly one of a number of at most 100 or an integer of at least 10, got 10",
        "shape: counts: zzz_other: expected an integer of at least 0, got 5.5",
        "shape: counts: duplicate field zzz_other",
        "shape: slots[1]: expected an integer or null, got ",
        "op=set: zzz_other: expected a string of at most 8 characters, got 5",
        "op=get: duplicate field zzz_other",
        "old-note was retired: Use open_note.",
    ] {
        let near: Vec<&&str> = messages
            .iter()
            .filter(|m| m.starts_with(&needle[..needle.len().min(14)]))
            .collect();
        assert!(
            messages.iter().any(|m| m.contains(needle)),
            "no case refused with {needle:?}; near: {near:#?}"
        );
    }
    // Typed values as serde_json holds them: 1.0 stays a float inside `any`, a const is its
    // declared value (2 for 2.0), other keys follow the fields in input order.
    for needle in [
        r#""anything":{"z":1,"a":[1.0,2]}"#,
        r#""version":2"#,
        r#""text":"hello","tag":1.0"#,
    ] {
        assert!(
            calls.iter().any(|c| c.contains(needle)),
            "no accepted call with {needle}"
        );
    }
}
