//! `toolsurface validate --jsonl`: the oracle other parsers are held to. A long-lived process
//! reads one request per line — `{"role","family","skills","name","arguments"}`, each naming its
//! own scope — and answers each with one flushed line: the typed call or the refusal, exactly as
//! `Call::parse` words it. The TypeScript and Python suites keep one open for their property
//! tests (one process, not one per case).

use std::collections::HashMap;
use std::io::{BufRead as _, Write as _};
use std::path::Path;

use serde_json::{Value, json};
use toolsurface_compiler::plan::{self, Plan};
use toolsurface_kernel::{Arguments, CallError};

use super::Status;
use toolsurface::standard::{Call, Family, Role, Scope, Skill};
use toolsurface_compiler::plan::interp::CallChecker;

/// One request line, read.
struct Request {
    role: String,
    family: String,
    skills: Vec<String>,
    name: String,
    arguments: Value,
}

pub fn run(defs: Option<&Path>) -> anyhow::Result<Status> {
    let plan = match defs {
        Some(dir) => match super::check::compile_dir(dir)? {
            Ok((_, ir)) => Some(plan::lower_rules(&ir)),
            Err(status) => return Ok(status),
        },
        None => None,
    };
    let mut checkers: HashMap<(String, String, Vec<String>), Result<CallChecker<'_>, String>> =
        HashMap::new();
    let stdout = std::io::stdout();
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = match read_request(&line) {
            Err(message) => refusal("Request", &message),
            Ok(req) => match &plan {
                Some(plan) => with_plan(plan, &mut checkers, &req),
                None => with_standard(&req),
            },
        };
        let mut out = stdout.lock();
        writeln!(out, "{answer}")?;
        out.flush()?;
    }
    Ok(Status::Clean)
}

fn read_request(line: &str) -> Result<Request, String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("not JSON ({e})"))?;
    let text = |key: &str| {
        v.get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| format!("the request has no \"{key}\" string"))
    };
    let skills = match v.get("skills") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|s| s.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .ok_or("\"skills\" must be a list of strings")?,
        Some(_) => return Err("\"skills\" must be a list of strings".to_owned()),
    };
    Ok(Request {
        role: text("role")?,
        family: text("family")?,
        skills,
        name: text("name")?,
        // Absent: the empty arguments text, as a provider sends for a tool without
        // parameters.
        arguments: v
            .get("arguments")
            .cloned()
            .unwrap_or_else(|| Value::String(String::new())),
    })
}

fn arguments(v: &Value) -> Arguments<'_> {
    match v {
        Value::String(s) => Arguments::from(s.as_str()),
        other => Arguments::from(other),
    }
}

/// One answer line.
enum Answer {
    Accepted(String),
    Refused(Value),
}

impl std::fmt::Display for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Answer::Accepted(line) => f.write_str(line),
            Answer::Refused(v) => write!(f, "{v}"),
        }
    }
}

fn refusal(kind: &str, message: &str) -> Answer {
    Answer::Refused(json!({ "ok": false, "kind": kind, "message": message }))
}

fn refused(e: &CallError) -> Answer {
    refusal(&format!("{:?}", e.kind), &e.message)
}

/// The answer line for an accepted call: its JSON exactly as `Call::parse`'s value prints
/// (spliced in, not read back: reading a float back could change its digits).
fn accepted(call_json: &str) -> Answer {
    Answer::Accepted(format!(r#"{{"ok":true,"call":{call_json}}}"#))
}

/// The generated `Call::parse_in` of the standard surface compiled in.
fn with_standard(req: &Request) -> Answer {
    let names = (|| -> Result<(Role, Family, Vec<Skill>), String> {
        let role: Role = req.role.parse().map_err(|e| format!("{e}"))?;
        let family: Family = req.family.parse().map_err(|e| format!("{e}"))?;
        let skills = req
            .skills
            .iter()
            .map(|s| s.parse::<Skill>().map_err(|e| format!("{e}")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((role, family, skills))
    })();
    let (role, family, skills) = match names {
        Ok(n) => n,
        Err(message) => return refusal("Scope", &message),
    };
    let scope = Scope::new(role, family).with_skills(&skills);
    match Call::parse_in(&scope, &req.name, arguments(&req.arguments)) {
        Ok(call) => match serde_json::to_string(&call) {
            Ok(text) => accepted(&text),
            Err(e) => refusal("Oracle", &format!("cannot print the call: {e}")),
        },
        Err(e) => refused(&e),
    }
}

/// The plan interpreter over `--defs`, one checker per scope.
fn with_plan<'p>(
    plan: &'p Plan,
    checkers: &mut HashMap<(String, String, Vec<String>), Result<CallChecker<'p>, String>>,
    req: &Request,
) -> Answer {
    let key = (req.role.clone(), req.family.clone(), req.skills.clone());
    let checker = checkers.entry(key).or_insert_with(|| {
        let skills: Vec<&str> = req.skills.iter().map(String::as_str).collect();
        CallChecker::new(plan, &req.role, &req.family)
            .and_then(|c| c.with_skills(&skills))
            .map_err(|e| e.to_string())
    });
    match checker {
        Err(message) => refusal("Scope", message),
        Ok(c) => match c.check(&req.name, arguments(&req.arguments)) {
            Ok(checked) => accepted(&checked.to_call_json()),
            Err(e) => refused(&e),
        },
    }
}
