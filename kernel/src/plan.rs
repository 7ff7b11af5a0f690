//! The part of the plan (`toolsurface plan`) that says how a tool's calls are read: per tool
//! and action the ordered fields with their lowered types, bounds and `expected …` texts, the
//! refusal prefix, the `belongs` lists and the constraints with each member's presence rule.
//! The compiler lowers the definitions into these types (and re-exports them as part of its
//! `Plan`); [`crate::walk`] interprets them — for the compiler's interpreter and, from a
//! static copy of each tool's plan, for the generated `Call::parse`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A trait value: a bool or one of an enum trait's values.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum TraitValuePlan {
    Bool(bool),
    Enum(String),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ToolPlan {
    pub name: String,
    /// `thread_host`, `session_host` or `local`.
    pub route: String,
    /// The fields naming the session a follow-up call targets.
    pub session: Option<SessionPlan>,
    /// The selector field (`action`, `mode`, …); `None` for a plain tool, which has exactly
    /// one action, named `None`.
    pub selector: Option<String>,
    /// `poll, wait, kill`: what a missing or unknown selector is told (empty for plain tools).
    pub expected_actions: String,
    /// The families where the tool is a freeform custom tool, and the field its raw input
    /// fills.
    pub freeform: Option<FreeformPlan>,
    /// Declaration order (= the selector enum's published order).
    pub actions: Vec<ActionPlan>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SessionPlan {
    pub id: String,
    pub host: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FreeformPlan {
    pub field: String,
    pub families: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ActionPlan {
    /// `None` for the one action of a plain tool.
    pub name: Option<String>,
    /// What every refusal about these arguments starts with: `action=wait: ` (selector tools)
    /// or `read_file: ` (plain tools).
    pub prefix: String,
    /// Every trait of the vocabulary, resolved.
    pub traits: BTreeMap<String, TraitValuePlan>,
    /// The arguments object (the selector aside).
    pub object: ObjectPlan,
    /// Example argument objects as written (selector first): calls every parser accepts
    /// (every compile decodes them).
    pub examples: Vec<serde_json::Value>,
}

/// What one object walk accepts: an action's arguments or a nested object's members. The
/// walk: each key in input order — the selector skipped (a second one is a duplicate); a
/// field converted (`null` counts as absent; given twice is a duplicate); a key in `belongs`
/// with `null` let through; anything else an unexpected field. Then each required field
/// (declaration order), each `exactly_one_of` group, each `forbidden_with` rule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ObjectPlan {
    /// Declaration order: also the `expected one of …` list and the did-you-mean candidates.
    pub fields: Vec<FieldPlan>,
    /// Fields other actions take, with who takes them (`poll, wait and kill`).
    pub belongs: Vec<BelongsPlan>,
    pub exactly_one_of: Vec<Vec<MemberPlan>>,
    pub forbidden_with: Vec<ForbiddenPlan>,
    /// Keys that are not fields (a `null` for a key another action takes is let through
    /// first, as in a strict object): `None`, an unexpected field (a strict object); else each
    /// converted by this type (`null` counts as absent; given twice is a
    /// duplicate), reported at `<prefix><key>`, and kept in the typed value after the fields,
    /// in input order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional: Option<Box<TypePlan>>,
}

impl ObjectPlan {
    /// The field `name` this object takes.
    pub fn field(&self, name: &str) -> Option<&FieldPlan> {
        self.fields.iter().find(|f| f.name == name)
    }
}

impl ToolPlan {
    /// Whether some action takes the field `name`.
    pub fn takes(&self, name: &str) -> bool {
        self.actions.iter().any(|a| a.object.field(name).is_some())
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FieldPlan {
    pub name: String,
    pub required: bool,
    pub ty: TypePlan,
    /// The definition's `default:` of an optional field: what a host's typed request holds
    /// when the call leaves the field out (the Rust conversion fills it). `Call::parse` never
    /// applies it: the parsed call keeps the arguments as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<serde_json::Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BelongsPlan {
    pub field: String,
    pub actions: String,
}

/// A constraint member with how the walk counts it as given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MemberPlan {
    pub field: String,
    pub presence: Presence,
}

/// When a constraint counts a field as given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Presence {
    /// A required field: always (the walk refused its absence before).
    Always,
    /// When a non-null value was given.
    Given,
    /// A boolean in a `forbidden_with` rule: only when it is `true` (`false` asks for
    /// nothing).
    True,
    /// Not a field of this object: never.
    Never,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ForbiddenPlan {
    pub field: MemberPlan,
    pub with: MemberPlan,
    /// Appended to the prefix when both are given.
    pub message: String,
}

/// A field type as the walk converts it; `expected` is the text after `expected ` in a
/// refusal (`<path>: expected <expected>, got <value>`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TypePlan {
    /// Lengths count Unicode scalar values; `pattern` is a Rust `regex` (unanchored search).
    String {
        min_length: Option<u64>,
        max_length: Option<u64>,
        pattern: Option<String>,
        expected: String,
    },
    /// A JSON integer, or a number with no fraction within ±2^53 (`5.0`, `1e2`).
    Integer {
        minimum: Option<i64>,
        maximum: Option<i64>,
        expected: String,
    },
    Number {
        minimum: Option<f64>,
        maximum: Option<f64>,
        expected: String,
    },
    /// Refused as `expected true or false`.
    Boolean,
    Enum {
        values: Vec<String>,
        expected: String,
    },
    /// Item `i` of a field `f` is reported as `f[i]`.
    Array {
        items: Box<TypePlan>,
        min_items: Option<u64>,
        max_items: Option<u64>,
        expected: String,
    },
    /// A nested object: its members' refusals are prefixed `<path>: `; a value that is not an
    /// object is `expected an object`.
    Object { object: ObjectPlan },
    /// Any JSON value; never refused. The typed value is the value as `serde_json::Value`
    /// holds it (`5` an integer, `5.0` and `1e2` floats, members in input order; a key given
    /// twice inside it: the last one).
    Any,
    /// Only `null` (a union branch); the typed value is `null`.
    Null,
    /// Exactly `value`: strings, booleans and null by equality, numbers by numeric value
    /// (`1` = `1.0`), arrays item by item, objects member by member in any order. The typed
    /// value is `value`.
    Const {
        value: serde_json::Value,
        expected: String,
    },
    /// The branches are tried in order; the typed value is the first accepting branch's. None
    /// accepting: `<path>: expected <expected>, got <value>`. With `one`, a second accepting
    /// branch is refused too: `<path>: expected <ambiguous>, got <value>`.
    Union {
        branches: Vec<TypePlan>,
        one: bool,
        expected: String,
        ambiguous: String,
    },
    /// A use of the named shape of the tool's file: its definition `ty`, inlined (the walk
    /// reads `ty`; a generator may define one type per shape name).
    Shape { name: String, ty: Box<TypePlan> },
}
