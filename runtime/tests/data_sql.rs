//! `sql_query` against real SQLite files: read-only by construction.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use rusqlite::Connection;
use serde_json::{Value, json};
use toolsurface_runtime::call::ToolError;
use toolsurface_runtime::data::{
    SqlQueryRequest, open_read_only, sql_query, sql_query_with_timeout,
};

fn shop(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("shop.sqlite3");
    let c = Connection::open(&path).unwrap();
    c.execute_batch(
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT, total REAL, note TEXT, raw BLOB);
         INSERT INTO orders VALUES (1, 'ann', 19.5, NULL, x'00ff');
         INSERT INTO orders VALUES (2, 'bob', 7, 'two
lines', NULL);
         INSERT INTO orders VALUES (3, 'chloé', 120.25, 'gift', NULL);
         INSERT INTO orders VALUES (4, 'dan', 3, NULL, NULL);",
    )
    .unwrap();
    path
}

/// sql_query.yaml's `default:` for `limit`, which a parsed call gets from the generated
/// conversion.
const DEFAULT_LIMIT: u64 = 100;

fn q(sql: &str, limit: Option<u64>) -> SqlQueryRequest {
    SqlQueryRequest {
        database: "shop.sqlite3".into(),
        sql: sql.into(),
        limit: limit.unwrap_or(DEFAULT_LIMIT),
    }
}

/// A refusal's text: about the world (`Model`) or about the arguments alone (`Argument`).
fn model_err(dir: &Path, req: &SqlQueryRequest) -> String {
    match sql_query(dir, req) {
        Err(ToolError::Model(m) | ToolError::Argument(m)) => m,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

fn count(db: &Path) -> i64 {
    Connection::open(db)
        .unwrap()
        .query_row("SELECT count(*) FROM orders", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn select_returns_columns_rows_and_an_aligned_table() {
    let d = tempfile::tempdir().unwrap();
    shop(d.path());
    let out = sql_query(
        d.path(),
        &q(
            "SELECT id, customer, total, note, raw FROM orders ORDER BY id",
            None,
        ),
    )
    .unwrap();
    let s = out.structured.unwrap();
    assert_eq!(
        s["columns"],
        json!(["id", "customer", "total", "note", "raw"])
    );
    assert_eq!(s["rows"][0], json!([1, "ann", 19.5, null, "x'00ff'"]));
    assert_eq!(s["rows"][1], json!([2, "bob", 7.0, "two\nlines", null]));
    assert_eq!(s["row_count"], 4);
    assert_eq!(s["truncated"], false);
    assert_eq!(
        out.text,
        "id | customer | total  | note       | raw\n\
         ---+----------+--------+------------+--------\n\
         1  | ann      | 19.5   | NULL       | x'00ff'\n\
         2  | bob      | 7.0    | two\\nlines | NULL\n\
         3  | chloé    | 120.25 | gift       | NULL\n\
         4  | dan      | 3.0    | NULL       | NULL\n\
         (4 rows)"
    );
}

#[test]
fn limit_truncates_and_is_bounded() {
    let d = tempfile::tempdir().unwrap();
    shop(d.path());
    let out = sql_query(d.path(), &q("SELECT id FROM orders ORDER BY id", Some(3))).unwrap();
    let s = out.structured.unwrap();
    assert_eq!(s["rows"], json!([[1], [2], [3]]));
    assert_eq!(s["truncated"], true);
    assert!(
        out.text
            .ends_with("(3 rows; truncated, more rows exist — raise limit or narrow the query)")
    );
    let out = sql_query(d.path(), &q("SELECT id FROM orders", Some(4))).unwrap();
    assert_eq!(out.structured.unwrap()["truncated"], false);
    for bad in [0, 1001] {
        let e = model_err(d.path(), &q("SELECT 1", Some(bad)));
        assert!(e.contains("between 1 and 1000"), "{e}");
    }
    // Default 100.
    let out = sql_query(
        d.path(),
        &q("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n LIMIT 150) SELECT i FROM n", None),
    )
    .unwrap();
    let s = out.structured.unwrap();
    assert_eq!(s["row_count"], 100);
    assert_eq!(s["truncated"], true);
}

#[test]
fn writes_are_refused_by_the_read_only_connection() {
    let d = tempfile::tempdir().unwrap();
    let db = shop(d.path());
    let before = std::fs::read(&db).unwrap();
    for sql in [
        "INSERT INTO orders(id, customer) VALUES (99, 'eve')",
        "UPDATE orders SET total = 0",
        "DELETE FROM orders",
        "DROP TABLE orders",
        "CREATE TABLE t(x)",
        "CREATE TEMP TABLE t(x)",
        "INSERT INTO orders(id) SELECT 100 RETURNING id",
    ] {
        let e = model_err(d.path(), &q(sql, None));
        assert!(
            e.starts_with("refused — the database is opened read-only"),
            "{sql}: {e}"
        );
    }
    let vacuum_target = d.path().join("copy.sqlite3");
    let e = model_err(
        d.path(),
        &q(&format!("VACUUM INTO '{}'", vacuum_target.display()), None),
    );
    assert!(e.starts_with("refused"), "{e}");
    assert!(!vacuum_target.exists(), "VACUUM INTO must not write a copy");
    assert_eq!(count(&db), 4);
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "the file is byte-identical"
    );
}

#[test]
fn the_connection_itself_refuses_writes() {
    let d = tempfile::tempdir().unwrap();
    let db = shop(d.path());
    let c = open_read_only(&db).unwrap();
    for sql in ["DELETE FROM orders", "CREATE TEMP TABLE t(x)"] {
        match c.execute_batch(sql) {
            Err(rusqlite::Error::SqliteFailure(f, _)) => {
                assert_eq!(f.code, rusqlite::ErrorCode::ReadOnly, "{sql}")
            }
            other => panic!("{sql}: {other:?}"),
        }
    }
    // ATTACH of a file that does not exist does not create it.
    let other = d.path().join("other.db");
    assert!(
        c.execute_batch(&format!("ATTACH '{}' AS o", other.display()))
            .is_err()
    );
    assert!(!other.exists());
    assert_eq!(count(&db), 4);
}

#[test]
fn other_statement_errors_are_plain() {
    let d = tempfile::tempdir().unwrap();
    shop(d.path());
    let e = model_err(d.path(), &q("SELECT 1; DELETE FROM orders", None));
    assert_eq!(e, "give exactly one statement (found more than one)");
    let e = model_err(d.path(), &q("  -- nothing", None));
    assert_eq!(e, "sql is empty");
    let e = model_err(d.path(), &q("SELECT nope FROM orders", None));
    assert!(e.contains("no such column: nope"), "{e}");
    // A trailing semicolon is one statement.
    sql_query(d.path(), &q("SELECT 1;", None)).unwrap();
}

#[test]
fn a_missing_database_is_not_created() {
    let d = tempfile::tempdir().unwrap();
    let e = model_err(
        d.path(),
        &SqlQueryRequest {
            database: "missing.db".into(),
            sql: "SELECT 1".into(),
            limit: DEFAULT_LIMIT,
        },
    );
    assert!(e.starts_with("no database file at missing.db"), "{e}");
    assert!(!d.path().join("missing.db").exists());
}

#[test]
fn read_only_pragmas_and_absolute_paths_work() {
    let d = tempfile::tempdir().unwrap();
    let db = shop(d.path());
    let out = sql_query(
        Path::new("/"),
        &SqlQueryRequest {
            database: db.display().to_string(),
            sql: "SELECT name, type FROM pragma_table_info('orders') ORDER BY cid".into(),
            limit: 2,
        },
    )
    .unwrap();
    let s = out.structured.unwrap();
    assert_eq!(s["rows"], json!([["id", "INTEGER"], ["customer", "TEXT"]]));
    let out = sql_query(d.path(), &q("PRAGMA query_only", None)).unwrap();
    assert_eq!(out.structured.unwrap()["rows"][0][0], Value::from(1));
}

#[test]
fn statements_without_rows_render_plainly() {
    let d = tempfile::tempdir().unwrap();
    shop(d.path());
    let out = sql_query(d.path(), &q("SELECT id FROM orders WHERE id > 100", None)).unwrap();
    assert_eq!(out.text, "id\n--\n(0 rows)");
}

#[test]
fn a_runaway_query_is_interrupted() {
    let d = tempfile::tempdir().unwrap();
    shop(d.path());
    // Never ends on its own: an unbounded recursive CTE.
    let req = q(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n",
        None,
    );
    match sql_query_with_timeout(d.path(), &req, std::time::Duration::from_millis(200)) {
        Err(ToolError::Model(m)) => {
            assert_eq!(m, "interrupted after 200ms; narrow the query")
        }
        other => panic!("{other:?}"),
    }
}
