//! OpenAI Responses: flat function tools, `custom` grammar tools for freeform tools,
//! `output_schema`, deferred skill tools behind the client `tool_search` tool that
//! `activate_skill` becomes, and the flat `tool_choice` allowed-tools restriction.

use serde_json::Value;

use super::{DialectRules, PLAIN_REQUEST, RequestShape, RestrictionShape, ToolContext};
use crate::emit::json::Json;
use crate::emit::schema::{self, Style};
use crate::emit::{EmitError, ToolKind, extras};
use crate::import::Note;
use crate::ir::{Family, Freeform, Ir, Limits, RenderedTool, SkillStrategy, Tool};

pub(super) struct OpenaiResponses;

impl DialectRules for OpenaiResponses {
    /// A `custom` grammar tool when the tool is freeform here, else a function tool (with
    /// `output_schema` when the family publishes it).
    fn tool(&self, cx: &ToolContext<'_>) -> Result<(Json, ToolKind), EmitError> {
        let t = cx.texts.tool;
        let name = Json::str(t.name.clone());
        let desc = Json::str(cx.description);
        Ok(match freeform_here(cx.ir, cx.family, t) {
            Some(ff) => (
                Json::obj()
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
                ToolKind::Custom,
            ),
            None => (
                Json::obj()
                    .with("type", Json::str("function"))
                    .with("name", name)
                    .with("description", desc)
                    .with(
                        "parameters",
                        schema::parameters(cx.texts, self.schema_style(cx.family))?,
                    )
                    .with("strict", Json::Bool(false))
                    .with_opt(
                        "output_schema",
                        cx.family
                            .publish
                            .output_schema
                            .then(|| extras::output_schema(t))
                            .flatten(),
                    ),
                ToolKind::Function,
            ),
        })
    }

    fn schema_style(&self, _family: &Family) -> Style {
        Style::JsonSchema
    }

    fn has_tool_search(&self) -> bool {
        true
    }

    /// `activate_skill` as the client tool search:
    /// `{"type":"tool_search","execution":"client","description":…,"parameters":…}` whose
    /// parameters are activate_skill's own (`name`, with its rendered description), narrowed
    /// to the enum of the skills whose tools are deferred here. The host hands a
    /// `tool_search_call`'s arguments to `Call::parse` as an `activate_skill` call and answers
    /// with a `tool_search_output` carrying the skill's definitions.
    fn search_tool(
        &self,
        rendered: &RenderedTool,
        description: &str,
        deferred_skills: &[&str],
    ) -> Option<Result<Json, EmitError>> {
        Some(search_tool(rendered, description, deferred_skills))
    }

    fn allowed_entry(&self, name: &str, kind: ToolKind) -> Option<Json> {
        Some(match kind {
            ToolKind::ToolSearch => Json::obj().with("type", Json::str("tool_search")),
            ToolKind::Custom => Json::obj()
                .with("type", Json::str("custom"))
                .with("name", Json::str(name)),
            ToolKind::Function => Json::obj()
                .with("type", Json::str("function"))
                .with("name", Json::str(name)),
            // A hosted tool is allowed by its type (`{"type":"local_shell"}`), its name here.
            ToolKind::Hosted => Json::obj().with("type", Json::str(name)),
        })
    }

    fn request_shape(&self) -> RequestShape {
        RequestShape {
            restriction: Some(RestrictionShape {
                open: r#","tool_choice":{"type":"allowed_tools","mode":"auto","tools":["#,
                close: "]}",
                none: r#","tool_choice":"none""#,
            }),
            tail: r#","parallel_tool_calls":true}"#,
            ..PLAIN_REQUEST
        }
    }

    fn default_skills(&self) -> SkillStrategy {
        SkillStrategy::Defer
    }

    fn supported_skills(&self) -> &'static [SkillStrategy] {
        &SkillStrategy::ALL
    }

    fn deferred_delivery(&self) -> Option<&'static str> {
        Some("ToolSearchOutput")
    }

    fn publish_keys(&self) -> &'static [&'static str] {
        &["output_schema"]
    }

    fn provider_limits(&self) -> Option<Limits> {
        Some(Limits::PROVIDER)
    }

    fn family_name(&self) -> &'static str {
        "responses"
    }

    fn recognises(&self, first: &Value) -> bool {
        matches!(
            first.get("type").and_then(Value::as_str),
            Some("function" | "custom")
        )
    }

    fn recognised_by(&self) -> &'static str {
        "`type: function` or `custom` (OpenAI Responses)"
    }

    fn schema_key(&self, _: &str, _: &Value, _: &str, _: &mut Vec<Note>) -> &'static str {
        "parameters"
    }

    fn tool_keys(&self) -> &'static [&'static str] {
        &[
            "type",
            "name",
            "description",
            "parameters",
            "strict",
            "format",
        ]
    }

    fn extras_keys(&self) -> &'static [&'static str] {
        &["output_schema"]
    }

    fn output_key(&self) -> Option<&'static str> {
        Some("output_schema")
    }

    fn not_importable(&self, t: &Value) -> Option<(String, String)> {
        (t.get("type").and_then(Value::as_str) == Some("tool_search")).then(|| {
            (
                "the `tool_search` tool has no equivalent in the definition language: dropped \
                 (declare `activate_skill` and the skills by hand; a `skills: defer` family \
                 publishes it as its tool_search)"
                    .into(),
                "the `tool_search` tool is not published".into(),
            )
        })
    }

    /// A provider-hosted tool of any other `type` (`local_shell`, `web_search`, …).
    fn hosts_tool(&self, _ty: &str) -> bool {
        true
    }

    fn is_freeform(&self, t: &Value) -> bool {
        t.get("type").and_then(Value::as_str) == Some("custom")
    }

    fn defined_types(&self) -> &'static [&'static str] {
        &["function", "custom", "tool_search"]
    }

    fn definition_keys(&self) -> &'static [&'static str] {
        &["parameters"]
    }

    fn equivalences(&self) -> &'static [&'static str] {
        &[super::OPENAI_STRICT_DEFAULT]
    }

    fn same_as_absent(&self, _input: &Value, _parent: &str, key: &str, value: &Value) -> bool {
        super::openai_strict_default(key, value)
    }
}

/// The freeform declaration, when `tool` is published as a grammar tool in `family`
/// (declared for the family itself or for the family it is `like`).
fn freeform_here<'t>(ir: &Ir, family: &Family, tool: &'t Tool) -> Option<&'t Freeform> {
    let ff = tool.freeform.as_ref()?;
    let declared = |f: &str| ff.families.iter().any(|x| x == f);
    let like_declared = family
        .like
        .as_deref()
        .and_then(|l| ir.family(l))
        .is_some_and(|l| declared(&l.name));
    (declared(&family.name) || like_declared).then_some(ff)
}

fn search_tool(
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
