//! `toolsurface facts`: the facts store behind `search_memory`. `add` stores a fact with its
//! provenance; `search` runs `search_memory` itself and prints its text. Its flags become
//! the call's arguments and go through the standard surface's `Call::parse`, so the bounds
//! and the default of `limit` are the definition's (tool-defs/tools/search_memory.yaml),
//! refused with the model's own wording.
//!
//! The store defaults to `.toolsurface/facts.sqlite3` under the current directory (created
//! by `add`); `--db PATH` picks another file.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::Subcommand;
use serde_json::{Map, Value};
use toolsurface::standard;
use toolsurface_runtime::call::ToolError;
use toolsurface_runtime::memory::{FactStore, SearchMemoryRequest, SqliteFactStore, search_memory};
use toolsurface_runtime::messages::time::now_rfc3339;

use super::Status;

/// The store used when `--db` is not given, relative to the current directory.
pub const DEFAULT_DB: &str = ".toolsurface/facts.sqlite3";

#[derive(clap::Args, Debug)]
#[command(
    after_help = "The store defaults to .toolsurface/facts.sqlite3 in the current \
                        directory."
)]
pub struct Args {
    #[command(subcommand)]
    pub command: FactsCommand,
}

#[derive(Subcommand, Debug)]
pub enum FactsCommand {
    /// Store a fact with its source (and when it was learnt).
    Add(AddArgs),
    /// Run search_memory and print the ranked answers.
    Search(SearchArgs),
}

#[derive(clap::Args, Debug)]
pub struct AddArgs {
    /// The fact, one or two sentences.
    pub text: String,
    /// Where it comes from (a file, a URL, a person, a conversation).
    #[arg(long)]
    pub source: String,
    /// When it was learnt, RFC 3339 [default: now, UTC]
    #[arg(long)]
    pub at: Option<String>,
    /// The store [default: .toolsurface/facts.sqlite3]
    #[arg(long)]
    pub db: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub struct SearchArgs {
    /// Free text; every word counts, best matches first (bm25).
    pub query: String,
    /// Answers to return (the definition's default and bounds: 10, at most 50)
    #[arg(long)]
    pub limit: Option<u64>,
    /// Print the structured result (JSON) instead of the text
    #[arg(long)]
    pub json: bool,
    /// The store [default: .toolsurface/facts.sqlite3]
    #[arg(long)]
    pub db: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<Status> {
    match args.command {
        FactsCommand::Add(a) => add(a),
        FactsCommand::Search(a) => search(a),
    }
}

fn db_path(db: Option<PathBuf>) -> PathBuf {
    db.unwrap_or_else(|| PathBuf::from(DEFAULT_DB))
}

fn add(a: AddArgs) -> anyhow::Result<Status> {
    let db = db_path(a.db);
    if let Some(parent) = db.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let store = SqliteFactStore::open(&db)
        .with_context(|| format!("cannot open the facts store {}", db.display()))?;
    let at = a.at.unwrap_or_else(now_rfc3339);
    let id = store.add_fact(&a.text, &a.source, &at)?;
    say!(
        "added fact #{id} to {} (source {}, at {at})",
        db.display(),
        a.source
    );
    Ok(Status::Clean)
}

fn open_existing(db: &Path) -> anyhow::Result<SqliteFactStore> {
    if !db.is_file() {
        anyhow::bail!(
            "no facts store at {}; add a fact first: toolsurface facts add TEXT --source S",
            db.display()
        );
    }
    SqliteFactStore::open(db)
        .with_context(|| format!("cannot open the facts store {}", db.display()))
}

/// The flags given, as `search_memory` arguments, parsed by the standard surface in a scope
/// that offers the tool; the error is the text a model would get.
fn request(a: &SearchArgs) -> Result<SearchMemoryRequest, String> {
    let mut arguments = Map::new();
    arguments.insert("query".into(), Value::from(a.query.as_str()));
    if let Some(limit) = a.limit {
        arguments.insert("limit".into(), Value::from(limit));
    }
    match super::parse_standard(standard::Tool::SearchMemory, arguments)? {
        standard::Call::SearchMemory(call) => Ok(call.into()),
        other => Err(format!("parsed as {} instead", other.display_name())),
    }
}

fn search(a: SearchArgs) -> anyhow::Result<Status> {
    let req = match request(&a) {
        Ok(req) => req,
        Err(m) => {
            eprintln!("search_memory: {m}");
            return Ok(Status::Invalid);
        }
    };
    let store = open_existing(&db_path(a.db))?;
    match search_memory(&store, &req) {
        Ok(out) => {
            match (a.json, out.structured) {
                (true, Some(v)) => say!("{}", serde_json::to_string_pretty(&v)?),
                _ => say!("{}", out.text),
            }
            Ok(Status::Clean)
        }
        Err(ToolError::Model(m) | ToolError::Argument(m)) => {
            eprintln!("search_memory: {m}");
            Ok(Status::Invalid)
        }
        Err(ToolError::Fatal(m)) => anyhow::bail!("search_memory: {m}"),
    }
}
