//! The runtime's view of the standard surface: [`StandardCatalog`] answers the runtime's
//! [`SurfaceCatalog`] questions (which bytes to publish for a scope, which tools and skills
//! a role has) from the generated statics in [`crate::standard`] alone — nothing is compiled
//! or read at run time, so a deployed binary needs no definitions folder.
//!
//! Published arrays are the generated `&'static str`s, borrowed, byte for byte. On a family
//! whose skills are deferred or allow-listed ([`Family::skill_delivery`] keeps the tools
//! stable) that is the answer whatever skills are active: the skill tools are in it from the
//! start. On an `append` family with skills active the array is
//! [`standard::published_with_skills`]: the resident bytes up to their closing `]`,
//! unchanged, then each active skill's tools (the emitter's own JSON, generated as statics)
//! in activation order.

use std::borrow::Cow;

use toolsurface_runtime::core::CatalogError;
use toolsurface_runtime::core::Scope;
use toolsurface_runtime::core::SkillDelivery;
use toolsurface_runtime::core::SkillSummary;
use toolsurface_runtime::core::SkillTool;
use toolsurface_runtime::core::SurfaceCatalog;
use toolsurface_runtime::core::ToolSummary;

use crate::standard;
use crate::standard::Family;
use crate::standard::Role;
use crate::standard::Skill;
use crate::standard::Tool;

/// Which published bytes a conversation is served: its family's own dialect, or the `mcp`
/// dialect (an MCP session), where every offered skill tool is listed from the start and
/// activation only opens the gate (the MCP server's `tools/list` never changes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Rendering {
    #[default]
    Native,
    Mcp,
}

impl Rendering {
    /// How an activated skill's tools reach the model on `family` rendered this way.
    pub fn skill_delivery(self, family: Family) -> SkillDelivery {
        match self {
            Rendering::Native => family.skill_delivery(),
            Rendering::Mcp => SkillDelivery::AllowList,
        }
    }
}

/// [`SurfaceCatalog`] over the generated standard surface.
#[derive(Clone, Copy, Debug, Default)]
pub struct StandardCatalog {
    rendering: Rendering,
}

impl StandardCatalog {
    /// A catalog over the generated statics, in each family's own dialect.
    pub fn new() -> Self {
        StandardCatalog::rendered(Rendering::Native)
    }

    /// A catalog over the generated statics, rendered as `rendering` says.
    pub fn rendered(rendering: Rendering) -> Self {
        StandardCatalog { rendering }
    }

    pub fn rendering(&self) -> Rendering {
        self.rendering
    }

    /// Role and family of a runtime scope, as the generated enums.
    pub fn parse_scope(scope: &Scope) -> Result<(Role, Family), CatalogError> {
        let role = scope
            .role
            .parse::<Role>()
            .map_err(|e| CatalogError(e.to_string()))?;
        let family = scope
            .family
            .parse::<Family>()
            .map_err(|e| CatalogError(e.to_string()))?;
        Ok((role, family))
    }

    /// The skills of a scope, as the generated enum, each checked against the role.
    pub fn parse_skills(role: Role, skills: &[String]) -> Result<Vec<Skill>, CatalogError> {
        skills
            .iter()
            .map(|name| {
                let skill = name
                    .parse::<Skill>()
                    .map_err(|e| CatalogError(e.to_string()))?;
                if role.skills().contains(&skill) {
                    Ok(skill)
                } else {
                    Err(CatalogError(format!("role {role} offers no skill {skill}")))
                }
            })
            .collect()
    }
}

/// The tools `skill` adds for `role`, over every family, in declaration order.
fn skill_tools(role: Role, skill: Skill) -> Vec<Tool> {
    Tool::ALL
        .into_iter()
        .filter(|tool| {
            Family::ALL
                .iter()
                .any(|family| standard::skill_tools(role, *family, skill).contains(tool))
        })
        .collect()
}

impl SurfaceCatalog for StandardCatalog {
    fn tool_array(&self, scope: &Scope) -> Result<Cow<'static, str>, CatalogError> {
        let (role, family) = Self::parse_scope(scope)?;
        let skills = Self::parse_skills(role, &scope.skills)?;
        if self.rendering == Rendering::Mcp {
            return Ok(Cow::Borrowed(standard::published_mcp(role, family)));
        }
        if skills.is_empty() || family.skill_delivery().keeps_tools_stable() {
            // Deferred or allow-listed skill tools are in the resident bytes already.
            return Ok(Cow::Borrowed(standard::published(role, family)));
        }
        Ok(standard::published_with_skills(role, family, &skills))
    }

    fn tools(&self, scope: &Scope) -> Result<Vec<ToolSummary>, CatalogError> {
        let bytes = self.tool_array(scope)?;
        tool_summaries(&bytes)
    }

    fn skills(&self, role: &str) -> Vec<SkillSummary> {
        let Ok(role) = role.parse::<Role>() else {
            return Vec::new();
        };
        role.skills()
            .iter()
            .map(|skill| SkillSummary {
                name: skill.as_str().to_owned(),
                description: skill.description().to_owned(),
                tools: skill_tools(role, *skill)
                    .iter()
                    .map(|t| t.as_str().to_owned())
                    .collect(),
            })
            .collect()
    }

    fn skill_delivery(&self, scope: &Scope) -> Result<SkillDelivery, CatalogError> {
        let (_, family) = Self::parse_scope(scope)?;
        Ok(self.rendering.skill_delivery(family))
    }

    fn skill_tools(&self, scope: &Scope, skill: &str) -> Result<Vec<SkillTool>, CatalogError> {
        let (role, family) = Self::parse_scope(scope)?;
        let skill = Self::parse_skills(role, &[skill.to_owned()])?
            .into_iter()
            .next()
            .ok_or_else(|| CatalogError(format!("unknown skill {skill}")))?;
        let tools = standard::skill_tools(role, family, skill);
        let definitions = match self.rendering {
            Rendering::Native => standard::skill_json(role, family, skill),
            Rendering::Mcp => standard::skill_json_mcp(role, family, skill),
        };
        if tools.len() != definitions.len() {
            return Err(CatalogError(format!(
                "skill {skill} on {role} × {family}: {} tools but {} definitions",
                tools.len(),
                definitions.len()
            )));
        }
        Ok(tools
            .iter()
            .zip(definitions)
            .map(|(tool, definition)| SkillTool {
                name: tool.as_str().to_owned(),
                definition: Cow::Borrowed(*definition),
            })
            .collect())
    }
}

/// Name and description of every tool of a published array, in order, whatever the dialect
/// (openai-chat nests them under `function`; the others are flat).
pub fn tool_summaries(array: &str) -> Result<Vec<ToolSummary>, CatalogError> {
    let parsed: serde_json::Value = serde_json::from_str(array)
        .map_err(|e| CatalogError(format!("published array is not JSON: {e}")))?;
    let items = parsed
        .as_array()
        .ok_or_else(|| CatalogError("published array is not a JSON array".into()))?;
    items
        .iter()
        .map(|item| {
            let tool = item.get("function").unwrap_or(item);
            let text = |key: &str| tool.get(key).and_then(serde_json::Value::as_str);
            // openai-responses under `skills: defer` publishes activate_skill as the client
            // `tool_search` tool, which has no name (docs/published-bytes.md, "Skills").
            let name = match text("type") {
                Some("tool_search") => Some(Tool::ActivateSkill.as_str()),
                _ => text("name"),
            };
            match (name, text("description")) {
                (Some(name), description) => Ok(ToolSummary {
                    name: name.to_owned(),
                    description: description.unwrap_or_default().to_owned(),
                }),
                (None, _) => Err(CatalogError("a published tool has no name".into())),
            }
        })
        .collect()
}
