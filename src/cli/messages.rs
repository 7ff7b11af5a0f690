//! `toolsurface messages`.

use super::Status;

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<Status> {
    anyhow::bail!("`toolsurface messages` is not built yet")
}
