//! `consolidate` without the CLI: a merge plan over an in-memory folder whose tools use every
//! part of the language an action can carry (required/optional, exactly_one_of,
//! forbidden_with, per-action traits, nested objects, arrays, enums, patterns, quoting), and
//! the compiled result keeps each old tool's rules as its action's.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use toolsurface_compiler::consolidate::merge::{MergeRequest, plan_merge};
use toolsurface_compiler::consolidate::render::same_definition;
use toolsurface_compiler::consolidate::retire::{RetireRequest, plan_retire};
use toolsurface_compiler::ir::{TraitValue, Type};
use toolsurface_compiler::{SourceFile, Sources, compile};

const SURFACE: &str = include_str!("../../examples/consolidation/before/surface.yaml");

fn folder(files: &[(&str, &str)]) -> Sources {
    let mut files: Vec<SourceFile> = files
        .iter()
        .map(|(p, t)| SourceFile::new(*p, *t))
        .chain(std::iter::once(SourceFile::new("surface.yaml", SURFACE)))
        .collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Sources {
        root: "defs".into(),
        files,
    }
}

const ROLES: &str = "# roles\nr:\n  description: A role.\n  tools:\n    - other   # first\n    - job_start\n    - job_stop\n";

const START: &str = r#"name: job_start
object: job
description: |
  Start a job. See {{ tool("job_stop") }}.
route: local
fields:
  spec:
    type: object
    properties:
      cmd: { type: string, min_length: 1, description: "Command: what to run" }
      env: { type: array, items: { type: string, pattern: '^[A-Z_]+=.*$' }, max_items: 8, description: Env. }
    required: [cmd]
    description: "The job: {cmd, env}."
  name:
    type: string
    description: Job name.
  file:
    type: string
    description: A spec file.
  dry:
    type: boolean
    description: "true: only check"
required: []
exactly_one_of: [[spec, file]]
forbidden_with:
  - { field: dry, with: file, message: "dry needs an inline spec" }
traits: { cost: work, result_on_interrupt: true }
"#;

const STOP: &str = r#"name: job_stop
object: job
description: Stop a job.
route: local
fields:
  name:
    type: string
    description: Job name.
  signal:
    type: enum
    values: [term, kill, "on"]
    description: Which signal.
required: [name]
traits: { parallel_safe: true, cost: self, result_on_interrupt: true }
"#;

const OTHER: &str = "name: other\nobject: thing\ndescription: |\n  Other; after {{ tool(\"job_start\") }} or {{ tool(\"job_stop\") }} ends.\nroute: local\nfields: {}\ntraits: { read_only: true }\n";

fn sources() -> Sources {
    folder(&[
        ("roles.yaml", ROLES),
        ("tools/job_start.yaml", START),
        ("tools/job_stop.yaml", STOP),
        ("tools/other.yaml", OTHER),
    ])
}

#[test]
fn a_merged_tool_keeps_every_rule_of_its_parts() {
    let src = sources();
    let before = compile(&src);
    assert!(!before.has_errors(), "{:?}", before.diagnostics);
    let ir = before.ir.unwrap();
    let req = MergeRequest {
        tools: vec!["job_start".into(), "job_stop".into()],
        into: "job".into(),
        ..MergeRequest::default()
    };
    let plan = plan_merge(&ir, &src, &req).unwrap();
    assert_eq!(
        plan.ledger,
        "−1: job_start, job_stop → job (new) by action: start, stop"
    );
    let after = plan.apply(&src);
    let compiled = compile(&after);
    assert!(
        !compiled.has_errors(),
        "{}\n{}",
        toolsurface_compiler::diag::render_all(&compiled.diagnostics, &after),
        plan.write
            .iter()
            .find(|(p, _)| p == "tools/job.yaml")
            .unwrap()
            .1
    );
    let ir = compiled.ir.unwrap();
    let job = ir.tool("job").unwrap();
    let start = job.action("start").unwrap();
    assert_eq!(
        start.exactly_one_of,
        vec![vec!["spec".to_owned(), "file".to_owned()]]
    );
    assert_eq!(start.forbidden_with[0].message, "dry needs an inline spec");
    assert_eq!(start.traits["cost"], TraitValue::Enum("work".into()));
    let stop = job.action("stop").unwrap();
    assert_eq!(stop.required, ["name"]);
    assert_eq!(stop.traits["parallel_safe"], TraitValue::Bool(true));
    assert_eq!(stop.traits["result_on_interrupt"], TraitValue::Bool(true));
    // Types and descriptions come through the YAML text unchanged.
    let old = ir_of(&src);
    for f in ["spec", "file", "dry", "name"] {
        assert!(
            same_definition(
                job.field(f).unwrap(),
                old.tool("job_start").unwrap().field(f).unwrap()
            ),
            "{f}"
        );
    }
    assert!(
        matches!(&job.field("signal").unwrap().ty, Type::Enum { values } if values == &["term", "kill", "on"])
    );
    // Roles: the first old name's place, comments kept; references collapsed.
    assert_eq!(
        after
            .files
            .iter()
            .find(|f| f.path == "roles.yaml")
            .unwrap()
            .text,
        "# roles\nr:\n  description: A role.\n  tools:\n    - other   # first\n    - job\n"
    );
    assert!(
        after
            .files
            .iter()
            .find(|f| f.path == "tools/other.yaml")
            .unwrap()
            .text
            .contains("after {{ tool(\"job\") }} ends.")
    );
    assert!(!after.files.iter().any(|f| f.path == "tools/job_start.yaml"));
}

fn ir_of(src: &Sources) -> toolsurface_compiler::Ir {
    compile(src).ir.unwrap()
}

#[test]
fn retire_without_a_replacement_leaves_the_reference_for_check_to_report() {
    let src = sources();
    let ir = ir_of(&src);
    let plan = plan_retire(
        &ir,
        &src,
        &RetireRequest {
            name: "job_stop".into(),
            message: Some("Stop it from the shell.".into()),
            replaced_by: vec![],
        },
    )
    .unwrap();
    let after = plan.apply(&src);
    let compiled = compile(&after);
    let codes: Vec<&str> = compiled.diagnostics.iter().map(|d| d.code).collect();
    assert!(codes.contains(&"template-retired-tool"), "{codes:?}");
    assert!(
        after
            .files
            .iter()
            .find(|f| f.path == "retired.yaml")
            .unwrap()
            .text
            .contains("job_stop:\n  message: Stop it from the shell.\n")
    );
}

#[test]
fn identical_nested_fields_written_in_different_places_merge_without_a_prefer() {
    let check = "name: job_check\nobject: job\ndescription: Check a job spec.\nroute: local\nfields:\n  spec:\n    type: object\n    properties:\n      cmd: { type: string, min_length: 1, description: \"Command: what to run\" }\n      env: { type: array, items: { type: string, pattern: '^[A-Z_]+=.*$' }, max_items: 8, description: Env. }\n    required: [cmd]\n    description: \"The job: {cmd, env}.\"\nrequired: [spec]\ntraits: { result_on_interrupt: true }\n";
    let mut src = sources();
    src.files
        .push(SourceFile::new("tools/job_check.yaml", check));
    src.files.sort_by(|a, b| a.path.cmp(&b.path));
    let roles = ROLES.replace("    - job_stop\n", "    - job_stop\n    - job_check\n");
    src.files
        .iter_mut()
        .find(|f| f.path == "roles.yaml")
        .unwrap()
        .text = roles;
    let ir = ir_of(&src);
    let req = MergeRequest {
        tools: vec!["job_start".into(), "job_check".into()],
        into: "job".into(),
        ..MergeRequest::default()
    };
    let plan = plan_merge(&ir, &src, &req).unwrap();
    let compiled = compile(&plan.apply(&src));
    assert!(!compiled.has_errors());
    // A real difference is refused with both definitions shown.
    let src2 = {
        let mut s = src.clone();
        s.files
            .iter_mut()
            .find(|f| f.path == "tools/job_check.yaml")
            .unwrap()
            .text = check.replace("max_items: 8", "max_items: 9");
        s
    };
    let err = plan_merge(&ir_of(&src2), &src2, &req).unwrap_err();
    assert!(
        err[0].starts_with("field `spec` is declared differently"),
        "{err:?}"
    );
    assert!(err[0].contains("--prefer spec=job_start"), "{err:?}");
}
