//! The message store and the JSONL importer, against real SQLite files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Cursor;

use toolsurface_runtime::messages::time::{format_rfc3339_utc, parse_rfc3339};
use toolsurface_runtime::messages::{
    ImportError, MessageStore, Role, Scope, SqliteMessageStore, import_jsonl,
};

const SAMPLE: &str = include_str!("../../examples/transcripts/sample.jsonl");

fn file_store(dir: &tempfile::TempDir) -> SqliteMessageStore {
    SqliteMessageStore::open(dir.path().join("messages.sqlite3")).unwrap()
}

fn line_errors(e: ImportError) -> Vec<(usize, String)> {
    match e {
        ImportError::Invalid { errors, .. } => {
            errors.into_iter().map(|e| (e.line, e.message)).collect()
        }
        other => panic!("expected line errors, got {other}"),
    }
}

#[test]
fn sample_imports_into_a_file_and_persists() {
    let dir = tempfile::tempdir().unwrap();
    let report = import_jsonl(&file_store(&dir), Cursor::new(SAMPLE)).unwrap();
    assert_eq!(report.messages, 30);
    assert_eq!(report.inserted, 30);
    assert_eq!(report.unchanged, 0);
    assert_eq!(report.sessions, vec!["sess-build", "sess-review"]);
    assert_eq!(report.channels, vec!["infra"]);

    // A fresh connection to the same file sees everything.
    let store = file_store(&dir);
    assert_eq!(store.count(Scope::Session("sess-build")).unwrap(), 18);
    assert_eq!(store.count(Scope::Session("sess-review")).unwrap(), 12);
    assert_eq!(store.count(Scope::Channel("infra")).unwrap(), 28);
    let m = store.get("m-0003").unwrap().unwrap();
    assert_eq!(m.role, Role::Assistant);
    assert_eq!(m.turn, Some(1));
    assert!(
        m.reasoning
            .unwrap()
            .starts_with("The user wants a diagnosis")
    );
    let calls: serde_json::Value = serde_json::from_str(&m.tool_calls.unwrap()).unwrap();
    assert_eq!(calls[0]["name"], "set_workdirs");
    let m = store.get("m-0017").unwrap().unwrap();
    assert_eq!(m.channel, None);
    assert_eq!(m.tool_calls, None);
}

#[test]
fn reimporting_the_same_file_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = file_store(&dir);
    import_jsonl(&store, Cursor::new(SAMPLE)).unwrap();
    let again = import_jsonl(&store, Cursor::new(SAMPLE)).unwrap();
    assert_eq!((again.inserted, again.unchanged), (0, 30));
    assert_eq!(store.count(Scope::Channel("infra")).unwrap(), 28);
}

#[test]
fn history_orders_by_instant_across_utc_offsets() {
    let store = SqliteMessageStore::open_in_memory().unwrap();
    import_jsonl(&store, Cursor::new(SAMPLE)).unwrap();
    let ids: Vec<String> = store
        .history(Scope::Channel("infra"), None)
        .unwrap()
        .into_iter()
        .map(|m| m.id)
        .collect();
    // sess-build is at 22:30–22:40 +08:00, sess-review at 15:00Z = 23:00 +08:00: as strings
    // "2026-11-13T15…" would sort first; as instants it comes after.
    assert_eq!(ids.first().unwrap(), "m-0001");
    assert_eq!(ids[15], "m-0016");
    assert_eq!(ids[16], "r-0001");
    assert_eq!(ids.last().unwrap(), "r-0012");
    // Same instant (m-0006, m-0007): insertion order breaks the tie.
    let pos = |id: &str| ids.iter().position(|x| x == id).unwrap();
    assert!(pos("m-0006") < pos("m-0007"));
    // limit = the newest N, still oldest first.
    let newest: Vec<String> = store
        .history(Scope::Session("sess-build"), Some(2))
        .unwrap()
        .into_iter()
        .map(|m| m.id)
        .collect();
    assert_eq!(newest, vec!["m-0017", "m-0018"]);
}

#[test]
fn invalid_lines_are_reported_with_line_numbers_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let store = file_store(&dir);
    let text = [
        r#"{"id":"a1","session_id":"s","role":"user","at":"2026-01-01T00:00:00Z","content":"fine"}"#,
        r#"{"id":"a2","session_id":"s","role":"user","at":"2026-01-01T00:00:01Z","content":"unterminated"#,
        r#"{"id":"a3","session_id":"s","role":"robot","at":"2026-01-01T00:00:02Z","content":"x"}"#,
        "",
        r#"{"id":"a4","session_id":"s","role":"user","at":"2026-02-30T00:00:00Z","content":"x"}"#,
        r#"{"id":"a5","session_id":"s","role":"user","at":"2026-01-01T00:00:03Z","content":"x","colour":"red"}"#,
        r#"{"id":"a1","session_id":"s","role":"user","at":"2026-01-01T00:00:04Z","content":"dup"}"#,
        r#"{"id":"a6","session_id":"s","role":"assistant","at":"2026-01-01T00:00:05Z","content":"","tool_calls":{"name":"x"}}"#,
        r#"{"id":"a7","session_id":"s","role":"assistant","at":"2026-01-01T00:00:06Z","content":"","tool_calls":[{"arguments":{}}]}"#,
        r#"{"id":"a8","session_id":"s","role":"user","at":"2026-01-01T00:00:07Z"}"#,
        r#"{"id":"a9","session_id":"","role":"user","at":"2026-01-01T00:00:08Z","content":"x"}"#,
        r#"{"id":"a10","session_id":"s","role":"user","at":"2026-01-01T00:00:09Z","content":"x","turn":-1}"#,
    ]
    .join("\n");
    let errors = line_errors(import_jsonl(&store, Cursor::new(text)).unwrap_err());
    let lines: Vec<usize> = errors.iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, vec![2, 3, 5, 6, 7, 8, 9, 10, 11, 12], "{errors:?}");
    let msg = |line: usize| &errors.iter().find(|(l, _)| *l == line).unwrap().1;
    assert!(msg(3).contains("robot"), "{}", msg(3));
    assert!(msg(5).contains("day out of range"), "{}", msg(5));
    assert!(msg(6).contains("colour"), "{}", msg(6));
    assert!(msg(7).contains("first on line 1"), "{}", msg(7));
    assert!(msg(8).contains("must be an array"), "{}", msg(8));
    assert!(msg(9).contains("tool_calls[0]"), "{}", msg(9));
    assert!(msg(10).contains("content"), "{}", msg(10));
    assert!(msg(11).contains("session_id"), "{}", msg(11));
    assert!(msg(12).contains("turn"), "{}", msg(12));
    // The valid first line was not written either.
    assert!(store.get("a1").unwrap().is_none());
    assert!(store.session_ids().unwrap().is_empty());
}

#[test]
fn the_rendered_error_names_lines() {
    let store = SqliteMessageStore::open_in_memory().unwrap();
    let err = import_jsonl(&store, Cursor::new("{}\n")).unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with("nothing imported: 1 invalid line"),
        "{text}"
    );
    assert!(text.contains("line 1: missing field"), "{text}");
}

#[test]
fn a_conflicting_id_aborts_the_whole_import() {
    let dir = tempfile::tempdir().unwrap();
    let store = file_store(&dir);
    import_jsonl(&store, Cursor::new(SAMPLE)).unwrap();
    let text = [
        r#"{"id":"new-1","session_id":"sess-new","role":"user","at":"2026-01-01T00:00:00Z","content":"hello"}"#,
        r#"{"id":"m-0002","session_id":"sess-build","channel":"infra","role":"user","at":"2026-11-13T22:30:12+08:00","content":"changed text","turn":1}"#,
    ]
    .join("\n");
    let errors = line_errors(import_jsonl(&store, Cursor::new(text)).unwrap_err());
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].0, 2);
    assert!(errors[0].1.contains("m-0002"), "{}", errors[0].1);
    // Rolled back: the first, valid message of the batch is not stored.
    assert!(store.get("new-1").unwrap().is_none());
    assert!(
        !store
            .session_ids()
            .unwrap()
            .contains(&"sess-new".to_string())
    );
    assert_eq!(
        store.get("m-0002").unwrap().unwrap().content,
        "The runtime tests fail since this morning. Can you find out why?"
    );
}

#[test]
fn around_stays_within_the_session() {
    let store = SqliteMessageStore::open_in_memory().unwrap();
    import_jsonl(&store, Cursor::new(SAMPLE)).unwrap();
    let a = store.around("r-0001", 3, 2).unwrap().unwrap();
    assert!(a.before.is_empty(), "r-0001 starts its session");
    let after: Vec<&str> = a.after.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(after, vec!["r-0002", "r-0003"]);
    assert!(store.around("nope", 1, 1).unwrap().is_none());
}

#[test]
fn rfc3339_parsing() {
    assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z").unwrap(), 0);
    assert_eq!(
        parse_rfc3339("2026-11-13T22:36:05+08:00").unwrap(),
        parse_rfc3339("2026-11-13T14:36:05Z").unwrap()
    );
    assert_eq!(
        parse_rfc3339("2000-02-29T00:00:00.5Z").unwrap(),
        951_782_400_500
    );
    assert_eq!(parse_rfc3339("1969-12-31T23:59:59-00:00").unwrap(), -1000);
    assert_eq!(
        parse_rfc3339("2026-11-13 14:36:05.123456z").unwrap() % 1000,
        123
    );
    for bad in [
        "2026-11-13",
        "2026-11-13T14:36:05",
        "2026-02-29T00:00:00Z",
        "2026-13-01T00:00:00Z",
        "2026-11-13T24:00:00Z",
        "2026-11-13T14:36:05+0800",
        "2026-11-13T14:36:05.Z",
        "yesterday at noon please",
    ] {
        assert!(parse_rfc3339(bad).is_err(), "{bad} should be refused");
    }
    let ms = parse_rfc3339("2026-11-13T14:36:05Z").unwrap();
    assert_eq!(format_rfc3339_utc(ms), "2026-11-13T14:36:05Z");
    assert_eq!(format_rfc3339_utc(-1000), "1969-12-31T23:59:59Z");
}
