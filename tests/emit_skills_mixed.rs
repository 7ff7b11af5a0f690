//! Every skill strategy side by side (tests/data/skills_mixed: the same tools under defer,
//! allow_list and append, two skills sharing a tool, Anthropic breakpoints): the code
//! `surface!` generates publishes exactly the emitter's bytes for every role × family ×
//! turn kind × activation, `append` is the only strategy whose activation changes `tools`,
//! and the lock's verdicts (`toolsurface diff`) say so.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    dead_code,
    clippy::manual_async_fn
)]

mod mixed {
    toolsurface::surface!("tests/data/skills_mixed");
}

use std::path::Path;

use mixed::{Family, Role, Skill};
use toolsurface::runtime::TurnKind as RuntimeTurn;
use toolsurface_compiler::emit::{self, request::TurnKind};
use toolsurface_compiler::ir::{Dialect, SkillStrategy};
use toolsurface_compiler::lock::Lock;

fn ir() -> toolsurface_compiler::Ir {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/skills_mixed");
    let sources = toolsurface_compiler::read_dir(&root).unwrap();
    let compiled = toolsurface_compiler::compile(&sources);
    compiled.ir.expect("skills_mixed compiles")
}

/// The activations to try: none, each skill, both in each order, one twice.
fn activations(offered: &[Skill]) -> Vec<Vec<Skill>> {
    let mut out = vec![vec![]];
    for s in offered {
        out.push(vec![*s]);
        out.push(vec![*s, *s]);
    }
    if let [a, b] = offered {
        out.push(vec![*a, *b]);
        out.push(vec![*b, *a]);
    }
    out
}

fn names(tools_json: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(tools_json).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let t = t.get("function").unwrap_or(t);
            match t["type"].as_str() {
                Some("tool_search") => "activate_skill".to_owned(),
                _ => t["name"].as_str().unwrap().to_owned(),
            }
        })
        .collect()
}

#[test]
fn generated_bytes_are_the_emitters_for_every_turn_and_activation() {
    let ir = ir();
    let mut checked = 0;
    for role in Role::ALL {
        for family in Family::ALL {
            let own = emit::surface(&ir, role.as_str(), family.as_str(), None).unwrap();
            let mcp =
                emit::surface(&ir, role.as_str(), family.as_str(), Some(Dialect::Mcp)).unwrap();
            assert_eq!(mixed::published(role, family), own.bytes);
            assert_eq!(mixed::published_mcp(role, family), mcp.bytes);
            for active in activations(role.skills()) {
                let words: Vec<&str> = active.iter().map(|s| s.as_str()).collect();
                let tools = mixed::published_with_skills(role, family, &active);
                assert_eq!(
                    tools,
                    own.with_skills(&words).unwrap(),
                    "{role} {family} {words:?}"
                );
                let tool_names = names(&tools);
                let mut unique = tool_names.clone();
                unique.sort();
                unique.dedup();
                assert_eq!(
                    unique.len(),
                    tool_names.len(),
                    "duplicate tool in {tool_names:?}"
                );
                assert_eq!(
                    mixed::published_mcp_with_skills(role, family, &active),
                    mcp.with_skills(&words).unwrap()
                );
                for (turn, ours) in [
                    (RuntimeTurn::Normal, TurnKind::Normal),
                    (RuntimeTurn::Scheduled, TurnKind::Normal),
                    (RuntimeTurn::Rehearsal, TurnKind::Rehearsal),
                ] {
                    let generated = mixed::request_fragment(role, family, turn, &active);
                    let expected = own.request(ours, &words).unwrap();
                    assert_eq!(generated, expected, "{role} {family} {turn:?} {words:?}");
                    let v: serde_json::Value = serde_json::from_str(&generated).unwrap();
                    assert!(v.is_object());
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 100, "{checked}");
}

#[test]
fn only_append_changes_the_tools_on_activation() {
    let ir = ir();
    for s in &ir.surfaces {
        let e = emit::surface(&ir, &s.role, &s.family, None).unwrap();
        let family = ir.family(&s.family).unwrap();
        assert_eq!(e.skill_strategy, family.skills);
        for skill in &e.skills {
            let after = e.with_skills(&[skill.name.as_str()]).unwrap();
            match e.skill_strategy {
                SkillStrategy::Append => {
                    assert_ne!(after, e.bytes, "{} {}", s.role, s.family);
                    let body = e.bytes.strip_suffix(']').unwrap();
                    assert!(after.starts_with(body) && after[body.len()..].starts_with(','));
                    // The skill tools are not published before activation.
                    for t in &skill.tools {
                        assert!(!e.bytes.contains(&t.json));
                    }
                }
                SkillStrategy::Defer | SkillStrategy::AllowList => {
                    assert_eq!(after, e.bytes, "{} {}", s.role, s.family);
                }
            }
        }
    }
    let worker = emit::surface(&ir, "worker", "chat_append", None).unwrap();
    assert_eq!(
        worker.published_tools().len(),
        3,
        "append publishes the resident tools only"
    );
}

#[test]
fn deferral_marks_and_breakpoints_sit_where_the_strategy_says() {
    let ir = ir();
    let anthropic = emit::surface(&ir, "worker", "anthropic", None).unwrap();
    let last = anthropic.tools.last().unwrap();
    assert!(
        last.json
            .ends_with(r#","cache_control":{"type":"ephemeral","ttl":"1h"}}"#)
    );
    for t in anthropic.skills.iter().flat_map(|s| &s.tools) {
        assert!(t.json.ends_with(r#","defer_loading":true}"#), "{}", t.json);
        assert!(!t.json.contains("cache_control"));
    }
    // Append: skill tools are plain, the breakpoint stays on the last resident tool.
    let append = emit::surface(&ir, "worker", "anthropic_append", None).unwrap();
    assert!(append.tools.last().unwrap().json.contains(r#""ttl":"5m""#));
    for t in append.skills.iter().flat_map(|s| &s.tools) {
        assert!(!t.json.contains("defer_loading"));
    }
    // Responses allow_list: no tool_search, no deferral; the restriction gates the skills.
    let allow = emit::surface(&ir, "worker", "responses_allow", None).unwrap();
    assert!(!allow.bytes.contains("tool_search") && !allow.bytes.contains("defer_loading"));
    let normal = allow.request_controls(TurnKind::Normal, &[]).unwrap();
    assert_eq!(
        normal,
        r#"{"tool_choice":{"type":"allowed_tools","mode":"auto","tools":[{"type":"function","name":"read_note"},{"type":"function","name":"write_note"},{"type":"function","name":"activate_skill"}]},"parallel_tool_calls":true}"#
    );
    // Responses defer: activate_skill is the client tool_search over both skills.
    let defer = emit::surface(&ir, "worker", "responses", None).unwrap();
    let search = defer.tool("activate_skill").unwrap();
    assert!(
        search
            .json
            .starts_with(r#"{"type":"tool_search","execution":"client","#)
    );
    assert!(
        search.json.contains(r#""enum":["data","archive"]"#),
        "{}",
        search.json
    );
    assert_eq!(
        search.allowed_entry.as_deref(),
        Some(r#"{"type":"tool_search"}"#)
    );
    // The reader offers no skill: no tool_search, activate_skill is not even published.
    let reader = emit::surface(&ir, "reader", "responses", None).unwrap();
    assert!(!reader.bytes.contains("tool_search"));
}

#[test]
fn rehearsal_allows_read_only_tools_of_active_skills_only() {
    let ir = ir();
    let chat = emit::surface(&ir, "worker", "chat", None).unwrap();
    let entry = |n: &str| format!(r#"{{"type":"function","function":{{"name":"{n}"}}}}"#);
    let rehearsal = chat.request_controls(TurnKind::Rehearsal, &[]).unwrap();
    assert!(rehearsal.contains(&entry("read_note")));
    assert!(!rehearsal.contains(&entry("write_note")) && !rehearsal.contains(&entry("query")));
    let with_data = chat
        .request_controls(TurnKind::Rehearsal, &["data"])
        .unwrap();
    assert!(with_data.contains(&entry("query")) && !with_data.contains(&entry("export")));
    // Both skills share `query`: listed once, in role order whatever the activation order.
    let both = chat
        .request_controls(TurnKind::Normal, &["archive", "data"])
        .unwrap();
    assert_eq!(both.matches(&entry("query")).count(), 1);
    assert_eq!(
        both,
        chat.request_controls(TurnKind::Normal, &["data", "archive"])
            .unwrap()
    );
    // Gemini: VALIDATED with the names; nothing allowed at all is mode NONE.
    let gemini = emit::surface(&ir, "reader", "gemini", None).unwrap();
    assert_eq!(
        gemini.request_controls(TurnKind::Rehearsal, &[]).unwrap(),
        r#"{"toolConfig":{"functionCallingConfig":{"mode":"VALIDATED","allowedFunctionNames":["read_note"]}}}"#
    );
    // Anthropic has no allowed-tools mechanism: nothing but tools, rehearsal included.
    let anthropic = emit::surface(&ir, "worker", "anthropic", None).unwrap();
    assert_eq!(
        anthropic
            .request_controls(TurnKind::Rehearsal, &["data"])
            .unwrap(),
        "{}"
    );
    assert!(
        emit::surface(&ir, "worker", "chat", None)
            .unwrap()
            .request(TurnKind::Normal, &["nope"])
            .is_err()
    );
}

#[test]
fn the_lock_records_the_requests_and_diff_judges_the_cached_prefix() {
    use toolsurface_compiler::diff::activation;
    let ir = ir();
    let emitted = emit::surfaces(&ir).unwrap();
    let lock = Lock::build(&ir, &emitted, None);
    let text = lock.render();
    assert!(text.contains("  strategy append\n") && text.contains("  strategy defer\n"));
    assert!(text.contains("  request rehearsal+archive "));
    let parsed = Lock::parse(&text).unwrap();
    assert_eq!(parsed, lock, "render/parse round trip");
    for s in &parsed.surfaces {
        let p = activation::prefixes(s);
        assert_eq!(
            p.requests.len(),
            2 * (1 + s.skills.len()),
            "{} {}",
            s.role,
            s.family
        );
        assert!(
            p.requests.iter().all(|r| r.verified),
            "{} {}",
            s.role,
            s.family
        );
        let appends = s.strategy == SkillStrategy::Append && !s.skills.is_empty();
        assert_eq!(p.all_kept(), !appends, "{} {}", s.role, s.family);
        if s.role == "worker" && s.family == "anthropic_append" {
            let with_skill: Vec<_> = p
                .requests
                .iter()
                .filter(|r| r.label.contains('+'))
                .collect();
            assert!(
                with_skill
                    .iter()
                    .all(|r| !r.tools_identical && r.breakpoint_kept == Some(true))
            );
        }
        if s.family == "anthropic" {
            assert!(p.requests.iter().all(|r| r.breakpoint_kept == Some(true)));
        }
    }
    // A tampered controls line no longer rebuilds the recorded fragment.
    let tampered = text.replacen(r#""mode":"auto""#, r#""mode":"required""#, 1);
    let t = Lock::parse(&tampered).unwrap();
    assert!(
        t.surfaces
            .iter()
            .any(|s| activation::prefixes(s).requests.iter().any(|r| !r.verified))
    );
}
