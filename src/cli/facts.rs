//! `toolsurface facts`.

use super::Status;

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<Status> {
    anyhow::bail!("`toolsurface facts` is not built yet")
}
