//! Published schemas per dialect: the byte-exact tool arrays a host sends to a model provider
//! (or an MCP client) for one role × family. An API boundary: the bytes are canonical (see
//! `docs/published-bytes.md`), hashed, locked and diffed; hosts embed them as `&'static str`.
//!
//! Entry points: [`surface`] for one role × family (any dialect, e.g. `mcp` for the MCP
//! server), [`surfaces`] for every role × family in its own dialect.

mod dialect;
mod extras;
mod json;
mod schema;

use sha2::{Digest, Sha256};

use crate::ir::{Dialect, Family, Ir, RenderedTool, SkillStrategy, SurfaceInstance};

pub use dialect::{Annotations, annotations};
pub use extras::META_PREFIX;
pub use json::pretty;

/// A type's JSON Schema without descriptions, as canonical JSON text (for the strict union).
pub fn bare_type_schema(ty: &crate::ir::Type, path: &str) -> Result<String, EmitError> {
    schema::bare_schema(ty, path).map(|j| j.to_canonical())
}

/// The JSON Schema (canonical JSON) of what `action` of `tool` returns (`None` for a plain
/// tool's single action), as its `output:` declares; `None` when it declares none. Hosts and
/// tests validate structured results against it.
pub fn action_output_schema(tool: &crate::ir::Tool, action: Option<&str>) -> Option<String> {
    let a = tool.actions.iter().find(|a| a.name.as_deref() == action)?;
    a.output
        .as_ref()
        .map(|o| extras::output_type_schema(o).to_canonical())
}

/// The tool's output schema as MCP publishes it (`outputSchema`), canonical JSON.
pub fn tool_output_schema(tool: &crate::ir::Tool) -> Option<String> {
    extras::mcp_output_schema(tool).map(|j| j.to_canonical())
}

/// Hard ceilings, whatever `surface.yaml` says (providers refuse more).
pub const MAX_TOOLS: usize = 128;
pub const MAX_DESCRIPTION_CHARS: usize = 1024;

/// One role × family array, in one dialect, as published.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Emitted {
    pub role: String,
    pub family: String,
    pub dialect: Dialect,
    /// The canonical JSON array of the resident tools: `[` + each tool's `json`, joined by
    /// `,` + `]`. These are the bytes sent with every request.
    pub bytes: String,
    /// Lowercase hex sha256 of `bytes`.
    pub sha256: String,
    /// The resident tools in published order.
    pub tools: Vec<EmittedTool>,
    /// The role's skills, each with the tools its activation appends after the resident ones.
    pub skills: Vec<EmittedSkill>,
    /// How the skills are published and activated: the family's `skills:` when `dialect` is
    /// the family's own, else the default of `dialect` ([`SkillStrategy::of`]).
    pub skill_strategy: SkillStrategy,
}

/// One tool's canonical JSON (a substring of [`Emitted::bytes`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmittedTool {
    pub name: String,
    pub json: String,
    /// Lowercase hex sha256 of `json`.
    pub sha256: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmittedSkill {
    pub name: String,
    pub tools: Vec<EmittedTool>,
}

impl Emitted {
    pub fn tool(&self, name: &str) -> Option<&EmittedTool> {
        self.tools.iter().find(|t| t.name == name)
    }

    pub fn skill(&self, name: &str) -> Option<&EmittedSkill> {
        self.skills.iter().find(|s| s.name == name)
    }

    /// The array after activating `skills` (in the order given): the resident tools, byte for
    /// byte the same prefix as [`Emitted::bytes`] minus its closing `]`, then each skill's
    /// tools.
    pub fn with_skills(&self, skills: &[&str]) -> Result<String, EmitError> {
        let mut tools: Vec<&EmittedTool> = self.tools.iter().collect();
        for name in skills {
            let skill = self.skill(name).ok_or_else(|| EmitError::UnknownSkill {
                role: self.role.clone(),
                skill: (*name).to_owned(),
            })?;
            tools.extend(&skill.tools);
        }
        Ok(array(tools.into_iter()))
    }
}

/// Why a surface could not be emitted. The compiler's checks make most of these unreachable
/// for a valid [`Ir`]; they are asserted again here because the bytes are the boundary.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EmitError {
    #[error("unknown role `{0}`")]
    UnknownRole(String),
    #[error("unknown family `{0}`")]
    UnknownFamily(String),
    #[error("no surface for role `{role}` × family `{family}`")]
    NoSurface { role: String, family: String },
    #[error("role `{role}` offers no skill `{skill}`")]
    UnknownSkill { role: String, skill: String },
    #[error("surface {role} × {family} lists tool `{tool}`, which is not declared")]
    UnknownTool {
        role: String,
        family: String,
        tool: String,
    },
    #[error("surface {role} × {family} has {count} tools; at most {max} are allowed")]
    TooManyTools {
        role: String,
        family: String,
        count: usize,
        max: usize,
    },
    #[error("tool `{tool}`: description is {chars} characters; at most {max} are allowed")]
    DescriptionTooLong {
        tool: String,
        chars: usize,
        max: usize,
    },
    #[error("tool name `{0}` is not publishable (expected ^[a-z][a-z0-9_]{{0,63}}$)")]
    InvalidName(String),
    #[error("tool `{tool}`: an action uses field `{field}`, which is not declared")]
    UndeclaredField { tool: String, field: String },
    #[error("tool `{tool}`: no rendered description for `{path}`")]
    MissingDescription { tool: String, path: String },
    #[error("tool `{tool}`: field `{path}` has a non-finite bound")]
    NonFiniteNumber { tool: String, path: String },
}

/// Emit role × family. `dialect` overrides the family's own (the MCP server renders family
/// F's tools with `Some(Dialect::Mcp)`); the strict variant applies only when the family is
/// strict and the dialect is openai-chat; freeform custom tools only in openai-responses.
pub fn surface(
    ir: &Ir,
    role: &str,
    family: &str,
    dialect: Option<Dialect>,
) -> Result<Emitted, EmitError> {
    if ir.role(role).is_none() {
        return Err(EmitError::UnknownRole(role.to_owned()));
    }
    let fam = ir
        .family(family)
        .ok_or_else(|| EmitError::UnknownFamily(family.to_owned()))?;
    let instance = ir
        .surface(role, family)
        .ok_or_else(|| EmitError::NoSurface {
            role: role.to_owned(),
            family: family.to_owned(),
        })?;
    emit_instance(ir, fam, instance, dialect.unwrap_or(fam.dialect))
}

/// Every role × family in its own dialect, in IR order (roles, then families).
pub fn surfaces(ir: &Ir) -> Result<Vec<Emitted>, EmitError> {
    ir.surfaces
        .iter()
        .map(|s| surface(ir, &s.role, &s.family, None))
        .collect()
}

/// Lowercase hex sha256.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn array<'a>(tools: impl Iterator<Item = &'a EmittedTool>) -> String {
    let mut out = String::from("[");
    for (i, t) in tools.enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&t.json);
    }
    out.push(']');
    out
}

fn emit_instance(
    ir: &Ir,
    family: &Family,
    instance: &SurfaceInstance,
    dialect: Dialect,
) -> Result<Emitted, EmitError> {
    let max_tools = ir.limits.max_tools.min(MAX_TOOLS);
    let too_many = |count: usize| EmitError::TooManyTools {
        role: instance.role.clone(),
        family: instance.family.clone(),
        count,
        max: max_tools,
    };
    if instance.tools.len() > max_tools {
        return Err(too_many(instance.tools.len()));
    }
    let all_skills: usize = instance.skills.iter().map(|s| s.tools.len()).sum();
    if instance.tools.len() + all_skills > max_tools {
        return Err(too_many(instance.tools.len() + all_skills));
    }
    let emit_all = |tools: &[RenderedTool]| -> Result<Vec<EmittedTool>, EmitError> {
        tools
            .iter()
            .map(|t| emit_tool(ir, family, instance, dialect, t))
            .collect()
    };
    let tools = emit_all(&instance.tools)?;
    let skills = instance
        .skills
        .iter()
        .map(|s| {
            Ok(EmittedSkill {
                name: s.skill.clone(),
                tools: emit_all(&s.tools)?,
            })
        })
        .collect::<Result<Vec<_>, EmitError>>()?;
    let bytes = array(tools.iter());
    Ok(Emitted {
        role: instance.role.clone(),
        family: instance.family.clone(),
        dialect,
        sha256: sha256_hex(bytes.as_bytes()),
        bytes,
        tools,
        skills,
        skill_strategy: SkillStrategy::of(family, dialect),
    })
}

fn emit_tool(
    ir: &Ir,
    family: &Family,
    instance: &SurfaceInstance,
    dialect: Dialect,
    rendered: &RenderedTool,
) -> Result<EmittedTool, EmitError> {
    let tool = ir
        .tool(&rendered.name)
        .ok_or_else(|| EmitError::UnknownTool {
            role: instance.role.clone(),
            family: instance.family.clone(),
            tool: rendered.name.clone(),
        })?;
    if !is_valid_name(&tool.name) {
        return Err(EmitError::InvalidName(tool.name.clone()));
    }
    let description = rendered.description.trim();
    let with_examples;
    let description = if family.publish.examples_in_description {
        with_examples = extras::description_with_examples(description, tool);
        with_examples.as_str()
    } else {
        description
    };
    let max = ir.limits.max_description_chars.min(MAX_DESCRIPTION_CHARS);
    let chars = description.chars().count();
    if chars > max {
        return Err(EmitError::DescriptionTooLong {
            tool: tool.name.clone(),
            chars,
            max,
        });
    }
    let texts = schema::Texts { tool, rendered };
    // MCP `_meta` names the hash of the tool in its family's own dialect (what the lock
    // pins); a family whose own dialect is MCP names the tool's MCP bytes without `_meta`.
    let family_sha256 = match dialect {
        Dialect::Mcp => {
            let own = dialect::tool(ir, family, family.dialect, &texts, description, None)?;
            Some(sha256_hex(own.to_canonical().as_bytes()))
        }
        _ => None,
    };
    let json = dialect::tool(
        ir,
        family,
        dialect,
        &texts,
        description,
        family_sha256.as_deref(),
    )?
    .to_canonical();
    Ok(EmittedTool {
        name: tool.name.clone(),
        sha256: sha256_hex(json.as_bytes()),
        json,
    })
}

/// `^[a-z][a-z0-9_]{0,63}$`: valid for every provider (OpenAI `^[a-zA-Z0-9_-]{1,64}$`,
/// Gemini, MCP SEP-986).
fn is_valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some('a'..='z'))
        && name.len() <= 64
        && chars.all(|c| matches!(c, 'a'..='z' | '0'..='9' | '_'))
}

#[cfg(test)]
mod tests;
