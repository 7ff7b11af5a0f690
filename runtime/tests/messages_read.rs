//! `message_read` over a real SQLite store loaded from the sample transcript.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Cursor;

use serde_json::Value;
use toolsurface_runtime::call::{ToolError, ToolOutput};
use toolsurface_runtime::messages::{
    Context, Field, History, Message, MessageRead, MessageStore, Payload, Role, SqliteMessageStore,
    Turns, View, import_jsonl, message_read,
};

const SAMPLE: &str = include_str!("../../examples/transcripts/sample.jsonl");

fn store() -> (tempfile::TempDir, SqliteMessageStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteMessageStore::open(dir.path().join("m.sqlite3")).unwrap();
    import_jsonl(&store, Cursor::new(SAMPLE)).unwrap();
    (dir, store)
}

fn ok(store: &SqliteMessageStore, req: impl Into<MessageRead>) -> (String, Value) {
    let ToolOutput { text, structured } = message_read(store, &req.into()).unwrap();
    (text, structured.unwrap())
}

fn model_err(store: &SqliteMessageStore, req: impl Into<MessageRead>) -> String {
    match message_read(store, &req.into()) {
        Err(ToolError::Model(m)) => m,
        other => panic!("expected a model error, got {other:?}"),
    }
}

/// A history request naming neither a session nor a channel, with message_read.yaml's
/// defaults (view transcript, limit 50: a parsed call gets them from the generated
/// conversion; the root suite's `implements_agree` and `host_tools` hold that).
fn unscoped() -> History {
    History {
        session_id: None,
        channel: None,
        view: View::Transcript,
        limit: 50,
    }
}

fn history(session: &str) -> History {
    History {
        session_id: Some(session.into()),
        ..unscoped()
    }
}

fn ids(v: &Value) -> Vec<String> {
    v["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn transcript_is_role_colon_text_lines_oldest_first() {
    let (_d, s) = store();
    let (text, v) = ok(&s, history("sess-review"));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "session sess-review: 12 of 12 messages");
    assert_eq!(
        lines[1],
        "user: Review the sqlite skill: can sql_query ever write?"
    );
    assert!(
        lines[2].starts_with("assistant: It opens the database")
            && lines[2].ends_with("[calls sql_query]"),
        "{}",
        lines[2]
    );
    assert!(
        lines[3].starts_with("tool: sql_query: refused"),
        "{}",
        lines[3]
    );
    assert_eq!(
        *lines.last().unwrap(),
        "assistant: Done. Summary posted to #infra."
    );
    assert_eq!(v["total"], 12);
    assert_eq!(v["truncated"], false);
    assert_eq!(ids(&v).len(), 12);
}

#[test]
fn limit_keeps_the_newest_messages() {
    let (_d, s) = store();
    let (text, v) = ok(
        &s,
        History {
            limit: 3,
            ..history("sess-build")
        },
    );
    assert_eq!(ids(&v), vec!["m-0016", "m-0017", "m-0018"]);
    assert_eq!(v["truncated"], true);
    assert!(text.starts_with("session sess-build: 3 of 18 messages (newest; 15 older not shown)"));
}

#[test]
fn long_fields_are_previewed_with_a_payload_pointer() {
    let (_d, s) = store();
    let (text, v) = ok(&s, history("sess-build"));
    assert!(
        text.contains("[5952 chars; mode=payload message_id=m-0007 field=tool_result]"),
        "{text}"
    );
    assert!(
        !text.contains("test result: FAILED"),
        "the log tail must not be inlined"
    );
    let m7 = v["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == "m-0007")
        .unwrap();
    assert_eq!(m7["chars"]["tool_result"], 5952);
}

#[test]
fn channel_history_spans_sessions_and_marks_them() {
    let (_d, s) = store();
    let (text, v) = ok(
        &s,
        History {
            channel: Some("infra".into()),
            limit: 500,
            ..unscoped()
        },
    );
    let ids = ids(&v);
    assert_eq!(ids.len(), 28);
    assert!(
        !ids.contains(&"m-0017".to_string()),
        "m-0017 has no channel"
    );
    assert!(text.contains("[session sess-build]\nsystem: You are the build assistant"));
    assert!(text.contains("[session sess-review]\nuser: Review the sqlite skill"));
    assert!(text.find("[session sess-build]") < text.find("[session sess-review]"));
}

/// A turns request of `session` with message_read.yaml's default limit (10 turns).
fn turns_of(session: &str) -> Turns {
    Turns {
        session_id: Some(session.into()),
        channel: None,
        limit: 10,
    }
}

#[test]
fn turns_mode_groups_by_turn_field_or_user_message() {
    let (_d, s) = store();
    let (text, v) = ok(&s, turns_of("sess-build"));
    assert_eq!(v["mode"], "turns");
    assert!(v.get("view").is_none(), "turns is a mode, not a view: {v}");
    let turns: Vec<i64> = v["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["turn"].as_i64().unwrap())
        .collect();
    assert_eq!(turns, vec![0, 1, 2, 3]);
    assert_eq!(v["turns"][1]["messages"].as_array().unwrap().len(), 11);
    assert!(
        text.contains("── turn 1 · 2026-11-13T22:30:12+08:00 · 11 messages"),
        "{text}"
    );
    assert!(text.contains("\n  user: The runtime tests fail"), "{text}");

    // sess-review has no turn numbers: a turn starts at each user message.
    let (_, v) = ok(&s, turns_of("sess-review"));
    let sizes: Vec<usize> = v["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["messages"].as_array().unwrap().len())
        .collect();
    assert_eq!(sizes, vec![6, 4, 2]);

    // limit counts turns in this mode.
    let (text, v) = ok(
        &s,
        Turns {
            limit: 1,
            ..turns_of("sess-review")
        },
    );
    assert_eq!(v["returned_turns"], 1);
    assert_eq!(v["truncated"], true);
    assert_eq!(v["turns"][0]["messages"][0]["id"], "r-0011");
    assert!(
        text.contains("1 of 3 turns (12 messages) (newest; 2 older not shown)"),
        "{text}"
    );
}

#[test]
fn audit_view_shows_ids_timestamps_and_tool_calls() {
    let (_d, s) = store();
    let (text, _) = ok(
        &s,
        History {
            view: View::Audit,
            limit: 2,
            ..history("sess-review")
        },
    );
    assert!(
        text.contains("[r-0011] 2026-11-13T15:09:00Z user session=sess-review channel=infra"),
        "{text}"
    );
    assert!(
        text.contains("content (31 chars): Done. Summary posted to #infra."),
        "{text}"
    );

    let (text, _) = ok(
        &s,
        History {
            view: View::Audit,
            ..history("sess-build")
        },
    );
    assert!(text.contains(
        "[m-0003] 2026-11-13T22:30:15+08:00 assistant session=sess-build channel=infra turn=1"
    ));
    assert!(text.contains(r#"tool_calls ("#), "{text}");
    assert!(text.contains(r#""name":"set_workdirs""#), "{text}");
    assert!(text.contains("reasoning ("), "{text}");
}

#[test]
fn history_or_turns_built_by_hand_with_both_or_neither_scope_is_an_argument_error() {
    // Call::parse refuses these (exactly_one_of); the runtime answers a hand-built request.
    let (_d, s) = store();
    let both = History {
        channel: Some("infra".into()),
        ..history("sess-build")
    };
    let neither = unscoped();
    let turns_both = Turns {
        channel: Some("infra".into()),
        ..turns_of("sess-build")
    };
    let turns_neither = Turns {
        session_id: None,
        ..turns_of("sess-build")
    };
    let requests: [(MessageRead, &str); 4] = [
        (both.into(), "mode=history:"),
        (neither.into(), "mode=history:"),
        (turns_both.into(), "mode=turns:"),
        (turns_neither.into(), "mode=turns:"),
    ];
    for (req, mode) in requests {
        match message_read(&s, &req) {
            Err(ToolError::Argument(m)) => {
                assert!(m.starts_with(mode), "{m}");
                assert!(m.contains("exactly one of session_id or channel"), "{m}")
            }
            other => panic!("expected an argument error, got {other:?}"),
        }
    }
}

#[test]
fn turns_of_a_channel_span_sessions_and_an_unknown_scope_is_named() {
    let (_d, s) = store();
    let (text, v) = ok(
        &s,
        Turns {
            session_id: None,
            channel: Some("infra".into()),
            limit: 50,
        },
    );
    assert_eq!(v["channel"], "infra");
    assert_eq!(v["session_id"], Value::Null);
    assert_eq!(v["total"], 28);
    assert!(text.contains(" · session sess-review · "), "{text}");
    let e = model_err(&s, turns_of("sess-buld"));
    assert!(e.contains(r#"did you mean "sess-build"?"#), "{e}");
}

#[test]
fn unknown_session_and_channel_name_what_was_looked_up() {
    let (_d, s) = store();
    let e = model_err(&s, history("sess-buld"));
    assert!(e.contains(r#"no session "sess-buld""#), "{e}");
    assert!(e.contains(r#"did you mean "sess-build"?"#), "{e}");
    let e = model_err(
        &s,
        History {
            channel: Some("ops".into()),
            ..unscoped()
        },
    );
    assert!(e.contains(r#"no channel "ops""#), "{e}");
    assert!(e.contains(r#"known channels: "infra""#), "{e}");
}

fn context(id: &str, before: usize, after: usize) -> Context {
    Context {
        message_id: id.into(),
        before,
        after,
    }
}

#[test]
fn context_returns_before_and_after() {
    let (_d, s) = store();
    let (text, v) = ok(&s, context("m-0008", 3, 3));
    let side = |k: &str| -> Vec<String> {
        v[k].as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(side("before"), vec!["m-0005", "m-0006", "m-0007"]);
    assert_eq!(side("after"), vec!["m-0009", "m-0010", "m-0011"]);
    assert_eq!(v["message"]["id"], "m-0008");
    assert!(text.contains("▶ [m-0008]"), "{text}");
    assert!(text.starts_with("context of message m-0008 (session sess-build): 3 before, 3 after"));

    let (_, v) = ok(&s, context("m-0002", 5, 0));
    assert_eq!(v["before"].as_array().unwrap().len(), 1);
    assert_eq!(v["after"].as_array().unwrap().len(), 0);
}

#[test]
fn context_of_an_unknown_message_suggests_close_ids() {
    let (_d, s) = store();
    let e = model_err(&s, context("m-00007", 3, 3));
    assert!(
        e.starts_with(r#"no message "m-00007" in the message store"#),
        "{e}"
    );
    assert!(e.contains(r#""m-0007""#), "{e}");
}

fn payload(id: &str, field: Field, offset: usize, limit: usize) -> Payload {
    Payload {
        message_id: id.into(),
        field,
        offset,
        limit,
    }
}

#[test]
fn payload_pages_through_a_long_field() {
    let (_d, s) = store();
    let whole = s.get("m-0007").unwrap().unwrap().tool_result.unwrap();
    let mut offset = 0;
    let mut pages = Vec::new();
    let mut assembled = String::new();
    loop {
        let (text, v) = ok(&s, payload("m-0007", Field::ToolResult, offset, 1000));
        assert_eq!(v["total_chars"], 5952);
        let chunk = v["text"].as_str().unwrap();
        assert!(text.ends_with(chunk));
        assembled.push_str(chunk);
        pages.push(text.lines().next().unwrap().to_string());
        match v["next_offset"].as_u64() {
            Some(n) => offset = usize::try_from(n).unwrap(),
            None => break,
        }
    }
    assert_eq!(assembled, whole);
    assert_eq!(pages.len(), 6);
    assert_eq!(
        pages[0],
        "message m-0007 tool_result: characters 0..1000 of 5952 (next offset 1000)"
    );
    assert_eq!(
        pages[5],
        "message m-0007 tool_result: characters 5000..5952 of 5952 (end)"
    );
}

#[test]
fn payload_counts_characters_not_bytes() {
    let s = SqliteMessageStore::open_in_memory().unwrap();
    s.insert(&[Message {
        id: "u1".into(),
        session_id: "s".into(),
        channel: None,
        role: Role::User,
        at: "2026-01-01T00:00:00Z".into(),
        turn: None,
        content: "héllo wörld ✓ 你好".into(),
        tool_result: None,
        reasoning: None,
        tool_calls: None,
    }])
    .unwrap();
    let (_, v) = ok(&s, payload("u1", Field::Content, 6, 7));
    assert_eq!(v["text"], "wörld ✓");
    assert_eq!(v["next_offset"], 13);
    assert_eq!(v["total_chars"], 16);
    let (_, v) = ok(&s, payload("u1", Field::Content, 16, 4000));
    assert_eq!(v["text"], "");
    assert_eq!(v["next_offset"], Value::Null);
}

#[test]
fn payload_errors_are_specific() {
    let (_d, s) = store();
    let e = model_err(&s, payload("m-0007", Field::ToolResult, 9000, 4000));
    assert_eq!(
        e,
        r#"offset 9000 is past the end of message "m-0007" tool_result (5952 characters)"#
    );
    let e = model_err(&s, payload("m-0004", Field::Reasoning, 0, 4000));
    assert_eq!(
        e,
        r#"message "m-0004" has no reasoning; its fields: content, tool_result"#
    );
    let e = model_err(&s, payload("zzz-9", Field::Content, 0, 4000));
    assert!(e.starts_with(r#"no message "zzz-9""#), "{e}");
}

/// A session of 700 messages in 140 turns (a user message, then four more, per turn).
fn long_store() -> (tempfile::TempDir, SqliteMessageStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteMessageStore::open(dir.path().join("m.sqlite3")).unwrap();
    let mut jsonl = String::new();
    for i in 0..700 {
        let role = if i % 5 == 0 { "user" } else { "assistant" };
        jsonl.push_str(
            &serde_json::json!({
                "id": format!("l-{i:04}"),
                "session_id": "sess-long",
                "role": role,
                "at": format!("2026-01-01T00:{:02}:{:02}Z", i / 60 % 60, i % 60),
                "turn": i / 5 + 1,
                "content": format!("message {i}"),
            })
            .to_string(),
        );
        jsonl.push('\n');
    }
    import_jsonl(&store, Cursor::new(jsonl)).unwrap();
    (dir, store)
}

/// Every `limit` message_read.yaml allows (up to 50000) is honoured in history: the runtime
/// used to cap it at 500 messages without a word.
#[test]
fn history_returns_more_than_500_messages_when_asked() {
    let (_d, s) = long_store();
    let (text, v) = ok(
        &s,
        History {
            limit: 600,
            ..history("sess-long")
        },
    );
    assert_eq!(v["returned"], 600);
    assert_eq!(v["messages"][0]["id"], "l-0100");
    assert!(
        text.starts_with("session sess-long: 600 of 700 messages (newest; 100 older not shown)")
    );
    let (_, v) = ok(
        &s,
        History {
            limit: 50_000,
            ..history("sess-long")
        },
    );
    assert_eq!(v["returned"], 700);
    assert_eq!(v["truncated"], false);
}

/// The turns mode likewise: the runtime used to cap it at 100 turns.
#[test]
fn the_turns_mode_returns_more_than_100_turns_when_asked() {
    let (_d, s) = long_store();
    let (_, v) = ok(
        &s,
        Turns {
            limit: 120,
            ..turns_of("sess-long")
        },
    );
    assert_eq!(v["returned_turns"], 120);
    assert_eq!(v["total_turns"], 140);
    assert_eq!(v["turns"][0]["turn"], 21);
}
