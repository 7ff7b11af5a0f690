//! `toolsurface messages` and `toolsurface facts`, run as the built binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_toolsurface");

/// The repository root (this crate is its `cli/`): tool-defs/, examples/, tests/data/.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

fn sample() -> String {
    root()
        .join("examples/transcripts/sample.jsonl")
        .display()
        .to_string()
}

fn run(cwd: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .current_dir(cwd)
        .args(args)
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

#[test]
fn import_then_read_the_sample_transcript() {
    let d = tempfile::tempdir().unwrap();
    let s = sample();
    // Default store: .toolsurface/messages.sqlite3 under the current directory.
    let o = run(d.path(), &["messages", "import", &s]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(d.path().join(".toolsurface/messages.sqlite3").is_file());
    let out = stdout(&o);
    assert!(
        out.starts_with("imported 30 messages into .toolsurface/messages.sqlite3 (30 new, 0 already stored unchanged)"),
        "{out}"
    );
    assert!(
        out.contains("sessions: sess-build, sess-review\nchannels: infra"),
        "{out}"
    );

    let o = run(
        d.path(),
        &[
            "messages",
            "read",
            "--mode",
            "history",
            "--session-id",
            "sess-review",
            "--limit",
            "2",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "session sess-review: 2 of 12 messages (newest; 10 older not shown)\n\
         user: Great, ship it.\n\
         assistant: Done. Summary posted to #infra.\n"
    );

    let o = run(
        d.path(),
        &[
            "messages",
            "read",
            "--mode",
            "payload",
            "--message-id",
            "m-0007",
            "--field",
            "tool_result",
            "--offset",
            "5900",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with("message m-0007 tool_result: characters 5900..5952 of 5952 (end)\n"),
        "{out}"
    );
    assert!(
        out.ends_with("0 filtered out; finished in 0.42s\n"),
        "{out}"
    );

    let o = run(
        d.path(),
        &[
            "messages",
            "read",
            "--mode",
            "context",
            "--message-id",
            "r-0004",
            "--before",
            "1",
            "--after",
            "0",
            "--json",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["before"][0]["id"], "r-0003");
    assert_eq!(v["after"], serde_json::json!([]));

    // Importing again is a no-op.
    let o = run(d.path(), &["messages", "import", &s]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("(0 new, 30 already stored unchanged)"));
}

#[test]
fn errors_have_documented_exit_codes() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("m.sqlite3");
    let db = db.to_str().unwrap();

    // Reading before importing: usage error (2), says what to do.
    let o = run(
        d.path(),
        &[
            "messages",
            "read",
            "--mode",
            "history",
            "--session-id",
            "x",
            "--db",
            db,
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("import a transcript first"),
        "{}",
        stderr(&o)
    );
    assert!(!Path::new(db).exists(), "reading must not create a store");

    // An invalid transcript: 1, with line numbers; nothing imported.
    let bad = d.path().join("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"id\":\"a\",\"session_id\":\"s\",\"role\":\"user\",\"at\":\"2026-01-01T00:00:00Z\",\"content\":\"ok\"}\n\
         {\"id\":\"b\",\"session_id\":\"s\",\"role\":\"user\",\"at\":\"noon\",\"content\":\"x\"}\n",
    )
    .unwrap();
    let o = run(
        d.path(),
        &["messages", "import", bad.to_str().unwrap(), "--db", db],
    );
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("nothing imported: 1 invalid line"), "{err}");
    assert!(
        err.contains("line 2: `at`: `noon` is not an RFC 3339 timestamp"),
        "{err}"
    );

    // A model error from message_read: 1, on stderr.
    let o = run(d.path(), &["messages", "import", &sample(), "--db", db]);
    assert_eq!(o.status.code(), Some(0));
    let o = run(
        d.path(),
        &[
            "messages",
            "read",
            "--mode",
            "history",
            "--session-id",
            "sess-reveiw",
            "--db",
            db,
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(
            r#"no session "sess-reveiw" in the message store; did you mean "sess-review" or "sess-build"?"#
        ),
        "{}",
        stderr(&o)
    );
    // A missing transcript file: 2.
    let o = run(d.path(), &["messages", "import", "nope.jsonl", "--db", db]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn facts_add_and_search() {
    let d = tempfile::tempdir().unwrap();
    let o = run(
        d.path(),
        &[
            "facts",
            "add",
            "The build machine has 2 cores; build with -j2.",
            "--source",
            "AGENTS.md",
            "--at",
            "2026-11-01T09:00:00Z",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("added fact #1 to .toolsurface/facts.sqlite3"),
        "{}",
        stdout(&o)
    );
    let o = run(
        d.path(),
        &[
            "facts",
            "add",
            "Deploys go out on Tuesdays.",
            "--source",
            "wiki",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(d.path(), &["facts", "search", "how many cores?"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "1 fact for \"how many cores?\", best first:\n\
         1. The build machine has 2 cores; build with -j2.\n   \
         — AGENTS.md, 2026-11-01T09:00:00Z\n"
    );
    let o = run(
        d.path(),
        &["facts", "add", "x", "--source", "s", "--at", "tomorrow"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("not an RFC 3339 timestamp"),
        "{}",
        stderr(&o)
    );
}
