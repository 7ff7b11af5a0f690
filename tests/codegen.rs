//! The generated code for tool-defs: snapshot (insta; `INSTA_UPDATE=always` or `cargo insta
//! review` to accept), build.rs output identical to what `surface!` expands to, and
//! deterministic rendering.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use toolsurface_compiler::codegen;

fn standard_ir() -> toolsurface_compiler::Ir {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tool-defs");
    let mut sources = toolsurface_compiler::read_dir(&root).unwrap();
    sources.root = "tool-defs".into();
    let compiled = toolsurface_compiler::compile(&sources);
    match compiled.ir {
        Some(ir) => ir,
        None => panic!(
            "{}",
            toolsurface_compiler::diag::render_all(&compiled.diagnostics, &sources)
        ),
    }
}

/// The published arrays are pinned by tool-defs/surface.lock; here they would only make every
/// description edit churn the code snapshot, so their text is elided (skill tools: each tool's
/// text, so the count stays visible).
fn elide_published(code: &str) -> String {
    let string = r#""(?:[^"\\]|\\.)*""#;
    let surface = regex::Regex::new(&format!(
        r#"(pub const (?:SURFACE|REQUEST)_\w+: &str =\s*){string};"#
    ))
    .unwrap();
    let code = surface.replace_all(code, r#"$1"…";"#);
    let skill = regex::Regex::new(&format!(
        r#"(pub const SKILL_\w+: &\[&str\] = )&\[((?:\s*{string},?)*)\s*\];"#
    ))
    .unwrap();
    let literal = regex::Regex::new(string).unwrap();
    skill
        .replace_all(&code, |c: &regex::Captures<'_>| {
            let n = literal.find_iter(&c[2]).count();
            format!("{}&[{}];", &c[1], vec![r#""…""#; n].join(", "))
        })
        .into_owned()
}

#[test]
fn snapshot_of_generated_code() {
    let code = codegen::render(&codegen::generate(&standard_ir()).unwrap());
    assert!(code.starts_with(codegen::STAMP));
    let elided = elide_published(&code);
    assert!(
        elided.contains(r#"pub const SURFACE_SIDE_CHAT_CHAT: &str = "…";"#),
        "elision matched"
    );
    assert!(
        elided.contains(r#"pub const SKILL_MAIN_CHAT_SQLITE: &[&str] = &["…"];"#),
        "skill elision matched"
    );
    insta::assert_snapshot!("standard", elided);
}

#[test]
fn build_rs_output_is_what_the_generator_renders() {
    let built = include_str!(concat!(env!("OUT_DIR"), "/standard.rs"));
    let now = codegen::render(&codegen::generate(&standard_ir()).unwrap());
    assert!(
        built == now,
        "OUT_DIR/standard.rs is stale or differs from codegen::render"
    );
}

#[test]
fn generation_is_deterministic() {
    let ir = standard_ir();
    let a = codegen::generate(&ir).unwrap().to_string();
    let b = codegen::generate(&standard_ir()).unwrap().to_string();
    assert_eq!(a, b);
}

#[test]
fn generated_code_names_only_private_paths() {
    let code = codegen::render(&codegen::generate(&standard_ir()).unwrap());
    for line in code.lines() {
        if let Some(i) = line.find("::toolsurface::") {
            assert!(line[i..].starts_with("::toolsurface::__private"), "{line}");
        }
        assert!(!line.contains("toolsurface_runtime"), "{line}");
    }
}

/// `published_with_skills` / `published_mcp_with_skills` are byte for byte what the emitter's
/// `Emitted::with_skills` returns, for every role × family, each skill alone and all of them,
/// in both dialects; with no skill they are the resident statics, borrowed.
#[test]
fn skill_arrays_are_the_emitters_bytes() {
    use std::borrow::Cow;
    use toolsurface::standard::{self, Family, Role, Skill};
    use toolsurface_compiler::emit;
    use toolsurface_compiler::ir::Dialect;

    let ir = standard_ir();
    let mut compared = 0;
    for s in &ir.surfaces {
        let role: Role = s.role.parse().unwrap();
        let family: Family = s.family.parse().unwrap();
        type Generated = fn(Role, Family, &[Skill]) -> Cow<'static, str>;
        let dialects: [(Option<Dialect>, Generated, &str); 2] = [
            (
                None,
                standard::published_with_skills,
                standard::published(role, family),
            ),
            (
                Some(Dialect::Mcp),
                standard::published_mcp_with_skills,
                standard::published_mcp(role, family),
            ),
        ];
        for (dialect, generated, resident) in dialects {
            let emitted = emit::surface(&ir, &s.role, &s.family, dialect).unwrap();
            assert_eq!(emitted.bytes, resident);
            let none = generated(role, family, &[]);
            assert!(matches!(none, Cow::Borrowed(_)), "no skill: borrowed");
            assert_eq!(none, resident);

            let names: Vec<&str> = emitted.skills.iter().map(|k| k.name.as_str()).collect();
            let mut cases: Vec<Vec<&str>> = names.iter().map(|n| vec![*n]).collect();
            cases.push(names.clone());
            cases.push(names.iter().rev().copied().collect());
            for case in cases {
                let skills: Vec<Skill> = case.iter().map(|n| n.parse().unwrap()).collect();
                let ours = generated(role, family, &skills);
                let theirs = emitted.with_skills(&case).unwrap();
                assert_eq!(ours, theirs, "{role} × {family} {dialect:?} {case:?}");
                assert_eq!(
                    emit::sha256_hex(ours.as_bytes()),
                    emit::sha256_hex(theirs.as_bytes())
                );
                compared += 1;
            }
            // Per skill: the tools, their order and their JSON are the emitter's.
            for k in &emitted.skills {
                let skill: Skill = k.name.parse().unwrap();
                let json = match dialect {
                    None => standard::skill_json(role, family, skill),
                    Some(_) => standard::skill_json_mcp(role, family, skill),
                };
                let want: Vec<&str> = k.tools.iter().map(|t| t.json.as_str()).collect();
                assert_eq!(json, want.as_slice());
                let tools: Vec<&str> = standard::skill_tools(role, family, skill)
                    .iter()
                    .map(|t| t.as_str())
                    .collect();
                let want: Vec<&str> = k.tools.iter().map(|t| t.name.as_str()).collect();
                assert_eq!(tools, want);
                assert!(role.skills().contains(&skill));
            }
        }
    }
    assert!(compared >= 16, "skills were compared ({compared})");
    for skill in ir.skills.iter() {
        let s: Skill = skill.name.parse().unwrap();
        assert_eq!(s.description(), skill.description);
    }
    for role in &ir.roles {
        let r: Role = role.name.parse().unwrap();
        let skills: Vec<&str> = r.skills().iter().map(|s| s.as_str()).collect();
        assert_eq!(skills, role.skills);
    }
}
