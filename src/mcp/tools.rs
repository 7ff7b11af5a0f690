//! The tool list an MCP client sees: the `mcp` dialect's published bytes for the served
//! role × family (exactly what `toolsurface emit --dialect mcp` prints), parsed into rmcp's
//! [`Tool`]s without touching a value, plus the tools of activated skills appended after them.
//!
//! Everything comes from the generated statics: the resident array is
//! [`standard::published_mcp`], borrowed; with skills active it is
//! [`standard::published_mcp_with_skills`] (the resident bytes up to their closing `]`,
//! unchanged, then the skills' tools in activation order). Nothing is compiled at run time.

use std::borrow::Cow;

use rmcp::model::Tool;

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

/// The served role × family in the mcp dialect.
#[derive(Clone, Copy, Debug)]
pub struct McpSurface {
    role: Role,
    family: Family,
}

impl McpSurface {
    pub fn new(role: Role, family: Family) -> Self {
        McpSurface { role, family }
    }

    /// The published mcp array with `skills` (in activation order) appended; borrowed when no
    /// skill is active.
    pub fn bytes(&self, skills: &[Skill]) -> Cow<'static, str> {
        standard::published_mcp_with_skills(self.role, self.family, skills)
    }

    /// [`McpSurface::bytes`], parsed.
    pub fn tools(&self, skills: &[Skill]) -> Result<Vec<Tool>, String> {
        parse_tools(&self.bytes(skills))
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
        let surface = McpSurface::new(Role::Main, Family::Chat);
        let resident = surface.tools(&[]).unwrap();
        assert!(matches!(surface.bytes(&[]), Cow::Borrowed(_)));
        let with = surface.tools(&[Skill::Sqlite]).unwrap();
        assert_eq!(with.len(), resident.len() + 1);
        assert_eq!(&with[..resident.len()], &resident[..]);
        assert_eq!(with[resident.len()].name, "sql_query");
        let bytes = surface.bytes(&[Skill::Sqlite]);
        let resident_bytes = surface.bytes(&[]);
        let body = resident_bytes.strip_suffix(']').unwrap();
        assert!(bytes.starts_with(body));
        assert_eq!(
            &bytes[body.len()..],
            format!(
                ",{}]",
                standard::skill_json_mcp(Role::Main, Family::Chat, Skill::Sqlite)[0]
            )
        );
    }

    #[test]
    fn a_role_without_the_skill_gets_its_resident_array() {
        let surface = McpSurface::new(Role::SideChat, Family::Chat);
        assert_eq!(
            surface.bytes(&[Skill::Sqlite]),
            standard::published_mcp(Role::SideChat, Family::Chat)
        );
    }
}
