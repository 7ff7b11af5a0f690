//! The facts store behind `search_memory`: short facts with provenance (source, `at`),
//! searched by full text (SQLite FTS5, porter-stemmed, ranked by bm25).

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use rusqlite::{Connection, params};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::call::{HandlerResult, ToolError, ToolOutput};
use crate::messages::time::parse_rfc3339;

/// Default and maximum number of answers.
pub const SEARCH_DEFAULT_LIMIT: usize = 10;
pub const SEARCH_MAX_LIMIT: usize = 50;

/// A `search_memory` call.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchMemoryRequest {
    pub query: String,
    #[serde(default)]
    pub limit: Option<u64>,
}

/// One ranked answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FactHit {
    pub id: i64,
    pub text: String,
    pub source: String,
    pub at: String,
    /// bm25 score; lower is a better match (SQLite's convention).
    pub score: f64,
}

#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error("facts store: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("{0}")]
    Invalid(String),
    #[error("facts store: {0}")]
    Other(String),
}

/// Where `search_memory` searches. Hosts may plug their own.
pub trait FactStore: Send + Sync {
    /// Stores a fact; returns its id. `at` is RFC 3339.
    fn add_fact(&self, text: &str, source: &str, at: &str) -> Result<i64, MemoryError>;
    /// Best matches first, at most `limit`.
    fn search(&self, query: &str, limit: usize) -> Result<Vec<FactHit>, MemoryError>;
    fn count(&self) -> Result<usize, MemoryError>;
}

const SCHEMA: &str = "
CREATE VIRTUAL TABLE IF NOT EXISTS facts USING fts5(
    text,
    source UNINDEXED,
    at UNINDEXED,
    tokenize = 'porter unicode61 remove_diacritics 2'
);
";

/// The default facts store: one SQLite file (or memory) with an FTS5 table `facts`.
pub struct SqliteFactStore {
    conn: Mutex<Connection>,
}

impl std::fmt::Debug for SqliteFactStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteFactStore").finish_non_exhaustive()
    }
}

impl SqliteFactStore {
    /// Opens (creating if needed) the store at `path`. The parent directory must exist.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, MemoryError> {
        Self::init(Connection::open(path)?)
    }

    pub fn open_in_memory() -> Result<Self, MemoryError> {
        Self::init(Connection::open_in_memory()?)
    }

    fn init(conn: Connection) -> Result<Self, MemoryError> {
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.execute_batch(SCHEMA)?;
        Ok(SqliteFactStore {
            conn: Mutex::new(conn),
        })
    }

    fn lock(&self) -> Result<MutexGuard<'_, Connection>, MemoryError> {
        self.conn
            .lock()
            .map_err(|_| MemoryError::Other("connection mutex poisoned".into()))
    }
}

/// The words of a free-text query, each quoted for FTS5 and joined with OR, so that
/// punctuation never becomes query syntax and partial matches still rank.
/// `None` when the query has no word characters.
pub fn fts_query(query: &str) -> Option<String> {
    let words: Vec<String> = query
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
        .map(|w| format!("\"{w}\""))
        .collect();
    (!words.is_empty()).then(|| words.join(" OR "))
}

impl FactStore for SqliteFactStore {
    fn add_fact(&self, text: &str, source: &str, at: &str) -> Result<i64, MemoryError> {
        if text.trim().is_empty() {
            return Err(MemoryError::Invalid(
                "a fact's text must not be empty".into(),
            ));
        }
        if source.trim().is_empty() {
            return Err(MemoryError::Invalid(
                "a fact's source must not be empty".into(),
            ));
        }
        parse_rfc3339(at).map_err(MemoryError::Invalid)?;
        let conn = self.lock()?;
        conn.execute(
            "INSERT INTO facts(text, source, at) VALUES (?1, ?2, ?3)",
            params![text, source, at],
        )?;
        Ok(conn.last_insert_rowid())
    }

    fn search(&self, query: &str, limit: usize) -> Result<Vec<FactHit>, MemoryError> {
        let Some(q) = fts_query(query) else {
            return Ok(Vec::new());
        };
        let conn = self.lock()?;
        let mut stmt = conn.prepare(
            "SELECT rowid, text, source, at, bm25(facts) AS score FROM facts \
             WHERE facts MATCH ?1 ORDER BY score, rowid LIMIT ?2",
        )?;
        let hits = stmt
            .query_map(params![q, i64::try_from(limit).unwrap_or(i64::MAX)], |r| {
                Ok(FactHit {
                    id: r.get(0)?,
                    text: r.get(1)?,
                    source: r.get(2)?,
                    at: r.get(3)?,
                    score: r.get(4)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(hits)
    }

    fn count(&self) -> Result<usize, MemoryError> {
        let conn = self.lock()?;
        let n: i64 = conn.query_row("SELECT count(*) FROM facts", [], |r| r.get(0))?;
        Ok(usize::try_from(n).unwrap_or(0))
    }
}

/// Runs a `search_memory` call: ranked answers, each with its source and `at`.
pub fn search_memory(store: &dyn FactStore, req: &SearchMemoryRequest) -> HandlerResult {
    if fts_query(&req.query).is_none() {
        return Err(ToolError::Model(
            "search_memory: the query has no words to search for".into(),
        ));
    }
    let limit = req.limit.map_or(SEARCH_DEFAULT_LIMIT, |l| {
        usize::try_from(l)
            .unwrap_or(usize::MAX)
            .clamp(1, SEARCH_MAX_LIMIT)
    });
    let hits = store
        .search(&req.query, limit)
        .map_err(|e| ToolError::Model(format!("search_memory failed: {e}")))?;
    let mut text = if hits.is_empty() {
        format!("no facts match {:?}", req.query)
    } else {
        format!(
            "{} fact{} for {:?}, best first:",
            hits.len(),
            if hits.len() == 1 { "" } else { "s" },
            req.query
        )
    };
    for (i, h) in hits.iter().enumerate() {
        text.push_str(&format!(
            "\n{}. {}\n   — {}, {}",
            i + 1,
            h.text.replace('\n', "\n   "),
            h.source,
            h.at
        ));
    }
    Ok(ToolOutput {
        text,
        structured: Some(json!({
            "query": req.query,
            "answers": hits,
        })),
    })
}
