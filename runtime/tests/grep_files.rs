//! `grep_files` over real folder trees.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::Path;

use toolsurface_runtime::call::ToolError;
use toolsurface_runtime::grep::{
    GrepFilesRequest, GrepMatch, GrepOptions, GrepResult, grep_files, search,
};

fn write(root: &Path, rel: &str, content: impl AsRef<[u8]>) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, content).unwrap();
}

/// A small project: sources, docs, ignored build output, a hidden file, a binary file.
fn tree() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    write(r, ".gitignore", "target/\n*.log\n");
    write(
        r,
        "src/lib.rs",
        "pub fn alpha() {}\n// TODO: beta\npub fn gamma() {}\n",
    );
    write(r, "src/a/mod.rs", "// todo lower\nfn x() {}\n");
    write(r, "src/a.rs", "fn a() { /* TODO a */ }\n");
    write(r, "README.md", "# Demo\nTODO: write docs\n");
    write(r, "target/debug/out.rs", "// TODO in build output\n");
    write(r, "run.log", "TODO in a log\n");
    write(r, ".hidden/notes.txt", "TODO hidden\n");
    let mut bin = b"TODO before nul\n".to_vec();
    bin.extend_from_slice(&[0, 1, 2, 3]);
    bin.extend_from_slice(b"\nTODO after nul\n");
    write(r, "assets/blob.bin", bin);
    d
}

fn run(root: &Path, req: GrepFilesRequest) -> GrepResult {
    search(root, &req, &GrepOptions::default()).unwrap()
}

/// A search for `p` with grep_files.yaml's defaults (a parsed call gets them from the
/// generated conversion).
fn pat(p: &str) -> GrepFilesRequest {
    GrepFilesRequest {
        pattern: p.into(),
        path: None,
        glob: None,
        case_insensitive: false,
        max_results: 200,
    }
}

fn locs(r: &GrepResult) -> Vec<String> {
    r.matches
        .iter()
        .map(|m| format!("{}:{}", m.path, m.line))
        .collect()
}

#[test]
fn matches_are_sorted_and_ignored_hidden_and_binary_files_are_skipped() {
    let d = tree();
    let r = run(d.path(), pat("TODO"));
    assert_eq!(
        locs(&r),
        vec!["README.md:2", "src/a.rs:1", "src/lib.rs:2"],
        "{r:?}"
    );
    assert_eq!(
        r.matches[2],
        GrepMatch {
            path: "src/lib.rs".into(),
            line: 2,
            text: "// TODO: beta".into()
        }
    );
    assert_eq!(r.skipped_binary, 1);
    assert_eq!(r.skipped_too_large, 0);
    assert!(!r.truncated);
    assert_eq!(r.files_matched, 3);
    // README.md, src/lib.rs, src/a.rs, src/a/mod.rs: not target/ or run.log (ignored),
    // .gitignore or .hidden/ (hidden); the binary file is counted apart.
    assert_eq!(r.files_searched, 4);
}

#[test]
fn order_is_by_path_components_then_line() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "b.txt", "hit\n");
    write(d.path(), "a.txt", "x\nhit\nhit\n");
    write(d.path(), "a/z.txt", "hit\n");
    write(d.path(), "a-b/c.txt", "hit\n");
    let r = run(d.path(), pat("hit"));
    assert_eq!(
        locs(&r),
        vec!["a/z.txt:1", "a-b/c.txt:1", "a.txt:2", "a.txt:3", "b.txt:1"]
    );
}

#[test]
fn case_insensitive_glob_and_path() {
    let d = tree();
    let r = run(
        d.path(),
        GrepFilesRequest {
            case_insensitive: true,
            ..pat("todo")
        },
    );
    assert_eq!(
        locs(&r),
        vec![
            "README.md:2",
            "src/a/mod.rs:1",
            "src/a.rs:1",
            "src/lib.rs:2"
        ]
    );
    let r = run(
        d.path(),
        GrepFilesRequest {
            glob: Some("*.md".into()),
            ..pat("TODO")
        },
    );
    assert_eq!(locs(&r), vec!["README.md:2"]);
    let r = run(
        d.path(),
        GrepFilesRequest {
            path: Some("src".into()),
            case_insensitive: true,
            glob: Some("!mod.rs".into()),
            ..pat("todo")
        },
    );
    assert_eq!(locs(&r), vec!["src/a.rs:1", "src/lib.rs:2"]);
    // A single file given explicitly is searched even if ignored.
    let r = run(
        d.path(),
        GrepFilesRequest {
            path: Some("run.log".into()),
            ..pat("TODO")
        },
    );
    assert_eq!(locs(&r), vec!["run.log:1"]);
}

#[test]
fn gitignore_is_respected_inside_a_git_repository_too() {
    let d = tree();
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(d.path())
        .args(["init", "-q"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let r = run(d.path(), pat("build output|in a log"));
    assert!(r.matches.is_empty(), "{r:?}");
}

#[test]
fn files_over_the_size_limit_are_skipped_and_counted() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "small.txt", "needle\n");
    let mut big = "needle\n".to_string();
    big.push_str(&"x".repeat(5 * 1024 * 1024));
    write(d.path(), "big.txt", &big);
    let r = run(d.path(), pat("needle"));
    assert_eq!(locs(&r), vec!["small.txt:1"]);
    assert_eq!(r.skipped_too_large, 1);
    let small_limit = GrepOptions {
        max_file_size: 4,
        ..GrepOptions::default()
    };
    let r = search(d.path(), &pat("needle"), &small_limit).unwrap();
    assert_eq!(r.skipped_too_large, 2);
    assert!(r.matches.is_empty());
    assert!(
        r.render(4).contains("skipped 2 over 4 bytes"),
        "{}",
        r.render(4)
    );
}

#[test]
fn max_results_truncates_deterministically() {
    let d = tempfile::tempdir().unwrap();
    for f in ["c.txt", "a.txt", "b.txt"] {
        write(d.path(), f, "m\nm\nm\n");
    }
    let r = run(
        d.path(),
        GrepFilesRequest {
            max_results: 4,
            ..pat("m")
        },
    );
    assert!(r.truncated);
    assert_eq!(locs(&r), vec!["a.txt:1", "a.txt:2", "a.txt:3", "b.txt:1"]);
    let r = run(
        d.path(),
        GrepFilesRequest {
            max_results: 9,
            ..pat("m")
        },
    );
    assert!(!r.truncated, "exactly max_results matches is not truncated");
    assert_eq!(r.matches.len(), 9);
    // Default: 200.
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "many.txt", "m\n".repeat(300));
    let r = run(d.path(), pat("m"));
    assert_eq!(r.matches.len(), 200);
    assert!(r.truncated);
}

#[test]
fn handler_output_has_text_and_structured_forms() {
    let d = tree();
    let out = grep_files(d.path(), &pat("TODO")).unwrap();
    assert_eq!(
        out.text,
        "README.md:2:TODO: write docs\n\
         src/a.rs:1:fn a() { /* TODO a */ }\n\
         src/lib.rs:2:// TODO: beta\n\
         3 matches in 3 files (4 searched; skipped 1 binary)"
    );
    let s = out.structured.unwrap();
    assert_eq!(s["matches"][0]["path"], "README.md");
    assert_eq!(s["matches"][0]["line"], 2);
    assert_eq!(s["skipped_binary"], 1);
    assert_eq!(s["truncated"], false);
}

#[test]
fn long_lines_are_cut() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "min.js",
        format!("{}needle{}\n", "a".repeat(10), "b".repeat(2000)),
    );
    let r = run(d.path(), pat("needle"));
    assert_eq!(r.matches[0].text.chars().count(), 501);
    assert!(r.matches[0].text.ends_with('…'));
}

#[test]
fn bad_input_is_a_model_error() {
    let d = tree();
    for (req, want) in [
        (pat("fn ("), "invalid pattern"),
        (pat(""), "pattern is empty"),
        (
            GrepFilesRequest {
                path: Some("nope".into()),
                ..pat("x")
            },
            "nope does not exist",
        ),
        (
            GrepFilesRequest {
                glob: Some("{a,".into()),
                ..pat("x")
            },
            "invalid glob",
        ),
    ] {
        // A missing path is the world's refusal; a bad pattern or glob the arguments'.
        match grep_files(d.path(), &req) {
            Err(ToolError::Model(m) | ToolError::Argument(m)) => assert!(m.contains(want), "{m}"),
            other => panic!("{req:?}: {other:?}"),
        }
    }
}
