//! Skill strategies (`skills: defer | allow_list | append` in surface.yaml): the defaults by
//! dialect, the IR → runtime mapping codegen emits (`Family::skill_strategy`), and
//! `Emitted::skill_strategy` for a family's own dialect and for the MCP rendering.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use toolsurface::runtime::SkillStrategy as RuntimeStrategy;
use toolsurface::standard::Family;
use toolsurface_compiler::dialect::{default_skills, supported_skills};
use toolsurface_compiler::emit;
use toolsurface_compiler::ir::{Dialect, SkillStrategy};

fn standard_ir() -> toolsurface_compiler::Ir {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tool-defs");
    let sources = toolsurface_compiler::read_dir(&root).unwrap();
    let compiled = toolsurface_compiler::compile(&sources);
    compiled.ir.expect("tool-defs compiles")
}

fn runtime_of(s: SkillStrategy) -> RuntimeStrategy {
    match s {
        SkillStrategy::Defer => RuntimeStrategy::Defer,
        SkillStrategy::AllowList => RuntimeStrategy::AllowList,
        SkillStrategy::Append => RuntimeStrategy::Append,
    }
}

#[test]
fn defaults_by_dialect() {
    let expected = [
        (Dialect::Anthropic, SkillStrategy::Defer),
        (Dialect::OpenaiResponses, SkillStrategy::Defer),
        (Dialect::OpenaiChat, SkillStrategy::AllowList),
        (Dialect::Gemini, SkillStrategy::AllowList),
        (Dialect::Mcp, SkillStrategy::AllowList),
    ];
    for (dialect, strategy) in expected {
        assert_eq!(default_skills(dialect), strategy, "{dialect:?}");
        assert!(supported_skills(dialect).contains(&strategy));
        assert!(supported_skills(dialect).contains(&SkillStrategy::Append));
    }
    assert!(!supported_skills(Dialect::OpenaiChat).contains(&SkillStrategy::Defer));
    assert!(!supported_skills(Dialect::Gemini).contains(&SkillStrategy::Defer));
    assert!(!supported_skills(Dialect::Anthropic).contains(&SkillStrategy::AllowList));
}

#[test]
fn yaml_words_round_trip_and_match_the_runtime() {
    for s in SkillStrategy::ALL {
        assert_eq!(SkillStrategy::parse(s.as_str()), Some(s));
        assert_eq!(runtime_of(s).as_str(), s.as_str());
    }
    assert_eq!(SkillStrategy::parse("deferred"), None);
}

#[test]
fn generated_family_skill_strategy_is_the_ir_strategy() {
    let ir = standard_ir();
    assert_eq!(Family::ALL.len(), ir.families.len());
    for (family, decl) in Family::ALL.into_iter().zip(&ir.families) {
        assert_eq!(family.as_str(), decl.name);
        assert_eq!(
            family.skill_strategy(),
            runtime_of(decl.skills),
            "{}",
            decl.name
        );
    }
    // The standard surface writes no `skills:`: every family has its dialect's default.
    for decl in &ir.families {
        assert_eq!(decl.skills, default_skills(decl.dialect));
    }
}

#[test]
fn emitted_strategy_is_the_familys_own_or_the_mcp_default() {
    let ir = standard_ir();
    for s in &ir.surfaces {
        let fam = ir.family(&s.family).unwrap();
        let own = emit::surface(&ir, &s.role, &s.family, None).unwrap();
        assert_eq!(own.skill_strategy, fam.skills);
        let mcp = emit::surface(&ir, &s.role, &s.family, Some(Dialect::Mcp)).unwrap();
        assert_eq!(mcp.skill_strategy, SkillStrategy::AllowList);
    }
}

/// Every subset of `skills` (the standard roles offer few), each in declaration order.
fn subsets<T: Copy>(skills: &[T]) -> Vec<Vec<T>> {
    (0..1usize << skills.len())
        .map(|mask| {
            (0..skills.len())
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| skills[i])
                .collect()
        })
        .collect()
}

#[test]
fn tools_bytes_never_change_on_activation_under_defer_and_allow_list() {
    let ir = standard_ir();
    let mut checked = 0;
    for s in &ir.surfaces {
        for dialect in [None, Some(Dialect::Mcp)] {
            let e = emit::surface(&ir, &s.role, &s.family, dialect).unwrap();
            assert_ne!(
                e.skill_strategy,
                SkillStrategy::Append,
                "{} {}",
                s.role,
                s.family
            );
            let names: Vec<&str> = e.skills.iter().map(|k| k.name.as_str()).collect();
            for set in subsets(&names) {
                assert_eq!(
                    e.with_skills(&set).unwrap(),
                    e.bytes,
                    "{} {} {set:?}",
                    s.role,
                    s.family
                );
                for turn in emit::request::TurnKind::ALL {
                    let fragment = e.request(turn, &set).unwrap();
                    let v: serde_json::Value = serde_json::from_str(&fragment).unwrap();
                    let tools = match e.dialect {
                        Dialect::Gemini => v["tools"][0]["functionDeclarations"].to_string(),
                        _ => v["tools"].to_string(),
                    };
                    let published: serde_json::Value = serde_json::from_str(&e.bytes).unwrap();
                    assert_eq!(
                        tools,
                        published.to_string(),
                        "{} {} {turn:?}",
                        s.role,
                        s.family
                    );
                    // The tools member is the published bytes verbatim.
                    assert!(fragment.contains(&e.bytes));
                    checked += 1;
                }
            }
            // Every offered skill tool is published from the first request.
            for k in &e.skills {
                for t in &k.tools {
                    assert!(
                        e.bytes.contains(&t.json),
                        "{} missing from {}",
                        t.name,
                        s.role
                    );
                }
            }
        }
    }
    assert!(checked >= 40, "{checked}");
}

#[test]
fn generated_request_fragments_are_the_emitters_bytes() {
    use toolsurface::runtime::TurnKind as RuntimeTurn;
    use toolsurface::standard::{self, Role, Skill};
    let ir = standard_ir();
    let mut checked = 0;
    for role in Role::ALL {
        for family in Family::ALL {
            let e = emit::surface(&ir, role.as_str(), family.as_str(), None).unwrap();
            let offered: Vec<Skill> = role.skills().to_vec();
            for set in subsets(&offered) {
                let names: Vec<&str> = set.iter().map(|s| s.as_str()).collect();
                for (turn, ours) in [
                    (RuntimeTurn::Normal, emit::request::TurnKind::Normal),
                    (RuntimeTurn::Heartbeat, emit::request::TurnKind::Normal),
                    (RuntimeTurn::Scheduled, emit::request::TurnKind::Normal),
                    (RuntimeTurn::Rehearsal, emit::request::TurnKind::Rehearsal),
                ] {
                    let generated = standard::request_fragment(role, family, turn, &set);
                    assert_eq!(
                        generated,
                        e.request(ours, &names).unwrap(),
                        "{role} {family} {turn:?} {names:?}"
                    );
                    if set.is_empty() {
                        assert!(matches!(generated, std::borrow::Cow::Borrowed(_)));
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 4 * 5 * 4, "{checked}");
}
