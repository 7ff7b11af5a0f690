//! `consolidate` without the CLI: a merge plan over an in-memory folder whose tools use every
//! part of the language an action can carry (required/optional, exactly_one_of,
//! forbidden_with, per-action traits, nested objects, arrays, enums, patterns, quoting), and
//! the compiled result keeps each old tool's rules as its action's.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use toolsurface_compiler::consolidate::lint;
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

/// Tools named as imported surfaces name them (camelCase, hyphens), a field of which differs
/// only in its `default:`: the merged tool declares the field once without a default and each
/// action keeps its old tool's (`defaults:`), so every old call means what it meant, and the
/// old names stay callable as aliases. A default on a field a tool requires cannot be an
/// action's own: that is refused as before, and a `--prefer` still settles it.
#[test]
fn defaults_that_differ_become_each_actions_own_and_any_tool_name_can_be_an_alias() {
    let tool = |name: &str, per_page: &str, required: &str| {
        format!(
            "name: {name}\nobject: issue\ndescription: {name} issues.\nroute: local\nfields:\n  owner: {{ type: string, description: Owner. }}\n{per_page}required: [{required}]\n"
        )
    };
    let list = tool(
        "listIssues",
        "  perPage: { type: integer, minimum: 1, default: 30, description: Page size. }\n",
        "owner",
    );
    let search = tool(
        "search-issues",
        "  perPage: { type: integer, minimum: 1, default: 10, description: Page size. }\n",
        "owner",
    );
    let get = tool("getIssue", "", "owner");
    let roles = "r:\n  description: A role.\n  tools: [listIssues, search-issues, getIssue]\n";
    let src = folder(&[
        ("roles.yaml", roles),
        ("tools/listIssues.yaml", &list),
        ("tools/search-issues.yaml", &search),
        ("tools/getIssue.yaml", &get),
    ]);
    let ir = ir_of(&src);
    let req = MergeRequest {
        tools: vec![
            "listIssues".into(),
            "search-issues".into(),
            "getIssue".into(),
        ],
        into: "issues".into(),
        as_names: Some(vec!["list".into(), "search".into(), "get".into()]),
        ..MergeRequest::default()
    };
    let plan = plan_merge(&ir, &src, &req).unwrap();
    let text = &plan
        .write
        .iter()
        .find(|(p, _)| p == "tools/issues.yaml")
        .unwrap()
        .1;
    assert!(text.contains("    defaults: { perPage: 30 }\n"), "{text}");
    assert!(text.contains("    defaults: { perPage: 10 }\n"), "{text}");
    let after = plan.apply(&src);
    let compiled = compile(&after);
    assert!(
        !compiled.has_errors(),
        "{}\n{text}",
        toolsurface_compiler::diag::render_all(&compiled.diagnostics, &after)
    );
    let ir = compiled.ir.unwrap();
    let issues = ir.tool("issues").unwrap();
    let per_page = issues.field("perPage").unwrap();
    assert_eq!(per_page.ty.default_value(), None);
    let default_in = |a: &str| issues.default_in(issues.action(a).unwrap(), "perPage");
    assert_eq!(default_in("list"), Some(&serde_json::json!(30)));
    assert_eq!(default_in("search"), Some(&serde_json::json!(10)));
    assert_eq!(default_in("get"), None);
    let aliases: Vec<&str> = ir.aliases.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(aliases, ["getIssue", "listIssues", "search-issues"]);

    // Into the merged tool, which keeps its field: the newcomer's default is its action's, and
    // a field declared otherwise is a note.
    let top = tool(
        "topIssues",
        "  perPage: { type: integer, minimum: 1, default: 5, description: Page size. }\n",
        "owner",
    )
    .replace("Owner.", "Whose.");
    let mut with_top = after.clone();
    with_top
        .files
        .push(SourceFile::new("tools/topIssues.yaml", &top));
    with_top.files.sort_by(|a, b| a.path.cmp(&b.path));
    let into = MergeRequest {
        tools: vec!["topIssues".into()],
        into: "issues".into(),
        as_names: Some(vec!["top".into()]),
        ..MergeRequest::default()
    };
    let plan = plan_merge(&ir_of(&with_top), &with_top, &into).unwrap();
    assert!(
        plan.notes.iter().any(|n| n
            == "tools/issues.yaml: `owner` keeps `issues`'s definition; `topIssues` declared it as type: string; description: Whose."),
        "{:?}",
        plan.notes
    );
    let merged_ir = ir_of(&plan.apply(&with_top));
    let issues = merged_ir.tool("issues").unwrap();
    assert_eq!(
        issues.default_in(issues.action("top").unwrap(), "perPage"),
        Some(&serde_json::json!(5))
    );

    // Required with a default where the other tool has another: not an action's own default.
    let required = search.replace("required: [owner]", "required: [owner, perPage]");
    let src2 = folder(&[
        ("roles.yaml", roles),
        ("tools/listIssues.yaml", &list),
        ("tools/search-issues.yaml", &required),
        ("tools/getIssue.yaml", &get),
    ]);
    let err = plan_merge(&ir_of(&src2), &src2, &req).unwrap_err();
    assert!(
        err[0].starts_with("field `perPage` is declared differently")
            && err[0].contains("--prefer perPage=listIssues"),
        "{err:?}"
    );
    // A --prefer is the user's choice, over per-action defaults.
    let preferred = MergeRequest {
        prefer: vec![("perPage".into(), "search-issues".into())],
        ..req
    };
    let plan = plan_merge(&ir_of(&src), &src, &preferred).unwrap();
    let ir = ir_of(&plan.apply(&src));
    let issues = ir.tool("issues").unwrap();
    assert_eq!(
        issues.field("perPage").unwrap().ty.default_value(),
        Some(&serde_json::json!(10))
    );
    assert!(issues.actions.iter().all(|a| a.defaults.is_empty()));

    // A camelCase or hyphenated name retires too.
    let plan = plan_retire(
        &ir_of(&src),
        &src,
        &RetireRequest {
            name: "getIssue".into(),
            message: Some("Use search-issues.".into()),
            replaced_by: vec!["search-issues".into()],
        },
    )
    .unwrap();
    let compiled = compile(&plan.apply(&src));
    assert!(!compiled.has_errors(), "{:?}", compiled.diagnostics);
    assert!(compiled.ir.unwrap().retired("getIssue").is_some());
}

/// lint's merge suggestion needs no `--prefer` for fields whose defaults alone differ, and
/// says so; names of any spelling group by their words and suggest snake_case actions.
#[test]
fn lint_suggests_a_merge_without_a_prefer_for_differing_defaults() {
    let tool = |name: &str, per_page: u32| {
        format!(
            "name: {name}\nobject: issue\ndescription: {name} issues.\nroute: local\nfields:\n  owner: {{ type: string, description: Owner. }}\n  perPage: {{ type: integer, default: {per_page}, description: Page size. }}\nrequired: [owner]\n"
        )
    };
    let src = folder(&[
        (
            "roles.yaml",
            "r:\n  description: A role.\n  tools: [issueList, issue-search]\n",
        ),
        ("tools/issueList.yaml", &tool("issueList", 30)),
        ("tools/issue-search.yaml", &tool("issue-search", 10)),
    ]);
    let findings = lint::lint(&ir_of(&src), &src, None, None, &lint::Thresholds::default());
    let merge = findings.iter().find(|f| f.rule == "merge").unwrap();
    assert!(
        merge
            .evidence
            .contains(&"differing defaults, kept as each action's own: perPage".to_owned()),
        "{merge:?}"
    );
    assert_eq!(
        merge.command.as_deref(),
        Some(
            "toolsurface merge issueList issue-search --into issue --selector action --as list,search"
        )
    );
}

/// lint's merge suggestions apply as given: fields generated code would spell alike
/// (`commentId`, `comment_id`) are renamed to one, a selector is never one of the fields, and a
/// tool is no candidate to join a hub whose other required fields its calls lack.
#[test]
fn lint_suggestions_apply_and_break_no_old_call() {
    let src = folder(&[
        (
            "roles.yaml",
            "r:\n  description: A role.\n  tools: [comment_add, comment_reply, notes, tally, thread_get]\n",
        ),
        (
            "tools/comment_add.yaml",
            "name: comment_add\nobject: comment\ndescription: Add.\nroute: local\nfields:\n  commentId: { type: integer, description: Id. }\n  action: { type: string, description: What. }\nrequired: [commentId]\n",
        ),
        (
            "tools/comment_reply.yaml",
            "name: comment_reply\nobject: comment\ndescription: Reply.\nroute: local\nfields:\n  comment_id: { type: integer, description: Id. }\n  action: { type: string, description: What. }\nrequired: [comment_id]\n",
        ),
        (
            "tools/notes.yaml",
            "name: notes\nobject: note\ndescription: Notes.\nroute: local\nfields:\n  view: { type: enum, values: [open, closed], description: Which. }\n  thread: { type: string, description: Thread. }\nrequired: [view, thread]\n",
        ),
        (
            "tools/tally.yaml",
            "name: tally\nobject: note\ndescription: Count.\nroute: local\nfields: {}\n",
        ),
        (
            "tools/thread_get.yaml",
            "name: thread_get\nobject: note\ndescription: Get.\nroute: local\nfields:\n  thread: { type: string, description: Thread. }\nrequired: [thread]\n",
        ),
    ]);
    let ir = ir_of(&src);
    let findings = lint::lint(&ir, &src, None, None, &lint::Thresholds::default());
    let merges: Vec<&str> = findings
        .iter()
        .filter(|f| f.rule == "merge")
        .filter_map(|f| f.command.as_deref())
        .collect();
    assert_eq!(
        merges,
        [
            "toolsurface merge comment_add comment_reply --into comment --selector mode --as add,reply --rename comment_id=commentId",
            "toolsurface merge thread_get --into notes --selector view --as thread",
        ]
    );
    for command in merges {
        let words: Vec<&str> = command.split(' ').skip(2).collect();
        let flag = |name: &str| {
            words
                .iter()
                .position(|w| *w == name)
                .map(|i| words[i + 1].to_owned())
        };
        let tools: Vec<String> = words
            .iter()
            .take_while(|w| !w.starts_with("--"))
            .map(|w| (*w).to_owned())
            .collect();
        let req = MergeRequest {
            tools,
            into: flag("--into").unwrap(),
            selector: flag("--selector"),
            as_names: flag("--as").map(|a| a.split(',').map(str::to_owned).collect()),
            renames: flag("--rename")
                .and_then(|r| {
                    r.split_once('=')
                        .map(|(a, b)| vec![(a.to_owned(), b.to_owned())])
                })
                .unwrap_or_default(),
            ..MergeRequest::default()
        };
        let plan = plan_merge(&ir, &src, &req).unwrap_or_else(|e| panic!("{command}: {e:?}"));
        let compiled = compile(&plan.apply(&src));
        assert!(
            !compiled.has_errors(),
            "{command}: {:?}",
            compiled.diagnostics
        );
    }
}

/// Into a tool that already has actions: a field the target declares with a default, which the
/// merged tool left without one, keeps the target's definition, and the note says the new
/// action now takes the target's default.
#[test]
fn a_default_the_target_adds_to_a_merged_tool_is_a_note() {
    let src = folder(&[
        (
            "roles.yaml",
            "r:\n  description: A role.\n  tools: [logs, tail]\n",
        ),
        (
            "tools/logs.yaml",
            "name: logs\nobject: log\ndescription: Logs.\nroute: local\nselector:\n  name: action\n  description: What.\nfields:\n  limit: { type: integer, default: 10, description: Lines. }\nactions:\n  head:\n    optional: [limit]\n",
        ),
        (
            "tools/tail.yaml",
            "name: tail\nobject: log\ndescription: Tail.\nroute: local\nfields:\n  limit: { type: integer, description: Lines. }\n",
        ),
    ]);
    let req = MergeRequest {
        tools: vec!["tail".into()],
        into: "logs".into(),
        ..MergeRequest::default()
    };
    let plan = plan_merge(&ir_of(&src), &src, &req).unwrap();
    assert!(
        plan.notes.contains(
            &"tools/logs.yaml: `tail` gave `limit` no default; as an action it takes `logs`'s (10)"
                .to_owned()
        ),
        "{:?}",
        plan.notes
    );
    assert!(!compile(&plan.apply(&src)).has_errors());
}
