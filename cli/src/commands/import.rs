//! `toolsurface import`: bring an existing tool surface in — a provider tools array file, or a
//! live MCP server's `tools/list` read through a real MCP client (rmcp's client over a child
//! process's stdio, or streamable HTTP) — as a definitions folder. The mapping is the
//! compiler's ([`toolsurface_compiler::import`], no I/O); this file reads, writes, then
//! compiles the folder and compares `emit` of it with the input, printing every construct it
//! could not map and every difference the round trip could not avoid.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde_json::Value;
use toolsurface_compiler::emit;
use toolsurface_compiler::import::{self, Note, Options, Shape};

use super::Status;

#[derive(clap::Args, Debug)]
#[command(
    long_about = "Import a tool surface as a definitions folder: one YAML file per tool, roles.yaml \
                  in the input's order, surface.yaml with the matching family. Types, bounds, enums, \
                  nested objects and arrays map onto the language; a root oneOf/anyOf whose branches \
                  each pin a discriminator becomes a selector with actions. Anthropic input_examples \
                  become examples:, MCP outputSchema / Responses output_schema / Gemini \
                  responseJsonSchema become output:, MCP icons become icon: (toolsurface's own \
                  _meta keys are derived again and dropped). What the language cannot \
                  express ($ref, unions without a discriminator, patternProperties, …) is reported \
                  with its JSON pointer and the mapping chosen. Then the folder is compiled and \
                  emitted, and every difference from the input is printed.",
    after_help = "Examples:\n  toolsurface import --from tools.json --out tool-defs\n  \
                  toolsurface import --mcp-stdio 'npx -y @modelcontextprotocol/server-filesystem /srv' --out fs-defs --role files\n  \
                  toolsurface import --mcp-http http://127.0.0.1:8765/mcp --out served\n\n\
                  --from takes an OpenAI Chat or Responses tools array, an Anthropic tools array, a \
                  Gemini functionDeclarations list, or an MCP tools/list result (shape detected, or \
                  --format). Each tool's `object:` is left empty with a TODO comment.\n\
                  Exit codes: 0 imported (the folder checks clean), 1 the written folder does not \
                  compile, 2 usage error (unreadable input, --out not empty without --force)."
)]
pub struct Args {
    /// A tools array file (JSON).
    #[arg(long, conflicts_with_all = ["mcp_stdio", "mcp_http"], required_unless_present_any = ["mcp_stdio", "mcp_http"])]
    pub from: Option<PathBuf>,
    /// A command starting an MCP server on stdio ('CMD ARGS', split like a shell would, no
    /// expansion).
    #[arg(long, conflicts_with = "mcp_http")]
    pub mcp_stdio: Option<String>,
    /// A streamable-HTTP MCP endpoint.
    #[arg(long)]
    pub mcp_http: Option<String>,
    /// The input's shape, a dialect (default: detected per tool).
    #[arg(long, value_parser = super::emit::parse_dialect)]
    pub format: Option<Shape>,
    /// The definitions folder to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Write into a non-empty --out (its tools/*.yaml are replaced).
    #[arg(long)]
    pub force: bool,
    /// The role listing the tools.
    #[arg(long, default_value = "main")]
    pub role: String,
}

pub fn run(args: Args) -> anyhow::Result<Status> {
    if !import::valid_name(&args.role) {
        eprintln!(
            "error: --role {}: names match ^[a-z][a-z0-9_]{{0,63}}$",
            args.role
        );
        return Ok(Status::Usage);
    }
    let (doc, source, forced) = read_input_document(&args)?;
    if let Err(e) = prepare_out(&args.out, args.force) {
        eprintln!("error: {e:#}");
        return Ok(Status::Usage);
    }
    let imported = match import::import(
        &doc,
        &Options {
            role: args.role.clone(),
            shape: forced,
            source: source.clone(),
        },
    ) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("error: {source}: {e}");
            return Ok(Status::Usage);
        }
    };
    for f in &imported.files {
        let path = args.out.join(&f.path);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(&path, &f.text).with_context(|| format!("writing {}", path.display()))?;
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "imported {} tools ({}) from {source} into {}",
        imported.tools.len(),
        imported.shape.as_str(),
        args.out.display()
    )?;
    print_notes(
        &mut out,
        "not expressible in the language (mapping chosen)",
        &imported.notes,
    )?;
    out.flush()?;
    // The round trip: compile what was written, emit it, compare with the input.
    let ir = match super::check::compile_dir(&args.out)? {
        Ok((_, ir)) => ir,
        Err(status) => {
            eprintln!("error: the imported folder does not compile (see above)");
            return Ok(status);
        }
    };
    let family = import::family_name(imported.shape);
    let emitted = emit::surface(&ir, &args.role, family, None)
        .map_err(|e| anyhow::anyhow!("emitting the imported folder: {e}"))?;
    let differences = round_trip_differences(&imported, &emitted)?;
    // The imported surface is the accepted baseline: lock it, so `check` is clean and every
    // later edit shows as drift.
    let lock = super::drift::lock_of(&ir, None)?;
    super::drift::write_atomic(&args.out.join(super::drift::LOCK_FILE), &lock.render())?;
    print_notes(
        &mut out,
        "round-trip differences (emit of the folder vs the input)",
        &differences,
    )?;
    if differences.is_empty() {
        writeln!(
            out,
            "round trip: emit of {} equals the input",
            args.out.display()
        )?;
    }
    writeln!(
        out,
        "locked: {}; next: fill each tool's `object:`, then `toolsurface check {}`",
        args.out.join(super::drift::LOCK_FILE).display(),
        args.out.display()
    )?;
    out.flush()?;
    Ok(Status::Clean)
}

/// The input tool list, where it came from (for messages), and the shape it is read as
/// (`None`: detected): a file, an MCP server over stdio, or one over HTTP.
fn read_input_document(args: &Args) -> anyhow::Result<(Value, String, Option<Shape>)> {
    Ok(if let Some(path) = &args.from {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let doc: Value =
            serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))?;
        (doc, path.display().to_string(), args.format)
    } else if let Some(cmd) = &args.mcp_stdio {
        let argv = split_command(cmd)?;
        (
            list_tools_stdio(&argv)?,
            format!("the MCP server `{cmd}`"),
            Some(Shape::Mcp),
        )
    } else if let Some(url) = &args.mcp_http {
        (
            list_tools_http(url)?,
            format!("the MCP server {url}"),
            Some(Shape::Mcp),
        )
    } else {
        anyhow::bail!("one of --from, --mcp-stdio, --mcp-http is required");
    })
}

/// What the emit of the imported folder changes against the input: the tool order, then
/// each tool's schema differences.
fn round_trip_differences(
    imported: &import::Imported,
    emitted: &emit::Emitted,
) -> anyhow::Result<Vec<Note>> {
    let mut differences: Vec<Note> = imported.dropped.clone();
    let published: Vec<&str> = emitted.tools.iter().map(|t| t.name.as_str()).collect();
    if published != imported.tools {
        differences.push(Note {
            tool: String::new(),
            pointer: String::new(),
            message: format!("tool order {:?} → {published:?}", imported.tools),
        });
    }
    for ((ptr, input), name) in imported.inputs.iter().zip(&imported.tools) {
        let Some(t) = emitted.tool(name) else {
            continue;
        };
        let json: Value = serde_json::from_str(&t.json)?;
        differences.extend(import::compare(imported.shape, ptr, input, &json));
    }
    Ok(differences)
}

fn print_notes(out: &mut impl std::io::Write, title: &str, notes: &[Note]) -> std::io::Result<()> {
    if notes.is_empty() {
        return Ok(());
    }
    writeln!(out, "\n{title} ({}):", notes.len())?;
    for n in notes {
        let tool = if n.tool.is_empty() {
            String::new()
        } else {
            format!("{}: ", n.tool)
        };
        let at = if n.pointer.is_empty() {
            String::new()
        } else {
            format!(" [{}]", n.pointer)
        };
        writeln!(out, "  {tool}{}{at}", n.message)?;
    }
    Ok(())
}

/// `--out` must be absent or empty, unless `--force` (then its old tools/*.yaml go).
fn prepare_out(out: &Path, force: bool) -> anyhow::Result<()> {
    if !out.exists() {
        return Ok(());
    }
    if !out.is_dir() {
        anyhow::bail!("--out {} exists and is not a folder", out.display());
    }
    let non_empty = std::fs::read_dir(out)?.next().is_some();
    if non_empty && !force {
        anyhow::bail!(
            "--out {} is not empty; pass --force to write into it (its tools/*.yaml are replaced)",
            out.display()
        );
    }
    let tools = out.join("tools");
    if force && tools.is_dir() {
        for e in std::fs::read_dir(&tools)? {
            let p = e?.path();
            if p.extension().is_some_and(|x| x == "yaml") {
                std::fs::remove_file(&p)?;
            }
        }
    }
    Ok(())
}

/// Split `CMD ARGS` like a POSIX shell splits words: whitespace separates, single quotes keep
/// everything, double quotes keep everything but `\"` and `\\`, a backslash escapes the next
/// character. No expansion of any kind.
pub fn split_command(s: &str) -> anyhow::Result<Vec<String>> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(x) => cur.push(x),
                        None => anyhow::bail!("--mcp-stdio: unterminated ' in {s:?}"),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(x @ ('"' | '\\')) => cur.push(x),
                            Some(x) => {
                                cur.push('\\');
                                cur.push(x);
                            }
                            None => anyhow::bail!("--mcp-stdio: unterminated \" in {s:?}"),
                        },
                        Some(x) => cur.push(x),
                        None => anyhow::bail!("--mcp-stdio: unterminated \" in {s:?}"),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(x) = chars.next() {
                    cur.push(x);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    if words.is_empty() {
        anyhow::bail!("--mcp-stdio: empty command");
    }
    Ok(words)
}

/// `tools/list` (every page) of a server started as a child process, as an MCP `tools/list`
/// result document (`{"tools": [...]}`).
fn list_tools_stdio(argv: &[String]) -> anyhow::Result<Value> {
    use rmcp::ServiceExt as _;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let mut cmd = tokio::process::Command::new(&argv[0]);
        cmd.args(&argv[1..]);
        let (transport, _stderr) = rmcp::transport::TokioChildProcess::builder(cmd)
            .stderr(std::process::Stdio::inherit())
            .spawn()
            .with_context(|| format!("starting {:?}", argv[0]))?;
        let client = ()
            .serve(transport)
            .await
            .with_context(|| format!("MCP handshake with {:?}", argv.join(" ")))?;
        let tools = client.list_all_tools().await.context("tools/list")?;
        let _ = client.cancel().await;
        Ok(serde_json::json!({ "tools": tools }))
    })
}

/// `tools/list` of a streamable-HTTP server.
fn list_tools_http(url: &str) -> anyhow::Result<Value> {
    use rmcp::ServiceExt as _;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url.to_owned());
        let client =
            ().serve(transport)
                .await
                .with_context(|| format!("MCP handshake with {url}"))?;
        let tools = client.list_all_tools().await.context("tools/list")?;
        let _ = client.cancel().await;
        Ok(serde_json::json!({ "tools": tools }))
    })
}
