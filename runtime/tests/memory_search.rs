//! The facts store (SQLite FTS5 file) and `search_memory`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;
use toolsurface_runtime::call::ToolError;
use toolsurface_runtime::memory::{
    FactStore, SearchMemoryRequest, SqliteFactStore, fts_query, search_memory,
};

fn seeded(dir: &tempfile::TempDir) -> SqliteFactStore {
    let s = SqliteFactStore::open(dir.path().join("facts.sqlite3")).unwrap();
    s.add_fact(
        "The build machine has 2 cores; build with -j2.",
        "AGENTS.md",
        "2026-11-01T09:00:00Z",
    )
    .unwrap();
    s.add_fact(
        "sql_query opens the SQLite database read-only with PRAGMA query_only.",
        "docs/sqlite.md",
        "2026-11-02T10:00:00+01:00",
    )
    .unwrap();
    s.add_fact(
        "The staging database is PostgreSQL 16 on db-staging.",
        "ops handbook",
        "2026-10-20T08:00:00Z",
    )
    .unwrap();
    s.add_fact(
        "Deploys go out on Tuesdays after the release review.",
        "team wiki",
        "2026-09-01T12:00:00Z",
    )
    .unwrap();
    s
}

/// search_memory.yaml's `default:` for `limit`, which a parsed call gets from the generated
/// conversion.
const DEFAULT_LIMIT: usize = 10;

fn search(s: &SqliteFactStore, q: &str, limit: Option<usize>) -> (String, Vec<Value>) {
    let out = search_memory(
        s,
        &SearchMemoryRequest {
            query: q.into(),
            limit: limit.unwrap_or(DEFAULT_LIMIT),
        },
    )
    .unwrap();
    let answers = out.structured.unwrap()["answers"]
        .as_array()
        .unwrap()
        .clone();
    (out.text, answers)
}

#[test]
fn answers_are_ranked_and_carry_provenance() {
    let dir = tempfile::tempdir().unwrap();
    let s = seeded(&dir);
    let (text, answers) = search(&s, "sqlite database read-only", None);
    assert_eq!(answers.len(), 2, "{text}");
    // The fact matching all terms ranks above the one matching only "database".
    assert!(
        answers[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("sql_query opens")
    );
    assert_eq!(answers[0]["source"], "docs/sqlite.md");
    assert_eq!(answers[0]["at"], "2026-11-02T10:00:00+01:00");
    assert!(
        answers[1]["text"]
            .as_str()
            .unwrap()
            .contains("staging database")
    );
    assert!(answers[0]["score"].as_f64().unwrap() < answers[1]["score"].as_f64().unwrap());
    assert!(text.starts_with("2 facts for \"sqlite database read-only\", best first:"));
    assert!(
        text.contains("\n   — docs/sqlite.md, 2026-11-02T10:00:00+01:00"),
        "{text}"
    );
}

#[test]
fn stemming_and_punctuation_are_handled() {
    let dir = tempfile::tempdir().unwrap();
    let s = seeded(&dir);
    // "deploying" finds "Deploys" (porter stemmer).
    let (_, answers) = search(&s, "when are we deploying?", None);
    assert_eq!(answers[0]["source"], "team wiki");
    // Query syntax characters are words, not FTS5 operators.
    let (_, answers) = search(&s, "what's -j2? (cores) AND \"NEAR\"", None);
    assert_eq!(answers[0]["source"], "AGENTS.md");
    assert_eq!(fts_query("a-b c"), Some("\"a\" OR \"b\" OR \"c\"".into()));
    assert_eq!(fts_query(" -- !? "), None);
}

#[test]
fn limit_and_no_match() {
    let dir = tempfile::tempdir().unwrap();
    let s = seeded(&dir);
    let (_, answers) = search(&s, "the", Some(1));
    assert_eq!(answers.len(), 1);
    let (text, answers) = search(&s, "kubernetes", None);
    assert!(answers.is_empty());
    assert_eq!(text, "no facts match \"kubernetes\"");
    match search_memory(
        &s,
        &SearchMemoryRequest {
            query: "  ?! ".into(),
            limit: DEFAULT_LIMIT,
        },
    ) {
        Err(ToolError::Model(m)) => assert!(m.contains("no words"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn facts_persist_in_the_file() {
    let dir = tempfile::tempdir().unwrap();
    drop(seeded(&dir));
    let s = SqliteFactStore::open(dir.path().join("facts.sqlite3")).unwrap();
    assert_eq!(s.count().unwrap(), 4);
    let id = s
        .add_fact("Another fact about cores.", "test", "2026-11-30T00:00:00Z")
        .unwrap();
    assert_eq!(id, 5);
    let hits = s.search("cores", 10).unwrap();
    assert_eq!(hits.len(), 2);
}

#[test]
fn add_fact_validates_its_input() {
    let s = SqliteFactStore::open_in_memory().unwrap();
    assert!(s.add_fact("x", "src", "last tuesday").is_err());
    assert!(s.add_fact("  ", "src", "2026-11-30T00:00:00Z").is_err());
    assert!(s.add_fact("x", "", "2026-11-30T00:00:00Z").is_err());
    assert_eq!(s.count().unwrap(), 0);
}

#[test]
fn cjk_text_is_found_inside_unspaced_runs() {
    let s = SqliteFactStore::open_in_memory().unwrap();
    s.add_fact(
        "message_read 把三个消息读取工具合成一个,用 mode 区分。",
        "tool-consolidation.zh.md §4.2",
        "2026-11-13T22:36:05+08:00",
    )
    .unwrap();
    s.add_fact(
        "set_workdirs 在 378 个线程里调用了 384 次。",
        "tool-consolidation.zh.md §7",
        "2026-11-13T22:36:05+08:00",
    )
    .unwrap();
    s.add_fact(
        "读取配置文件之前先检查权限。",
        "notes",
        "2026-11-14T08:00:00Z",
    )
    .unwrap();
    let (_, answers) = search(&s, "消息读取", None);
    assert_eq!(answers[0]["source"], "tool-consolidation.zh.md §4.2");
    // "读取" alone matches both facts containing it; "线程" only the second.
    let (_, answers) = search(&s, "读取", None);
    assert_eq!(answers.len(), 2);
    let (_, answers) = search(&s, "线程", None);
    assert_eq!(answers.len(), 1);
    assert_eq!(
        answers[0]["text"],
        "set_workdirs 在 378 个线程里调用了 384 次。"
    );
    // A CJK phrase is matched as a phrase: these characters appear, but not adjacent.
    let (_, answers) = search(&s, "读消", None);
    assert!(answers.is_empty(), "{answers:?}");
    assert_eq!(
        fts_query("v2版本 ok"),
        Some("\"v2\" OR \"版 本\" OR \"ok\"".into())
    );
}
