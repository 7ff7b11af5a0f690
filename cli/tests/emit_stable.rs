//! The published bytes are the same in every process: `toolsurface emit` is run several times
//! per role × family (each process has its own hash seeds, and the runs differ in working
//! directory, path spelling and locale) and must print identical bytes, equal to what the
//! library emits in this process and to its sha256.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use toolsurface_compiler::emit;
use toolsurface_compiler::emit::request::TurnKind;
use toolsurface_compiler::ir::{Dialect, SkillStrategy};

const BIN: &str = env!("CARGO_BIN_EXE_toolsurface");

/// The repository root (this crate is its `cli/`): tool-defs/, examples/, tests/data/.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

fn defs() -> PathBuf {
    root().join("tool-defs")
}

/// One `toolsurface emit` run; the variant picks how the process is started.
fn run(args: &[&str], variant: usize) -> Vec<u8> {
    let root = root();
    let mut cmd = Command::new(BIN);
    cmd.arg("emit").args(args);
    match variant % 3 {
        // Absolute path, from the repository root.
        0 => {
            cmd.current_dir(root).arg(defs());
        }
        // Relative path, default locale scrubbed.
        1 => {
            cmd.current_dir(root)
                .arg("tool-defs")
                .env_remove("LANG")
                .env("LC_ALL", "C");
        }
        // From another directory, through a `..` path, another locale.
        _ => {
            cmd.current_dir(root.join("docs"))
                .arg("../tool-defs/")
                .env("LC_ALL", "tr_TR.UTF-8")
                .env("TZ", "Asia/Kathmandu");
        }
    }
    let out = cmd.output().expect("run toolsurface emit");
    assert!(
        out.status.success(),
        "toolsurface emit {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn surfaces_listed() -> Vec<(String, String)> {
    let list = String::from_utf8(run(&["--list"], 0)).unwrap();
    let pairs: Vec<(String, String)> = list
        .lines()
        .map(|l| {
            let mut it = l.split(' ');
            let role = it.next().unwrap().to_owned();
            let family = it.next().unwrap().to_owned();
            assert_eq!(it.next(), None, "line {l:?}");
            (role, family)
        })
        .collect();
    assert!(!pairs.is_empty(), "emit --list printed nothing");
    pairs
}

fn library_ir() -> toolsurface_compiler::Ir {
    let sources = toolsurface_compiler::read_dir(&defs()).unwrap();
    let compiled = toolsurface_compiler::compile(&sources);
    assert!(!compiled.has_errors(), "tool-defs does not check clean");
    compiled.ir.unwrap()
}

#[test]
fn list_matches_the_ir() {
    let ir = library_ir();
    let listed = surfaces_listed();
    let expected: Vec<(String, String)> = ir
        .surfaces
        .iter()
        .map(|s| (s.role.clone(), s.family.clone()))
        .collect();
    assert_eq!(listed, expected);
}

#[test]
fn every_surface_is_byte_identical_across_processes() {
    let ir = library_ir();
    let mut checked = 0;
    for (role, family) in surfaces_listed() {
        for dialect in [None, Some(Dialect::Mcp)] {
            let mut args = vec!["--role", role.as_str(), "--family", family.as_str()];
            if let Some(d) = dialect {
                args.extend(["--dialect", d.as_str()]);
            }
            let first = run(&args, 0);
            for variant in 1..3 {
                let again = run(&args, variant);
                assert!(
                    first == again,
                    "{role} × {family} {dialect:?}: process {variant} printed other bytes"
                );
            }
            let lib = emit::surface(&ir, &role, &family, dialect).unwrap();
            assert_eq!(
                String::from_utf8(first.clone()).unwrap(),
                lib.bytes,
                "{role} × {family} {dialect:?}: the binary and the library differ"
            );
            assert_eq!(emit::sha256_hex(&first), lib.sha256);
            checked += 1;
        }
    }
    assert!(checked >= 2);
}

#[test]
fn single_tool_and_pretty_output() {
    let ir = library_ir();
    let s = &ir.surfaces[0];
    let lib = emit::surface(&ir, &s.role, &s.family, None).unwrap();
    let tool = &lib.tools[0];
    let out = run(
        &[
            "--role", &s.role, "--family", &s.family, "--tool", &tool.name,
        ],
        1,
    );
    assert_eq!(String::from_utf8(out).unwrap(), tool.json);

    let pretty = run(&["--role", &s.role, "--family", &s.family, "--pretty"], 2);
    let pretty = String::from_utf8(pretty).unwrap();
    assert!(pretty.ends_with("]\n") && pretty.contains("\n  {"));
    let a: serde_json::Value = serde_json::from_str(&pretty).unwrap();
    let b: serde_json::Value = serde_json::from_str(&lib.bytes).unwrap();
    assert_eq!(a, b);
}

#[test]
fn usage_errors_exit_2() {
    let root = root();
    for args in [
        vec!["--role", "no_such_role", "--family", "chat"],
        vec!["--role", "side_chat", "--family", "no_such_family"],
        vec![
            "--role",
            "side_chat",
            "--family",
            "chat",
            "--tool",
            "no_such_tool",
        ],
        vec![
            "--role",
            "side_chat",
            "--family",
            "chat",
            "--dialect",
            "cobol",
        ],
        vec!["--family", "chat"],
    ] {
        let out = Command::new(BIN)
            .current_dir(root)
            .arg("emit")
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?} printed to stdout");
        assert!(!out.stderr.is_empty(), "{args:?} said nothing");
    }
}

#[test]
fn skill_activation_prints_the_strategys_bytes() {
    let ir = library_ir();
    let Some(s) = ir.surfaces.iter().find(|s| !s.skills.is_empty()) else {
        panic!("no role in tool-defs offers a skill");
    };
    let lib = emit::surface(&ir, &s.role, &s.family, None).unwrap();
    let skill = &lib.skills[0];
    let out = run(
        &[
            "--role",
            &s.role,
            "--family",
            &s.family,
            "--with-skill",
            &skill.name,
        ],
        2,
    );
    let out = String::from_utf8(out).unwrap();
    assert_eq!(out, lib.with_skills(&[&skill.name]).unwrap());
    assert!(out.starts_with(&lib.bytes[..lib.bytes.len() - 1]));
    match lib.skill_strategy {
        // The skill's tools are published from the start: activation changes no byte.
        SkillStrategy::Defer | SkillStrategy::AllowList => assert_eq!(out, lib.bytes),
        SkillStrategy::Append => assert!(out.len() > lib.bytes.len()),
    }
    // The request fragment of every turn kind, in every way of starting the process.
    for turn in TurnKind::ALL {
        let expected = lib.request(turn, &[&skill.name]).unwrap();
        for variant in 0..3 {
            let args = [
                "--role",
                &s.role,
                "--family",
                &s.family,
                "--request",
                "--turn",
                turn.as_str(),
                "--with-skill",
                &skill.name,
            ];
            assert_eq!(String::from_utf8(run(&args, variant)).unwrap(), expected);
        }
    }
    // A skill's tool can be printed alone too.
    let tool = &skill.tools[0];
    let one = run(
        &[
            "--role", &s.role, "--family", &s.family, "--tool", &tool.name,
        ],
        0,
    );
    assert_eq!(String::from_utf8(one).unwrap(), tool.json);
}
