//! The tool list an MCP client sees: the `mcp` dialect's published bytes for the served
//! role × family (what `toolsurface emit --dialect mcp` prints), parsed into rmcp's [`Tool`]s
//! without touching a value, then every skill tool the role offers, each marked in `_meta`
//! with its skill (`io.toolsurface/skill`). The list is the same for the whole session:
//! MCP 2026-07-28 forbids `tools/list` changing as a side effect of another request, and
//! clients that never re-list after `list_changed` (Codex #33266) must still reach a skill's
//! tools. Activation is what `Call::parse_in` reads: before it a skill tool is refused with
//! the message naming `activate_skill` and the skill.
//!
//! Everything comes from the generated statics ([`standard::published_mcp`],
//! [`standard::skill_json_mcp`]); nothing is compiled at run time. Skill tools the emitted
//! array already holds are marked in place, not listed twice.

use rmcp::model::MetaObject;
use rmcp::model::Tool;

use crate::standard;
use crate::standard::Family;
use crate::standard::Role;

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

    /// The published mcp array: the resident tools, borrowed from the generated statics.
    pub fn resident_bytes(&self) -> &'static str {
        standard::published_mcp(self.role, self.family)
    }

    /// What `tools/list` answers, whatever is active: the published array, then each skill
    /// the role offers (declaration order) with its tools, every skill tool marked with its
    /// skill in `_meta`.
    pub fn tools(&self) -> Result<Vec<Tool>, String> {
        let mut tools = parse_tools(self.resident_bytes())?;
        let key = skill_meta_key();
        for &skill in self.role.skills() {
            let names = standard::skill_tools(self.role, self.family, skill);
            let definitions = standard::skill_json_mcp(self.role, self.family, skill);
            for (tool, definition) in names.iter().zip(definitions) {
                let index = match tools.iter().position(|t| t.name == tool.as_str()) {
                    Some(index) => index,
                    None => {
                        tools.extend(parse_tools(&format!("[{definition}]"))?);
                        tools.len() - 1
                    }
                };
                let Some(listed) = tools.get_mut(index) else {
                    continue;
                };
                let meta = listed.meta.get_or_insert_with(MetaObject::default);
                meta.0
                    .entry(key.clone())
                    .or_insert_with(|| skill.as_str().into());
            }
        }
        Ok(tools)
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
    fn skill_tools_are_listed_from_the_start_after_the_resident_ones_and_marked() {
        let surface = McpSurface::new(Role::Main, Family::Chat);
        let tools = surface.tools().unwrap();
        let resident = parse_tools(surface.resident_bytes()).unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert!(names.contains(&"sql_query"), "{names:?}");
        // The resident tools come first, unchanged (only skill tools get the mark).
        for (listed, published) in tools.iter().zip(&resident) {
            if McpSurface::skill_of(listed).is_none() {
                assert_eq!(listed, published);
            }
        }
        let sql = tools.iter().find(|t| t.name == "sql_query").unwrap();
        assert_eq!(McpSurface::skill_of(sql), Some("sqlite"));
        let meta = serde_json::to_value(sql).unwrap()["_meta"].clone();
        assert_eq!(meta["io.toolsurface/skill"], "sqlite");
        // The emitter's other `_meta` keys stay.
        assert!(meta.get("io.toolsurface/sha256").is_some(), "{meta}");
        // Marked once, listed once.
        assert_eq!(names.iter().filter(|n| **n == "sql_query").count(), 1);
        let marked = tools
            .iter()
            .filter(|t| McpSurface::skill_of(t).is_some())
            .count();
        let offered: usize = Role::Main
            .skills()
            .iter()
            .map(|s| standard::skill_tools(Role::Main, Family::Chat, *s).len())
            .sum();
        assert_eq!(marked, offered);
    }

    #[test]
    fn a_role_without_skills_lists_its_published_array() {
        let surface = McpSurface::new(Role::SideChat, Family::Chat);
        assert_eq!(
            surface.tools().unwrap(),
            parse_tools(standard::published_mcp(Role::SideChat, Family::Chat)).unwrap()
        );
    }
}
