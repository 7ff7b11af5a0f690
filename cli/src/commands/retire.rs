//! `toolsurface retire`: take a tool off the surface (file, roles, skills, aliases), record
//! the message a model gets when it still calls the name, and report every place that still
//! names it, as `check` would. The plan is `compiler::consolidate::retire`.

use std::path::PathBuf;

use toolsurface_compiler::consolidate::retire::{RetireRequest, plan_retire};

use super::Status;

#[derive(clap::Args, Debug)]
#[command(
    long_about = "Remove a tool: delete tools/NAME.yaml, add NAME to retired.yaml with the \
                  message (default: the tool's replaceable_by: message and tools), drop it from \
                  every role and skill, retire the aliases that led to it, and point tool(\"NAME\") \
                  references at the first --replaced-by tool. Then the folder is compiled and \
                  every place still naming it is reported as check reports it.",
    after_help = "Examples:\n  toolsurface retire list_dir --dir tool-defs    # message from replaceable_by:\n  \
                  toolsurface retire get_facts --message \"Use search_memory.\" --replaced-by search_memory\n\n\
                  Exit codes: 0 retired and the folder checks clean, 1 retired but check reports \
                  errors (printed), or refused (nothing written), 2 usage error."
)]
pub struct Args {
    pub name: String,
    /// What a model is told when it calls the retired name.
    #[arg(long)]
    pub message: Option<String>,
    /// Tools the message points to.
    #[arg(long, num_args = 1..)]
    pub replaced_by: Vec<String>,
    /// Definitions folder.
    #[arg(long, default_value = "tool-defs")]
    pub dir: PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<Status> {
    let (sources, ir) = match super::check::compile_dir(&args.dir)? {
        Ok(c) => c,
        Err(s) => return Ok(s),
    };
    let req = RetireRequest {
        name: args.name.clone(),
        message: args.message.clone(),
        replaced_by: args.replaced_by.clone(),
    };
    let plan = match plan_retire(&ir, &sources, &req) {
        Ok(p) => p,
        Err(problems) => return Ok(super::merge::refuse(&problems)),
    };
    let after = plan.apply(&sources);
    let compiled = toolsurface_compiler::compile(&after);
    super::merge::write_plan(&args.dir, &plan)?;
    say!("{}", plan.ledger);
    for n in &plan.notes {
        say!("  note: {n}");
    }
    if !compiled.diagnostics.is_empty() {
        eprint!(
            "{}",
            toolsurface_compiler::diag::render_all(&compiled.diagnostics, &after)
        );
    }
    Ok(if compiled.has_errors() {
        Status::Invalid
    } else {
        Status::Clean
    })
}
