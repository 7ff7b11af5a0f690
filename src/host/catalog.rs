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
//!
//! The scope arrives typed ([`Scope<Names>`]: the generated enums), so nothing here parses a
//! role, family or skill name; the config's strings were parsed once, by `Runtime::new`.

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
use crate::standard::Names;
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

    /// The skills of a scope, each checked against the role (a scope is typed, yet its
    /// skills may still be ones the role does not offer).
    fn offered_skills(role: Role, skills: &[Skill]) -> Result<&[Skill], CatalogError> {
        match skills.iter().find(|skill| !role.skills().contains(skill)) {
            Some(skill) => Err(CatalogError(format!("role {role} offers no skill {skill}"))),
            None => Ok(skills),
        }
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

/// The runtime's scope over the generated names.
pub type StandardScope = Scope<Names>;

impl SurfaceCatalog<Names> for StandardCatalog {
    fn tool_array(&self, scope: &StandardScope) -> Result<Cow<'static, str>, CatalogError> {
        let (role, family) = (scope.role, scope.family);
        let skills = Self::offered_skills(role, &scope.skills)?;
        if self.rendering == Rendering::Mcp {
            return Ok(Cow::Borrowed(standard::published_mcp(role, family)));
        }
        if skills.is_empty() || family.skill_delivery().keeps_tools_stable() {
            // Deferred or allow-listed skill tools are in the resident bytes already.
            return Ok(Cow::Borrowed(standard::published(role, family)));
        }
        Ok(standard::published_with_skills(role, family, skills))
    }

    /// The tools of [`SurfaceCatalog::tool_array`], from the emitter's typed facts (the
    /// generated summaries), in the same order and under the same rules.
    fn tools(&self, scope: &StandardScope) -> Result<Vec<ToolSummary>, CatalogError> {
        let (role, family) = (scope.role, scope.family);
        let skills = Self::offered_skills(role, &scope.skills)?;
        let summary = |(name, description): &(&str, &str)| ToolSummary {
            name: (*name).to_owned(),
            description: (*description).to_owned(),
        };
        if self.rendering == Rendering::Mcp {
            return Ok(standard::published_mcp_summaries(role, family)
                .iter()
                .map(summary)
                .collect());
        }
        let mut tools: Vec<ToolSummary> = standard::published_summaries(role, family)
            .iter()
            .map(summary)
            .collect();
        if skills.is_empty() || family.skill_delivery().keeps_tools_stable() {
            return Ok(tools);
        }
        // Under `append` activation appends each skill's tools (a tool two skills share once).
        for skill in skills {
            for s in standard::skill_summaries(role, family, *skill) {
                if !tools.iter().any(|t| t.name == s.0) {
                    tools.push(summary(s));
                }
            }
        }
        Ok(tools)
    }

    fn skills(&self, role: Role) -> Vec<SkillSummary<Names>> {
        role.skills()
            .iter()
            .map(|skill| SkillSummary {
                skill: *skill,
                description: skill.description().to_owned(),
                tools: skill_tools(role, *skill)
                    .iter()
                    .map(|t| t.as_str().to_owned())
                    .collect(),
            })
            .collect()
    }

    fn skill_delivery(&self, scope: &StandardScope) -> Result<SkillDelivery, CatalogError> {
        Ok(self.rendering.skill_delivery(scope.family))
    }

    fn skill_tools(
        &self,
        scope: &StandardScope,
        skill: Skill,
    ) -> Result<Vec<SkillTool>, CatalogError> {
        let (role, family) = (scope.role, scope.family);
        Self::offered_skills(role, &[skill])?;
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
