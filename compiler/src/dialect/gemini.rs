//! Google Gemini: `functionDeclarations` in the OpenAPI 3.0 schema subset (or plain JSON
//! Schema under `parametersJsonSchema`), `responseJsonSchema`, and the `toolConfig`
//! `allowedFunctionNames` restriction.

use serde_json::Value;

use super::{DialectRules, RequestShape, RestrictionShape, ToolContext};
use crate::emit::json::Json;
use crate::emit::schema::{self, Style};
use crate::emit::{EmitError, ToolKind, extras};
use crate::import::Note;
use crate::ir::{Family, SkillStrategy};

pub(super) struct Gemini;

/// Gemini's plain-JSON-Schema parameters key (the family's `parameters_json_schema: true`).
const JSON_SCHEMA_KEY: &str = "parametersJsonSchema";

impl DialectRules for Gemini {
    /// `parameters` only when the tool has some (or, under `parameters_json_schema`,
    /// `parametersJsonSchema` in plain JSON Schema, always), `responseJsonSchema` when the
    /// family publishes output schemas.
    fn tool(&self, cx: &ToolContext<'_>) -> Result<(Json, ToolKind), EmitError> {
        let t = cx.texts.tool;
        let style = self.schema_style(cx.family);
        let (params, json_schema) = if cx.family.publish.parameters_json_schema {
            (None, Some(schema::parameters(cx.texts, style)?))
        } else {
            // Gemini refuses an OBJECT with no properties: a tool without parameters leaves
            // `parameters` unset, as the API documents.
            let some = t.selector.is_some() || !schema::published_fields(t).is_empty();
            let params = some
                .then(|| schema::parameters(cx.texts, style))
                .transpose()?;
            (params, None)
        };
        let json = Json::obj()
            .with("name", Json::str(t.name.clone()))
            .with("description", Json::str(cx.description))
            .with_opt("parameters", params)
            .with_opt(JSON_SCHEMA_KEY, json_schema)
            .with_opt(
                "responseJsonSchema",
                cx.family
                    .publish
                    .output_schema
                    .then(|| extras::output_schema(t))
                    .flatten(),
            );
        Ok((json, ToolKind::Function))
    }

    fn schema_style(&self, family: &Family) -> Style {
        if family.publish.parameters_json_schema {
            Style::JsonSchema
        } else {
            Style::Gemini
        }
    }

    /// google-genai's MCP-to-Tool conversion refuses `additionalProperties`: a gemini family's
    /// MCP rendering leaves it out ([`Style::Open`]).
    fn style_behind_mcp(&self, family: &Family) -> Style {
        if family.strict {
            Style::Strict
        } else {
            Style::Open
        }
    }

    fn allowed_entry(&self, name: &str, _kind: ToolKind) -> Option<Json> {
        Some(Json::str(name))
    }

    fn request_shape(&self) -> RequestShape {
        RequestShape {
            open: r#"{"tools":[{"functionDeclarations":"#,
            close_tools: "}]",
            // VALIDATED: text or a call, calls limited to the names (ANY would force a call).
            restriction: Some(RestrictionShape {
                open: r#","toolConfig":{"functionCallingConfig":{"mode":"VALIDATED","allowedFunctionNames":["#,
                close: "]}}",
                none: r#","toolConfig":{"functionCallingConfig":{"mode":"NONE"}}"#,
            }),
            tail: "}",
        }
    }

    fn default_skills(&self) -> SkillStrategy {
        SkillStrategy::AllowList
    }

    fn supported_skills(&self) -> &'static [SkillStrategy] {
        &[SkillStrategy::AllowList, SkillStrategy::Append]
    }

    fn why_unsupported(&self, strategy: SkillStrategy) -> &'static str {
        match strategy {
            SkillStrategy::Defer => "Gemini has no deferred loading or tool search",
            SkillStrategy::AllowList | SkillStrategy::Append => "not supported",
        }
    }

    fn publish_keys(&self) -> &'static [&'static str] {
        &["output_schema", "parameters_json_schema"]
    }

    fn family_name(&self) -> &'static str {
        "gemini"
    }

    fn recognises(&self, first: &Value) -> bool {
        first.get("parameters").is_some() || first.get("name").is_some()
    }

    fn recognised_by(&self) -> &'static str {
        "`parameters` or a bare `name` (Gemini)"
    }

    fn declarations_key(&self) -> Option<&'static str> {
        Some("functionDeclarations")
    }

    fn absent_additional_is_open(&self, schema_key: &str) -> bool {
        schema_key != "parameters"
    }

    fn schema_key(
        &self,
        tool: &str,
        body: &Value,
        body_ptr: &str,
        notes: &mut Vec<Note>,
    ) -> &'static str {
        if !self.uses_json_schema_key(body) {
            return "parameters";
        }
        if body.get("parameters").is_some() {
            notes.push(Note {
                tool: tool.to_owned(),
                pointer: format!("{body_ptr}/parameters"),
                message: "both `parameters` and `parametersJsonSchema`: the JSON Schema is \
                          imported, `parameters` dropped"
                    .into(),
            });
        }
        JSON_SCHEMA_KEY
    }

    fn tool_keys(&self) -> &'static [&'static str] {
        &["name", "description", "parameters", JSON_SCHEMA_KEY]
    }

    fn extras_keys(&self) -> &'static [&'static str] {
        &["responseJsonSchema"]
    }

    fn output_key(&self) -> Option<&'static str> {
        Some("responseJsonSchema")
    }

    fn uses_json_schema_key(&self, t: &Value) -> bool {
        t.get(JSON_SCHEMA_KEY).is_some()
    }

    fn definition_keys(&self) -> &'static [&'static str] {
        &["parameters"]
    }

    fn equivalences(&self) -> &'static [&'static str] {
        &["the letter case of a Gemini `type` name (`object` / `OBJECT`: one enum value)"]
    }

    fn same_value(&self, key: &str, a: &Value, b: &Value) -> bool {
        key == "type"
            && matches!((a, b), (Value::String(x), Value::String(y)) if x.eq_ignore_ascii_case(y))
    }
}
