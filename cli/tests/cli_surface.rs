//! Which surface a CLI command uses, and how it names an unknown role or family (issue 29):
//! outside a checkout (no folder given, no tool-defs/ here) emit, explain and stats use the
//! standard surface built into the binary — the same bytes as the checkout's tool-defs/ —
//! and every one of them says on stderr which surface it used, stdout unchanged; `--role` /
//! `--family` mistakes get a did-you-mean from the one policy, in every command.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::cli_support;

use std::process::{Command, Output};

use cli_support::{code, repo, stderr, stdout};

fn run_in(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolsurface"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

const COMMANDS: [&[&str]; 4] = [
    &["emit", "--role", "main", "--family", "chat"],
    &[
        "emit",
        "--role",
        "side_chat",
        "--family",
        "gemini",
        "--dialect",
        "mcp",
    ],
    &["explain", "shell_session", "--role", "main"],
    &["stats", "--role", "steward"],
];

#[test]
fn outside_a_checkout_the_built_in_surface_is_used_and_named() {
    let elsewhere = tempfile::tempdir().unwrap();
    for args in COMMANDS {
        let inside = run_in(&repo(), args);
        let outside = run_in(elsewhere.path(), args);
        assert_eq!(code(&inside), 0, "{args:?}: {}", stderr(&inside));
        assert_eq!(code(&outside), 0, "{args:?}: {}", stderr(&outside));
        assert_eq!(stdout(&inside), stdout(&outside), "{args:?}: other bytes");
        assert!(
            stderr(&inside).contains("using the definitions in tool-defs"),
            "{args:?}: {}",
            stderr(&inside)
        );
        assert!(
            stderr(&outside).contains("using the standard surface built into this binary"),
            "{args:?}: {}",
            stderr(&outside)
        );
    }
}

#[test]
fn a_given_folder_is_used_and_a_missing_one_is_an_error() {
    let elsewhere = tempfile::tempdir().unwrap();
    let defs = repo().join("tool-defs");
    let given = run_in(
        elsewhere.path(),
        &[
            "emit",
            "--role",
            "main",
            "--family",
            "chat",
            defs.to_str().unwrap(),
        ],
    );
    assert_eq!(code(&given), 0, "{}", stderr(&given));
    assert!(stderr(&given).contains(&format!("using the definitions in {}", defs.display())));
    let missing = run_in(
        elsewhere.path(),
        &[
            "emit",
            "--role",
            "main",
            "--family",
            "chat",
            "no-such-folder",
        ],
    );
    assert_eq!(code(&missing), 2);
    assert!(
        stderr(&missing).contains("no-such-folder is not a definitions folder"),
        "{}",
        stderr(&missing)
    );
}

#[test]
fn unknown_roles_and_families_get_a_did_you_mean_everywhere() {
    let role = "unknown role `mian` (did you mean main?); expected one of side_chat, main, steward, maintainer";
    let family = "unknown family `chatt` (did you mean chat?); expected one of chat, chat_strict, responses, anthropic, gemini";
    let transcript = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(transcript.path(), "{}\n").unwrap();
    let transcript = transcript.path().to_str().unwrap();
    let cases: [(&[&str], &str); 9] = [
        (&["lint", "--role", "mian"], role),
        (&["diff", "--role", "mian"], role),
        (&["replay", "--role", "mian", transcript], role),
        (&["emit", "--role", "mian", "--family", "chat"], role),
        (&["emit", "--role", "main", "--family", "chatt"], family),
        (&["stats", "--role", "mian"], role),
        (&["stats", "--family", "chatt"], family),
        (
            &["validate", "--role", "mian", "--family", "chat", "{}"],
            role,
        ),
        (&["serve", "--role", "main", "--family", "chatt"], family),
    ];
    for (args, want) in cases {
        let o = run_in(&repo(), args);
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(want), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn lint_prints_each_missing_example_once() {
    let dir = tempfile::tempdir().unwrap();
    let defs = dir.path().join("defs");
    cli_support::copy_dir(&repo().join("tool-defs"), &defs);
    let tool = defs.join("tools/search_memory.yaml");
    let text = std::fs::read_to_string(&tool).unwrap();
    let (before, after) = text
        .split_once("examples:\n")
        .expect("search_memory has examples");
    let rest = after.split_once('\n').map(|(_, r)| r).unwrap_or("");
    std::fs::write(&tool, format!("{before}{rest}")).unwrap();
    let lint = run_in(dir.path(), &["lint", defs.to_str().unwrap()]);
    let all = format!("{}{}", stdout(&lint), stderr(&lint));
    let said = all.matches("tool `search_memory` has no example").count();
    assert_eq!(said, 1, "{all}");
    // check still reports it (its own rule).
    let check = run_in(dir.path(), &["check", defs.to_str().unwrap()]);
    assert!(
        stderr(&check).contains("warning[no-example]"),
        "{}",
        stderr(&check)
    );
}

#[test]
fn explain_outlines_a_shape_once_per_action_and_names_it_after() {
    let o = run_in(&repo(), &["explain", "route", "tests/data/kinds"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("  start (required): shape point: object (3 properties, no others)\n"),
        "{text}"
    );
    // `point`'s members are outlined under `start`, and only named under `legs[].to`.
    assert_eq!(
        text.matches(".lat (required): number, -90..=90").count(),
        1,
        "{text}"
    );
    assert!(text.contains("(shape point, outlined above)"), "{text}");
}
