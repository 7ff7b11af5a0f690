//! `toolsurface diff`.

use super::Status;

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<Status> {
    anyhow::bail!("`toolsurface diff` is not built yet")
}
