//! Skill strategies (`skills: defer | allow_list | append` in surface.yaml): the defaults by
//! dialect, the IR → runtime mapping codegen emits (`Family::skill_strategy`), and
//! `Emitted::skill_strategy` for a family's own dialect and for the MCP rendering.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use toolsurface::runtime::SkillStrategy as RuntimeStrategy;
use toolsurface::standard::Family;
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
        assert_eq!(SkillStrategy::default_for(dialect), strategy, "{dialect:?}");
        assert!(SkillStrategy::supported_by(dialect).contains(&strategy));
        assert!(SkillStrategy::supported_by(dialect).contains(&SkillStrategy::Append));
    }
    assert!(!SkillStrategy::supported_by(Dialect::OpenaiChat).contains(&SkillStrategy::Defer));
    assert!(!SkillStrategy::supported_by(Dialect::Gemini).contains(&SkillStrategy::Defer));
    assert!(!SkillStrategy::supported_by(Dialect::Anthropic).contains(&SkillStrategy::AllowList));
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
        assert_eq!(decl.skills, SkillStrategy::default_for(decl.dialect));
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
