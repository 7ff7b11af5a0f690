//! One module per provider dialect: everything the compiler knows about one provider's tool
//! shape — the envelope of a published tool, its schema style, its request's allowed-entry and
//! restriction shape, its skill strategies, its publishing switches, and the import reader of
//! its tools — behind one trait, [`DialectRules`]. The rest of the compiler asks
//! [`rules`]`(dialect)` and never matches on [`Dialect`] itself.
//!
//! Adding a provider: one file here implementing [`DialectRules`], one variant in
//! `kernel/src/vocab.rs` (its name in `Dialect::ALL` / `as_str`), and its arm in [`rules`]
//! (and, when its tools can be told apart from the others', its place in [`DETECTION`]).

use serde_json::Value;

use crate::emit::json::Json;
use crate::emit::schema::{Style, Texts};
use crate::emit::skills::Placement;
use crate::emit::{EmitError, ToolKind};
use crate::import::{ImportError, Note};
use crate::ir::{Family, Ir, Limits, Publish, RenderedTool, SkillStrategy};

pub use crate::ir::Dialect;

mod anthropic;
mod gemini;
mod mcp;
mod openai_chat;
mod openai_responses;
#[cfg(test)]
mod tests;

pub use mcp::{Annotations, annotations, title};

/// The rules of `dialect`: the one dispatch on the closed vocabulary.
pub(crate) fn rules(dialect: Dialect) -> &'static dyn DialectRules {
    match dialect {
        Dialect::OpenaiChat => &openai_chat::OpenaiChat,
        Dialect::OpenaiResponses => &openai_responses::OpenaiResponses,
        Dialect::Anthropic => &anthropic::Anthropic,
        Dialect::Gemini => &gemini::Gemini,
        Dialect::Mcp => &mcp::Mcp,
    }
}

/// The order import tries the dialects' [`DialectRules::recognises`] on the first tool of an
/// input: the most specific key first (Chat nests `function`; MCP `inputSchema` and Anthropic
/// `input_schema` before Responses, whose `type: custom` an Anthropic custom tool shares;
/// Gemini, a bare `name` + `parameters`, last).
pub(crate) const DETECTION: [Dialect; 5] = [
    Dialect::OpenaiChat,
    Dialect::Mcp,
    Dialect::Anthropic,
    Dialect::OpenaiResponses,
    Dialect::Gemini,
];

/// The skill strategy a family of `dialect` gets without `skills:`.
pub fn default_skills(dialect: Dialect) -> SkillStrategy {
    rules(dialect).default_skills()
}

/// The skill strategies `dialect` can carry out.
pub fn supported_skills(dialect: Dialect) -> &'static [SkillStrategy] {
    rules(dialect).supported_skills()
}

/// The words of the dialects `has` holds for, joined by " and " (for a diagnostic naming
/// where a key applies).
pub(crate) fn names_where(has: impl Fn(&dyn DialectRules) -> bool) -> String {
    let names: Vec<&str> = Dialect::ALL
        .into_iter()
        .filter(|d| has(rules(*d)))
        .map(Dialect::as_str)
        .collect();
    names.join(" and ")
}

/// What one tool's envelope is built from.
pub(crate) struct ToolContext<'a> {
    pub(crate) ir: &'a Ir,
    pub(crate) family: &'a Family,
    pub(crate) texts: &'a Texts<'a>,
    /// The published description (examples appended where the family says so).
    pub(crate) description: &'a str,
    /// MCP `_meta`: the hash of the tool in its family's own dialect.
    pub(crate) family_sha256: Option<&'a str>,
}

/// The static pieces of a request fragment around the tools array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RequestShape {
    /// `{"tools":` (Gemini `{"tools":[{"functionDeclarations":`).
    pub(crate) open: &'static str,
    /// What closes the tools member: empty (Gemini `}]`).
    pub(crate) close_tools: &'static str,
    /// The allowed-tools member, where the dialect has one.
    pub(crate) restriction: Option<RestrictionShape>,
    /// The fields after the restriction, and the closing brace.
    pub(crate) tail: &'static str,
}

/// The dialect's allowed-tools member around its entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RestrictionShape {
    /// Up to the first entry, leading comma included.
    pub(crate) open: &'static str,
    /// After the last entry.
    pub(crate) close: &'static str,
    /// The member when nothing at all is allowed (leading comma included).
    pub(crate) none: &'static str,
}

/// The fragment of a dialect with no per-request restriction: `{"tools":…}`.
pub(crate) const PLAIN_REQUEST: RequestShape = RequestShape {
    open: r#"{"tools":"#,
    close_tools: "",
    restriction: None,
    tail: "}",
};

/// One provider dialect. Object-safe: [`rules`] hands out `&'static dyn DialectRules`, and
/// the emit and import entry points take one, so a dialect the enum does not name yet (the
/// test dialect of `dialect/tests.rs`) runs through the same code.
pub(crate) trait DialectRules: Sync {
    // ---- emit ----

    /// One tool's JSON in this dialect (key order as in `docs/published-bytes.md`) and which
    /// kind of provider tool it is.
    fn tool(&self, cx: &ToolContext<'_>) -> Result<(Json, ToolKind), EmitError>;

    /// How this dialect spells a family's parameters schema.
    fn schema_style(&self, family: &Family) -> Style;

    /// The `inputSchema` style of this dialect's families rendered for MCP, shaped for the
    /// client those models sit behind: a strict family its strict-safe schema (a fixed point
    /// of the strict converters MCP clients apply), otherwise plain JSON Schema.
    fn style_behind_mcp(&self, family: &Family) -> Style {
        if family.strict {
            Style::Strict
        } else {
            Style::JsonSchema
        }
    }

    /// What a tool's placement adds to its JSON when it is not deferred (the Anthropic cache
    /// breakpoint, MCP's `_meta` skill); deferral itself ([`defers`]) is generic.
    fn placed(&self, json: Json, _family: &Family, _placement: Placement<'_>) -> Json {
        json
    }

    /// Whether [`DialectRules::placed`] puts the prompt-cache breakpoint on a tool so placed
    /// (Anthropic's `cache_control`): the typed fact the emitted tool and the lock carry.
    fn breakpoint(&self, _family: &Family, _placement: Placement<'_>) -> bool {
        false
    }

    /// Whether `activate_skill` becomes a client `tool_search` tool on a deferring surface.
    fn has_tool_search(&self) -> bool {
        false
    }

    /// That `tool_search` tool, narrowed to the skills deferred here (`None` where
    /// [`DialectRules::has_tool_search`] is false).
    fn search_tool(
        &self,
        _rendered: &RenderedTool,
        _description: &str,
        _deferred_skills: &[&str],
    ) -> Option<Result<Json, EmitError>> {
        None
    }

    /// How the request's allowed-tools list names a tool, where the dialect has such a list.
    fn allowed_entry(&self, _name: &str, _kind: ToolKind) -> Option<Json> {
        None
    }

    /// The request fragment's static pieces.
    fn request_shape(&self) -> RequestShape {
        PLAIN_REQUEST
    }

    /// Whether each tool names its hash in the family's own dialect (MCP `_meta`).
    fn names_family_hash(&self) -> bool {
        false
    }

    // ---- load ----

    /// The skill strategy without `skills:`.
    fn default_skills(&self) -> SkillStrategy;

    /// The skill strategies this dialect can carry out (`defer` needs provider-side deferred
    /// loading, `allow_list` a per-request restriction or the runtime's gate).
    fn supported_skills(&self) -> &'static [SkillStrategy];

    /// The one-line reason this dialect lacks `strategy` (a diagnostic's hint).
    fn why_unsupported(&self, _strategy: SkillStrategy) -> &'static str {
        "not supported"
    }

    /// How an activated skill's deferred tools reach the model under `defer`: the name of
    /// the runtime's `SkillDelivery` variant (`None`: the dialect cannot defer).
    fn deferred_delivery(&self) -> Option<&'static str> {
        None
    }

    /// A family's publishing switches before its own keys.
    fn publish_defaults(&self) -> Publish {
        Publish::default()
    }

    /// The dialect-specific publishing switches this dialect takes (`input_examples`,
    /// `output_schema`, `parameters_json_schema`).
    fn publish_keys(&self) -> &'static [&'static str] {
        &[]
    }

    /// Whether a family may be `strict` (OpenAI strict mode).
    fn has_strict(&self) -> bool {
        false
    }

    /// Whether a family may set `cache_control` (a cache breakpoint on tools).
    fn has_cache_control(&self) -> bool {
        false
    }

    /// The limits the provider documents, where it documents some.
    fn provider_limits(&self) -> Option<Limits> {
        None
    }

    // ---- import ----

    /// The family name import writes into `surface.yaml` (`chat`, `responses`, …).
    fn family_name(&self) -> &'static str;

    /// Whether `first`, the first non-hosted tool of an input, is in this dialect's shape
    /// (asked in [`DETECTION`] order).
    fn recognises(&self, first: &Value) -> bool;

    /// What [`recognises`](Self::recognises) looks for, in words (`a \`function\` object`):
    /// import's refusal of an input no dialect recognises lists these.
    fn recognised_by(&self) -> &'static str;

    /// The member that wraps this dialect's tools in an input (`[{"functionDeclarations":
    /// [...]}]`), where it has one.
    fn declarations_key(&self) -> Option<&'static str> {
        None
    }

    /// The object holding a tool's name and schema, and its JSON pointer.
    fn tool_body<'t>(&self, ptr: &str, t: &'t Value) -> Result<(&'t Value, String), ImportError> {
        Ok((t, ptr.to_owned()))
    }

    /// The key holding the input schema of `body` (noting what it drops on the way).
    fn schema_key(
        &self,
        tool: &str,
        body: &Value,
        body_ptr: &str,
        notes: &mut Vec<Note>,
    ) -> &'static str;

    /// Whether an object schema under `schema_key` without `additionalProperties` is open (JSON
    /// Schema's default). Not where the schema language has no such keyword (Gemini's OpenAPI
    /// `parameters`): there the language's strict default is kept.
    fn absent_additional_is_open(&self, _schema_key: &str) -> bool {
        true
    }

    /// The tool keys the reader maps besides the extras.
    fn tool_keys(&self) -> &'static [&'static str];

    /// The extras keys (examples, outputs, icons, `_meta`) `import/extras.rs` maps.
    fn extras_keys(&self) -> &'static [&'static str] {
        &[]
    }

    /// The key of a declared output, if the dialect has one.
    fn output_key(&self) -> Option<&'static str> {
        None
    }

    /// Whether the input tools were written in strict mode.
    fn reads_strict(&self, _tools: &[(String, &Value)]) -> bool {
        false
    }

    /// Whether `t` uses the alternative schema key the family switches on
    /// (`parameters_json_schema`).
    fn uses_json_schema_key(&self, _t: &Value) -> bool {
        false
    }

    /// A tool of this dialect that has no definition to import: (why, what is not
    /// published).
    fn not_importable(&self, _t: &Value) -> Option<(String, String)> {
        None
    }

    /// Whether a provider-hosted tool of `type` `ty` (no schema of its own) is this
    /// dialect's: what an input of hosted tools only is read as (in [`DETECTION`] order).
    fn hosts_tool(&self, _ty: &str) -> bool {
        false
    }

    /// Whether `t` is a freeform (grammar) tool.
    fn is_freeform(&self, _t: &Value) -> bool {
        false
    }

    /// Traits and a title the tool carries besides its schema (MCP annotations), with where
    /// the title is written (`ir::Tool::title_at`: both places unless the input has one).
    fn read_traits_and_title(&self, _t: &Value, _name: &str) -> ImportedTitle {
        (Vec::new(), None, (true, true))
    }

    /// The `type` values of this dialect's tools that are not provider-hosted: the tools with
    /// a definition (and the Responses client `tool_search`). With
    /// [`DialectRules::definition_keys`], what [`crate::import::is_hosted`] asks every
    /// dialect.
    fn defined_types(&self) -> &'static [&'static str] {
        &[]
    }

    /// The keys a tool of this dialect holds its definition under (`function`,
    /// `inputSchema`, …): a tool with one of them is not provider-hosted.
    fn definition_keys(&self) -> &'static [&'static str];

    // ---- the round trip (`import/roundtrip.rs`) ----

    /// The equivalences this dialect documents: what the round trip's comparison takes as the
    /// same without being the same text, one sentence each for
    /// [`crate::import::equivalences`]; each is an arm of the three methods below.
    fn equivalences(&self) -> &'static [&'static str] {
        &[]
    }

    /// Whether `key: value`, published under `parent` ([`TOOL_OBJECT`] for the tool object)
    /// where the input tool `input` has no such key, means what its absence means.
    fn same_as_absent(&self, _input: &Value, _parent: &str, _key: &str, _value: &Value) -> bool {
        false
    }

    /// Whether `a` and `b` under `key`, not equal as JSON, say the same.
    fn same_value(&self, _key: &str, _a: &Value, _b: &Value) -> bool {
        false
    }

    /// Whether the member `key` of an object under `parent` is toolsurface's own (emit
    /// derives it, import drops it): the comparison leaves it out on both sides.
    fn own_key(&self, _parent: &str, _key: &str) -> bool {
        false
    }
}

/// The name the round trip's comparison gives the tool object itself as a parent (no JSON
/// key is spelled so).
pub(crate) const TOOL_OBJECT: &str = "<tool>";

/// The OpenAI dialects' round-trip equivalence: `strict: false` is their default.
const OPENAI_STRICT_DEFAULT: &str =
    "`strict: false` published where the input has no `strict` (OpenAI's default)";

/// [`DialectRules::same_as_absent`] of the OpenAI dialects: `strict: false`.
fn openai_strict_default(key: &str, value: &Value) -> bool {
    key == "strict" && *value == Value::Bool(false)
}

/// What [`DialectRules::read_traits_and_title`] reads: the traits, the title (`None`:
/// derived), and where it is published.
pub type ImportedTitle = (Vec<(&'static str, bool)>, Option<String>, (bool, bool));

/// Whether a tool so placed is published deferred: a skill tool under `defer`, where the
/// dialect can defer.
pub(crate) fn defers(
    rules: &dyn DialectRules,
    strategy: SkillStrategy,
    placement: Placement<'_>,
) -> bool {
    matches!(placement, Placement::Skill(_))
        && strategy == SkillStrategy::Defer
        && rules.supported_skills().contains(&SkillStrategy::Defer)
}
