//! `toolsurface emit`: print the published tool array of a role × family exactly as a host
//! sends it (or one tool of it), the whole request fragment of a turn (`--request`), or list
//! every role × family for scripts.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use toolsurface_compiler::emit;
use toolsurface_compiler::emit::request::TurnKind;
use toolsurface_compiler::ir::Dialect;

use super::Status;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "The output is the published bytes: no trailing newline unless stdout is a \
                        terminal. `sha256sum` of it equals the lock's hash. --pretty is for \
                        reading only.\n\n\
                        --request prints one JSON object with every request field the surface \
                        owns: `tools`, and where the dialect has them the turn's allowed-tools \
                        restriction (`tool_choice` / Gemini `toolConfig`) and \
                        `parallel_tool_calls`. Merge it into the provider request as is.\n\n\
                        Examples:\n  \
                        toolsurface emit --role main --family responses\n  \
                        toolsurface emit --role main --family chat --request --turn rehearsal\n  \
                        toolsurface emit --role main --family gemini --request --with-skill sqlite"
)]
pub struct Args {
    /// Role to emit (see `--list`).
    #[arg(long, required_unless_present = "list")]
    pub role: Option<String>,
    /// Family to emit (see `--list`).
    #[arg(long, required_unless_present = "list")]
    pub family: Option<String>,
    /// Render in another dialect than the family's own (the MCP server uses `mcp`).
    #[arg(long, value_parser = parse_dialect)]
    pub dialect: Option<Dialect>,
    /// Print only this tool's JSON (a resident tool, or one of a skill the role offers).
    #[arg(long, conflicts_with = "with_skill")]
    pub tool: Option<String>,
    /// Print the array after activating this skill (repeatable; activation order).
    #[arg(long, value_name = "SKILL")]
    pub with_skill: Vec<String>,
    /// Print the request fragment (`tools` plus the turn's restriction and flags) instead of
    /// the bare array.
    #[arg(long, conflicts_with = "tool")]
    pub request: bool,
    /// The turn kind of the request fragment (`normal` or `rehearsal`; needs --request).
    #[arg(long, value_parser = parse_turn, requires = "request", default_value = "normal")]
    pub turn: TurnKind,
    /// Indent for reading (not the published bytes).
    #[arg(long)]
    pub pretty: bool,
    /// Print every surface as `role family` lines, in lock order, and exit.
    #[arg(long, conflicts_with_all = ["role", "family", "dialect", "tool", "with_skill", "pretty", "request"])]
    pub list: bool,
    /// Definitions folder (default: tool-defs when it is here, else the standard surface
    /// built into the binary).
    pub dir: Option<PathBuf>,
}

pub fn parse_dialect(s: &str) -> Result<Dialect, String> {
    Dialect::parse(s).ok_or_else(|| {
        let all: Vec<&str> = Dialect::ALL.iter().map(|d| d.as_str()).collect();
        format!("unknown dialect `{s}` (expected one of {})", all.join(", "))
    })
}

fn parse_turn(s: &str) -> Result<TurnKind, String> {
    TurnKind::parse(s).ok_or_else(|| {
        let all: Vec<&str> = TurnKind::ALL.iter().map(|t| t.as_str()).collect();
        format!(
            "unknown turn kind `{s}` (expected one of {})",
            all.join(", ")
        )
    })
}

pub fn run(args: Args) -> anyhow::Result<Status> {
    let ir = match super::check::compile_defs(args.dir.as_deref())? {
        Ok((_sources, ir)) => ir,
        Err(status) => return Ok(status),
    };
    let mut stdout = std::io::stdout().lock();
    if args.list {
        for s in &ir.surfaces {
            writeln!(stdout, "{} {}", s.role, s.family)?;
        }
        stdout.flush()?;
        return Ok(Status::Clean);
    }
    let (Some(role), Some(family)) = (args.role.as_deref(), args.family.as_deref()) else {
        anyhow::bail!("--role and --family are required (or --list)");
    };
    let emitted = match emit::surface(&ir, role, family, args.dialect) {
        Ok(e) => e,
        Err(emit::EmitError::UnknownRole(r)) => {
            let known = ir.roles.iter().map(|r| r.name.as_str());
            eprintln!("error: {}", super::unknown_name("role", &r, known));
            return Ok(Status::Usage);
        }
        Err(emit::EmitError::UnknownFamily(f)) => {
            let known = ir.families.iter().map(|f| f.name.as_str());
            eprintln!("error: {}", super::unknown_name("family", &f, known));
            return Ok(Status::Usage);
        }
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(Status::Invalid);
        }
    };
    let activated;
    let bytes = match args.tool.as_deref() {
        None if !args.request && args.with_skill.is_empty() => emitted.bytes.as_str(),
        None => {
            let skills: Vec<&str> = args.with_skill.iter().map(String::as_str).collect();
            let built = if args.request {
                emitted.request(args.turn, &skills)
            } else {
                emitted.with_skills(&skills)
            };
            match built {
                Ok(b) => {
                    activated = b;
                    activated.as_str()
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    return Ok(Status::Usage);
                }
            }
        }
        Some(name) => match emitted.tool(name).or_else(|| {
            emitted
                .skills
                .iter()
                .flat_map(|s| &s.tools)
                .find(|t| t.name == name)
        }) {
            Some(t) => t.json.as_str(),
            None => {
                let names: Vec<&str> = emitted.tools.iter().map(|t| t.name.as_str()).collect();
                eprintln!(
                    "error: tool `{name}` is not in {role} × {family} (it has: {})",
                    names.join(", ")
                );
                return Ok(Status::Usage);
            }
        },
    };
    if args.pretty {
        stdout.write_all(emit::pretty(bytes).as_bytes())?;
    } else {
        stdout.write_all(bytes.as_bytes())?;
        if std::io::stdout().is_terminal() {
            stdout.write_all(b"\n")?;
        }
    }
    stdout.flush()?;
    Ok(Status::Clean)
}
