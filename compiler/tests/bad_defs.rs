//! The definitions corpus: `tests/data/bad/_base/` is one valid definitions folder, and each
//! `tests/data/bad/<case>/` is an overlay on it — the files that differ from the base (a
//! case file replaces the base file of the same path), `base-omits.txt` naming base files
//! the case goes without — plus `expected.txt`, the exact diagnostics the compiler reports
//! for the folder so formed: what build.rs, `surface!` and `toolsurface check` all refuse it
//! with (examples are decoded by the compile itself; `check` adds only `no-example`
//! warnings). `UPDATE_EXPECT=1 cargo test -p toolsurface-compiler --test suite bad_defs::` rewrites
//! them. `compiler/tests/data/good/` must compile with no diagnostic at all.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use toolsurface_compiler::{
    SourceFile, Sources, compile, diag::render_all, ir::TraitValue, read_dir,
};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/bad")
}

/// The definitions folder of `case`: the base with the case's files laid over it.
fn overlaid(case: &str) -> Result<Sources, String> {
    let dir = corpus().join(case);
    let base = read_dir(&corpus().join(BASE)).map_err(|e| format!("{BASE}: {e}"))?;
    let own = read_dir(&dir).map_err(|e| format!("{case}: {e}"))?;
    let omits = std::fs::read_to_string(dir.join("base-omits.txt")).unwrap_or_default();
    let omitted: Vec<&str> = omits.lines().map(str::trim).collect();
    let own_paths: Vec<String> = own.files.iter().map(|o| o.path.clone()).collect();
    let mut files: Vec<SourceFile> = base
        .files
        .into_iter()
        .filter(|b| !omitted.contains(&b.path.as_str()) && !own_paths.contains(&b.path))
        .chain(own.files)
        .collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(Sources {
        root: case.to_owned(),
        files,
    })
}

/// The folder every case overlays.
const BASE: &str = "_base";

/// Compile one case and compare its rendered diagnostics with `expected.txt`.
fn check(case: &str) -> Result<(), String> {
    let dir = corpus().join(case);
    let sources = overlaid(case)?;
    let compiled = compile(&sources);
    let actual = render_all(&compiled.diagnostics, &sources);
    let expected_path = dir.join("expected.txt");
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&expected_path, &actual).map_err(|e| e.to_string())?;
        return Ok(());
    }
    let expected = std::fs::read_to_string(&expected_path)
        .map_err(|e| format!("{case}: no expected.txt ({e}); run with UPDATE_EXPECT=1"))?;
    if !compiled.has_errors() && !case.starts_with("warn_") {
        return Err(format!("{case}: compiled without errors"));
    }
    if compiled.ir.is_some() && compiled.has_errors() {
        return Err(format!("{case}: an IR was produced despite errors"));
    }
    if actual != expected {
        let diff = similar::TextDiff::from_lines(&expected, &actual)
            .unified_diff()
            .header("expected", "actual")
            .to_string();
        return Err(format!("{case}: diagnostics differ:\n{diff}"));
    }
    Ok(())
}

#[test]
fn bad_corpus() {
    let base = overlaid(BASE).unwrap();
    let compiled = compile(&base);
    assert!(
        compiled.diagnostics.is_empty(),
        "the base every case overlays must be valid:\n{}",
        render_all(&compiled.diagnostics, &base)
    );
    let mut cases: Vec<String> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name != BASE)
        .collect();
    cases.sort();
    assert!(
        cases.len() >= 25,
        "the corpus shrank to {} cases",
        cases.len()
    );
    let failures: Vec<String> = cases.iter().filter_map(|c| check(c).err()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

fn good() -> toolsurface_compiler::Ir {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/good");
    let mut sources = read_dir(&dir).unwrap();
    sources.root = "good".into();
    let compiled = compile(&sources);
    assert!(
        compiled.diagnostics.is_empty(),
        "{}",
        render_all(&compiled.diagnostics, &sources)
    );
    compiled.ir.unwrap()
}

#[test]
fn good_fixture_lowers() {
    let ir = good();
    let names: Vec<&str> = ir.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "activate_skill",
            "exec_command",
            "patch",
            "read_file",
            "shell",
            "shell_session",
            "sql_query"
        ]
    );
    // `like` expansion and the default family list.
    assert_eq!(
        ir.tool("shell").unwrap().families,
        ["chat", "chat_strict", "anthropic"]
    );
    assert_eq!(
        ir.tool("read_file").unwrap().families,
        ["chat", "chat_strict", "responses", "anthropic"]
    );
    // Plain tool: one unnamed action, other fields optional.
    let rf = ir.tool("read_file").unwrap();
    assert_eq!(rf.actions.len(), 1);
    assert_eq!(rf.actions[0].required, ["path"]);
    assert_eq!(rf.actions[0].optional, ["offset", "device", "range"]);
    assert_eq!(
        rf.actions[0].traits["cost"],
        TraitValue::Enum("neutral".into())
    );
    // Trait resolution: action, then tool, then default.
    let ss = ir.tool("shell_session").unwrap();
    let list = ss.action("list").unwrap();
    assert!(list.bool_trait("parallel_safe") && list.bool_trait("result_on_interrupt"));
    assert!(!list.bool_trait("follow_up"));
    assert_eq!(
        ss.action("kill").unwrap().traits["cost"],
        TraitValue::Enum("work".into())
    );
    // Roles: extends resolved, inherited first.
    let main = ir.role("main").unwrap();
    assert_eq!(
        main.tools,
        [
            "shell",
            "exec_command",
            "shell_session",
            "read_file",
            "patch",
            "activate_skill"
        ]
    );
    assert_eq!(main.skills, ["data"]);
    assert_eq!(main.token_budget, Some(4000));
    // Aliases sorted, with set values as JSON.
    assert_eq!(ir.aliases[0].name, "shell_kill");
    assert_eq!(
        ir.alias("shell_poll").unwrap().set["action"],
        serde_json::json!("poll")
    );
    assert_eq!(ir.alias("ssh_read_file").unwrap().rename["host"], "device");
    // Freeform grammar loaded.
    assert!(
        ir.tool("patch")
            .unwrap()
            .freeform
            .as_ref()
            .unwrap()
            .grammar
            .contains("Begin Patch")
    );
}

#[test]
fn good_fixture_renders_templates_per_surface() {
    let ir = good();
    assert_eq!(ir.surfaces.len(), 2 * 4);
    let chat = ir.surface("side_chat", "chat").unwrap();
    let names: Vec<&str> = chat.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "shell",
            "shell_session",
            "read_file",
            "patch",
            "activate_skill"
        ]
    );
    let ss = |s: &toolsurface_compiler::ir::SurfaceInstance| {
        s.tools
            .iter()
            .find(|t| t.name == "shell_session")
            .unwrap()
            .clone()
    };
    assert_eq!(
        ss(chat).description,
        "Manage background sessions started by shell."
    );
    let resp = ir.surface("side_chat", "responses").unwrap();
    assert_eq!(
        ss(resp).description,
        "Manage background sessions started by exec_command."
    );
    let anth = ir.surface("side_chat", "anthropic").unwrap();
    assert_eq!(
        ss(anth).description,
        "Manage background sessions started by shell. Sessions survive the turn."
    );
    assert_eq!(ss(resp).selector, "What to do with the session.");
    assert_eq!(
        ss(resp).actions[0],
        (Some("poll".into()), "Read new output.".into())
    );
    assert_eq!(
        ss(resp).fields[0],
        (
            "session_id".into(),
            "Session id returned by exec_command".into()
        )
    );
    let rf = chat.tools.iter().find(|t| t.name == "read_file").unwrap();
    assert!(
        rf.fields
            .iter()
            .any(|(n, d)| n == "range.start" && d == "First line")
    );
    // Skill tools rendered with the skill's tools in scope.
    let skill = &chat.skills[0];
    assert_eq!(skill.skill, "data");
    assert_eq!(
        skill.tools[0].description,
        "Run a read-only SQL query (side_chat/chat). Read files with read_file."
    );
}

#[test]
fn compiling_twice_gives_identical_ir() {
    assert_eq!(good(), good());
}

/// Every prefix of every file of the good fixture (cut at line ends and inside lines) must
/// compile to diagnostics, never panic, and never yield an IR alongside errors.
#[test]
fn truncated_files_never_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/good");
    let sources = read_dir(&dir).unwrap();
    let mut compiled_variants = 0;
    for (i, file) in sources.files.iter().enumerate() {
        let text = &file.text;
        let cuts: Vec<usize> = text
            .char_indices()
            .map(|(at, _)| at)
            .filter(|at| at % 9 == 0 || text[..*at].ends_with('\n'))
            .collect();
        for cut in cuts {
            let mut variant = sources.clone();
            variant.files[i].text = text[..cut].to_owned();
            let c = compile(&variant);
            assert!(
                !(c.ir.is_some() && c.has_errors()),
                "{}: cut at {cut}: IR with errors",
                file.path
            );
            let _ = render_all(&c.diagnostics, &variant);
            compiled_variants += 1;
        }
    }
    assert!(compiled_variants > 200, "only {compiled_variants} variants");
}

/// Hostile YAML: deep nesting, an alias bomb, tabs, non-string keys, a huge scalar.
#[test]
fn hostile_yaml_is_reported_not_fatal() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/good");
    let sources = read_dir(&dir).unwrap();
    let shell = sources.find("tools/shell.yaml").unwrap();
    let hostile = [
        format!("name: shell\nobject: {}\n", "[".repeat(5000)),
        "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n\
         c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n\
         e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
            .to_owned(),
        "name: shell\n\tobject: x\n".to_owned(),
        "1: x\n[a]: y\n? {b: c}\n: z\nnull: 1\n".to_owned(),
        format!(
            "name: shell\nobject: x\ndescription: \"{}\"\n",
            "x".repeat(200_000)
        ),
        "--- \nname: shell\n---\nname: shell\n".to_owned(),
        "\u{feff}name: shell\u{0}\n".to_owned(),
    ];
    for text in hostile {
        let mut variant = sources.clone();
        variant.files[shell.0 as usize].text = text.clone();
        let c = compile(&variant);
        assert!(c.has_errors(), "accepted: {:.80}", text);
        let rendered = render_all(&c.diagnostics, &variant);
        assert!(rendered.contains("tools/shell.yaml"), "{rendered}");
    }
}

/// A symlinked definitions file is read like any other; dot-files are not definitions.
#[cfg(unix)]
#[test]
fn symlinks_followed_and_dotfiles_skipped() {
    let good_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/good");
    let tmp = tempfile::tempdir().unwrap();
    for entry in [
        "surface.yaml",
        "roles.yaml",
        "aliases.yaml",
        "retired.yaml",
        "skills",
        "grammars",
        "tools",
    ] {
        std::os::unix::fs::symlink(good_dir.join(entry), tmp.path().join(entry)).unwrap();
    }
    std::fs::write(tmp.path().join(".draft.yaml"), "not: [valid").unwrap();
    let sources = read_dir(tmp.path()).unwrap();
    let c = compile(&sources);
    assert!(
        c.diagnostics.is_empty(),
        "{}",
        render_all(&c.diagnostics, &sources)
    );
    assert_eq!(c.ir.unwrap(), good());
}
