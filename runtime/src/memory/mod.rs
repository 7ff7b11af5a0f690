//! The facts store behind `search_memory`: short facts with provenance (source, `at`),
//! searched by full text (SQLite FTS5, porter-stemmed, ranked by bm25). CJK text is indexed
//! character by character, so unspaced Chinese/Japanese/Korean runs are found as phrases.

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use rusqlite::{Connection, params};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::call::{HandlerResult, ToolError, ToolOutput};
use crate::messages::time::parse_rfc3339;

/// A `search_memory` call. `limit` is the definition's, default included (filled in by the
/// generated conversion).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchMemoryRequest {
    pub query: String,
    pub limit: usize,
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

const SCHEMA_VERSION: i64 = 1;

/// `terms` is what FTS5 indexes: the text with every CJK character set apart (see
/// [`index_text`]); `text` is the fact as written.
const SCHEMA: &str = "
CREATE VIRTUAL TABLE IF NOT EXISTS facts USING fts5(
    terms,
    text UNINDEXED,
    source UNINDEXED,
    at UNINDEXED,
    tokenize = 'porter unicode61 remove_diacritics 2'
);
";

/// Han, kana and hangul: scripts written without spaces between words.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // hiragana, katakana
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xAC00..=0xD7AF    // hangul syllables
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0x20000..=0x2FA1F) // CJK extensions B–F, compatibility supplement
}

/// The text FTS5 indexes: each CJK character becomes its own token (the unicode61
/// tokenizer would otherwise make a whole unspaced run one token, so `消息读取` could never
/// be found inside `三个消息读取工具`). Queries match CJK runs as phrases of characters.
pub fn index_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 2);
    for c in text.chars() {
        if is_cjk(c) {
            out.push(' ');
            out.push(c);
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

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
        let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
        if version > SCHEMA_VERSION {
            return Err(MemoryError::Other(format!(
                "schema version {version} is newer than this build understands ({SCHEMA_VERSION})"
            )));
        }
        conn.execute_batch(SCHEMA)?;
        conn.pragma_update(None, "user_version", SCHEMA_VERSION)?;
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
/// punctuation never becomes query syntax and partial matches still rank. A run of CJK
/// characters becomes a phrase of its characters (they are indexed one by one).
/// `None` when the query has no word characters.
pub fn fts_query(query: &str) -> Option<String> {
    let mut terms: Vec<String> = Vec::new();
    for word in query
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
    {
        // Split a mixed word ("v2版本") into its CJK and non-CJK runs.
        let mut run = String::new();
        let mut run_cjk = false;
        for c in word.chars() {
            let cjk = is_cjk(c);
            if !run.is_empty() && cjk != run_cjk {
                terms.push(std::mem::take(&mut run));
            }
            if cjk && !run.is_empty() {
                run.push(' ');
            }
            run.push(c);
            run_cjk = cjk;
        }
        if !run.is_empty() {
            terms.push(run);
        }
    }
    let quoted: Vec<String> = terms.iter().map(|t| format!("\"{t}\"")).collect();
    (!quoted.is_empty()).then(|| quoted.join(" OR "))
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
            "INSERT INTO facts(terms, text, source, at) VALUES (?1, ?2, ?3, ?4)",
            params![index_text(text), text, source, at],
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
            "the query has no words to search for".into(),
        ));
    }
    let hits = store
        .search(&req.query, req.limit)
        .map_err(|e| ToolError::Model(format!("the memory search failed: {e}")))?;
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
