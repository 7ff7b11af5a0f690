//! toolsurface-cli: the `toolsurface` binary as a library, so its tests, benches and fuzz
//! targets can reach its parts. The CLI (`commands`, one file per subcommand), the MCP server
//! (`mcp`) and the transcript readers behind `usage` and `replay` (`transcript`) live here,
//! apart from the `toolsurface` library a host links: only this crate depends on clap,
//! anyhow, rmcp, hyper and the compiler's token counter.

pub mod commands;
pub mod mcp;
/// Reading (and generating) agent transcripts for `usage` and `replay`.
pub mod transcript;
