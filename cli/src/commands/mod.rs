//! The CLI: one file per subcommand, each with its clap `Args` and a `run` returning an exit
//! status. Exit codes are part of the interface (see [`Status`]).

use clap::{Parser, Subcommand};

/// `println!` that returns a write error (`?`) instead of panicking on it: a reader that
/// closes the pipe early (`toolsurface messages read … | head`) ends the command quietly
/// ([`is_broken_pipe`] turns that error into exit 0).
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)?
    }};
}

pub mod check;
pub mod conformance;
pub mod diff;
pub mod drift;
pub mod emit;
pub mod explain;
pub mod facts;
pub mod r#gen;
pub mod import;
pub mod lint;
pub mod lock;
pub mod merge;
pub mod messages;
pub mod oracle;
pub mod plan;
pub mod replay;
pub mod retire;
pub mod serve;
pub mod stats;
pub mod usage;
pub mod validate;

/// Documented exit statuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// 0: clean.
    Clean = 0,
    /// 1: invalid definitions (or a refused call, for `validate`).
    Invalid = 1,
    /// 2: usage error (bad flags, missing files).
    Usage = 2,
    /// 3: compatible drift: the published bytes changed, every old call still parses.
    CompatibleDrift = 3,
    /// 4: breaking drift: some old call no longer parses.
    BreakingDrift = 4,
}

#[derive(Parser, Debug)]
#[command(
    name = "toolsurface",
    version,
    about = "Compile, check and serve declarative LLM tool surfaces",
    long_about = "toolsurface compiles tool definitions written in YAML (tool-defs/) into strict \
                  per-action types, byte-stable published schemas for every model provider, and \
                  trait tables; it checks in CI that the published surface changed only \
                  deliberately, and serves any role over MCP.",
    after_help = "Exit codes: 0 clean, 1 invalid definitions, 2 usage error, \
                  3 compatible drift (prompt caches bust), 4 breaking drift."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check definitions (and the lock): report every error; never writes.
    Check(check::Args),
    /// Show a tool's actions, fields, traits and the aliases that lead to it.
    Explain(explain::Args),
    /// Print the published tool array of a role × family, byte for byte.
    Emit(emit::Args),
    /// Parse one model tool call (or JSON lines on stdin) as the runtime would.
    Validate(validate::Args),
    /// Accept the current surface into tool-defs/surface.lock.
    Lock(lock::Args),
    /// What changed between two surfaces: compatibility and prompt-cache verdicts.
    Diff(diff::Args),
    /// The per-request token tax of each role × family.
    Stats(stats::Args),
    /// Serve a role over MCP (stdio, or streamable HTTP with --http).
    Serve(serve::Args),
    /// The message store behind message_read.
    Messages(messages::Args),
    /// The facts store behind search_memory.
    Facts(facts::Args),
    /// Import a provider tools array or a live MCP server's tools as a definitions folder.
    Import(import::Args),
    /// Write the plan (the definitions lowered for generators) as JSON, or its schema.
    Plan(plan::Args),
    /// Generate host code (TypeScript, Python) from the plan: typed calls, the parser, traits, bytes.
    Gen(r#gen::Args),
    /// Write or check the conformance corpus: derived calls with the Rust parser's verdicts.
    Conformance(conformance::Args),
    /// How models really use a surface: per tool/action stats and confusion signals.
    Usage(usage::Args),
    /// Re-parse the tool calls of transcripts with a surface's Call::parse rules.
    Replay(replay::Args),
    /// Consolidation findings: merge, confusable, delete and keep candidates, with evidence.
    Lint(lint::Args),
    /// Merge tools into one (new or existing), editing the definitions folder in place.
    Merge(merge::Args),
    /// Retire a tool: remove it, record its retired message, report what still names it.
    Retire(retire::Args),
}

/// A hash map with hashbrown's default hasher (foldhash) instead of SipHash: for the maps
/// `usage` and `replay` look up once or more per transcript call (names, threads, refusal
/// texts), where SipHash was a few percent of the run. Iteration order is unspecified, as
/// with std's: what these commands print is sorted.
pub type FastMap<K, V> = std::collections::HashMap<K, V, hashbrown::DefaultHashBuilder>;

/// The one wording of an unknown `--role` / `--family` / `--skill` name: what was given,
/// the closest known name (toolsurface-text's policy, as every other did-you-mean) and every
/// known one: `unknown role `mian` (did you mean main?); expected one of side_chat, main, …`.
pub fn unknown_name<'a>(what: &str, got: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    let known: Vec<&str> = known.into_iter().collect();
    let hint = toolsurface_compiler::diag::did_you_mean(got, known.iter().copied())
        .map(|m| format!(" ({m})"))
        .unwrap_or_default();
    format!(
        "unknown {what} `{got}`{hint}; expected one of {}",
        known.join(", ")
    )
}

pub fn main() -> std::process::ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                Status::Usage as u8
            } else {
                0
            };
            let _ = e.print();
            return std::process::ExitCode::from(code);
        }
    };
    let result = match cli.command {
        Command::Check(a) => check::run(a),
        Command::Explain(a) => explain::run(a),
        Command::Emit(a) => emit::run(a),
        Command::Validate(a) => validate::run(a),
        Command::Plan(a) => plan::run(a),
        Command::Gen(a) => r#gen::run(a),
        Command::Conformance(a) => conformance::run(a),
        Command::Lock(a) => lock::run(a),
        Command::Diff(a) => diff::run(a),
        Command::Stats(a) => stats::run(a),
        Command::Serve(a) => serve::run(a),
        Command::Messages(a) => messages::run(a),
        Command::Facts(a) => facts::run(a),
        Command::Replay(a) => replay::run(a),
        Command::Usage(a) => usage::run(a),
        Command::Import(a) => import::run(a),
        Command::Lint(a) => lint::run(a),
        Command::Merge(a) => merge::run(a),
        Command::Retire(a) => retire::run(a),
    };
    match result {
        Ok(status) => std::process::ExitCode::from(status as u8),
        Err(e) => {
            if is_broken_pipe(&e) {
                return std::process::ExitCode::SUCCESS;
            }
            eprintln!("error: {e:#}");
            std::process::ExitCode::from(Status::Usage as u8)
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// `arguments` parsed as a call of the standard surface's `tool`, in the first role × family
/// that offers it: a command that runs a standard tool for a person (`messages read`, `facts
/// search`) holds its flags to the definition's rules and defaults, as a model's call is.
pub(crate) fn parse_standard(
    tool: toolsurface::standard::Tool,
    arguments: serde_json::Map<String, serde_json::Value>,
) -> Result<toolsurface::standard::Call, String> {
    use toolsurface::standard::{Family, Role, Scope};
    let scope = Role::ALL
        .iter()
        .flat_map(|r| Family::ALL.map(|f| Scope::new(*r, f)))
        .find(|s| s.offers(tool))
        .ok_or_else(|| format!("no role of the standard surface offers {}", tool.as_str()))?;
    toolsurface::standard::Call::parse_in(
        &scope,
        tool.as_str(),
        serde_json::Value::Object(arguments),
    )
    .map_err(|e| e.to_string())
}
