//! The `sqlite` skill's `sql_query`: one read-only query against a SQLite database file.
//! The database is opened with `SQLITE_OPEN_READ_ONLY` and `PRAGMA query_only`, so any
//! statement that would write is refused by SQLite itself; the refusal is reported plainly.
//! Statements SQLite marks as writing (`sqlite3_stmt_readonly`) are refused before they
//! run, so no side effect precedes the refusal.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, ErrorCode, OpenFlags};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::call::{HandlerResult, ToolError, ToolOutput};

/// The most rows a request built by hand may ask for (the definition's `maximum`; a parsed
/// call never exceeds it).
pub const MAX_LIMIT: usize = 1000;
/// A cell wider than this many characters is cut in the text table (not in the JSON).
pub const TABLE_CELL_CHARS: usize = 60;
/// A query running longer than this is interrupted.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Blobs are shown as hex up to this many bytes, else by size.
const BLOB_HEX_BYTES: usize = 32;

/// A `sql_query` call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SqlQueryRequest {
    /// Path of the database file; relative paths resolve against the base dir.
    pub database: String,
    /// One statement (a SELECT, or another statement that only reads).
    pub sql: String,
    /// Rows to return (the definition's bounds and default).
    pub limit: u64,
}

/// A query's outcome.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct QueryResult {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
    /// More rows existed than `limit`.
    pub truncated: bool,
}

impl QueryResult {
    /// An aligned text table with a row-count footer.
    pub fn render(&self) -> String {
        if self.columns.is_empty() {
            return "(the statement returned no columns)".into();
        }
        let cells: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| r.iter().map(cell_text).collect())
            .collect();
        let header: Vec<&str> = self.columns.iter().map(String::as_str).collect();
        let style = toolsurface_text::TableStyle {
            separator: " | ",
            rule_joint: Some("-+-"),
            right_from: usize::MAX,
        };
        let table = toolsurface_text::table(&header, &cells, style);
        let mut s = table.trim_end_matches('\n').to_owned();
        s.push_str(&format!(
            "\n({} row{}{})",
            self.rows.len(),
            if self.rows.len() == 1 { "" } else { "s" },
            if self.truncated {
                "; truncated, more rows exist — raise limit or narrow the query"
            } else {
                ""
            }
        ));
        s
    }
}

fn cell_text(v: &Value) -> String {
    let s = match v {
        Value::Null => "NULL".to_string(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let s = s
        .replace('\n', "\\n")
        .replace('\r', "\\r")
        .replace('\t', "\\t");
    toolsurface_text::cut(&s, TABLE_CELL_CHARS).into_owned()
}

fn to_json(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => json!(i),
        ValueRef::Real(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
        ValueRef::Text(t) => Value::String(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) if b.len() <= BLOB_HEX_BYTES => {
            Value::String(format!("x'{}'", hex::encode(b)))
        }
        ValueRef::Blob(b) => Value::String(format!("<blob: {} bytes>", b.len())),
    }
}

fn model(m: impl Into<String>) -> ToolError {
    ToolError::Model(m.into())
}

/// Runs a `sql_query` call with the default timeout; relative paths resolve against `base`.
pub fn sql_query(base: &Path, req: &SqlQueryRequest) -> HandlerResult {
    sql_query_with_timeout(base, req, DEFAULT_TIMEOUT)
}

/// Which database files a query may open or ATTACH: `Err` is the refusal (the sandbox's
/// [`crate::sandbox::Confinement::check_database`]).
pub type DatabaseCheck = Arc<dyn Fn(&Path) -> Result<(), String> + Send + Sync>;

/// [`sql_query`] under a sandbox: `database` and every `ATTACH` target must pass `check`
/// (an authorizer refuses the ATTACH before SQLite opens anything).
pub fn sql_query_checked(
    base: &Path,
    req: &SqlQueryRequest,
    check: DatabaseCheck,
) -> HandlerResult {
    output(query_checked(base, req, DEFAULT_TIMEOUT, Some(check))?)
}

pub fn sql_query_with_timeout(
    base: &Path,
    req: &SqlQueryRequest,
    timeout: Duration,
) -> HandlerResult {
    output(query(base, req, timeout)?)
}

fn output(result: QueryResult) -> HandlerResult {
    Ok(ToolOutput {
        text: result.render(),
        structured: Some(json!({
            "columns": result.columns,
            "rows": result.rows,
            "row_count": result.rows.len(),
            "truncated": result.truncated,
        })),
    })
}

/// Opens `path` read-only with `PRAGMA query_only`.
pub fn open_read_only(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.pragma_update(None, "query_only", true)?;
    conn.busy_timeout(Duration::from_secs(5))?;
    Ok(conn)
}

/// The query itself, for callers that want the typed result.
pub fn query(
    base: &Path,
    req: &SqlQueryRequest,
    timeout: Duration,
) -> Result<QueryResult, ToolError> {
    query_checked(base, req, timeout, None)
}

/// The ATTACH target as a path (relative ones resolve against the process's current
/// directory, as SQLite does; a `file:` URI loses its scheme and query); `None` for an
/// in-memory or temporary database.
fn attach_path(filename: &str) -> Option<PathBuf> {
    let name = filename.strip_prefix("file:").unwrap_or(filename);
    let name = name.split('?').next().unwrap_or(name);
    if name.is_empty() || name == ":memory:" {
        return None;
    }
    let p = Path::new(name);
    Some(if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    })
}

/// An authorizer that refuses every ATTACH whose file `check` refuses, remembering why.
fn install_attach_check(
    conn: &mut Connection,
    check: DatabaseCheck,
) -> Result<Arc<Mutex<Option<String>>>, ToolError> {
    use rusqlite::hooks::{AuthAction, Authorization};
    let refusal = Arc::new(Mutex::new(None));
    let seen = refusal.clone();
    conn.authorizer(Some(move |ctx: rusqlite::hooks::AuthContext<'_>| {
        if let AuthAction::Attach { filename } = ctx.action
            && let Some(path) = attach_path(filename)
            && let Err(why) = check(&path)
        {
            *seen.lock().unwrap_or_else(|p| p.into_inner()) = Some(why);
            return Authorization::Deny;
        }
        Authorization::Allow
    }))
    .map_err(|e| model(format!("cannot install the ATTACH check: {e}")))?;
    Ok(refusal)
}

fn query_checked(
    base: &Path,
    req: &SqlQueryRequest,
    timeout: Duration,
    check: Option<DatabaseCheck>,
) -> Result<QueryResult, ToolError> {
    let limit = match req.limit {
        l if (1..=MAX_LIMIT as u64).contains(&l) => usize::try_from(l).unwrap_or(MAX_LIMIT),
        l => {
            // Call::parse holds limit to the definition's 1..=1000; a hand-built one meets this.
            return Err(ToolError::Argument(format!(
                "limit must be between 1 and {MAX_LIMIT}, got {l}"
            )));
        }
    };
    let path: PathBuf = if Path::new(&req.database).is_absolute() {
        PathBuf::from(&req.database)
    } else {
        base.join(&req.database)
    };
    if !path.is_file() {
        return Err(model(format!(
            "no database file at {} ({})",
            req.database,
            path.display()
        )));
    }
    if let Some(check) = &check {
        check(&path).map_err(model)?;
    }
    let mut conn =
        open_read_only(&path).map_err(|e| model(format!("cannot open {}: {e}", path.display())))?;
    let refusal = match check {
        Some(check) => Some(install_attach_check(&mut conn, check)?),
        None => None,
    };
    // Interrupt a runaway query: a watchdog thread fires unless told the query finished.
    let handle = conn.get_interrupt_handle();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if let Err(mpsc::RecvTimeoutError::Timeout) = done_rx.recv_timeout(timeout) {
            // sqlite3_interrupt only stops statements running at the time; repeat until
            // the query has ended, in case it had not started stepping yet.
            loop {
                handle.interrupt();
                if !matches!(
                    done_rx.recv_timeout(Duration::from_millis(50)),
                    Err(mpsc::RecvTimeoutError::Timeout)
                ) {
                    break;
                }
            }
        }
    });
    let result = run_query(&conn, &req.sql, limit, timeout);
    let _ = done_tx.send(());
    let _ = watchdog.join();
    let refused = refusal.and_then(|r| r.lock().unwrap_or_else(|p| p.into_inner()).take());
    match refused {
        Some(why) => Err(model(format!("{why} (ATTACH refused; nothing was opened)"))),
        None => result,
    }
}

fn explain(e: rusqlite::Error, timeout: Duration) -> ToolError {
    match &e {
        rusqlite::Error::SqliteFailure(f, _) if f.code == ErrorCode::ReadOnly => model(format!(
            "refused — the database is opened read-only and this statement would \
             write ({e}); only queries that read (SELECT, WITH … SELECT, EXPLAIN, read-only \
             PRAGMAs) are allowed"
        )),
        rusqlite::Error::SqliteFailure(f, _) if f.code == ErrorCode::OperationInterrupted => {
            model(format!("interrupted after {timeout:?}; narrow the query"))
        }
        rusqlite::Error::MultipleStatement => {
            ToolError::Argument("give exactly one statement (found more than one)".to_owned())
        }
        rusqlite::Error::Empty => ToolError::Argument("sql is empty".to_owned()),
        _ => model(e.to_string()),
    }
}

fn run_query(
    conn: &Connection,
    sql: &str,
    limit: usize,
    timeout: Duration,
) -> Result<QueryResult, ToolError> {
    let mut stmt = conn.prepare(sql).map_err(|e| explain(e, timeout))?;
    // The read-only connection refuses every write when it is attempted; checking
    // sqlite3_stmt_readonly first also keeps side effects that happen before that refusal
    // (VACUUM INTO creates its empty target file, then fails) from ever starting.
    if !stmt.readonly() {
        return Err(model(
            "refused — the database is opened read-only and this statement would \
             write; only queries that read (SELECT, WITH … SELECT, EXPLAIN, read-only PRAGMAs) \
             are allowed",
        ));
    }
    let columns: Vec<String> = stmt.column_names().map(str::to_string).collect();
    let n = columns.len();
    let mut rows_out = Vec::new();
    let mut truncated = false;
    let mut rows = stmt.query([]).map_err(|e| explain(e, timeout))?;
    while let Some(row) = rows.next().map_err(|e| explain(e, timeout))? {
        if rows_out.len() == limit {
            truncated = true;
            break;
        }
        let mut vals = Vec::with_capacity(n);
        for i in 0..n {
            let v = row.get_ref(i).map_err(|e| explain(e, timeout))?;
            vals.push(to_json(v));
        }
        rows_out.push(vals);
    }
    Ok(QueryResult {
        columns,
        rows: rows_out,
        truncated,
    })
}
