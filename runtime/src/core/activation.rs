//! What activating a skill does, per family, and what the host sends back to the model for
//! it. Under `defer` and `allow_list` every offered skill tool is published from the start,
//! so activation changes no byte of the tool array (the start of every provider's
//! prompt-cache prefix); what changes is the conversation's active set, which the gate in
//! `Call::parse_in` reads, and the model learns of it through the dialect's own channel:
//! Anthropic `tool_reference` blocks, a Responses `tool_search_output` item, or the next
//! request's allowed-tools restriction. Under `append` the array grows (today's behaviour,
//! reported with the divergence offset).

use std::borrow::Cow;

use serde::Serialize;

use crate::call::ToolOutput;

/// How an activated skill's tools reach the model on a family: its skill strategy, resolved
/// against its dialect (the facade's catalog answers it from the generated code).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SkillDelivery {
    /// Anthropic `defer`: the tools are published with `defer_loading: true`; the
    /// activation's `tool_result` content carries one `tool_reference` block per tool.
    ToolReference,
    /// OpenAI Responses `defer`: the tools are published with `defer_loading: true`; the
    /// host answers the client-executed `tool_search_call` with a `tool_search_output` item
    /// carrying their full definitions.
    ToolSearchOutput,
    /// `allow_list`: the tools are published from the start; the next request's
    /// allowed-tools restriction (Chat/Responses `allowed_tools`, Gemini
    /// `allowedFunctionNames`) includes them. MCP serves every family this way.
    AllowList,
    /// `append`: the tools are appended to the array from the next request (the rest of
    /// the conversation is a cache miss on every provider).
    Append,
}

impl SkillDelivery {
    /// Whether activation leaves the published tool array byte-identical.
    pub const fn keeps_tools_stable(self) -> bool {
        !matches!(self, SkillDelivery::Append)
    }
}

/// One tool a skill makes callable, with its published definition in the family's dialect
/// (the emitter's JSON, as the catalog holds it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkillTool {
    pub name: String,
    pub definition: Cow<'static, str>,
}

/// What `activate_skill` did to the thread's surface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Activation {
    pub skill: String,
    /// How the tools reach the model on this conversation's family.
    pub delivery: SkillDelivery,
    /// Tools the activation made callable, in published order (empty when already active).
    pub new_tools: Vec<SkillTool>,
    /// sha256 of the array after activation (equal to `previous_sha256` unless `Append`).
    pub surface_sha256: String,
    /// sha256 of the array before activation.
    pub previous_sha256: String,
    /// First byte offset where old and new arrays differ (= old length when they don't).
    pub diverges_at: usize,
    /// True when everything before the old array's closing bracket is unchanged, so a
    /// provider's prompt cache over the old array still matches (always true when the
    /// array is unchanged).
    pub prefix_intact: bool,
    /// The skill was already active; nothing changed.
    pub already_active: bool,
}

impl Activation {
    /// Names of the tools the activation made callable, in published order.
    pub fn new_tool_names(&self) -> Vec<&str> {
        self.new_tools.iter().map(|t| t.name.as_str()).collect()
    }

    /// Whether the published tool array is byte-identical before and after.
    pub fn tools_unchanged(&self) -> bool {
        self.surface_sha256 == self.previous_sha256
    }

    /// The sentence the model reads.
    pub fn text(&self) -> String {
        let skill = &self.skill;
        if self.already_active {
            return format!("skill {skill} is already active; nothing changed");
        }
        if self.new_tools.is_empty() {
            return format!("activated skill {skill}; it adds no new tools");
        }
        let names = self.new_tool_names().join(", ");
        let n = self.new_tools.len();
        let tools = if n == 1 { "tool" } else { "tools" };
        match self.delivery {
            SkillDelivery::ToolReference | SkillDelivery::ToolSearchOutput => format!(
                "activated skill {skill}: {n} {tools} loaded ({names}), callable from your next step"
            ),
            SkillDelivery::AllowList => format!(
                "activated skill {skill}: {n} {tools} now allowed ({names}), callable from your next step"
            ),
            SkillDelivery::Append => format!(
                "activated skill {skill}: {n} new {tools} ({names}), available from your next step"
            ),
        }
    }

    /// The `activate_skill` result for the runtime's batch: the text for the model and the
    /// structured facts for the host (hashes and the divergence offset).
    pub fn to_output(&self) -> ToolOutput {
        ToolOutput {
            text: self.text(),
            structured: Some(serde_json::json!({
                "skill": self.skill,
                "new_tools": self.new_tool_names(),
                "surface_sha256": self.surface_sha256,
                "previous_sha256": self.previous_sha256,
                "diverges_at": self.diverges_at,
                "prefix_intact": self.prefix_intact,
                "already_active": self.already_active,
            })),
        }
    }

    /// What the host sends back to the model for the activation call `call_id`, in the
    /// family's shape. A definition that is not JSON (a broken catalog) is an error naming
    /// the tool.
    pub fn reply(&self, call_id: &str) -> Result<ActivationReply, ActivationReplyError> {
        Ok(match self.delivery {
            SkillDelivery::ToolReference => {
                let mut content = vec![ToolResultBlock::Text { text: self.text() }];
                content.extend(
                    self.new_tools
                        .iter()
                        .map(|t| ToolResultBlock::ToolReference {
                            tool_name: t.name.clone(),
                        }),
                );
                ActivationReply::ToolResultContent(content)
            }
            SkillDelivery::ToolSearchOutput => {
                let tools = self
                    .new_tools
                    .iter()
                    .map(|t| {
                        serde_json::from_str(&t.definition).map_err(|e| ActivationReplyError {
                            tool: t.name.clone(),
                            message: e.to_string(),
                        })
                    })
                    .collect::<Result<_, _>>()?;
                ActivationReply::ToolSearchOutput(ToolSearchOutput {
                    kind: ToolSearchOutputType::ToolSearchOutput,
                    call_id: call_id.to_owned(),
                    execution: ToolSearchExecution::Client,
                    tools,
                })
            }
            SkillDelivery::AllowList | SkillDelivery::Append => ActivationReply::Text(self.text()),
        })
    }
}

/// A skill tool's published definition did not parse as JSON.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("published definition of {tool} is not JSON: {message}")]
pub struct ActivationReplyError {
    pub tool: String,
    pub message: String,
}

/// The model-facing answer to an activation, in the conversation's dialect. Serialize the
/// inner value with serde: the field names are the providers'.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ActivationReply {
    /// Anthropic: the `content` array of the `tool_result` block answering the
    /// `activate_skill` `tool_use` — a short text block, then one `tool_reference` per tool.
    ToolResultContent(Vec<ToolResultBlock>),
    /// OpenAI Responses: the input item answering the model's client `tool_search_call`.
    ToolSearchOutput(ToolSearchOutput),
    /// Every other family: the text, sent as any tool result is.
    Text(String),
}

/// One block of an Anthropic `tool_result`'s content.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolResultBlock {
    Text { text: String },
    ToolReference { tool_name: String },
}

/// The Responses `tool_search_output` input item (client execution).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolSearchOutput {
    #[serde(rename = "type")]
    pub kind: ToolSearchOutputType,
    pub call_id: String,
    pub execution: ToolSearchExecution,
    /// The full definitions of the tools the search loads, as published.
    pub tools: Vec<serde_json::Value>,
}

/// `"type": "tool_search_output"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolSearchOutputType {
    ToolSearchOutput,
}

/// `"execution": "client"`: the host ran the search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolSearchExecution {
    Client,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn activation(delivery: SkillDelivery) -> Activation {
        Activation {
            skill: "sqlite".into(),
            delivery,
            new_tools: vec![SkillTool {
                name: "sql_query".into(),
                definition: Cow::Borrowed(r#"{"type":"function","name":"sql_query","z":1,"a":2}"#),
            }],
            surface_sha256: "s".into(),
            previous_sha256: "s".into(),
            diverges_at: 10,
            prefix_intact: true,
            already_active: false,
        }
    }

    #[test]
    fn anthropic_gets_tool_reference_blocks_after_a_text_block() {
        let reply = activation(SkillDelivery::ToolReference)
            .reply("toolu_1")
            .unwrap();
        let v = serde_json::to_value(&reply).unwrap();
        assert_eq!(v[0]["type"], "text");
        assert_eq!(
            v[1],
            serde_json::json!({"type": "tool_reference", "tool_name": "sql_query"})
        );
        assert_eq!(v.as_array().unwrap().len(), 2);
    }

    #[test]
    fn responses_gets_a_tool_search_output_with_the_definitions_byte_for_byte() {
        let reply = activation(SkillDelivery::ToolSearchOutput)
            .reply("ts_1")
            .unwrap();
        let text = serde_json::to_string(&reply).unwrap();
        assert_eq!(
            text,
            r#"{"type":"tool_search_output","call_id":"ts_1","execution":"client","tools":[{"type":"function","name":"sql_query","z":1,"a":2}]}"#
        );
    }

    #[test]
    fn a_broken_definition_is_an_error_naming_the_tool() {
        let mut a = activation(SkillDelivery::ToolSearchOutput);
        a.new_tools[0].definition = Cow::Borrowed("{nope");
        let err = a.reply("ts_1").unwrap_err();
        assert_eq!(err.tool, "sql_query");
    }

    #[test]
    fn the_text_says_how_the_tools_arrive() {
        assert!(
            activation(SkillDelivery::AllowList)
                .text()
                .contains("now allowed (sql_query)")
        );
        assert!(
            activation(SkillDelivery::Append)
                .text()
                .contains("1 new tool (sql_query)")
        );
        assert_eq!(
            activation(SkillDelivery::AllowList).reply("c").unwrap(),
            ActivationReply::Text(activation(SkillDelivery::AllowList).text())
        );
    }
}
