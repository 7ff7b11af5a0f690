//! `toolsurface merge`: merge tools into one (new, or an existing tool's actions, choice
//! values or parameters) by editing the definitions folder in place — only the lines that
//! change. The plan is `compiler::consolidate::merge`; it is compiled in memory first and
//! nothing is written unless the result would pass `check`.

use std::path::{Path, PathBuf};

use anyhow::Context;
use toolsurface_compiler::consolidate::Plan;
use toolsurface_compiler::consolidate::merge::{MergeRequest, plan_merge};

use super::Status;

#[derive(clap::Args, Debug)]
#[command(
    long_about = "Merge plain tools. Into a new tool: one action per merged tool (its fields, \
                  required/optional, traits and description), every field declared once \
                  (identical definitions merge; differing ones need --prefer FIELD=TOOL, as do \
                  differing route, session or families). Into an existing tool: new actions \
                  (it has a selector), new values of a choice field (--selector FIELD on a plain \
                  tool: an enum or a ^(?:a|b)$ pattern), or new optional parameters (--param, \
                  with --rename old=new). aliases.yaml maps each old name onto the result \
                  (set: {selector: action}, rename), roles and skills list the result once at \
                  the first old name's position, tool(\"old\") references name it, the old files \
                  go. Untouched lines keep their comments and layout.",
    after_help = "Examples:\n  toolsurface merge shell_poll shell_wait shell_kill --into shell_session --as poll,wait,kill\n  \
                  toolsurface merge message_history_read message_context_read --into message_read --selector mode --prefer limit=message_history_read\n  \
                  toolsurface merge ssh_read_file --into read_file --param device --rename host=device\n  \
                  toolsurface merge list_models --into introspect --selector target --as models\n\n\
                  Prints the ledger line (−2: a, b, c → x (new) by action: …).\n\
                  Exit codes: 0 merged, 1 refused (the reasons are printed; nothing written), \
                  2 usage error."
)]
pub struct Args {
    /// The tools to merge, in action order.
    #[arg(required = true)]
    pub tools: Vec<String>,
    /// The merged tool (new, or an existing one).
    #[arg(long)]
    pub into: String,
    /// The selector field (new tool default: action, or mode for ways of reading).
    #[arg(long)]
    pub selector: Option<String>,
    /// Action names, comma-separated, one per tool (default: derived from the names).
    #[arg(long = "as", value_delimiter = ',')]
    pub as_names: Option<Vec<String>>,
    /// The merged tool's object (needed when the tools' objects differ).
    #[arg(long)]
    pub object: Option<String>,
    /// A new optional field of the existing target (name after --rename).
    #[arg(long)]
    pub param: Vec<String>,
    /// OLD=NEW: a field of the merged tools renamed (aliases carry the rename).
    #[arg(long, value_parser = pair)]
    pub rename: Vec<(String, String)>,
    /// FIELD=TOOL (or route/session/families=TOOL): whose definition wins a conflict.
    #[arg(long, value_parser = pair)]
    pub prefer: Vec<(String, String)>,
    /// Definitions folder.
    #[arg(long, default_value = "tool-defs")]
    pub dir: PathBuf,
}

fn pair(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((a, b)) if !a.is_empty() && !b.is_empty() => Ok((a.to_owned(), b.to_owned())),
        _ => Err(format!("expected NAME=VALUE, got `{s}`")),
    }
}

pub fn run(args: Args) -> anyhow::Result<Status> {
    let (sources, ir) = match super::check::compile_dir(&args.dir)? {
        Ok(c) => c,
        Err(s) => return Ok(s),
    };
    let req = MergeRequest {
        tools: args.tools.clone(),
        into: args.into.clone(),
        selector: args.selector.clone(),
        as_names: args.as_names.clone(),
        object: args.object.clone(),
        params: args.param.clone(),
        renames: args.rename.clone(),
        prefer: args.prefer.clone(),
    };
    let plan = match plan_merge(&ir, &sources, &req) {
        Ok(p) => p,
        Err(problems) => return Ok(refuse(&problems)),
    };
    let after = plan.apply(&sources);
    let compiled = toolsurface_compiler::compile(&after);
    if compiled.has_errors() {
        eprintln!("refusing to merge: the result would not pass check (nothing written):");
        eprint!(
            "{}",
            toolsurface_compiler::diag::render_all(&compiled.diagnostics, &after)
        );
        return Ok(Status::Invalid);
    }
    write_plan(&args.dir, &plan)?;
    say!("{}", plan.ledger);
    for n in &plan.notes {
        say!("  note: {n}");
    }
    Ok(Status::Clean)
}

/// Print why a plan was refused; nothing was written.
pub fn refuse(problems: &[String]) -> Status {
    eprintln!("refused (nothing written):");
    for p in problems {
        eprintln!("  - {p}");
    }
    Status::Invalid
}

/// Write every planned file (atomically, one by one) and delete the old ones.
pub fn write_plan(dir: &Path, plan: &Plan) -> anyhow::Result<()> {
    for (path, text) in &plan.write {
        let p = dir.join(path);
        let tmp = dir.join(format!("{path}.toolsurface-tmp"));
        std::fs::write(&tmp, text).with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, &p).with_context(|| format!("writing {}", p.display()))?;
    }
    for path in &plan.delete {
        let p = dir.join(path);
        std::fs::remove_file(&p).with_context(|| format!("removing {}", p.display()))?;
    }
    Ok(())
}
