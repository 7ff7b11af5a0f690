//! Anthropic Messages: `input_schema`, `input_examples`, the `cache_control` breakpoint on
//! the last resident tool, `defer_loading` skill tools loaded through `tool_reference`
//! blocks, and no allowed-tools restriction (the runtime refuses what a turn does not
//! allow).

use serde_json::Value;

use super::{DialectRules, ToolContext};
use crate::emit::json::Json;
use crate::emit::schema::{self, Style};
use crate::emit::skills::Placement;
use crate::emit::{EmitError, ToolKind, extras};
use crate::import::Note;
use crate::ir::{Family, Publish, SkillStrategy};

pub(super) struct Anthropic;

impl DialectRules for Anthropic {
    fn tool(&self, cx: &ToolContext<'_>) -> Result<(Json, ToolKind), EmitError> {
        let t = cx.texts.tool;
        let json = Json::obj()
            .with("name", Json::str(t.name.clone()))
            .with("description", Json::str(cx.description))
            .with(
                "input_schema",
                schema::parameters(cx.texts, self.schema_style(cx.family))?,
            )
            .with_opt(
                "input_examples",
                cx.family
                    .publish
                    .input_examples
                    .then(|| extras::examples(t))
                    .flatten(),
            );
        Ok((json, ToolKind::Function))
    }

    fn schema_style(&self, _family: &Family) -> Style {
        Style::JsonSchema
    }

    /// The cache breakpoint, where [`DialectRules::breakpoint`] puts it.
    fn placed(&self, json: Json, family: &Family, placement: Placement<'_>) -> Json {
        match family.cache_control {
            Some(ttl) if self.breakpoint(family, placement) => json.with(
                "cache_control",
                Json::obj()
                    .with("type", Json::str("ephemeral"))
                    .with("ttl", Json::str(ttl.as_str())),
            ),
            _ => json,
        }
    }

    /// On the last resident tool, when the family sets `cache_control`.
    fn breakpoint(&self, family: &Family, placement: Placement<'_>) -> bool {
        family.cache_control.is_some() && matches!(placement, Placement::Resident { last: true })
    }

    fn default_skills(&self) -> SkillStrategy {
        SkillStrategy::Defer
    }

    fn supported_skills(&self) -> &'static [SkillStrategy] {
        &[SkillStrategy::Defer, SkillStrategy::Append]
    }

    fn why_unsupported(&self, strategy: SkillStrategy) -> &'static str {
        match strategy {
            SkillStrategy::AllowList => "Anthropic's tool_choice has no allowed-tools subset",
            SkillStrategy::Defer | SkillStrategy::Append => "not supported",
        }
    }

    fn deferred_delivery(&self) -> Option<&'static str> {
        Some("ToolReference")
    }

    fn publish_defaults(&self) -> Publish {
        Publish {
            input_examples: true,
            ..Publish::default()
        }
    }

    fn publish_keys(&self) -> &'static [&'static str] {
        &["input_examples"]
    }

    fn has_cache_control(&self) -> bool {
        true
    }

    fn family_name(&self) -> &'static str {
        "anthropic"
    }

    fn recognises(&self, first: &Value) -> bool {
        first.get("input_schema").is_some()
    }

    fn recognised_by(&self) -> &'static str {
        "an `input_schema` (Anthropic)"
    }

    fn schema_key(&self, _: &str, _: &Value, _: &str, _: &mut Vec<Note>) -> &'static str {
        "input_schema"
    }

    fn tool_keys(&self) -> &'static [&'static str] {
        &["name", "description", "input_schema", "type"]
    }

    fn extras_keys(&self) -> &'static [&'static str] {
        &["input_examples"]
    }

    /// A versioned server tool (`bash_20250124`, `text_editor_…`): its `type` ends in an
    /// eight-digit date.
    fn hosts_tool(&self, ty: &str) -> bool {
        ty.rsplit_once('_')
            .is_some_and(|(_, date)| date.len() == 8 && date.bytes().all(|b| b.is_ascii_digit()))
    }

    fn defined_types(&self) -> &'static [&'static str] {
        &["custom"]
    }

    fn definition_keys(&self) -> &'static [&'static str] {
        &["input_schema"]
    }
}
