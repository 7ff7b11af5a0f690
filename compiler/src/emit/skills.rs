//! What a skill strategy changes in the published tool JSON: Anthropic and Responses
//! `defer_loading: true` on deferred skill tools, the Anthropic `cache_control` breakpoint on
//! the last resident tool, the Responses client `tool_search` tool that `activate_skill` is
//! published as under `skills: defer`, and MCP `_meta` naming a skill tool's skill. The
//! strategies themselves are documented in `docs/published-bytes.md`, "Skills".

use crate::ir::{Dialect, Family, RenderedTool, SkillStrategy};
use crate::load::strategy::ACTIVATE_SKILL;

use super::extras::META_PREFIX;
use super::json::Json;
use super::{EmitError, ToolKind};

/// Where a tool sits in a surface's array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Placement<'a> {
    /// A resident tool; `last` is the last one (where the Anthropic breakpoint goes).
    Resident { last: bool },
    /// A tool of the named skill.
    Skill(&'a str),
}

/// The keys the strategy adds to one tool's JSON in `dialect`, appended after the dialect's
/// own keys (the key order of `docs/published-bytes.md`).
pub(crate) fn decorate(
    json: Json,
    family: &Family,
    dialect: Dialect,
    strategy: SkillStrategy,
    placement: Placement<'_>,
) -> Json {
    match (dialect, placement) {
        (Dialect::Anthropic, Placement::Resident { last: true }) => json.with_opt(
            "cache_control",
            family.cache_control.map(|ttl| {
                Json::obj()
                    .with("type", Json::str("ephemeral"))
                    .with("ttl", Json::str(ttl.as_str()))
            }),
        ),
        _ if defers(dialect, strategy, placement) => json.with("defer_loading", Json::Bool(true)),
        (Dialect::Mcp, Placement::Skill(skill)) => with_meta_skill(json, skill),
        _ => json,
    }
}

/// Whether a tool so placed is published deferred: a skill tool under `defer`, where the
/// dialect defers (Anthropic, Responses).
pub(crate) fn defers(dialect: Dialect, strategy: SkillStrategy, placement: Placement<'_>) -> bool {
    matches!(
        (dialect, placement),
        (
            Dialect::Anthropic | Dialect::OpenaiResponses,
            Placement::Skill(_)
        )
    ) && strategy == SkillStrategy::Defer
}

/// MCP: a skill tool's `_meta` names its skill (`io.toolsurface/skill`), so a client that
/// lists every tool from the start can tell which ones wait for `activate_skill`.
fn with_meta_skill(json: Json, skill: &str) -> Json {
    let key = format!("{META_PREFIX}skill");
    match json {
        Json::Obj(mut entries) => {
            match entries.iter_mut().find(|(k, _)| k == "_meta") {
                Some((_, meta)) => {
                    let taken = std::mem::replace(meta, Json::Null);
                    *meta = taken.with(&key, Json::str(skill));
                }
                None => {
                    entries.push(("_meta".to_owned(), Json::obj().with(&key, Json::str(skill))))
                }
            }
            Json::Obj(entries)
        }
        other => other,
    }
}

/// Whether `tool` is published as the Responses client `tool_search` tool on this surface:
/// it is `activate_skill`, the dialect is openai-responses, the strategy `defer`, and some
/// offered skill has tools here (else nothing is deferred and it stays a function).
pub(crate) fn is_search_tool(
    tool: &str,
    dialect: Dialect,
    strategy: SkillStrategy,
    deferred_skills: &[&str],
) -> bool {
    tool == ACTIVATE_SKILL
        && dialect == Dialect::OpenaiResponses
        && strategy == SkillStrategy::Defer
        && !deferred_skills.is_empty()
}

/// `activate_skill` as the Responses client tool search:
/// `{"type":"tool_search","execution":"client","description":…,"parameters":…}` whose
/// parameters are activate_skill's own (`name`, with its rendered description), narrowed to
/// the enum of the skills whose tools are deferred here. The host hands a `tool_search_call`'s
/// arguments to `Call::parse` as an `activate_skill` call and answers with a
/// `tool_search_output` carrying the skill's definitions.
pub(crate) fn search_tool(
    rendered: &RenderedTool,
    description: &str,
    deferred_skills: &[&str],
) -> Result<Json, EmitError> {
    let name_doc = rendered
        .fields
        .iter()
        .find(|(path, _)| path == "name")
        .map(|(_, d)| d.trim().to_owned())
        .ok_or_else(|| EmitError::MissingDescription {
            tool: rendered.name.clone(),
            path: "name".to_owned(),
        })?;
    let skills = Json::Arr(deferred_skills.iter().map(|s| Json::str(*s)).collect());
    let parameters = Json::obj()
        .with("type", Json::str("object"))
        .with(
            "properties",
            Json::obj().with(
                "name",
                Json::obj()
                    .with("type", Json::str("string"))
                    .with("enum", skills)
                    .with("description", Json::str(name_doc)),
            ),
        )
        .with("required", Json::Arr(vec![Json::str("name")]))
        .with("additionalProperties", Json::Bool(false));
    Ok(Json::obj()
        .with("type", Json::str("tool_search"))
        .with("execution", Json::str("client"))
        .with("description", Json::str(description))
        .with("parameters", parameters))
}

/// How a request's allowed-tools list names `tool` (the JSON of one entry), where the
/// dialect has such a list: Chat `{"type":"function","function":{"name":…}}`, Responses
/// `{"type":"function"|"custom","name":…}` or `{"type":"tool_search"}`, Gemini the bare name.
pub(crate) fn allowed_entry(dialect: Dialect, name: &str, kind: ToolKind) -> Option<String> {
    let entry = match dialect {
        Dialect::OpenaiChat => Json::obj()
            .with("type", Json::str("function"))
            .with("function", Json::obj().with("name", Json::str(name))),
        Dialect::OpenaiResponses => match kind {
            ToolKind::ToolSearch => Json::obj().with("type", Json::str("tool_search")),
            ToolKind::Custom => Json::obj()
                .with("type", Json::str("custom"))
                .with("name", Json::str(name)),
            ToolKind::Function => Json::obj()
                .with("type", Json::str("function"))
                .with("name", Json::str(name)),
        },
        Dialect::Gemini => Json::str(name),
        Dialect::Anthropic | Dialect::Mcp => return None,
    };
    Some(entry.to_canonical())
}
