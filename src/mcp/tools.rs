//! The tool list an MCP client sees: the `mcp` dialect's published bytes for the served
//! role × family (exactly what `toolsurface emit --dialect mcp` prints), parsed into rmcp's
//! [`Tool`]s without touching a value, plus the tools of activated skills appended after them.
//!
//! Resident arrays are the generated statics ([`standard::published_mcp`]). The generated code
//! does not carry skill arrays; like the host's catalog, they come from compiling the
//! definitions folder (lazily, once, only when a skill is active), and only after checking
//! that the folder's resident mcp array is byte-identical to the compiled-in one.

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::OnceLock;

use rmcp::model::Tool;
use toolsurface_compiler::emit::Emitted;
use toolsurface_compiler::ir::Dialect;

use crate::standard;
use crate::standard::Family;
use crate::standard::Role;
use crate::standard::Skill;

/// Parse a published mcp-dialect array into rmcp tools, in array order. Every key of every
/// tool must survive the round trip into [`Tool`] (a key rmcp does not model is an error,
/// never silently dropped).
pub fn parse_tools(bytes: &str) -> Result<Vec<Tool>, String> {
    let values: Vec<serde_json::Value> =
        serde_json::from_str(bytes).map_err(|e| format!("published mcp array: {e}"))?;
    values
        .into_iter()
        .map(|value| {
            let tool: Tool = serde_json::from_value(value.clone())
                .map_err(|e| format!("published mcp tool is not an MCP tool: {e}"))?;
            let back = serde_json::to_value(&tool)
                .map_err(|e| format!("mcp tool does not serialize: {e}"))?;
            if back != value {
                let name = value.get("name").and_then(|n| n.as_str()).unwrap_or("?");
                return Err(format!(
                    "published mcp tool {name} does not survive rmcp's Tool unchanged"
                ));
            }
            Ok(tool)
        })
        .collect()
}

/// The served role × family in the mcp dialect, with skill arrays on demand.
#[derive(Debug)]
pub struct McpSurface {
    role: Role,
    family: Family,
    definitions: Option<PathBuf>,
    compiled: OnceLock<Result<Emitted, String>>,
}

impl McpSurface {
    pub fn new(role: Role, family: Family, definitions: Option<PathBuf>) -> Self {
        McpSurface {
            role,
            family,
            definitions,
            compiled: OnceLock::new(),
        }
    }

    /// The published mcp array with `skills` (in activation order) appended.
    pub fn bytes(&self, skills: &[Skill]) -> Result<Cow<'static, str>, String> {
        if skills.is_empty() {
            return Ok(Cow::Borrowed(standard::published_mcp(
                self.role,
                self.family,
            )));
        }
        let emitted = self.emitted()?;
        let names: Vec<&str> = skills.iter().map(|s| s.as_str()).collect();
        emitted
            .with_skills(&names)
            .map(Cow::Owned)
            .map_err(|e| e.to_string())
    }

    /// [`McpSurface::bytes`], parsed.
    pub fn tools(&self, skills: &[Skill]) -> Result<Vec<Tool>, String> {
        parse_tools(&self.bytes(skills)?)
    }

    fn emitted(&self) -> Result<&Emitted, String> {
        self.compiled
            .get_or_init(|| self.compile())
            .as_ref()
            .map_err(Clone::clone)
    }

    fn compile(&self) -> Result<Emitted, String> {
        let dir = self
            .definitions
            .as_ref()
            .ok_or("no definitions folder is configured for skill arrays")?;
        let sources = toolsurface_compiler::read_dir(dir)
            .map_err(|e| format!("cannot read definitions {}: {e}", dir.display()))?;
        let compiled = toolsurface_compiler::compile(&sources);
        let ir = match compiled.ir {
            Some(ir) if !compiled.has_errors() => ir,
            _ => {
                return Err(format!(
                    "definitions {} do not compile ({} diagnostics)",
                    dir.display(),
                    compiled.diagnostics.len()
                ));
            }
        };
        let emitted = toolsurface_compiler::emit::surface(
            &ir,
            self.role.as_str(),
            self.family.as_str(),
            Some(Dialect::Mcp),
        )
        .map_err(|e| format!("definitions {}: {e}", dir.display()))?;
        if emitted.bytes != standard::published_mcp(self.role, self.family) {
            return Err(format!(
                "definitions {} differ from the surface this build publishes ({} × {}); \
                 rebuild, or point the server at the folder it was built from",
                dir.display(),
                self.role,
                self.family
            ));
        }
        Ok(emitted)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn every_published_mcp_array_parses_unchanged() {
        for role in Role::ALL {
            for family in Family::ALL {
                let bytes = standard::published_mcp(role, family);
                let tools = parse_tools(bytes).unwrap();
                let values: Vec<serde_json::Value> = serde_json::from_str(bytes).unwrap();
                assert_eq!(tools.len(), values.len());
                assert_eq!(
                    serde_json::to_value(&tools).unwrap(),
                    serde_json::json!(values)
                );
                for (tool, value) in tools.iter().zip(&values) {
                    assert_eq!(tool.name, value["name"].as_str().unwrap());
                }
            }
        }
    }

    #[test]
    fn a_key_rmcp_does_not_model_is_refused() {
        let err = parse_tools(r#"[{"name":"x","inputSchema":{"type":"object"},"surprise":true}]"#)
            .unwrap_err();
        assert!(err.contains("does not survive"), "{err}");
    }

    #[test]
    fn skill_tools_are_appended_after_the_resident_ones() {
        let surface = McpSurface::new(
            Role::Main,
            Family::Chat,
            Some(crate::host::default_definitions_dir()),
        );
        let resident = surface.tools(&[]).unwrap();
        let with = surface.tools(&[Skill::Sqlite]).unwrap();
        assert!(with.len() > resident.len());
        assert_eq!(&with[..resident.len()], &resident[..]);
        let bytes = surface.bytes(&[Skill::Sqlite]).unwrap();
        let resident_bytes = surface.bytes(&[]).unwrap();
        assert!(bytes.starts_with(resident_bytes.trim_end_matches(']')));
    }

    #[test]
    fn without_definitions_a_skill_array_is_an_error() {
        let surface = McpSurface::new(Role::Main, Family::Chat, None);
        assert!(surface.tools(&[]).is_ok());
        assert!(surface.tools(&[Skill::Sqlite]).is_err());
    }
}
