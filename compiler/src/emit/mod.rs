//! Published schemas per dialect: the byte-exact tool arrays a host sends to a model provider
//! (or an MCP client) for one role × family. An API boundary: the bytes are canonical (see
//! `docs/published-bytes.md`), hashed, locked and diffed; hosts embed them as `&'static str`.
//!
//! Entry points: [`surface`] for one role × family (any dialect, e.g. `mcp` for the MCP
//! server), [`surfaces`] for every role × family in its own dialect.

pub(crate) mod extras;
pub(crate) mod json;
pub mod request;
pub(crate) mod schema;
pub(crate) mod skills;

use sha2::{Digest, Sha256};

use crate::dialect::{self, DialectRules, ToolContext};
use crate::ir::{Dialect, Family, Ir, RenderedTool, SkillStrategy, SurfaceInstance};

pub use crate::dialect::{Annotations, annotations, title as derived_title};
pub use extras::META_PREFIX;
pub(crate) use extras::def_ref;
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

/// The tool's output schema wherever it is published (any root; MCP takes object roots only).
pub fn published_output_schema(tool: &crate::ir::Tool) -> Option<String> {
    extras::output_schema(tool).map(|j| j.to_canonical())
}

/// The tool's output schema as it would be published without `shapes:` (each use inlined),
/// to show what the shapes save.
pub fn inlined_output_schema(tool: &crate::ir::Tool) -> Option<String> {
    extras::inlined_output_schema(tool).map(|j| j.to_canonical())
}

/// One role × family array, in one dialect, as published.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Emitted {
    pub role: String,
    pub family: String,
    pub dialect: Dialect,
    /// The canonical JSON array sent as `tools` with every request: `[` + each tool's `json`,
    /// joined by `,` + `]`. The resident tools, then — under `defer` and `allow_list` — every
    /// tool of the skills the role offers (each once), so activation never changes it. Under
    /// `append` only the resident tools; activation appends ([`Emitted::with_skills`]).
    pub bytes: String,
    /// Lowercase hex sha256 of `bytes`.
    pub sha256: String,
    /// The resident tools in published order.
    pub tools: Vec<EmittedTool>,
    /// The role's skills, each with its tools as they appear in `bytes` (`defer`,
    /// `allow_list`: `defer_loading: true` where the dialect defers) or as activation
    /// appends them (`append`).
    pub skills: Vec<EmittedSkill>,
    /// How the skills are published and activated: the family's `skills:` when `dialect` is
    /// the family's own, else the default of `dialect` ([`crate::ir::Family::strategy_in`]).
    pub skill_strategy: SkillStrategy,
}

/// One tool's canonical JSON (a substring of [`Emitted::bytes`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmittedTool {
    pub name: String,
    pub json: String,
    /// Lowercase hex sha256 of `json`.
    pub sha256: String,
    /// Every action is `read_only` (the tool is allowed in rehearsal turns).
    pub read_only: bool,
    /// The tool's entry in the dialect's allowed-tools list (canonical JSON), where the
    /// dialect has one (Chat, Responses, Gemini); see [`request`].
    pub allowed_entry: Option<String>,
    /// What kind of provider tool `json` is.
    pub kind: ToolKind,
    /// Published with `defer_loading: true` (a skill tool under `defer`).
    pub deferred: bool,
    /// Carries the prompt-cache breakpoint (Anthropic `cache_control`).
    pub breakpoint: bool,
    /// The published description (what `introspect tools` lists).
    pub description: String,
}

/// The kind of a published tool: a typed fact of the emitter, so nothing downstream reads
/// its own output back to learn it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolKind {
    /// A function tool (every dialect).
    Function,
    /// A Responses `custom` grammar tool (a freeform tool on its family).
    Custom,
    /// The Responses client `tool_search` tool (`activate_skill` on a deferring surface).
    ToolSearch,
    /// A provider-hosted tool (`hosted:`), its entry published verbatim.
    Hosted,
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

    /// The array after activating `skills` (in the order given). Under `defer` and
    /// `allow_list` it is [`Emitted::bytes`], unchanged. Under `append`: the resident tools,
    /// byte for byte the same prefix as [`Emitted::bytes`] minus its closing `]`, then each
    /// skill's tools (a tool an earlier skill already added, once).
    pub fn with_skills(&self, skills: &[&str]) -> Result<String, EmitError> {
        let mut tools: Vec<&EmittedTool> = self.tools.iter().collect();
        for name in skills {
            for t in &self.known_skill(name)?.tools {
                // A tool two active skills share is published once.
                if !tools.iter().any(|x| x.name == t.name) {
                    tools.push(t);
                }
            }
        }
        if self.skill_strategy != SkillStrategy::Append {
            return Ok(self.bytes.clone());
        }
        Ok(array(tools.into_iter()))
    }

    /// The skill `name`, or [`EmitError::UnknownSkill`].
    pub fn known_skill(&self, name: &str) -> Result<&EmittedSkill, EmitError> {
        self.skill(name).ok_or_else(|| EmitError::UnknownSkill {
            role: self.role.clone(),
            skill: name.to_owned(),
        })
    }

    /// The resident tools alone as one array (`[` + their `json` joined by `,` + `]`): what
    /// `tools` holds under `append` before any activation, and the part every strategy keeps.
    pub fn resident_bytes(&self) -> String {
        array(self.tools.iter())
    }

    /// Every tool published from the first request: the resident ones, then under `defer`
    /// and `allow_list` each offered skill's tools (a tool two skills share, once).
    pub fn published_tools(&self) -> Vec<&EmittedTool> {
        let mut tools: Vec<&EmittedTool> = self.tools.iter().collect();
        if self.skill_strategy != SkillStrategy::Append {
            for t in self.skills.iter().flat_map(|s| &s.tools) {
                if !tools.iter().any(|x| x.name == t.name) {
                    tools.push(t);
                }
            }
        }
        tools
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
    #[error("tool name `{0}` is not publishable (expected ^[a-zA-Z0-9_-]{{1,64}}$)")]
    InvalidName(String),
    #[error("tool `{tool}`: an action uses field `{field}`, which is not declared")]
    UndeclaredField { tool: String, field: String },
    #[error("tool `{tool}`: no rendered description for `{path}`")]
    MissingDescription { tool: String, path: String },
    #[error("tool `{tool}`: field `{path}` has a non-finite bound")]
    NonFiniteNumber { tool: String, path: String },
    #[error(
        "surface {role} × {family} defers tools but has no tool_search tool (OpenAI refuses it)"
    )]
    DeferredWithoutSearch { role: String, family: String },
    #[error("surface {role} × {family} defers its tool_search tool")]
    SearchToolDeferred { role: String, family: String },
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
    let dialect = dialect.unwrap_or(fam.dialect);
    let target = Target {
        dialect,
        rules: dialect::rules(dialect),
        strategy: fam.strategy_in(dialect),
    };
    surface_in(ir, role, family, target)
}

/// What a surface is emitted in: the rules of a dialect, the tag [`Emitted::dialect`] carries
/// and the skill strategy. [`surface`] takes all three from a [`Dialect`]; a dialect the enum
/// does not name (the test dialect of `dialect/tests.rs`) passes its own rules.
pub(crate) struct Target<'a> {
    pub(crate) dialect: Dialect,
    pub(crate) rules: &'a dyn DialectRules,
    pub(crate) strategy: SkillStrategy,
}

/// [`surface`] in `target`.
pub(crate) fn surface_in(
    ir: &Ir,
    role: &str,
    family: &str,
    target: Target<'_>,
) -> Result<Emitted, EmitError> {
    let fam = ir
        .family(family)
        .ok_or_else(|| EmitError::UnknownFamily(family.to_owned()))?;
    let instance = ir
        .surface(role, family)
        .ok_or_else(|| EmitError::NoSurface {
            role: role.to_owned(),
            family: family.to_owned(),
        })?;
    emit_instance(ir, fam, instance, target)
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
    Target {
        dialect,
        rules,
        strategy,
    }: Target<'_>,
) -> Result<Emitted, EmitError> {
    let max_tools = ir.limits.max_tools;
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
    let surface = SurfaceContext {
        ir,
        family,
        instance,
        rules,
        strategy,
        deferred_skills: instance
            .skills
            .iter()
            .filter(|s| !s.tools.is_empty())
            .map(|s| s.skill.as_str())
            .collect(),
    };
    // A provider-hosted tool exists only in its own families' dialect.
    let here = |t: &&RenderedTool| {
        ir.tool(&t.name)
            .is_none_or(|tool| tool.hosted.is_none() || dialect == family.dialect)
    };
    let last = instance.tools.iter().filter(here).count().saturating_sub(1);
    let tools = instance
        .tools
        .iter()
        .filter(here)
        .enumerate()
        .map(|(i, t)| {
            let placement = skills::Placement::Resident { last: i == last };
            emit_tool(&surface, t, placement)
        })
        .collect::<Result<Vec<_>, EmitError>>()?;
    let skills = instance
        .skills
        .iter()
        .map(|s| {
            let tools = s
                .tools
                .iter()
                .filter(here)
                .map(|t| emit_tool(&surface, t, skills::Placement::Skill(&s.skill)))
                .collect::<Result<Vec<_>, EmitError>>()?;
            Ok(EmittedSkill {
                name: s.skill.clone(),
                tools,
            })
        })
        .collect::<Result<Vec<_>, EmitError>>()?;
    let mut emitted = Emitted {
        role: instance.role.clone(),
        family: instance.family.clone(),
        dialect,
        sha256: String::new(),
        bytes: String::new(),
        tools,
        skills,
        skill_strategy: strategy,
    };
    emitted.bytes = array(emitted.published_tools().into_iter());
    emitted.sha256 = sha256_hex(emitted.bytes.as_bytes());
    request::check_invariants(&emitted, rules)?;
    Ok(emitted)
}

/// What every tool of one role × family surface is emitted against.
struct SurfaceContext<'a> {
    ir: &'a Ir,
    family: &'a Family,
    instance: &'a SurfaceInstance,
    /// The dialect the tools are emitted in.
    rules: &'a dyn DialectRules,
    /// The skill strategy in that dialect.
    strategy: SkillStrategy,
    /// Skills the role offers with at least one tool here (the `tool_search` enum).
    deferred_skills: Vec<&'a str>,
}

fn emit_tool(
    surface: &SurfaceContext<'_>,
    rendered: &RenderedTool,
    placement: skills::Placement<'_>,
) -> Result<EmittedTool, EmitError> {
    let SurfaceContext {
        ir,
        family,
        instance,
        rules,
        strategy,
        ..
    } = *surface;
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
    let description = rendered.description.as_str();
    let with_examples;
    let description = if family.publish.examples_in_description {
        with_examples = extras::description_with_examples(description, tool);
        with_examples.as_str()
    } else {
        description
    };
    let max = ir.limits.max_description_chars;
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
    let family_sha256 = if rules.names_family_hash() {
        let own = placed_tool(
            surface,
            (dialect::rules(family.dialect), family.skills),
            &texts,
            description,
            placement,
            None,
        )?;
        Some(sha256_hex(own.0.to_canonical().as_bytes()))
    } else {
        None
    };
    let (json, kind) = placed_tool(
        surface,
        (rules, strategy),
        &texts,
        description,
        placement,
        family_sha256.as_deref(),
    )?;
    let json = json.to_canonical();
    let deferred = dialect::defers(rules, strategy, placement);
    Ok(EmittedTool {
        name: tool.name.clone(),
        sha256: sha256_hex(json.as_bytes()),
        json,
        read_only: annotations(tool).read_only,
        allowed_entry: rules
            .allowed_entry(&tool.name, kind)
            .map(|e| e.to_canonical()),
        kind,
        deferred,
        breakpoint: !deferred && rules.breakpoint(family, placement),
        description: description.to_owned(),
    })
}

/// One tool in `rules`' dialect (under `strategy`) as it sits in the surface: the dialect's
/// shape (or, for `activate_skill` on a deferring surface of a dialect with a client tool
/// search, that `tool_search` tool), plus what the skill strategy adds; and which kind of
/// tool that is.
fn placed_tool(
    surface: &SurfaceContext<'_>,
    (rules, strategy): (&dyn DialectRules, SkillStrategy),
    texts: &schema::Texts<'_>,
    description: &str,
    placement: skills::Placement<'_>,
    family_sha256: Option<&str>,
) -> Result<(json::Json, ToolKind), EmitError> {
    let family = surface.family;
    if let Some(entry) = &texts.tool.hosted {
        return Ok((extras::value_json(entry), ToolKind::Hosted));
    }
    let resident = matches!(placement, skills::Placement::Resident { .. });
    let search = resident
        && skills::is_search_tool(&texts.tool.name, rules, strategy, &surface.deferred_skills);
    let (json, kind) = match search
        .then(|| rules.search_tool(texts.rendered, description, &surface.deferred_skills))
        .flatten()
    {
        Some(json) => (json?, ToolKind::ToolSearch),
        None => rules.tool(&ToolContext {
            ir: surface.ir,
            family,
            texts,
            description,
            family_sha256,
        })?,
    };
    let json = skills::decorate(json, family, rules, strategy, placement);
    Ok((json, kind))
}

/// The language's tool-name rule: valid for every provider.
fn is_valid_name(name: &str) -> bool {
    crate::load::read::is_tool_name(name)
}

#[cfg(test)]
mod tests;
