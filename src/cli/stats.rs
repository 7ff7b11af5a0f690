//! `toolsurface stats`.

use super::Status;

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<Status> {
    anyhow::bail!("`toolsurface stats` is not built yet")
}
