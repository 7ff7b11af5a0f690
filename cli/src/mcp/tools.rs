//! The tool list an MCP client sees: the `mcp` dialect's published bytes for the served
//! role × family, exactly what `toolsurface emit --dialect mcp` prints, parsed into rmcp's
//! [`Tool`]s without touching a value ([`standard::published_mcp`], borrowed; nothing is
//! compiled at run time). The mcp dialect publishes every skill tool the role offers from the
//! start (`allow_list`), each marked `_meta."io.toolsurface/skill"` with its skill, and the
//! list is the same for the whole session: MCP 2026-07-28 forbids `tools/list` changing as a
//! side effect of another request, and clients that never re-list after `list_changed`
//! (Codex #33266) must still reach a skill's tools. Activation is what `Call::parse_in`
//! reads: before it a skill tool is refused with the message naming `activate_skill` and the
//! skill.

use rmcp::model::Tool;

use toolsurface::standard;
use toolsurface::standard::Family;
use toolsurface::standard::Role;

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

/// The `_meta` key naming the skill a listed tool belongs to.
pub fn skill_meta_key() -> String {
    format!("{}skill", toolsurface_compiler::emit::META_PREFIX)
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

    /// The published mcp array, borrowed from the generated statics.
    pub fn bytes(&self) -> &'static str {
        standard::published_mcp(self.role, self.family)
    }

    /// What `tools/list` answers, whatever is active: the published mcp array (resident
    /// tools, then every offered skill's, marked with their skill).
    pub fn tools(&self) -> Result<Vec<Tool>, String> {
        parse_tools(self.bytes())
    }

    /// The skill a listed tool belongs to, if any.
    pub fn skill_of(tool: &Tool) -> Option<&str> {
        tool.meta
            .as_ref()
            .and_then(|m| m.0.get(&skill_meta_key()))
            .and_then(serde_json::Value::as_str)
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
    fn every_offered_skill_tool_is_listed_from_the_start_and_marked() {
        for role in Role::ALL {
            for family in Family::ALL {
                let tools = McpSurface::new(role, family).tools().unwrap();
                for &skill in role.skills() {
                    for tool in standard::skill_tools(role, family, skill) {
                        let listed: Vec<&Tool> =
                            tools.iter().filter(|t| t.name == tool.as_str()).collect();
                        assert_eq!(listed.len(), 1, "{role} × {family} {tool}");
                        assert_eq!(
                            McpSurface::skill_of(listed[0]),
                            Some(skill.as_str()),
                            "{role} × {family} {tool}"
                        );
                    }
                }
                let marked = tools.iter().filter(|t| McpSurface::skill_of(t).is_some());
                let offered: usize = role
                    .skills()
                    .iter()
                    .map(|s| standard::skill_tools(role, family, *s).len())
                    .sum();
                assert_eq!(marked.count(), offered, "{role} × {family}");
            }
        }
    }

    #[test]
    fn a_role_without_skills_lists_no_skill_tool() {
        let tools = McpSurface::new(Role::SideChat, Family::Chat)
            .tools()
            .unwrap();
        assert!(tools.iter().all(|t| McpSurface::skill_of(t).is_none()));
    }
}
