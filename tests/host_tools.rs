//! StandardHost running the non-shell families for real through handle_batch: files
//! (rehearsal, staging and confirm_token, edits, patches), message_read over an imported
//! transcript, search_memory, grep_files, set_workdirs + introspect workdirs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::host_support;

use host_support::Fixture;
use host_support::ok;
use host_support::structured;
use host_support::write;
use toolsurface::runtime::Outcome;
use toolsurface::runtime::Turn;
use toolsurface::runtime::rehearsal_refusal;
use toolsurface::standard::Family;
use toolsurface::standard::Role;

fn json(value: serde_json::Value) -> String {
    value.to_string()
}

#[tokio::test]
async fn rehearsal_runs_read_file_and_refuses_write_file() {
    let fx = Fixture::new(Role::SideChat, Family::Chat);
    write(&fx.path("notes.txt"), "one\ntwo\n");
    let results = fx
        .run(
            &Turn::rehearsal(),
            &[
                ("r1", "read_file", r#"{"path":"notes.txt"}"#),
                ("r2", "write_file", r#"{"path":"new.txt","content":"x"}"#),
                ("r3", "shell", r#"{"command":"touch made-by-shell"}"#),
            ],
        )
        .await;
    ok(&results[0]);
    assert!(results[0].text.contains("two"), "{}", results[0].text);
    assert_eq!(results[1].outcome, Outcome::Refused);
    assert_eq!(results[1].text, rehearsal_refusal("write_file"));
    assert_eq!(results[2].text, rehearsal_refusal("shell"));
    assert!(!fx.path("new.txt").exists());
    assert!(!fx.path("made-by-shell").exists());
}

#[tokio::test]
async fn an_unread_file_is_staged_then_applied_with_its_confirm_token() {
    let fx = Fixture::new(Role::SideChat, Family::Chat);
    write(&fx.path("config.txt"), "old\n");
    let staged = fx
        .one("write_file", r#"{"path":"config.txt","content":"new\n"}"#)
        .await;
    // Nothing was written: an error result, with the staged facts.
    assert!(staged.is_error, "{}", staged.text);
    let facts = structured(&staged).clone();
    assert_eq!(facts["status"], "staged", "{}", staged.text);
    assert_eq!(
        std::fs::read_to_string(fx.path("config.txt")).unwrap(),
        "old\n"
    );
    let staged_path = facts["staged_paths"][0].as_str().unwrap().to_owned();
    assert_eq!(std::fs::read_to_string(&staged_path).unwrap(), "new\n");
    // Staged copies live under the configured state folder.
    assert!(
        staged_path.starts_with(fx.dir.path().join("state").to_str().unwrap()),
        "{staged_path}"
    );
    let token = facts["confirm_token"].as_str().unwrap();

    let applied = fx
        .one(
            "write_file",
            &json(serde_json::json!({"path":"config.txt","content":"","confirm_token":token})),
        )
        .await;
    ok(&applied);
    assert_eq!(
        structured(&applied)["status"],
        "written",
        "{}",
        applied.text
    );
    assert_eq!(
        std::fs::read_to_string(fx.path("config.txt")).unwrap(),
        "new\n"
    );

    // The token is spent.
    let again = fx
        .one(
            "write_file",
            &json(serde_json::json!({"path":"config.txt","content":"","confirm_token":token})),
        )
        .await;
    assert!(again.is_error, "{}", again.text);
}

#[tokio::test]
async fn a_read_file_may_be_replaced_and_edited_in_the_same_conversation() {
    let fx = Fixture::new(Role::Main, Family::Anthropic);
    write(&fx.path("src/lib.txt"), "alpha\nbeta\n");
    let read = fx.one("read_file", r#"{"path":"src/lib.txt"}"#).await;
    ok(&read);
    let written = fx
        .one(
            "write_file",
            r#"{"path":"src/lib.txt","content":"alpha\nbeta\ngamma\n"}"#,
        )
        .await;
    ok(&written);
    assert_eq!(
        std::fs::read_to_string(fx.path("src/lib.txt")).unwrap(),
        "alpha\nbeta\ngamma\n"
    );
    let edited = fx
        .one(
            "file_edit",
            r#"{"path":"src/lib.txt","old_text":"beta","new_text":"BETA"}"#,
        )
        .await;
    ok(&edited);
    let patch = "*** Begin Patch\n*** Update File: src/lib.txt\n@@\n alpha\n-BETA\n+beta\n gamma\n*** Add File: src/new.txt\n+fresh\n*** End Patch\n";
    let patched = fx
        .one("apply_patch", &json(serde_json::json!({ "patch": patch })))
        .await;
    ok(&patched);
    assert_eq!(
        std::fs::read_to_string(fx.path("src/lib.txt")).unwrap(),
        "alpha\nbeta\ngamma\n"
    );
    assert_eq!(
        std::fs::read_to_string(fx.path("src/new.txt")).unwrap(),
        "fresh\n"
    );
}

#[tokio::test]
async fn apply_patch_on_the_responses_family_takes_the_raw_freeform_input() {
    let fx = Fixture::new(Role::Main, Family::Responses);
    let patch = "*** Begin Patch\n*** Add File: raw.txt\n+as a custom tool\n*** End Patch\n";
    ok(&fx.one("apply_patch", patch).await);
    assert_eq!(
        std::fs::read_to_string(fx.path("raw.txt")).unwrap(),
        "as a custom tool\n"
    );
}

#[tokio::test]
async fn message_read_over_the_imported_sample_transcript() {
    let fx = Fixture::new(Role::SideChat, Family::Chat);
    let sample = std::fs::File::open(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/transcripts/sample.jsonl"
    ))
    .unwrap();
    let report = toolsurface::runtime::import_jsonl(
        fx.host.message_store().as_ref(),
        std::io::BufReader::new(sample),
    )
    .unwrap();
    assert!(report.sessions.contains(&"sess-build".to_owned()));
    // The default store is a real SQLite file under the state folder.
    assert!(fx.dir.path().join("state/messages.sqlite3").is_file());

    let results = fx
        .run(
            &Turn::normal(),
            &[
                (
                    "h",
                    "message_read",
                    r#"{"mode":"history","session_id":"sess-review","limit":3}"#,
                ),
                (
                    "c",
                    "message_read",
                    r#"{"mode":"context","message_id":"m-0008","before":1,"after":1}"#,
                ),
                (
                    "p",
                    "message_read",
                    r#"{"mode":"payload","message_id":"m-0007","field":"tool_result","limit":200}"#,
                ),
                (
                    "x",
                    "message_read",
                    r#"{"mode":"history","session_id":"sess-review","channel":"infra"}"#,
                ),
                (
                    "a",
                    "message_history_read",
                    r#"{"channel":"infra","limit":1}"#,
                ),
            ],
        )
        .await;
    ok(&results[0]);
    assert!(
        results[0].text.contains("Done. Summary posted"),
        "{}",
        results[0].text
    );
    assert!(
        !results[0].text.contains("Review the sqlite skill"),
        "newest 3 only"
    );
    ok(&results[1]);
    for id in ["m-0007", "m-0008", "m-0009"] {
        assert!(results[1].text.contains(id), "{id}: {}", results[1].text);
    }
    ok(&results[2]);
    assert!(results[2].text.contains("cargo") || results[2].text.contains("test"));
    // exactly_one_of: both session_id and channel is refused before anything runs.
    assert!(results[3].is_error);
    assert_eq!(results[3].outcome, Outcome::Refused, "{}", results[3].text);
    ok(&results[4]);
}

/// A call leaving `limit` out gets its mode's default from the definition (history 50
/// messages, turns 10 turns, payload 4000 characters: message_read.yaml's `defaults:`, filled
/// in by the generated conversion; the runtime keeps none of its own). The store holds more of
/// each, so a smaller or larger default, or none, would show.
#[tokio::test]
async fn message_read_without_a_limit_reads_each_modes_default() {
    let fx = Fixture::new(Role::SideChat, Family::Chat);
    // 12 turns of 6 messages (72 in all); the last message is 5000 characters long.
    let mut jsonl = String::new();
    for i in 0..72 {
        let content = if i == 71 {
            "x".repeat(5000)
        } else {
            format!("message {i}")
        };
        let line = serde_json::json!({
            "id": format!("d-{i:03}"),
            "session_id": "sess-defaults",
            "role": if i % 6 == 0 { "user" } else { "assistant" },
            "at": format!("2026-01-01T00:{:02}:{:02}Z", i / 60, i % 60),
            "turn": i / 6 + 1,
            "content": content,
        });
        jsonl.push_str(&line.to_string());
        jsonl.push('\n');
    }
    toolsurface::runtime::import_jsonl(
        fx.host.message_store().as_ref(),
        std::io::Cursor::new(jsonl),
    )
    .unwrap();
    let results = fx
        .run(
            &Turn::normal(),
            &[
                (
                    "h",
                    "message_read",
                    r#"{"mode":"history","session_id":"sess-defaults"}"#,
                ),
                (
                    "t",
                    "message_read",
                    r#"{"mode":"turns","session_id":"sess-defaults"}"#,
                ),
                (
                    "p",
                    "message_read",
                    r#"{"mode":"payload","message_id":"d-071","field":"content"}"#,
                ),
            ],
        )
        .await;
    let history = structured(ok(&results[0]));
    assert_eq!(history["total"], 72);
    assert_eq!(history["returned"], 50, "{history}");
    let turns = structured(ok(&results[1]));
    assert_eq!(turns["mode"], "turns");
    assert_eq!(turns["total_turns"], 12);
    assert_eq!(turns["returned_turns"], 10, "{turns}");
    assert_eq!(turns["turns"][0]["turn"], 3);
    let payload = structured(ok(&results[2]));
    assert_eq!(payload["total_chars"], 5000);
    assert_eq!(payload["returned_chars"], 4000, "{payload}");
    assert_eq!(payload["next_offset"], 4000);
}

#[tokio::test]
async fn search_memory_answers_from_the_facts_store_with_provenance() {
    let fx = Fixture::new(Role::Steward, Family::Gemini);
    fx.host
        .fact_store()
        .add_fact(
            "Build with -j2: the machine has only 2 cores",
            "sess-build/m-0018",
            "2026-11-13T23:10:00+08:00",
        )
        .unwrap();
    let result = fx
        .one("search_memory", r#"{"query":"how many cores"}"#)
        .await;
    ok(&result);
    assert!(result.text.contains("-j2"), "{}", result.text);
    assert!(result.text.contains("sess-build/m-0018"), "{}", result.text);
}

#[tokio::test]
async fn grep_files_searches_the_host_root() {
    let fx = Fixture::new(Role::SideChat, Family::Chat);
    write(&fx.path("a.txt"), "nothing\nthe needle is here\n");
    write(&fx.path("sub/b.rs"), "fn needle() {}\n");
    write(&fx.path("ignored/c.txt"), "needle\n");
    write(&fx.path(".gitignore"), "ignored/\n");
    let result = fx
        .one("grep_files", r#"{"pattern":"needle","glob":"*.txt"}"#)
        .await;
    ok(&result);
    let matches = structured(&result)["matches"].as_array().unwrap().clone();
    assert_eq!(matches.len(), 1, "{}", result.text);
    assert_eq!(matches[0]["path"], "a.txt");
    assert_eq!(matches[0]["line"], 2);
    let all = fx
        .one(
            "grep_files",
            r#"{"pattern":"NEEDLE","case_insensitive":true}"#,
        )
        .await;
    assert_eq!(structured(ok(&all))["matches"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn set_workdirs_is_what_introspect_workdirs_reports() {
    let fx = Fixture::new(Role::SideChat, Family::Chat);
    write(&fx.path("proj/AGENTS.md"), "Build with -j2.\n");
    write(&fx.path("other/readme.txt"), "x\n");
    let before = ok(&fx.one("introspect", r#"{"target":"workdirs"}"#).await).clone();
    assert_eq!(structured(&before)["workdirs"], serde_json::json!([]));

    let set = fx.one("set_workdirs", r#"{"dirs":["proj"]}"#).await;
    ok(&set);
    assert!(
        set.text.contains("Build with -j2."),
        "AGENTS.md returned: {}",
        set.text
    );
    assert!(
        fx.path("proj/.git").is_dir(),
        "a plain folder gets git init"
    );
    let proj = std::fs::canonicalize(fx.path("proj")).unwrap();
    let other = std::fs::canonicalize(fx.path("other")).unwrap();
    let after = ok(&fx.one("introspect", r#"{"target":"workdirs"}"#).await).clone();
    assert_eq!(
        structured(&after)["workdirs"],
        serde_json::json!([proj.display().to_string()])
    );

    ok(&fx
        .one("set_workdirs", r#"{"dirs":["other"],"mode":"add"}"#)
        .await);
    let both = ok(&fx.one("introspect", r#"{"target":"workdirs"}"#).await).clone();
    assert_eq!(
        structured(&both)["workdirs"],
        serde_json::json!([proj.display().to_string(), other.display().to_string()])
    );
    assert_eq!(
        fx.host.runtime().workdirs(),
        vec![proj.clone(), other.clone()]
    );

    // A failing call changes nothing.
    let missing = fx.one("set_workdirs", r#"{"dirs":["nope"]}"#).await;
    assert!(missing.is_error);
    assert_eq!(fx.host.runtime().workdirs(), vec![proj, other]);

    ok(&fx.one("set_workdirs", r#"{"dirs":[]}"#).await);
    let cleared = ok(&fx.one("introspect", r#"{"target":"workdirs"}"#).await).clone();
    assert_eq!(structured(&cleared)["workdirs"], serde_json::json!([]));
}

#[tokio::test]
async fn configured_workdirs_are_declared_at_start() {
    let fx = Fixture::with(Role::SideChat, Family::Chat, |mut c| {
        let root = c.runtime.hosts["alpha"].root.clone();
        std::fs::create_dir_all(root.join("app")).unwrap();
        c.runtime.workdirs = vec![root.join("app")];
        c
    });
    let app = std::fs::canonicalize(fx.path("app")).unwrap();
    let listed = ok(&fx.one("introspect", r#"{"target":"workdirs"}"#).await).clone();
    assert_eq!(
        structured(&listed)["workdirs"],
        serde_json::json!([app.display().to_string()])
    );
}

#[tokio::test]
async fn device_calls_use_the_configured_ssh_config() {
    // The alias exists only in this config file: reaching port 1 proves ssh got it with -F
    // (and refusing there proves nothing local was read instead).
    let dir = tempfile::tempdir().unwrap();
    let ssh_config = dir.path().join("ssh_config");
    write(
        &ssh_config,
        "Host only-in-this-config\n  HostName 127.0.0.1\n  Port 1\n  ConnectTimeout 5\n",
    );
    let fx = Fixture::with(Role::SideChat, Family::Chat, |c| {
        c.with_ssh_config(&ssh_config)
    });
    write(&fx.path("same-name.txt"), "local content\n");
    let result = fx
        .one(
            "read_file",
            r#"{"path":"same-name.txt","device":"only-in-this-config"}"#,
        )
        .await;
    assert!(result.is_error, "{}", result.text);
    assert!(!result.text.contains("local content"), "{}", result.text);
    assert!(result.text.contains("port 1"), "{}", result.text);
    // The case study's ssh alias (host → device) lands on the same path.
    let aliased = fx
        .one(
            "ssh_read_file",
            r#"{"path":"same-name.txt","host":"only-in-this-config"}"#,
        )
        .await;
    assert!(aliased.is_error);
    assert!(aliased.text.contains("port 1"), "{}", aliased.text);
}
