//! `toolsurface validate`: parse a model tool call against the standard surface compiled in by
//! build.rs, exactly as a host's `Call::parse` would, and print the typed call or the error the
//! model would get.

use std::io::{BufRead as _, Write as _};

use super::Status;
use toolsurface::standard::{Call, Family, Role, Scope, Skill};

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  toolsurface validate --role side_chat --family chat \
    '{\"name\":\"shell_session\",\"arguments\":{\"action\":\"kill\",\"session_id\":4242}}'\n  \
    cat calls.jsonl | toolsurface validate --role main --family responses -\n  \
    toolsurface validate --jsonl --defs my-defs   # the oracle: one scope per line\n\n\
    Prints the typed call as JSON and exits 0, or prints the model-facing error and exits 1. \
    With `-`, reads JSON lines and prints one line per call (errors as {\"error\":…,\"kind\":…}); \
    exits 1 if any call was refused.\n\n\
    --jsonl is the oracle other parsers are tested against (the TypeScript and Python \
    generators' suites keep one process open): each input line is \
    {\"role\":…,\"family\":…,\"skills\":[…],\"name\":…,\"arguments\":…} (arguments a \
    string is the raw arguments text), each output line, flushed at once, is \
    {\"ok\":true,\"call\":{\"name\":…,\"arguments\":…}} or \
    {\"ok\":false,\"kind\":…,\"message\":…}; a line that is not such a request gets \
    {\"ok\":false,\"kind\":\"Request\",\"message\":…}. Exits 0 at the end of input. \
    Without --defs the standard surface compiled in answers (the generated Call::parse); with \
    --defs DIR the plan of DIR, through the plan interpreter."
)]
pub struct Args {
    /// The role whose surface is used (side_chat, main, …).
    #[arg(long, required_unless_present = "jsonl")]
    role: Option<String>,
    /// The model family (chat, responses, anthropic, gemini, …).
    #[arg(long, required_unless_present = "jsonl")]
    family: Option<String>,
    /// Activate a skill the role offers (repeatable).
    #[arg(long = "skill")]
    skills: Vec<String>,
    /// `{"name":…,"arguments":…}` (arguments an object, or the JSON text / freeform input as a
    /// string), or `-` for JSON lines on stdin.
    #[arg(required_unless_present = "jsonl")]
    call: Option<String>,
    /// The oracle protocol on stdin/stdout: one request per line, each naming its own scope.
    #[arg(long, conflicts_with_all = ["role", "family", "skills", "call"])]
    jsonl: bool,
    /// With --jsonl: answer with this definitions folder's plan instead of the standard
    /// surface compiled in.
    #[arg(long, requires = "jsonl", value_name = "DIR")]
    defs: Option<std::path::PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<Status> {
    if args.jsonl {
        return super::oracle::run(args.defs.as_deref());
    }
    let (Some(role), Some(family), Some(call)) = (&args.role, &args.family, &args.call) else {
        return usage(&"--role, --family and a call are required without --jsonl");
    };
    let role: Role = match role.parse() {
        Ok(r) => r,
        Err(_) => return usage(&unknown("role", role, Role::ALL.map(Role::as_str))),
    };
    let family: Family = match family.parse() {
        Ok(f) => f,
        Err(_) => return usage(&unknown("family", family, Family::ALL.map(Family::as_str))),
    };
    let mut skills: Vec<Skill> = Vec::new();
    for s in &args.skills {
        match s.parse() {
            Ok(s) => skills.push(s),
            Err(_) => return usage(&unknown("skill", s, Skill::ALL.map(Skill::as_str))),
        }
    }
    let scope = Scope::new(role, family).with_skills(&skills);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if call != "-" {
        return match validate_one(&scope, call) {
            Ok(json) => {
                writeln!(out, "{json}")?;
                Ok(Status::Clean)
            }
            Err(message) => {
                writeln!(out, "{}", message.message)?;
                Ok(Status::Invalid)
            }
        };
    }
    let mut status = Status::Clean;
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        match validate_one(&scope, &line) {
            Ok(json) => writeln!(out, "{json}")?,
            Err(e) => {
                status = Status::Invalid;
                let err =
                    serde_json::json!({ "error": e.message, "kind": format!("{:?}", e.kind) });
                writeln!(out, "{err}")?;
            }
        }
    }
    Ok(status)
}

use super::unknown_name as unknown;

fn usage(e: &dyn std::fmt::Display) -> anyhow::Result<Status> {
    eprintln!("error: {e}");
    Ok(Status::Usage)
}

/// The typed call as JSON, or the refusal.
fn validate_one(scope: &Scope<'_>, text: &str) -> Result<String, toolsurface::CallError> {
    let bad = |m: String| toolsurface::CallError::new(toolsurface::CallErrorKind::InvalidJson, m);
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        bad(format!(
            "the call is not JSON ({e}); expected {{\"name\":…,\"arguments\":…}}"
        ))
    })?;
    let name = value
        .get("name")
        .and_then(serde_json::Value::as_str)
        .ok_or_else(|| bad("the call has no \"name\" string".to_owned()))?;
    let call = match value.get("arguments") {
        None => Call::parse_in(scope, name, ""),
        Some(serde_json::Value::String(s)) => Call::parse_in(scope, name, s.as_str()),
        Some(v) => Call::parse_in(scope, name, v),
    }?;
    serde_json::to_string(&call).map_err(|e| bad(format!("cannot print the call: {e}")))
}
