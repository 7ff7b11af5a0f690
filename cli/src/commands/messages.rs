//! `toolsurface messages`: the message store behind `message_read`. `import` loads a JSONL
//! transcript (format: `toolsurface_runtime::messages::import`, and
//! `examples/transcripts/README.md`); `read` runs `message_read` itself and prints its text.
//! Its flags become the call's arguments and go through the standard surface's
//! `Call::parse`, so the modes, values and rules are the definition's (one declaration:
//! tool-defs/tools/message_read.yaml), refused with the model's own wording.
//!
//! The store defaults to `.toolsurface/messages.sqlite3` under the current directory
//! (created by `import`); `--db PATH` picks another file.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::Subcommand;
use clap::builder::PossibleValuesParser;
use serde_json::{Map, Value};
use toolsurface_runtime::call::ToolError;
use toolsurface_runtime::messages::{
    ImportError, MessageRead, SqliteMessageStore, import_jsonl, message_read,
};

use toolsurface::standard;
use toolsurface::standard::message_read as definition;

use super::Status;

/// The store used when `--db` is not given, relative to the current directory.
pub const DEFAULT_DB: &str = ".toolsurface/messages.sqlite3";

#[derive(clap::Args, Debug)]
#[command(
    after_help = "The store defaults to .toolsurface/messages.sqlite3 in the current \
                        directory. Try: toolsurface messages import \
                        examples/transcripts/sample.jsonl && toolsurface messages read \
                        --mode history --session-id sess-review"
)]
pub struct Args {
    #[command(subcommand)]
    pub command: MessagesCommand,
}

#[derive(Subcommand, Debug)]
pub enum MessagesCommand {
    /// Import a JSONL transcript (one message per line) in one transaction.
    Import(ImportArgs),
    /// Run message_read against the store and print what the model would see.
    Read(ReadArgs),
}

#[derive(clap::Args, Debug)]
pub struct ImportArgs {
    /// The transcript: one JSON object per line with id, session_id, channel?, role, at,
    /// content, tool_result?, reasoning?, tool_calls?, turn?.
    pub file: PathBuf,
    /// The store [default: .toolsurface/messages.sqlite3]
    #[arg(long)]
    pub db: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub struct ReadArgs {
    /// history (a session or channel), turns (the same, grouped by turn), context (around a
    /// message) or payload (one large field of one message, paged)
    #[arg(long, value_parser = PossibleValuesParser::new(definition::Action::ALL.map(definition::Action::as_str)))]
    pub mode: String,
    /// history, turns: the session to read
    #[arg(long)]
    pub session_id: Option<String>,
    /// history, turns: the channel to read
    #[arg(long)]
    pub channel: Option<String>,
    /// history: transcript or audit
    #[arg(long, value_parser = PossibleValuesParser::new(definition::View::ALL.map(definition::View::as_str)))]
    pub view: Option<String>,
    /// history: newest N messages; turns: newest N turns; payload: characters per page
    /// (default: each mode's, the definition's)
    #[arg(long)]
    pub limit: Option<u64>,
    /// context, payload: the message
    #[arg(long)]
    pub message_id: Option<String>,
    /// context: messages before (default: the definition's)
    #[arg(long)]
    pub before: Option<u64>,
    /// context: messages after (default: the definition's)
    #[arg(long)]
    pub after: Option<u64>,
    /// payload: content, tool_result, reasoning or tool_calls
    #[arg(long, value_parser = PossibleValuesParser::new(definition::Field::ALL.map(definition::Field::as_str)))]
    pub field: Option<String>,
    /// payload: first character to return (see "next offset" in the previous page)
    #[arg(long)]
    pub offset: Option<u64>,
    /// Print the structured result (JSON) instead of the text
    #[arg(long)]
    pub json: bool,
    /// The store [default: .toolsurface/messages.sqlite3]
    #[arg(long)]
    pub db: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<Status> {
    match args.command {
        MessagesCommand::Import(a) => import(a),
        MessagesCommand::Read(a) => read(a),
    }
}

fn db_path(db: Option<PathBuf>) -> PathBuf {
    db.unwrap_or_else(|| PathBuf::from(DEFAULT_DB))
}

fn import(a: ImportArgs) -> anyhow::Result<Status> {
    let file = std::fs::File::open(&a.file)
        .with_context(|| format!("cannot open {}", a.file.display()))?;
    let db = db_path(a.db);
    if let Some(parent) = db.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let store = SqliteMessageStore::open(&db)
        .with_context(|| format!("cannot open the message store {}", db.display()))?;
    match import_jsonl(&store, std::io::BufReader::new(file)) {
        Ok(r) => {
            say!(
                "imported {} message{} into {} ({} new, {} already stored unchanged)",
                r.messages,
                if r.messages == 1 { "" } else { "s" },
                db.display(),
                r.inserted,
                r.unchanged
            );
            say!("sessions: {}", list(&r.sessions));
            say!("channels: {}", list(&r.channels));
            Ok(Status::Clean)
        }
        Err(e @ ImportError::Invalid { .. }) => {
            eprintln!("{}: {e}", a.file.display());
            Ok(Status::Invalid)
        }
        Err(e) => Err(e).with_context(|| format!("importing {}", a.file.display())),
    }
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "(none)".into()
    } else {
        items.join(", ")
    }
}

fn open_existing(db: &Path) -> anyhow::Result<SqliteMessageStore> {
    if !db.is_file() {
        anyhow::bail!(
            "no message store at {}; import a transcript first: toolsurface messages import \
             FILE.jsonl{}",
            db.display(),
            if db == Path::new(DEFAULT_DB) {
                String::new()
            } else {
                format!(" --db {}", db.display())
            }
        );
    }
    SqliteMessageStore::open(db)
        .with_context(|| format!("cannot open the message store {}", db.display()))
}

/// The flags given, as `message_read` arguments, parsed by the standard surface in a scope
/// that offers the tool; the error is the text a model would get.
fn request(a: &ReadArgs) -> Result<MessageRead, String> {
    let mut arguments = Map::new();
    arguments.insert("mode".into(), Value::from(a.mode.as_str()));
    let strings = [
        ("session_id", &a.session_id),
        ("channel", &a.channel),
        ("view", &a.view),
        ("message_id", &a.message_id),
        ("field", &a.field),
    ];
    for (name, value) in strings {
        if let Some(v) = value {
            arguments.insert(name.into(), Value::from(v.as_str()));
        }
    }
    let numbers = [
        ("limit", a.limit),
        ("before", a.before),
        ("after", a.after),
        ("offset", a.offset),
    ];
    for (name, value) in numbers {
        if let Some(v) = value {
            arguments.insert(name.into(), Value::from(v));
        }
    }
    match super::parse_standard(standard::Tool::MessageRead, arguments)? {
        standard::Call::MessageRead(call) => Ok(call.into()),
        other => Err(format!("parsed as {} instead", other.display_name())),
    }
}

fn read(a: ReadArgs) -> anyhow::Result<Status> {
    let req = match request(&a) {
        Ok(req) => req,
        Err(m) => {
            eprintln!("message_read: {m}");
            return Ok(Status::Invalid);
        }
    };
    let store = open_existing(&db_path(a.db.clone()))?;
    match message_read(&store, &req) {
        Ok(out) => {
            match (a.json, out.structured) {
                (true, Some(v)) => say!("{}", serde_json::to_string_pretty(&v)?),
                _ => say!("{}", out.text),
            }
            Ok(Status::Clean)
        }
        Err(ToolError::Model(m) | ToolError::Argument(m)) => {
            eprintln!("message_read: {m}");
            Ok(Status::Invalid)
        }
        Err(ToolError::Fatal(m)) => anyhow::bail!("message_read: {m}"),
    }
}
