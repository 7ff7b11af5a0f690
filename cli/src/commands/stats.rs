//! `toolsurface stats`: the per-request token tax of every role × family — tools, bytes,
//! o200k tokens of the published array, the role's budget, the skill strategy with what the
//! skills cost and whether activating them keeps the prompt cache, and the five costliest
//! tools.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;

use toolsurface_compiler::{emit, tokens};

use super::Status;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Columns: tools, bytes and tokens of the `tools` array every request \
                        sends; the role's budget; the family's `skills:` strategy; `resident`, the \
                        tokens of the resident tools alone; `skill tools`, the tokens the skills' \
                        tools add (paid on every request under allow_list, loaded on activation \
                        under defer, appended on activation under append); whether every skill \
                        activation leaves the `tools` bytes identical (the cached prefix).\n\n\
                        Example: toolsurface stats --role main --family anthropic\n\n\
                        Exit codes: 0 ok, 1 invalid definitions, 2 usage error."
)]
pub struct Args {
    /// Definitions folder (default: tool-defs when it is here, else the standard surface
    /// built into the binary).
    pub dir: Option<PathBuf>,
    /// Only this role.
    #[arg(long)]
    pub role: Option<String>,
    /// Only this family.
    #[arg(long)]
    pub family: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<Status> {
    let (_sources, ir) = match super::check::compile_defs(args.dir.as_deref())? {
        Ok(x) => x,
        Err(status) => return Ok(status),
    };
    if let Some(r) = &args.role
        && ir.role(r).is_none()
    {
        let known = ir.roles.iter().map(|r| r.name.as_str());
        eprintln!("error: {}", super::unknown_name("role", r, known));
        return Ok(Status::Usage);
    }
    if let Some(f) = &args.family
        && ir.family(f).is_none()
    {
        let known = ir.families.iter().map(|f| f.name.as_str());
        eprintln!("error: {}", super::unknown_name("family", f, known));
        return Ok(Status::Usage);
    }
    let surfaces: Vec<_> = emit::surfaces(&ir)?
        .into_iter()
        .filter(|e| args.role.as_deref().is_none_or(|r| r == e.role))
        .filter(|e| args.family.as_deref().is_none_or(|f| f == e.family))
        .collect();
    let mut rows = Vec::new();
    let mut detail = String::new();
    for e in &surfaces {
        let total = tokens::count(&e.bytes);
        let budget = ir
            .role(&e.role)
            .and_then(|r| r.token_budget)
            .map_or_else(|| "-".to_owned(), |b| b.to_string());
        let skills = SkillCost::of(e, total)?;
        rows.push([
            e.role.clone(),
            e.family.clone(),
            e.published_tools().len().to_string(),
            e.bytes.len().to_string(),
            total.to_string(),
            budget,
            e.skill_strategy.as_str().to_owned(),
            skills.resident.to_string(),
            skills.skill_tools.to_string(),
            if skills.keeps_cache { "yes" } else { "no" }.to_owned(),
        ]);
        detail.push_str(&costliest_tools_detail(e, total));
    }
    let head = [
        "role",
        "family",
        "tools",
        "bytes",
        "tokens",
        "budget",
        "skills",
        "resident",
        "skill tools",
        "activation keeps the cache",
    ]
    .map(str::to_owned);
    let mut out = aligned_table(&head, &rows);
    let _ = writeln!(
        out,
        "tokens: {} (the per-request tax of each array)",
        tokens::ENCODING
    );
    out.push_str(&detail);
    out.push_str(&shapes_detail(&ir, &surfaces));
    out.push_str(&field_shapes_detail(&ir, &surfaces)?);
    let mut so = std::io::stdout().lock();
    so.write_all(out.as_bytes())?;
    so.flush()?;
    Ok(Status::Clean)
}

/// The five costliest tools of one surface (tokens, bytes, share of the array), as the
/// detail lines printed under the table.
fn costliest_tools_detail(e: &emit::Emitted, total: usize) -> String {
    let mut detail = String::new();
    let mut costs: Vec<(usize, &str, usize)> = e
        .published_tools()
        .into_iter()
        .map(|t| (tokens::count(&t.json), t.name.as_str(), t.json.len()))
        .collect();
    costs.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    let _ = writeln!(detail, "\n{} × {}: costliest tools", e.role, e.family);
    for (i, (tok, name, bytes)) in costs.iter().take(5).enumerate() {
        let share = if total == 0 {
            0.0
        } else {
            *tok as f64 * 100.0 / total as f64
        };
        let _ = writeln!(
            detail,
            "  {}. {name:<16} {tok:>5} tokens  {bytes:>6} bytes  {share:>4.1}%",
            i + 1
        );
    }
    detail
}

/// What `shapes:` save: per tool of the shown surfaces that names output shapes, its
/// published output schema (each shape once under `$defs`) against the same schema inlined.
fn shapes_detail(ir: &toolsurface_compiler::Ir, surfaces: &[emit::Emitted]) -> String {
    let mut detail = String::new();
    for tool in &ir.tools {
        let shown = surfaces
            .iter()
            .any(|e| e.tools.iter().any(|t| t.name == tool.name));
        if tool.output_shapes.is_empty() || !shown {
            continue;
        }
        let (Some(published), Some(inlined)) = (
            emit::published_output_schema(tool),
            emit::inlined_output_schema(tool),
        ) else {
            continue;
        };
        if detail.is_empty() {
            detail.push_str(
                "\noutput shapes (each once under `$defs`; inlined: each use written out)\n",
            );
        }
        let names: Vec<&str> = tool.output_shapes.iter().map(|(n, _)| n.as_str()).collect();
        let _ = writeln!(
            detail,
            "  {}: {} — output schema {} tokens, {} bytes; inlined {} tokens, {} bytes",
            tool.name,
            names.join(", "),
            tokens::count(&published),
            published.len(),
            tokens::count(&inlined),
            inlined.len()
        );
    }
    detail
}

/// What `shapes:` save in the arguments: per shown surface and tool whose fields use shapes,
/// its published JSON (each shape once under the parameters' `$defs`, or inlined where the
/// dialect takes no references) against the same tool with every use written out.
fn field_shapes_detail(
    ir: &toolsurface_compiler::Ir,
    surfaces: &[emit::Emitted],
) -> anyhow::Result<String> {
    let mut detail = String::new();
    if ir.tools.iter().all(|t| t.field_shapes.is_empty()) {
        return Ok(detail);
    }
    let inlined_ir = ir.with_field_shapes_inlined();
    for e in surfaces {
        let inlined = emit::surface(&inlined_ir, &e.role, &e.family, Some(e.dialect))?;
        for t in e.published_tools() {
            let uses_shapes = ir.tool(&t.name).is_some_and(|x| !x.field_shapes.is_empty());
            let Some(plain) = inlined
                .published_tools()
                .into_iter()
                .find(|x| x.name == t.name)
            else {
                continue;
            };
            if !uses_shapes {
                continue;
            }
            if detail.is_empty() {
                detail.push_str(
                    "
field shapes (each once under the parameters' `$defs`; inlined: each use written out)
",
                );
            }
            let _ = writeln!(
                detail,
                "  {} × {}: {} — {} tokens, {} bytes; inlined {} tokens, {} bytes",
                e.role,
                e.family,
                t.name,
                tokens::count(&t.json),
                t.json.len(),
                tokens::count(&plain.json),
                plain.json.len()
            );
        }
    }
    Ok(detail)
}

/// The summary rows under `head`, each column padded to its widest cell (role, family and
/// skills left-aligned, the numbers right-aligned).
fn aligned_table(head: &[String; 10], rows: &[[String; 10]]) -> String {
    let mut w = [0usize; 10];
    for r in std::iter::once(head).chain(rows) {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.len());
        }
    }
    let mut out = String::new();
    for r in std::iter::once(head).chain(rows) {
        let mut line = String::new();
        for (i, c) in r.iter().enumerate() {
            let wi = w[i];
            if i < 2 || i == 6 {
                let _ = write!(line, "{c:<wi$}  ");
            } else {
                let _ = write!(line, "{c:>wi$}  ");
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// What a surface's skills cost and whether activating them keeps the cached prefix.
struct SkillCost {
    /// o200k tokens of the resident tools alone (`[` + resident tools + `]`).
    resident: usize,
    /// Tokens the skills' tools add: to every request (`allow_list`; `defer` sends them
    /// too, but the provider loads them on activation), or on activation (`append`).
    skill_tools: usize,
    /// Every skill's activation leaves the `tools` bytes identical.
    keeps_cache: bool,
}

impl SkillCost {
    fn of(e: &emit::Emitted, total: usize) -> anyhow::Result<SkillCost> {
        let resident_array = e.resident_bytes();
        let resident = tokens::count(&resident_array);
        let mut keeps_cache = true;
        for skill in &e.skills {
            keeps_cache &= e.with_skills(&[skill.name.as_str()])? == e.bytes;
        }
        let names: Vec<&str> = e.skills.iter().map(|s| s.name.as_str()).collect();
        let with_all = tokens::count(&e.with_skills(&names)?);
        let skill_tools = with_all.max(total).saturating_sub(resident);
        Ok(SkillCost {
            resident,
            skill_tools,
            keeps_cache,
        })
    }
}
