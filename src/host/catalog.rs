//! The runtime's view of the standard surface: [`StandardCatalog`] answers the runtime's
//! [`SurfaceCatalog`] questions (which bytes to publish for a scope, which tools and skills
//! a role has) from the generated statics in [`crate::standard`].
//!
//! Resident arrays are the generated `&'static str`s, borrowed, byte for byte. The generated
//! code does not (yet) publish the arrays with a skill's tools appended, nor skill
//! descriptions; until it does, those come from compiling the definitions folder at run time
//! (once, lazily, only when a skill is listed or activated), and only after checking that
//! every resident array the compiler emits from that folder is byte-identical to the
//! compiled-in one — a folder that drifted from the build is refused, never published.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::Path;
use std::path::PathBuf;
use std::sync::OnceLock;

use toolsurface_compiler::emit::Emitted;
use toolsurface_runtime::core::CatalogError;
use toolsurface_runtime::core::Scope;
use toolsurface_runtime::core::SkillSummary;
use toolsurface_runtime::core::SurfaceCatalog;
use toolsurface_runtime::core::ToolSummary;

use crate::standard;
use crate::standard::Family;
use crate::standard::Role;
use crate::standard::Skill;
use crate::standard::Tool;

/// The definitions folder the facade was built from (used for skill arrays, see the module
/// docs).
pub fn default_definitions_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tool-defs"))
}

/// [`SurfaceCatalog`] over the generated standard surface.
#[derive(Debug)]
pub struct StandardCatalog {
    definitions: Option<PathBuf>,
    compiled: OnceLock<Result<Definitions, String>>,
}

/// What the generated code does not carry yet: per role × family emitted arrays (with their
/// skills' tools) and skill descriptions.
#[derive(Debug)]
struct Definitions {
    surfaces: BTreeMap<(Role, Family), Emitted>,
    skill_descriptions: BTreeMap<String, String>,
}

impl StandardCatalog {
    /// A catalog over the generated statics. `definitions` is the folder skill arrays and
    /// skill descriptions are compiled from (see the module docs); `None` means resident
    /// arrays only: activating a skill is then refused as a catalog fault.
    pub fn new(definitions: Option<PathBuf>) -> Self {
        StandardCatalog {
            definitions,
            compiled: OnceLock::new(),
        }
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
                if role_offers(role, skill) {
                    Ok(skill)
                } else {
                    Err(CatalogError(format!("role {role} offers no skill {skill}")))
                }
            })
            .collect()
    }

    fn definitions(&self) -> Result<&Definitions, CatalogError> {
        let compiled = self.compiled.get_or_init(|| match &self.definitions {
            Some(dir) => Definitions::load(dir),
            None => Err("no definitions folder is configured for skill arrays".to_owned()),
        });
        compiled.as_ref().map_err(|e| CatalogError(e.clone()))
    }
}

impl Default for StandardCatalog {
    fn default() -> Self {
        StandardCatalog::new(Some(default_definitions_dir()))
    }
}

/// Whether `role` may activate `skill`: some family offers a tool with it that it does not
/// offer without it.
fn role_offers(role: Role, skill: Skill) -> bool {
    !skill_tools(role, skill).is_empty()
}

/// The tools `skill` adds for `role`, over every family, in declaration order.
fn skill_tools(role: Role, skill: Skill) -> Vec<Tool> {
    let active = [skill];
    Tool::ALL
        .into_iter()
        .filter(|tool| {
            Family::ALL.iter().any(|family| {
                let bare = standard::Scope::new(role, *family);
                bare.with_skills(&active).offers(*tool) && !bare.offers(*tool)
            })
        })
        .collect()
}

impl Definitions {
    fn load(dir: &Path) -> Result<Definitions, String> {
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
        let emitted = toolsurface_compiler::emit::surfaces(&ir)
            .map_err(|e| format!("definitions {}: {e}", dir.display()))?;
        let mut surfaces = BTreeMap::new();
        for e in emitted {
            let (Ok(role), Ok(family)) = (e.role.parse::<Role>(), e.family.parse::<Family>())
            else {
                return Err(format!(
                    "definitions {} have role × family {} × {}, which this build does not",
                    dir.display(),
                    e.role,
                    e.family
                ));
            };
            if e.bytes != standard::published(role, family) {
                return Err(format!(
                    "definitions {} differ from the surface this build publishes ({role} × \
                     {family}); rebuild, or point the host at the folder it was built from",
                    dir.display()
                ));
            }
            surfaces.insert((role, family), e);
        }
        for role in Role::ALL {
            for family in Family::ALL {
                if !surfaces.contains_key(&(role, family)) {
                    return Err(format!(
                        "definitions {} have no {role} × {family} surface",
                        dir.display()
                    ));
                }
            }
        }
        let skill_descriptions = ir
            .skills
            .iter()
            .map(|s| (s.name.clone(), s.description.clone()))
            .collect();
        Ok(Definitions {
            surfaces,
            skill_descriptions,
        })
    }
}

impl SurfaceCatalog for StandardCatalog {
    fn tool_array(&self, scope: &Scope) -> Result<Cow<'static, str>, CatalogError> {
        let (role, family) = Self::parse_scope(scope)?;
        let skills = Self::parse_skills(role, &scope.skills)?;
        if skills.is_empty() {
            return Ok(Cow::Borrowed(standard::published(role, family)));
        }
        let emitted = self
            .definitions()?
            .surfaces
            .get(&(role, family))
            .ok_or_else(|| CatalogError(format!("no {role} × {family} surface")))?;
        let names: Vec<&str> = skills.iter().map(|s| s.as_str()).collect();
        emitted
            .with_skills(&names)
            .map(Cow::Owned)
            .map_err(|e| CatalogError(e.to_string()))
    }

    fn tools(&self, scope: &Scope) -> Result<Vec<ToolSummary>, CatalogError> {
        let bytes = self.tool_array(scope)?;
        tool_summaries(&bytes)
    }

    fn skills(&self, role: &str) -> Vec<SkillSummary> {
        let Ok(role) = role.parse::<Role>() else {
            return Vec::new();
        };
        // Descriptions come with the definitions; without them the list is still right.
        let descriptions = self.definitions().ok().map(|d| &d.skill_descriptions);
        Skill::ALL
            .into_iter()
            .filter_map(|skill| {
                let tools = skill_tools(role, skill);
                (!tools.is_empty()).then(|| SkillSummary {
                    name: skill.as_str().to_owned(),
                    description: descriptions
                        .and_then(|d| d.get(skill.as_str()))
                        .cloned()
                        .unwrap_or_default(),
                    tools: tools.iter().map(|t| t.as_str().to_owned()).collect(),
                })
            })
            .collect()
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
            match (text("name"), text("description")) {
                (Some(name), description) => Ok(ToolSummary {
                    name: name.to_owned(),
                    description: description.unwrap_or_default().to_owned(),
                }),
                (None, _) => Err(CatalogError("a published tool has no name".into())),
            }
        })
        .collect()
}
