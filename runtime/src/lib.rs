//! toolsurface's runtime: executes model tool calls. Knows no YAML and no syn: the generated
//! code tells it everything name-based through [`call::CallInfo`].

pub mod call;
pub mod core;
pub mod data;
pub mod files;
pub mod grep;
pub mod memory;
pub mod messages;
pub mod registry;
pub mod sandbox;
pub mod shell;
pub mod workdirs;

pub use core::SkillStrategy;
