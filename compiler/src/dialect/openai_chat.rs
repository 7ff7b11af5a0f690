//! OpenAI Chat Completions: function tools nested in `function`, the strict variant, the
//! `tool_choice` allowed-tools restriction and `parallel_tool_calls`.

use serde_json::Value;

use super::{DialectRules, PLAIN_REQUEST, RequestShape, RestrictionShape, ToolContext};
use crate::emit::json::Json;
use crate::emit::schema::{self, Style};
use crate::emit::{EmitError, ToolKind};
use crate::import::{ImportError, Note};
use crate::ir::{Family, Limits, SkillStrategy};

pub(super) struct OpenaiChat;

impl DialectRules for OpenaiChat {
    fn tool(&self, cx: &ToolContext<'_>) -> Result<(Json, ToolKind), EmitError> {
        let json = Json::obj().with("type", Json::str("function")).with(
            "function",
            Json::obj()
                .with("name", Json::str(cx.texts.tool.name.clone()))
                .with("description", Json::str(cx.description))
                .with(
                    "parameters",
                    schema::parameters(cx.texts, self.schema_style(cx.family))?,
                )
                .with("strict", Json::Bool(cx.family.strict)),
        );
        Ok((json, ToolKind::Function))
    }

    fn schema_style(&self, family: &Family) -> Style {
        if family.strict {
            Style::Strict
        } else {
            Style::JsonSchema
        }
    }

    fn allowed_entry(&self, name: &str, _kind: ToolKind) -> Option<Json> {
        Some(
            Json::obj()
                .with("type", Json::str("function"))
                .with("function", Json::obj().with("name", Json::str(name))),
        )
    }

    fn request_shape(&self) -> RequestShape {
        RequestShape {
            restriction: Some(RestrictionShape {
                open: r#","tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":["#,
                close: "]}}",
                none: r#","tool_choice":"none""#,
            }),
            tail: r#","parallel_tool_calls":true}"#,
            ..PLAIN_REQUEST
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
            SkillStrategy::Defer => {
                "Chat Completions has no deferred loading (defer_loading is a Responses key)"
            }
            SkillStrategy::AllowList | SkillStrategy::Append => "not supported",
        }
    }

    fn has_strict(&self) -> bool {
        true
    }

    fn provider_limits(&self) -> Option<Limits> {
        Some(Limits::PROVIDER)
    }

    fn family_name(&self) -> &'static str {
        "chat"
    }

    fn recognises(&self, first: &Value) -> bool {
        first.get("function").is_some()
    }

    fn recognised_by(&self) -> &'static str {
        "a `function` object (OpenAI Chat Completions)"
    }

    fn tool_body<'t>(&self, ptr: &str, t: &'t Value) -> Result<(&'t Value, String), ImportError> {
        let body = t.get("function").ok_or_else(|| ImportError::Tool {
            pointer: ptr.to_owned(),
            message: "no `function` object".into(),
        })?;
        Ok((body, format!("{ptr}/function")))
    }

    fn schema_key(&self, _: &str, _: &Value, _: &str, _: &mut Vec<Note>) -> &'static str {
        "parameters"
    }

    fn tool_keys(&self) -> &'static [&'static str] {
        &["name", "description", "parameters", "strict"]
    }

    fn reads_strict(&self, tools: &[(String, &Value)]) -> bool {
        tools
            .iter()
            .any(|(_, t)| t.pointer("/function/strict") == Some(&Value::Bool(true)))
    }

    fn defined_types(&self) -> &'static [&'static str] {
        &["function"]
    }

    fn definition_keys(&self) -> &'static [&'static str] {
        &["function"]
    }

    fn equivalences(&self) -> &'static [&'static str] {
        &[super::OPENAI_STRICT_DEFAULT]
    }

    fn same_as_absent(&self, _input: &Value, _parent: &str, key: &str, value: &Value) -> bool {
        super::openai_strict_default(key, value)
    }
}
