//! Per-dialect tool wrappers around the flat schema: the OpenAI Chat / Responses function
//! shapes (and the Responses `custom` grammar tool), Anthropic, Gemini, and MCP with its
//! trait-derived annotations.

use crate::ir::{Dialect, Family, Ir, Route, Tool, TraitValue};

use super::json::Json;
use super::schema::{self, Style, Texts};
use super::{EmitError, ToolKind, extras};

/// One tool in `dialect`, key order as documented in `docs/published-bytes.md`.
pub(crate) fn tool(
    ir: &Ir,
    family: &Family,
    dialect: Dialect,
    texts: &Texts<'_>,
    description: &str,
    family_sha256: Option<&str>,
) -> Result<(Json, ToolKind), EmitError> {
    let json = tool_json(ir, family, dialect, texts, description, family_sha256)?;
    let custom =
        dialect == Dialect::OpenaiResponses && freeform_here(ir, family, texts.tool).is_some();
    Ok((
        json,
        if custom {
            ToolKind::Custom
        } else {
            ToolKind::Function
        },
    ))
}

fn tool_json(
    ir: &Ir,
    family: &Family,
    dialect: Dialect,
    texts: &Texts<'_>,
    description: &str,
    family_sha256: Option<&str>,
) -> Result<Json, EmitError> {
    let t = texts.tool;
    let name = Json::str(t.name.clone());
    let desc = Json::str(description);
    Ok(match dialect {
        Dialect::OpenaiChat => {
            let strict = family.strict;
            let style = if strict {
                Style::Strict
            } else {
                Style::JsonSchema
            };
            Json::obj().with("type", Json::str("function")).with(
                "function",
                Json::obj()
                    .with("name", name)
                    .with("description", desc)
                    .with("parameters", schema::parameters(texts, style)?)
                    .with("strict", Json::Bool(strict)),
            )
        }
        Dialect::OpenaiResponses => openai_responses_tool(ir, family, texts, name, desc)?,
        Dialect::Anthropic => Json::obj()
            .with("name", name)
            .with("description", desc)
            .with(
                "input_schema",
                schema::parameters(texts, Style::JsonSchema)?,
            )
            .with_opt(
                "input_examples",
                family
                    .publish
                    .input_examples
                    .then(|| extras::examples(t))
                    .flatten(),
            ),
        Dialect::Gemini => gemini_tool(family, texts, name, desc)?,
        Dialect::Mcp => mcp_tool(family, texts, family_sha256, name, desc)?,
    })
}

/// Responses: a `custom` grammar tool when the tool is freeform here, else a function tool
/// (with `output_schema` when the family publishes it).
fn openai_responses_tool(
    ir: &Ir,
    family: &Family,
    texts: &Texts<'_>,
    name: Json,
    desc: Json,
) -> Result<Json, EmitError> {
    let t = texts.tool;
    Ok(match freeform_here(ir, family, t) {
        Some(ff) => Json::obj()
            .with("type", Json::str("custom"))
            .with("name", name)
            .with("description", desc)
            .with(
                "format",
                Json::obj()
                    .with("type", Json::str("grammar"))
                    .with("syntax", Json::str(ff.syntax.clone()))
                    .with("definition", Json::str(ff.grammar.clone())),
            ),
        None => Json::obj()
            .with("type", Json::str("function"))
            .with("name", name)
            .with("description", desc)
            .with("parameters", schema::parameters(texts, Style::JsonSchema)?)
            .with("strict", Json::Bool(false))
            .with_opt(
                "output_schema",
                family
                    .publish
                    .output_schema
                    .then(|| extras::output_schema(t))
                    .flatten(),
            ),
    })
}

/// Gemini: `parameters` only when the tool has some (or, under `parameters_json_schema`,
/// `parametersJsonSchema` in plain JSON Schema, always), `responseJsonSchema` when the family
/// publishes output schemas.
fn gemini_tool(
    family: &Family,
    texts: &Texts<'_>,
    name: Json,
    desc: Json,
) -> Result<Json, EmitError> {
    let t = texts.tool;
    let json_schema = family
        .publish
        .parameters_json_schema
        .then(|| schema::parameters(texts, Style::JsonSchema))
        .transpose()?;
    // Gemini refuses an OBJECT with no properties: a tool without parameters leaves
    // `parameters` unset, as the API documents.
    let params = (json_schema.is_none()
        && (t.selector.is_some() || !schema::published_fields(t).is_empty()))
    .then(|| schema::parameters(texts, Style::Gemini))
    .transpose()?;
    Ok(Json::obj()
        .with("name", name)
        .with("description", desc)
        .with_opt("parameters", params)
        .with_opt("parametersJsonSchema", json_schema)
        .with_opt(
            "responseJsonSchema",
            family
                .publish
                .output_schema
                .then(|| extras::output_schema(t))
                .flatten(),
        ))
}

/// MCP: title, icons, output schema, trait-derived annotations and (when given) the
/// family's hash in `_meta`.
fn mcp_tool(
    family: &Family,
    texts: &Texts<'_>,
    family_sha256: Option<&str>,
    name: Json,
    desc: Json,
) -> Result<Json, EmitError> {
    let t = texts.tool;
    let title = t.title.clone().unwrap_or_else(|| title(&t.name));
    Ok(Json::obj()
        .with("name", name)
        .with("title", Json::str(title.clone()))
        .with("description", desc)
        .with_opt("icons", t.icon.as_ref().map(extras::icons))
        .with("inputSchema", schema::parameters(texts, mcp_style(family))?)
        .with_opt("outputSchema", extras::mcp_output_schema(t))
        .with("annotations", annotations(t).to_json(&title))
        .with_opt("_meta", family_sha256.map(|sha| extras::mcp_meta(t, sha))))
}

/// The `inputSchema` style of family F's MCP rendering, shaped for the client that family's
/// models sit behind: a strict family publishes its strict-safe schema (every property
/// required, optional ones nullable; `null` counts as absent), a fixed point of the strict
/// converters MCP clients apply (openai-agents' `convert_schemas_to_strict`, LangChain's
/// `convert_to_openai_tool(strict=True)`), which otherwise require every field without
/// making it nullable; a gemini-dialect family leaves `additionalProperties` out
/// (google-genai's MCP conversion refuses it); every other family the plain JSON Schema.
fn mcp_style(family: &Family) -> Style {
    if family.strict {
        Style::Strict
    } else if family.dialect == Dialect::Gemini {
        Style::Open
    } else {
        Style::JsonSchema
    }
}

/// The freeform declaration, when `tool` is published as a grammar tool in `family`
/// (declared for the family itself or for the family it is `like`).
fn freeform_here<'t>(ir: &Ir, family: &Family, tool: &'t Tool) -> Option<&'t crate::ir::Freeform> {
    let ff = tool.freeform.as_ref()?;
    let declared = |f: &str| ff.families.iter().any(|x| x == f);
    let like_declared = family
        .like
        .as_deref()
        .and_then(|l| ir.family(l))
        .is_some_and(|l| declared(&l.name));
    (declared(&family.name) || like_declared).then_some(ff)
}

/// `shell_session` -> `Shell session`: the MCP display title.
pub fn title(name: &str) -> String {
    let spaced = name.replace('_', " ");
    let mut chars = spaced.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// MCP tool annotations, derived from traits (see `docs/published-bytes.md`, "MCP
/// annotations"). All four hints are always written, so no client default applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Annotations {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
}

impl Annotations {
    fn to_json(self, title: &str) -> Json {
        Json::obj()
            .with("title", Json::str(title))
            .with("readOnlyHint", Json::Bool(self.read_only))
            .with("destructiveHint", Json::Bool(self.destructive))
            .with("idempotentHint", Json::Bool(self.idempotent))
            .with("openWorldHint", Json::Bool(self.open_world))
    }
}

/// The trait names the annotations read. `read_only` is standard; `destructive`,
/// `idempotent` and `open_world` are optional vocabulary a definitions folder may declare.
pub const READ_ONLY: &str = "read_only";
pub const DESTRUCTIVE: &str = "destructive";
pub const IDEMPOTENT: &str = "idempotent";
pub const OPEN_WORLD: &str = "open_world";

/// - readOnlyHint: every action is `read_only`.
/// - destructiveHint: false when read-only; else, if the vocabulary declares `destructive`,
///   whether any action is; else true (MCP's own conservative default).
/// - idempotentHint: if the vocabulary declares `idempotent`, whether every action is; else
///   the same as readOnlyHint (a read repeated changes nothing).
/// - openWorldHint: if the vocabulary declares `open_world`, whether any action is; else
///   whether the tool runs on a host (route `thread_host` / `session_host`: a machine with
///   its processes, files and network) rather than in the runtime itself (route `local`:
///   introspection, skills, the message and facts stores — a closed domain).
pub fn annotations(tool: &Tool) -> Annotations {
    let all =
        |name: &str| !tool.actions.is_empty() && tool.actions.iter().all(|a| a.bool_trait(name));
    let any = |name: &str| tool.actions.iter().any(|a| a.bool_trait(name));
    let declared = |name: &str| {
        tool.actions
            .iter()
            .any(|a| matches!(a.traits.get(name), Some(TraitValue::Bool(_))))
    };
    let read_only = all(READ_ONLY);
    let destructive = if read_only {
        false
    } else if declared(DESTRUCTIVE) {
        any(DESTRUCTIVE)
    } else {
        true
    };
    let idempotent = if declared(IDEMPOTENT) {
        all(IDEMPOTENT)
    } else {
        read_only
    };
    let open_world = if declared(OPEN_WORLD) {
        any(OPEN_WORLD)
    } else {
        tool.route != Route::Local
    };
    Annotations {
        read_only,
        destructive,
        idempotent,
        open_world,
    }
}
