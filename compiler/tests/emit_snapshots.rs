//! Snapshots of every standard surface (../tool-defs), each role × family in its own dialect
//! and in `mcp`: the sha256 of the exact published bytes, then the bytes indented for review.
//! Refresh with `INSTA_UPDATE=always cargo test -p toolsurface-compiler --test suite emit_snapshots::`
//! (or `cargo insta review`) after a deliberate change. Snapshots live in
//! `tests/snapshots/emit/`; a snapshot no surface produces any more fails the test (delete it).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::path::Path;

use toolsurface_compiler::diag::render_all;
use toolsurface_compiler::emit::{self, Emitted};
use toolsurface_compiler::ir::{Dialect, Ir};

fn standard() -> Ir {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tool-defs");
    let sources = toolsurface_compiler::read_dir(&dir).expect("read tool-defs");
    let compiled = toolsurface_compiler::compile(&sources);
    assert!(
        !compiled.has_errors(),
        "tool-defs does not check clean:\n{}",
        render_all(&compiled.diagnostics, &sources)
    );
    compiled.ir.expect("IR for a clean compile")
}

fn document(e: &Emitted) -> String {
    let mut out = String::new();
    writeln!(out, "{} × {} ({})", e.role, e.family, e.dialect.as_str()).unwrap();
    writeln!(out, "sha256 {}  bytes {}", e.sha256, e.bytes.len()).unwrap();
    for t in &e.tools {
        writeln!(out, "  {} {}", t.sha256, t.name).unwrap();
    }
    for s in &e.skills {
        for t in &s.tools {
            writeln!(out, "  {} {} (skill {})", t.sha256, t.name, s.name).unwrap();
        }
    }
    out.push('\n');
    out.push_str(&emit::pretty(&e.bytes));
    for s in &e.skills {
        writeln!(out, "\nskill {}:", s.name).unwrap();
        let jsons: Vec<&str> = s.tools.iter().map(|t| t.json.as_str()).collect();
        out.push_str(&emit::pretty(&format!("[{}]", jsons.join(","))));
    }
    out
}

/// Every role × family, in its own dialect and in `mcp`: `index` lists each with its sha256;
/// one full snapshot per distinct array (named after its first role × family; identical
/// arrays, e.g. a role that adds nothing over the one it extends, point to it in the index).
#[test]
fn every_standard_surface() {
    let ir = standard();
    let native = emit::surfaces(&ir).unwrap();
    assert_eq!(native.len(), ir.roles.len() * ir.families.len());
    for f in &ir.families {
        assert!(
            native
                .iter()
                .any(|e| e.family == f.name && e.dialect == f.dialect)
        );
    }
    let mut all = native;
    for s in &ir.surfaces {
        let e = emit::surface(&ir, &s.role, &s.family, Some(Dialect::Mcp)).unwrap();
        assert_eq!(e.dialect, Dialect::Mcp);
        all.push(e);
    }
    let mut index = String::new();
    let mut seen: Vec<(&str, String)> = Vec::new();
    let mut to_snapshot = Vec::new();
    for e in &all {
        let suffix = if e.dialect == Dialect::Mcp {
            "__mcp"
        } else {
            ""
        };
        let name = format!("{}__{}{suffix}", e.role, e.family);
        let same = seen
            .iter()
            .find(|(sha, _)| *sha == e.sha256)
            .map(|(_, n)| n.clone());
        writeln!(
            index,
            "{} {} {} {} tools={}{}",
            e.role,
            e.family,
            e.dialect.as_str(),
            e.sha256,
            e.tools.len(),
            same.as_deref()
                .map(|n| format!(" same-as={n}"))
                .unwrap_or_default()
        )
        .unwrap();
        if same.is_none() {
            seen.push((&e.sha256, name.clone()));
            to_snapshot.push((name, e));
        }
    }
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_snapshot_path("snapshots/emit");
    let mut expected: Vec<String> = vec!["index.snap".to_owned()];
    expected.extend(to_snapshot.iter().map(|(name, _)| format!("{name}.snap")));
    settings.bind(|| {
        insta::assert_snapshot!("index", index);
        for (name, e) in to_snapshot {
            insta::assert_snapshot!(name, document(e));
        }
    });
    // No stale snapshot of a surface that no longer exists (or became a duplicate).
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/emit");
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".snap"))
        .collect();
    on_disk.sort();
    expected.sort();
    assert_eq!(
        on_disk,
        expected,
        "stale or missing snapshots in {}",
        dir.display()
    );
}

#[test]
fn standard_surfaces_keep_the_flat_root_rules() {
    let ir = standard();
    for s in &ir.surfaces {
        for dialect in [None, Some(Dialect::Mcp)] {
            let e = emit::surface(&ir, &s.role, &s.family, dialect).unwrap();
            assert!(e.tools.len() <= 128);
            let v: serde_json::Value = serde_json::from_str(&e.bytes).unwrap();
            for t in v.as_array().unwrap() {
                let params = match e.dialect {
                    Dialect::OpenaiChat => t.pointer("/function/parameters"),
                    Dialect::OpenaiResponses | Dialect::Gemini => t.get("parameters"),
                    Dialect::Anthropic => t.get("input_schema"),
                    Dialect::Mcp => t.get("inputSchema"),
                };
                let Some(params) = params else {
                    // Only a responses custom tool or a parameterless gemini tool lacks one.
                    assert!(t["type"] == "custom" || e.dialect == Dialect::Gemini, "{t}");
                    continue;
                };
                let root = params.as_object().unwrap();
                let object = if e.dialect == Dialect::Gemini {
                    "OBJECT"
                } else {
                    "object"
                };
                assert_eq!(root["type"], object);
                for banned in ["oneOf", "anyOf", "allOf", "enum", "not", "$ref", "default"] {
                    assert!(!root.contains_key(banned), "{banned} at the root of {t}");
                }
                // A field's `default:` is published beside it (the standard surface declares
                // its defaults); no constant or reference anywhere.
                let text = params.to_string();
                for banned in ["\"const\"", "\"$ref\""] {
                    assert!(!text.contains(banned), "{banned} in {t}");
                }
            }
        }
    }
}

/// A field's `default:` is published in every family but the strict ones (OpenAI strict mode
/// refuses the keyword); the MCP renderings follow their family (the snapshots show them).
#[test]
fn defaults_are_published_except_in_strict_style() {
    let ir = standard();
    let native = emit::surfaces(&ir).unwrap();
    let mut strict_seen = 0;
    for e in &native {
        let strict = ir.families.iter().any(|f| f.name == e.family && f.strict);
        let has_default = e.bytes.contains("\"default\":");
        assert_eq!(has_default, !strict, "{} × {}", e.role, e.family);
        strict_seen += usize::from(strict);
    }
    assert!(strict_seen > 0, "no strict family in the standard surface");
}
