//! The [`MessageStore`] trait and its default embedded-SQLite implementation.

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::{Deserialize, Serialize};

use super::time::parse_rfc3339;

/// Who wrote a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    User,
    Assistant,
    Tool,
    System,
}

impl Role {
    pub const ALL: [Role; 4] = [Role::User, Role::Assistant, Role::Tool, Role::System];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::System => "system",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

/// One stored message. `tool_calls` is JSON text (an array of calls).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub id: String,
    pub session_id: String,
    pub channel: Option<String>,
    pub role: Role,
    /// RFC 3339 timestamp, as written by the producer (offset preserved).
    pub at: String,
    /// Optional turn number; when absent a turn starts at each user message.
    pub turn: Option<i64>,
    pub content: String,
    pub tool_result: Option<String>,
    pub reasoning: Option<String>,
    pub tool_calls: Option<String>,
}

/// Which messages a history read covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope<'a> {
    Session(&'a str),
    Channel(&'a str),
}

/// A message with its neighbours in the same session, oldest first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Around {
    pub before: Vec<Message>,
    pub message: Message,
    pub after: Vec<Message>,
}

/// What an insert did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InsertReport {
    pub inserted: usize,
    /// Messages whose id was already stored with identical fields.
    pub unchanged: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("message store: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// An id already stored with different fields; nothing of the batch was written.
    #[error("message id {id:?} is already stored with different fields")]
    Conflict { id: String },
    /// A message the store cannot hold (bad timestamp, …); nothing of the batch was written.
    #[error("message {id:?}: {reason}")]
    Invalid { id: String, reason: String },
    #[error("message store: {0}")]
    Other(String),
}

/// Where `message_read` reads from. Ordering everywhere is chronological by the instant of
/// `at` (offsets normalised), ties broken by insertion order. Hosts may plug their own.
pub trait MessageStore: Send + Sync {
    /// Stores a batch atomically (all or nothing). Re-inserting an identical message is a
    /// no-op counted as unchanged; the same id with different fields is a
    /// [`StoreError::Conflict`].
    fn insert(&self, messages: &[Message]) -> Result<InsertReport, StoreError>;
    fn get(&self, id: &str) -> Result<Option<Message>, StoreError>;
    /// The newest `limit` messages of the scope (all when `None`), oldest first.
    fn history(&self, scope: Scope<'_>, limit: Option<usize>) -> Result<Vec<Message>, StoreError>;
    /// How many messages the scope holds.
    fn count(&self, scope: Scope<'_>) -> Result<usize, StoreError>;
    /// The message and up to `before` / `after` neighbours in its session; `None` if unknown.
    fn around(&self, id: &str, before: usize, after: usize) -> Result<Option<Around>, StoreError>;
    fn session_ids(&self) -> Result<Vec<String>, StoreError>;
    fn channels(&self) -> Result<Vec<String>, StoreError>;
    /// Up to `max` known message ids (for did-you-mean hints).
    fn message_ids(&self, max: usize) -> Result<Vec<String>, StoreError>;
}

const SCHEMA_VERSION: i64 = 1;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY NOT NULL);
CREATE TABLE IF NOT EXISTS channels (name TEXT PRIMARY KEY NOT NULL);
CREATE TABLE IF NOT EXISTS messages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    channel TEXT REFERENCES channels(name),
    role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool', 'system')),
    at TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    turn INTEGER,
    content TEXT NOT NULL,
    tool_result TEXT,
    reasoning TEXT,
    tool_calls TEXT
);
CREATE INDEX IF NOT EXISTS messages_by_session ON messages(session_id, at_ms, seq);
CREATE INDEX IF NOT EXISTS messages_by_channel ON messages(channel, at_ms, seq);
";

const COLUMNS: &str =
    "id, session_id, channel, role, at, turn, content, tool_result, reasoning, tool_calls";

/// The default store: one SQLite file (or memory) with tables `sessions`, `channels` and
/// `messages`. The connection sits behind a mutex, so the store is `Sync`.
pub struct SqliteMessageStore {
    conn: Mutex<Connection>,
}

impl std::fmt::Debug for SqliteMessageStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteMessageStore").finish_non_exhaustive()
    }
}

impl SqliteMessageStore {
    /// Opens (creating if needed) the store at `path`. The parent directory must exist.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        Self::init(Connection::open(path)?)
    }

    pub fn open_in_memory() -> Result<Self, StoreError> {
        Self::init(Connection::open_in_memory()?)
    }

    fn init(conn: Connection) -> Result<Self, StoreError> {
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.pragma_update(None, "foreign_keys", true)?;
        let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
        if version > SCHEMA_VERSION {
            return Err(StoreError::Other(format!(
                "schema version {version} is newer than this build understands ({SCHEMA_VERSION})"
            )));
        }
        conn.execute_batch(SCHEMA)?;
        conn.pragma_update(None, "user_version", SCHEMA_VERSION)?;
        Ok(SqliteMessageStore {
            conn: Mutex::new(conn),
        })
    }

    fn lock(&self) -> Result<MutexGuard<'_, Connection>, StoreError> {
        self.conn
            .lock()
            .map_err(|_| StoreError::Other("connection mutex poisoned".into()))
    }
}

fn row_to_message(row: &Row<'_>) -> rusqlite::Result<Message> {
    let role: String = row.get(3)?;
    let role = Role::parse(&role).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            3,
            rusqlite::types::Type::Text,
            format!("unknown role {role:?}").into(),
        )
    })?;
    Ok(Message {
        id: row.get(0)?,
        session_id: row.get(1)?,
        channel: row.get(2)?,
        role,
        at: row.get(4)?,
        turn: row.get(5)?,
        content: row.get(6)?,
        tool_result: row.get(7)?,
        reasoning: row.get(8)?,
        tool_calls: row.get(9)?,
    })
}

fn scope_filter(scope: Scope<'_>) -> (&'static str, &str) {
    match scope {
        Scope::Session(s) => ("session_id", s),
        Scope::Channel(c) => ("channel", c),
    }
}

fn get_with(conn: &Connection, id: &str) -> rusqlite::Result<Option<Message>> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM messages WHERE id = ?1"),
        [id],
        row_to_message,
    )
    .optional()
}

impl MessageStore for SqliteMessageStore {
    fn insert(&self, messages: &[Message]) -> Result<InsertReport, StoreError> {
        let mut conn = self.lock()?;
        let tx = conn.transaction()?;
        let mut report = InsertReport::default();
        for m in messages {
            let at_ms = parse_rfc3339(&m.at).map_err(|reason| StoreError::Invalid {
                id: m.id.clone(),
                reason,
            })?;
            if let Some(existing) = get_with(&tx, &m.id)? {
                if existing == *m {
                    report.unchanged += 1;
                    continue;
                }
                return Err(StoreError::Conflict { id: m.id.clone() });
            }
            tx.execute(
                "INSERT OR IGNORE INTO sessions(id) VALUES (?1)",
                [&m.session_id],
            )?;
            if let Some(ch) = &m.channel {
                tx.execute("INSERT OR IGNORE INTO channels(name) VALUES (?1)", [ch])?;
            }
            tx.execute(
                "INSERT INTO messages (id, session_id, channel, role, at, at_ms, turn, content, \
                 tool_result, reasoning, tool_calls) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                params![
                    m.id,
                    m.session_id,
                    m.channel,
                    m.role.as_str(),
                    m.at,
                    at_ms,
                    m.turn,
                    m.content,
                    m.tool_result,
                    m.reasoning,
                    m.tool_calls
                ],
            )?;
            report.inserted += 1;
        }
        tx.commit()?;
        Ok(report)
    }

    fn get(&self, id: &str) -> Result<Option<Message>, StoreError> {
        let conn = self.lock()?;
        Ok(get_with(&conn, id)?)
    }

    fn history(&self, scope: Scope<'_>, limit: Option<usize>) -> Result<Vec<Message>, StoreError> {
        let conn = self.lock()?;
        let (column, value) = scope_filter(scope);
        let limit = limit.map_or(-1, |l| i64::try_from(l).unwrap_or(i64::MAX));
        let mut stmt = conn.prepare(&format!(
            "SELECT {COLUMNS} FROM messages WHERE {column} = ?1 \
             ORDER BY at_ms DESC, seq DESC LIMIT ?2"
        ))?;
        let mut out = stmt
            .query_map(params![value, limit], row_to_message)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        out.reverse();
        Ok(out)
    }

    fn count(&self, scope: Scope<'_>) -> Result<usize, StoreError> {
        let conn = self.lock()?;
        let (column, value) = scope_filter(scope);
        let n: i64 = conn.query_row(
            &format!("SELECT count(*) FROM messages WHERE {column} = ?1"),
            [value],
            |r| r.get(0),
        )?;
        Ok(usize::try_from(n).unwrap_or(0))
    }

    fn around(&self, id: &str, before: usize, after: usize) -> Result<Option<Around>, StoreError> {
        let conn = self.lock()?;
        let Some((session, at_ms, seq)) = conn
            .query_row(
                "SELECT session_id, at_ms, seq FROM messages WHERE id = ?1",
                [id],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, i64>(2)?,
                    ))
                },
            )
            .optional()?
        else {
            return Ok(None);
        };
        let Some(message) = get_with(&conn, id)? else {
            return Ok(None);
        };
        let to_i64 = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        let mut stmt = conn.prepare(&format!(
            "SELECT {COLUMNS} FROM messages WHERE session_id = ?1 \
             AND (at_ms < ?2 OR (at_ms = ?2 AND seq < ?3)) \
             ORDER BY at_ms DESC, seq DESC LIMIT ?4"
        ))?;
        let mut before_msgs = stmt
            .query_map(params![session, at_ms, seq, to_i64(before)], row_to_message)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        before_msgs.reverse();
        let mut stmt = conn.prepare(&format!(
            "SELECT {COLUMNS} FROM messages WHERE session_id = ?1 \
             AND (at_ms > ?2 OR (at_ms = ?2 AND seq > ?3)) \
             ORDER BY at_ms ASC, seq ASC LIMIT ?4"
        ))?;
        let after_msgs = stmt
            .query_map(params![session, at_ms, seq, to_i64(after)], row_to_message)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(Some(Around {
            before: before_msgs,
            message,
            after: after_msgs,
        }))
    }

    fn session_ids(&self) -> Result<Vec<String>, StoreError> {
        let conn = self.lock()?;
        let mut stmt = conn.prepare("SELECT id FROM sessions ORDER BY id")?;
        let out = stmt
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<Vec<String>>>()?;
        Ok(out)
    }

    fn channels(&self) -> Result<Vec<String>, StoreError> {
        let conn = self.lock()?;
        let mut stmt = conn.prepare("SELECT name FROM channels ORDER BY name")?;
        let out = stmt
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<Vec<String>>>()?;
        Ok(out)
    }

    fn message_ids(&self, max: usize) -> Result<Vec<String>, StoreError> {
        let conn = self.lock()?;
        let mut stmt = conn.prepare("SELECT id FROM messages ORDER BY seq LIMIT ?1")?;
        let out = stmt
            .query_map([i64::try_from(max).unwrap_or(i64::MAX)], |r| r.get(0))?
            .collect::<rusqlite::Result<Vec<String>>>()?;
        Ok(out)
    }
}
