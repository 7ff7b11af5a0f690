//! Stored conversation messages: the [`MessageStore`] trait with its default embedded SQLite
//! store, the JSONL transcript importer, and the `message_read` tool over them.
//!
//! A host that keeps its messages elsewhere implements [`MessageStore`]; `message_read`
//! only speaks to the trait.

pub mod import;
pub mod read;
pub mod store;
pub mod time;

pub use import::{ImportError, ImportReport, LineError, import_jsonl};
pub use read::{Context, Field, History, MessageRead, Payload, Turns, View, message_read};
pub use store::{
    Around, InsertReport, Message, MessageStore, Role, Scope, SqliteMessageStore, StoreError,
};
