//! The surface lock (`tool-defs/surface.lock`): what `toolsurface lock` accepted, so `check`
//! can fail on any unlocked change and `diff` can judge compatibility from a lock alone.
//!
//! A line-oriented text file, deterministic and diff-friendly:
//!
//! ```text
//! lock-format 1
//! token-encoding o200k_base
//!
//! surface side_chat chat                  # one block per role × family, IR order
//!   dialect openai-chat
//!   sha256 <hex of the published array>
//!   bytes 15101
//!   tokens 3456
//!   tool shell 0123456789abcdef           # published order; key into the json table
//!   skill sqlite sql_query 89ab...        # tools a skill's activation appends
//!
//! json shell 0123456789abcdef {"type":"function",...}   # each distinct canonical tool JSON
//!
//! shape shell_session {"object":...,"selector":"action"} # structure, dialect-independent
//!   field timeout_s {"type":"number","minimum":0.0,"maximum":300.0}
//!   action wait {"required":["session_id"],"optional":[...],"defaults":{...},"traits":{...}}
//! alias shell_poll {"tool":"shell_session","set":{"action":"poll"},"rename":{}}
//! retired get_facts {"message":"...","replaced_by":["search_memory"]}
//! output shell_session {"type":"object","anyOf":[...]}  # declared outputs (lock/outputs.rs)
//!   action poll {"type":"object",...}
//! sandbox main {"profile":"workspace-write","network":true,"devices":"read-write"}  # lock/sandbox.rs
//! accepted 2026-11-30 {"reason":"...","findings":["field-removed/..."]}
//! ```
//!
//! Each distinct tool JSON is stored once (roles sharing a family usually publish the same
//! bytes) under the first 16 hex digits of its sha256, so a git diff of the lock shows a
//! changed tool's old and new text as one removed and one added line.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::emit::{Emitted, sha256_hex};
use crate::ir::{self, Ir, SkillStrategy, TraitValue};
use crate::tokens;

mod outputs;
pub use outputs::{LockedActionOutput, LockedOutput};
pub mod requests;
mod sandbox;
pub use sandbox::LockedSandbox;

pub use requests::LockedRequest;

/// The lock format this build writes and reads.
pub const FORMAT: u32 = 1;

/// Length of the hash prefix naming a tool JSON.
const KEY_LEN: usize = 16;

#[derive(Clone, Debug, PartialEq)]
pub struct Lock {
    pub format: u32,
    /// Token encoding of every `tokens` count.
    pub encoding: String,
    /// Every role × family, IR order.
    pub surfaces: Vec<LockedSurface>,
    /// Per-tool structure, sorted by name.
    pub shapes: Vec<ToolShape>,
    /// Sorted by name.
    pub aliases: Vec<LockedAlias>,
    /// Sorted by name.
    pub retired: Vec<LockedRetired>,
    /// Breaking changes accepted with `lock --accept-breaking`, oldest first.
    pub accepted: Vec<Accepted>,
    /// Declared outputs, sorted by tool name (see `lock/outputs.rs`).
    pub outputs: Vec<LockedOutput>,
    /// Each role's declared sandbox policy, role order (see `lock/sandbox.rs`); empty in a
    /// lock written before policies were recorded.
    pub sandboxes: Vec<LockedSandbox>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockedSurface {
    pub role: String,
    pub family: String,
    pub dialect: String,
    pub sha256: String,
    pub bytes: usize,
    pub tokens: usize,
    /// Resident tools, published order.
    pub tools: Vec<LockedTool>,
    pub skills: Vec<LockedSkill>,
    /// How the skills are published (`append` in a lock written before strategies).
    pub strategy: SkillStrategy,
    /// The request fragments per turn kind and activation (see [`requests`]).
    pub requests: Vec<LockedRequest>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockedTool {
    pub name: String,
    /// Full sha256 of `json`.
    pub sha256: String,
    /// The tool's canonical JSON in this surface's dialect.
    pub json: String,
    /// It carries the prompt-cache breakpoint (Anthropic `cache_control`): the emitter's
    /// [`crate::emit::EmittedTool::breakpoint`]; read from a lock file, the JSON's top-level
    /// member (the format records the bytes only), once, where the lock is read.
    pub breakpoint: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockedSkill {
    pub name: String,
    pub tools: Vec<LockedTool>,
}

impl LockedSurface {
    /// The published array, rebuilt from the tools (`[` + JSON joined by `,` + `]`): the
    /// resident ones, then under `defer` / `allow_list` each skill's (a shared tool once).
    pub fn array(&self) -> String {
        let mut out = String::with_capacity(self.bytes);
        out.push('[');
        for (i, t) in self.published().iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&t.json);
        }
        out.push(']');
        out
    }

    /// The tools of [`LockedSurface::array`], in order.
    pub fn published(&self) -> Vec<&LockedTool> {
        let mut tools: Vec<&LockedTool> = self.tools.iter().collect();
        if self.strategy != SkillStrategy::Append {
            for t in self.skills.iter().flat_map(|s| &s.tools) {
                if !tools.iter().any(|x| x.name == t.name) {
                    tools.push(t);
                }
            }
        }
        tools
    }

    /// The array after activating `skills` (activation order): [`LockedSurface::array`]
    /// under `defer` / `allow_list`, the resident array with the skills' tools appended
    /// under `append`. `None` names a skill the surface does not offer.
    pub fn array_with(&self, skills: &[&str]) -> Option<String> {
        let mut tools: Vec<&LockedTool> = self.tools.iter().collect();
        for name in skills {
            for t in &self.skills.iter().find(|s| s.name == *name)?.tools {
                if !tools.iter().any(|x| x.name == t.name) {
                    tools.push(t);
                }
            }
        }
        if self.strategy != SkillStrategy::Append {
            return Some(self.array());
        }
        let body: Vec<&str> = tools.iter().map(|t| t.json.as_str()).collect();
        Some(format!("[{}]", body.join(",")))
    }

    /// Every tool a call may name here: resident, then each skill's.
    pub fn offered(&self) -> impl Iterator<Item = &LockedTool> {
        self.tools
            .iter()
            .chain(self.skills.iter().flat_map(|s| &s.tools))
    }

    pub fn offers(&self, name: &str) -> bool {
        self.offered().any(|t| t.name == name)
    }

    pub fn tool(&self, name: &str) -> Option<&LockedTool> {
        self.offered().find(|t| t.name == name)
    }
}

/// A tool's structure: what decides whether an old call still parses.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolShape {
    #[serde(skip)]
    pub name: String,
    pub object: String,
    pub route: String,
    pub families: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freeform: Option<String>,
    #[serde(skip)]
    pub fields: Vec<(String, TypeShape)>,
    #[serde(skip)]
    pub actions: Vec<ActionShape>,
}

impl ToolShape {
    pub fn field(&self, name: &str) -> Option<&TypeShape> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, t)| t)
    }
    /// The action `name` (`None`: the single action of a plain tool).
    pub fn action(&self, name: Option<&str>) -> Option<&ActionShape> {
        self.actions.iter().find(|a| a.name.as_deref() == name)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum TypeShape {
    String {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min_length: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_length: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pattern: Option<String>,
    },
    Integer {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        minimum: Option<i64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        maximum: Option<i64>,
    },
    Number {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        minimum: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        maximum: Option<f64>,
    },
    Boolean,
    Enum {
        values: Vec<String>,
    },
    Array {
        items: Box<TypeShape>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min_items: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_items: Option<u64>,
    },
    Object {
        properties: Vec<PropertyShape>,
        /// What other keys may hold (`None`: refused).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        additional: Option<Box<TypeShape>>,
    },
    Any,
    Null,
    Const {
        value: serde_json::Value,
    },
    Union {
        /// `anyOf`, `oneOf` or `type` (a type list).
        form: String,
        branches: Vec<TypeShape>,
    },
    /// A type with keywords that change no verdict (`ir::SchemaAnnotations`), recorded so `diff`
    /// can judge a changed default or format.
    Annotated {
        schema: Box<TypeShape>,
        /// `Some(null)` is a default of `null` (read back as written, not as absent).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "present"
        )]
        default: Option<serde_json::Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        format: Option<String>,
        /// Everything else (title, description, examples, verbatim keywords), as published.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        other: Option<serde_json::Value>,
    },
}

/// A key that is present holds a value, `null` included.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<serde_json::Value>, D::Error> {
    serde_json::Value::deserialize(d).map(Some)
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PropertyShape {
    pub name: String,
    pub required: bool,
    pub schema: TypeShape,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionShape {
    #[serde(skip)]
    pub name: Option<String>,
    #[serde(default)]
    pub required: Vec<String>,
    #[serde(default)]
    pub optional: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exactly_one_of: Vec<Vec<String>>,
    /// `[field, with]` pairs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forbidden_with: Vec<(String, String)>,
    /// The action's own defaults (`defaults:`), over its fields' (recorded with their types).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub defaults: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    pub traits: BTreeMap<String, serde_json::Value>,
}

impl ActionShape {
    pub fn uses(&self, field: &str) -> bool {
        self.required
            .iter()
            .chain(&self.optional)
            .any(|f| f == field)
    }
    pub fn requires(&self, field: &str) -> bool {
        self.required.iter().any(|f| f == field)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedAlias {
    #[serde(skip)]
    pub name: String,
    pub tool: String,
    #[serde(default)]
    pub set: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    pub rename: BTreeMap<String, String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedRetired {
    #[serde(skip)]
    pub name: String,
    pub message: String,
    #[serde(default)]
    pub replaced_by: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Accepted {
    /// `YYYY-MM-DD` (UTC).
    #[serde(skip)]
    pub date: String,
    pub reason: String,
    /// Ids of the breaking (or unknown) findings accepted.
    pub findings: Vec<String>,
}

/// A lock file that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct LockError {
    pub line: usize,
    pub message: String,
}

impl Lock {
    /// The lock of valid definitions: `emitted` is [`crate::emit::surfaces`] of `ir`. Token
    /// counts are taken from `prior` for arrays whose sha256 it already records (same bytes,
    /// same encoding, same count), else counted.
    pub fn build(ir: &Ir, emitted: &[Emitted], prior: Option<&Lock>) -> Lock {
        let known: BTreeMap<&str, usize> = prior
            .filter(|p| p.encoding == tokens::ENCODING)
            .map(|p| {
                p.surfaces
                    .iter()
                    .map(|s| (s.sha256.as_str(), s.tokens))
                    .collect()
            })
            .unwrap_or_default();
        let locked = |t: &crate::emit::EmittedTool| LockedTool {
            name: t.name.clone(),
            sha256: t.sha256.clone(),
            json: t.json.clone(),
            breakpoint: t.breakpoint,
        };
        let surfaces = emitted
            .iter()
            .map(|e| LockedSurface {
                role: e.role.clone(),
                family: e.family.clone(),
                dialect: e.dialect.as_str().to_owned(),
                sha256: e.sha256.clone(),
                bytes: e.bytes.len(),
                tokens: known
                    .get(e.sha256.as_str())
                    .copied()
                    .unwrap_or_else(|| tokens::count(&e.bytes)),
                tools: e.tools.iter().map(locked).collect(),
                skills: e
                    .skills
                    .iter()
                    .map(|s| LockedSkill {
                        name: s.name.clone(),
                        tools: s.tools.iter().map(locked).collect(),
                    })
                    .collect(),
                strategy: e.skill_strategy,
                requests: requests::requests_of(e),
            })
            .collect();
        Lock {
            format: FORMAT,
            encoding: tokens::ENCODING.to_owned(),
            surfaces,
            shapes: ir.tools.iter().map(shape_of).collect(),
            aliases: ir
                .aliases
                .iter()
                .map(|a| LockedAlias {
                    name: a.name.clone(),
                    tool: a.tool.clone(),
                    set: a.set.clone(),
                    rename: a.rename.clone(),
                })
                .collect(),
            retired: ir
                .retired
                .iter()
                .map(|r| LockedRetired {
                    name: r.name.clone(),
                    message: r.message.clone(),
                    replaced_by: r.replaced_by.clone(),
                })
                .collect(),
            accepted: prior.map(|p| p.accepted.clone()).unwrap_or_default(),
            outputs: outputs::outputs_of(ir),
            sandboxes: sandbox::sandboxes_of(ir),
        }
    }

    /// The declared sandbox policy of `role`.
    pub fn sandbox(&self, role: &str) -> Option<&LockedSandbox> {
        self.sandboxes.iter().find(|s| s.role == role)
    }

    pub fn surface(&self, role: &str, family: &str) -> Option<&LockedSurface> {
        self.surfaces
            .iter()
            .find(|s| s.role == role && s.family == family)
    }
    /// Shapes, aliases and retired names are sorted by name (built and parsed that way).
    pub fn shape(&self, name: &str) -> Option<&ToolShape> {
        let i = self.shapes.binary_search_by(|s| s.name.as_str().cmp(name));
        i.ok().and_then(|i| self.shapes.get(i))
    }
    pub fn alias(&self, name: &str) -> Option<&LockedAlias> {
        let i = self.aliases.binary_search_by(|a| a.name.as_str().cmp(name));
        i.ok().and_then(|i| self.aliases.get(i))
    }
    pub fn retired(&self, name: &str) -> Option<&LockedRetired> {
        let i = self.retired.binary_search_by(|r| r.name.as_str().cmp(name));
        i.ok().and_then(|i| self.retired.get(i))
    }
    /// Roles in first-seen order.
    pub fn roles(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for s in &self.surfaces {
            if !out.contains(&s.role.as_str()) {
                out.push(&s.role);
            }
        }
        out
    }
    /// Families in first-seen order.
    pub fn families(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for s in &self.surfaces {
            if !out.contains(&s.family.as_str()) {
                out.push(&s.family);
            }
        }
        out
    }

    /// Whether the published surfaces, structure, aliases and retired names are the same
    /// (accepted records and token counts aside).
    pub fn same_surface(&self, other: &Lock) -> bool {
        type Key<'a> = (&'a str, &'a str, &'a str, Vec<(&'a str, Vec<&'a str>)>);
        fn key(l: &Lock) -> Vec<Key<'_>> {
            l.surfaces
                .iter()
                .map(|s| {
                    let skills = s
                        .skills
                        .iter()
                        .map(|k| {
                            (
                                k.name.as_str(),
                                k.tools.iter().map(|t| t.sha256.as_str()).collect(),
                            )
                        })
                        .collect();
                    (
                        s.role.as_str(),
                        s.family.as_str(),
                        s.sha256.as_str(),
                        skills,
                    )
                })
                .collect()
        }
        key(self) == key(other)
            && requests::same_requests(self, other)
            && self.shapes == other.shapes
            && self.aliases == other.aliases
            && self.retired == other.retired
            && self.outputs == other.outputs
            && self.sandboxes == other.sandboxes
    }

    /// The declared outputs of `tool`.
    pub fn output(&self, tool: &str) -> Option<&LockedOutput> {
        let i = self.outputs.binary_search_by(|o| o.tool.as_str().cmp(tool));
        i.ok().and_then(|i| self.outputs.get(i))
    }

    /// The lock file text.
    pub fn render(&self) -> String {
        let mut out = String::new();
        out.push_str(
            "# toolsurface surface lock: the published tool arrays, accepted with `toolsurface lock`.\n\
             # `toolsurface check` fails when the definitions no longer produce exactly this;\n\
             # `toolsurface diff` shows what changed. Generated: do not edit by hand.\n",
        );
        let _ = writeln!(out, "lock-format {}", self.format);
        let _ = writeln!(out, "token-encoding {}", self.encoding);
        // Distinct tool JSON, keyed by name + hash prefix, in order of first use, then by name.
        let mut blobs: Vec<(&str, &str, &str)> = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for s in &self.surfaces {
            out.push('\n');
            let _ = writeln!(out, "surface {} {}", s.role, s.family);
            let _ = writeln!(out, "  dialect {}", s.dialect);
            let _ = writeln!(out, "  sha256 {}", s.sha256);
            let _ = writeln!(out, "  bytes {}", s.bytes);
            let _ = writeln!(out, "  tokens {}", s.tokens);
            for t in &s.tools {
                let _ = writeln!(out, "  tool {} {}", t.name, key(&t.sha256));
            }
            for k in &s.skills {
                for t in &k.tools {
                    let _ = writeln!(out, "  skill {} {} {}", k.name, t.name, key(&t.sha256));
                }
            }
            requests::render(s, &mut out);
            for t in s.offered() {
                if seen.insert((t.name.as_str(), t.sha256.as_str())) {
                    blobs.push((&t.name, &t.sha256, &t.json));
                }
            }
        }
        blobs.sort_by_key(|(n, _, _)| *n);
        out.push('\n');
        for (name, sha, json) in blobs {
            let _ = writeln!(out, "json {name} {} {json}", key(sha));
        }
        for shape in &self.shapes {
            out.push('\n');
            let _ = writeln!(out, "shape {} {}", shape.name, to_json(shape));
            for (name, ty) in &shape.fields {
                let _ = writeln!(out, "  field {name} {}", to_json(ty));
            }
            for a in &shape.actions {
                let _ = writeln!(
                    out,
                    "  action {} {}",
                    a.name.as_deref().unwrap_or("-"),
                    to_json(a)
                );
            }
        }
        if !self.aliases.is_empty() {
            out.push('\n');
        }
        for a in &self.aliases {
            let _ = writeln!(out, "alias {} {}", a.name, to_json(a));
        }
        if !self.retired.is_empty() {
            out.push('\n');
        }
        for r in &self.retired {
            let _ = writeln!(out, "retired {} {}", r.name, to_json(r));
        }
        // Declared outputs before the accepted records, which stay last (the lock's history).
        outputs::render_outputs(&self.outputs, &mut out);
        sandbox::render_sandboxes(&self.sandboxes, &mut out);
        if !self.accepted.is_empty() {
            out.push('\n');
        }
        for a in &self.accepted {
            let _ = writeln!(out, "accepted {} {}", a.date, to_json(a));
        }
        out
    }

    /// Read a lock file.
    pub fn parse(text: &str) -> Result<Lock, LockError> {
        Parser::default().run(text)
    }
}

fn key(sha: &str) -> &str {
    sha.get(..KEY_LEN).unwrap_or(sha)
}

fn to_json<T: Serialize>(v: &T) -> String {
    // Serializing plain data (strings, numbers, maps with string keys) cannot fail.
    serde_json::to_string(v).unwrap_or_default()
}

fn shape_of(t: &ir::Tool) -> ToolShape {
    ToolShape {
        name: t.name.clone(),
        object: t.object.clone(),
        route: t.route.as_str().to_owned(),
        families: t.families.clone(),
        selector: t.selector.as_ref().map(|s| s.name.clone()),
        freeform: t.freeform.as_ref().map(|f| f.field.clone()),
        fields: t
            .fields
            .iter()
            .map(|f| (f.name.clone(), type_shape(&f.ty)))
            .collect(),
        actions: t
            .actions
            .iter()
            .map(|a| ActionShape {
                name: a.name.clone(),
                required: a.required.clone(),
                optional: a.optional.clone(),
                exactly_one_of: a.exactly_one_of.clone(),
                forbidden_with: a
                    .forbidden_with
                    .iter()
                    .map(|f| (f.field.clone(), f.with.clone()))
                    .collect(),
                defaults: a.defaults.clone(),
                traits: a
                    .traits
                    .iter()
                    .map(|(k, v)| {
                        let v = match v {
                            TraitValue::Bool(b) => serde_json::Value::Bool(*b),
                            TraitValue::Enum(s) => serde_json::Value::String(s.clone()),
                        };
                        (k.clone(), v)
                    })
                    .collect(),
            })
            .collect(),
    }
}

fn type_shape(ty: &ir::Type) -> TypeShape {
    match ty {
        ir::Type::String {
            min_length,
            max_length,
            pattern,
        } => TypeShape::String {
            min_length: *min_length,
            max_length: *max_length,
            pattern: pattern.clone(),
        },
        ir::Type::Integer { minimum, maximum } => TypeShape::Integer {
            minimum: *minimum,
            maximum: *maximum,
        },
        ir::Type::Number { minimum, maximum } => TypeShape::Number {
            minimum: *minimum,
            maximum: *maximum,
        },
        ir::Type::Boolean => TypeShape::Boolean,
        ir::Type::Enum { values } => TypeShape::Enum {
            values: values.clone(),
        },
        ir::Type::Array {
            items,
            min_items,
            max_items,
        } => TypeShape::Array {
            items: Box::new(type_shape(items)),
            min_items: *min_items,
            max_items: *max_items,
        },
        ir::Type::Object {
            properties,
            additional,
            ..
        } => TypeShape::Object {
            properties: properties
                .iter()
                .map(|p| PropertyShape {
                    name: p.name.clone(),
                    required: p.required,
                    schema: type_shape(&p.ty),
                })
                .collect(),
            additional: additional.as_deref().map(|t| Box::new(type_shape(t))),
        },
        ir::Type::Any => TypeShape::Any,
        ir::Type::Null => TypeShape::Null,
        ir::Type::Const { value, .. } => TypeShape::Const {
            value: value.clone(),
        },
        ir::Type::Union { form, branches } => TypeShape::Union {
            form: form.keyword().to_owned(),
            branches: branches.iter().map(type_shape).collect(),
        },
        // A shape's use is recorded as its definition: what a call may send. Its name is in
        // the published bytes (a `$ref`), whose hash the lock pins.
        ir::Type::Shape { ty, .. } => type_shape(ty),
        ir::Type::Annotated { ty, ann } => {
            let mut other = serde_json::Map::new();
            let mut put = |k: &str, v: Option<serde_json::Value>| {
                if let Some(v) = v {
                    other.insert(k.to_owned(), v);
                }
            };
            put(
                "description",
                ann.description.clone().map(serde_json::Value::String),
            );
            put("title", ann.title.clone().map(serde_json::Value::String));
            put(
                "examples",
                ann.examples.clone().map(serde_json::Value::Array),
            );
            for (k, v) in &ann.extra {
                put(k, Some(v.clone()));
            }
            put(
                "publish_type",
                ann.type_implied.then_some(serde_json::Value::Bool(false)),
            );
            put(
                "unlisted",
                ann.unlisted.then_some(serde_json::Value::Bool(true)),
            );
            TypeShape::Annotated {
                schema: Box::new(type_shape(ty)),
                default: ann.default.clone(),
                format: ann.format.clone(),
                other: (!other.is_empty()).then_some(serde_json::Value::Object(other)),
            }
        }
    }
}

#[derive(Default)]
struct Parser {
    format: Option<u32>,
    encoding: Option<String>,
    surfaces: Vec<LockedSurface>,
    /// (surface index, skill name or None, tool name, hash key, line)
    refs: Vec<(usize, Option<String>, String, String, usize)>,
    blobs: BTreeMap<(String, String), String>,
    shapes: Vec<ToolShape>,
    aliases: Vec<LockedAlias>,
    retired: Vec<LockedRetired>,
    accepted: Vec<Accepted>,
    outputs: Vec<LockedOutput>,
    sandboxes: Vec<LockedSandbox>,
    block: Block,
}

#[derive(Default, Clone, Copy)]
enum Block {
    #[default]
    None,
    Surface,
    Shape,
    Output,
}

fn err(line: usize, message: impl Into<String>) -> LockError {
    LockError {
        line,
        message: message.into(),
    }
}

/// The first `n` space-separated words and the rest of the line.
fn split(s: &str, n: usize) -> Option<(Vec<&str>, &str)> {
    let mut words = Vec::with_capacity(n);
    let mut rest = s;
    for _ in 0..n {
        let r = rest.trim_start_matches(' ');
        if r.is_empty() {
            return None;
        }
        let end = r.find(' ').unwrap_or(r.len());
        words.push(&r[..end]);
        rest = &r[end..];
    }
    Some((words, rest.trim_start_matches(' ')))
}

/// Whether a tool JSON of a lock file has a top-level `cache_control` member.
fn carries_breakpoint(json: &str) -> bool {
    #[derive(Deserialize)]
    struct Top {
        cache_control: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_str::<Top>(json).is_ok_and(|t| t.cache_control.is_some())
}

fn from_json<T: for<'de> Deserialize<'de>>(
    s: &str,
    line: usize,
    what: &str,
) -> Result<T, LockError> {
    serde_json::from_str(s).map_err(|e| err(line, format!("{what}: {e}")))
}

impl Parser {
    fn run(mut self, text: &str) -> Result<Lock, LockError> {
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            if raw.trim().is_empty() || raw.trim_start().starts_with('#') {
                continue;
            }
            if let Some(inner) = raw.strip_prefix("  ") {
                self.child(inner, line)?;
            } else {
                self.top(raw, line)?;
            }
        }
        let format = self.format.ok_or_else(|| err(1, "missing `lock-format`"))?;
        let encoding = self
            .encoding
            .ok_or_else(|| err(1, "missing `token-encoding`"))?;
        // Each distinct JSON is hashed once.
        let mut hashed: BTreeMap<(String, String), (String, String, bool)> = BTreeMap::new();
        for ((name, key), json) in std::mem::take(&mut self.blobs) {
            let sha = sha256_hex(json.as_bytes());
            let breakpoint = carries_breakpoint(&json);
            hashed.insert((name, key), (json, sha, breakpoint));
        }
        for (si, skill, name, key, line) in self.refs {
            let (json, sha256, breakpoint) = hashed
                .get(&(name.clone(), key.clone()))
                .ok_or_else(|| err(line, format!("no `json {name} {key}` line")))?
                .clone();
            if !sha256.starts_with(&key) {
                return Err(err(
                    line,
                    format!("the JSON of {name} does not hash to {key} (edited by hand?)"),
                ));
            }
            let tool = LockedTool {
                name,
                sha256,
                json,
                breakpoint,
            };
            let Some(surface) = self.surfaces.get_mut(si) else {
                continue;
            };
            match skill {
                None => surface.tools.push(tool),
                Some(k) => match surface.skills.iter_mut().find(|s| s.name == k) {
                    Some(s) => s.tools.push(tool),
                    None => surface.skills.push(LockedSkill {
                        name: k,
                        tools: vec![tool],
                    }),
                },
            }
        }
        for s in &self.surfaces {
            let array = s.array();
            if array.len() != s.bytes || sha256_hex(array.as_bytes()) != s.sha256 {
                return Err(err(
                    0,
                    format!(
                        "surface {} {}: its tools do not rebuild the recorded array (sha256/bytes)",
                        s.role, s.family
                    ),
                ));
            }
        }
        self.shapes.sort_by(|a, b| a.name.cmp(&b.name));
        self.aliases.sort_by(|a, b| a.name.cmp(&b.name));
        self.retired.sort_by(|a, b| a.name.cmp(&b.name));
        outputs::finish_outputs(&mut self.outputs);
        Ok(Lock {
            format,
            encoding,
            surfaces: self.surfaces,
            shapes: self.shapes,
            aliases: self.aliases,
            retired: self.retired,
            accepted: self.accepted,
            outputs: self.outputs,
            sandboxes: self.sandboxes,
        })
    }

    fn top(&mut self, raw: &str, line: usize) -> Result<(), LockError> {
        let (kw, _) = split(raw, 1).ok_or_else(|| err(line, "empty line"))?;
        let kw = kw.first().copied().unwrap_or_default();
        self.block = Block::None;
        let bad = || err(line, format!("malformed `{kw}` line"));
        match kw {
            "lock-format" => {
                let (w, _) = split(raw, 2).ok_or_else(bad)?;
                let v: u32 = w[1].parse().map_err(|_| bad())?;
                if v != FORMAT {
                    return Err(err(
                        line,
                        format!(
                            "lock format {v}; this toolsurface reads format {FORMAT} (run `toolsurface lock`)"
                        ),
                    ));
                }
                self.format = Some(v);
            }
            "token-encoding" => {
                let (w, _) = split(raw, 2).ok_or_else(bad)?;
                self.encoding = Some(w[1].to_owned());
            }
            "surface" => {
                let (w, _) = split(raw, 3).ok_or_else(bad)?;
                self.surfaces.push(LockedSurface {
                    role: w[1].to_owned(),
                    family: w[2].to_owned(),
                    dialect: String::new(),
                    sha256: String::new(),
                    bytes: 0,
                    tokens: 0,
                    tools: Vec::new(),
                    skills: Vec::new(),
                    strategy: SkillStrategy::Append,
                    requests: Vec::new(),
                });
                self.block = Block::Surface;
            }
            "json" => {
                let (w, rest) = split(raw, 3).ok_or_else(bad)?;
                self.blobs
                    .insert((w[1].to_owned(), w[2].to_owned()), rest.to_owned());
            }
            "shape" => {
                let (w, rest) = split(raw, 2).ok_or_else(bad)?;
                let mut shape: ToolShape = from_json(rest, line, "shape")?;
                shape.name = w[1].to_owned();
                self.shapes.push(shape);
                self.block = Block::Shape;
            }
            "alias" => {
                let (w, rest) = split(raw, 2).ok_or_else(bad)?;
                let mut a: LockedAlias = from_json(rest, line, "alias")?;
                a.name = w[1].to_owned();
                self.aliases.push(a);
            }
            "retired" => {
                let (w, rest) = split(raw, 2).ok_or_else(bad)?;
                let mut r: LockedRetired = from_json(rest, line, "retired")?;
                r.name = w[1].to_owned();
                self.retired.push(r);
            }
            "accepted" => {
                let (w, rest) = split(raw, 2).ok_or_else(bad)?;
                let mut a: Accepted = from_json(rest, line, "accepted")?;
                a.date = w[1].to_owned();
                self.accepted.push(a);
            }
            "output" => {
                self.outputs.push(outputs::parse_output(raw, line)?);
                self.block = Block::Output;
            }
            "sandbox" => self.sandboxes.push(sandbox::parse_sandbox(raw, line)?),
            other => return Err(err(line, format!("unknown entry `{other}`"))),
        }
        Ok(())
    }

    fn child(&mut self, inner: &str, line: usize) -> Result<(), LockError> {
        let (w, _) = split(inner, 1).ok_or_else(|| err(line, "empty line"))?;
        let kw = w.first().copied().unwrap_or_default();
        let bad = || err(line, format!("malformed `{kw}` line"));
        match self.block {
            Block::Surface => {
                let si = self.surfaces.len().saturating_sub(1);
                let Some(s) = self.surfaces.last_mut() else {
                    return Err(bad());
                };
                let num = |v: &str| v.parse::<usize>().map_err(|_| bad());
                match kw {
                    "dialect" => s.dialect = split(inner, 2).ok_or_else(bad)?.0[1].to_owned(),
                    "sha256" => s.sha256 = split(inner, 2).ok_or_else(bad)?.0[1].to_owned(),
                    "bytes" => s.bytes = num(split(inner, 2).ok_or_else(bad)?.0[1])?,
                    "tokens" => s.tokens = num(split(inner, 2).ok_or_else(bad)?.0[1])?,
                    "tool" => {
                        let (w, _) = split(inner, 3).ok_or_else(bad)?;
                        self.refs
                            .push((si, None, w[1].to_owned(), w[2].to_owned(), line));
                    }
                    "skill" => {
                        let (w, _) = split(inner, 4).ok_or_else(bad)?;
                        self.refs.push((
                            si,
                            Some(w[1].to_owned()),
                            w[2].to_owned(),
                            w[3].to_owned(),
                            line,
                        ));
                    }
                    "strategy" => {
                        let word = split(inner, 2).ok_or_else(bad)?.0[1];
                        s.strategy = requests::parse_strategy(word, line)?;
                    }
                    "request" => s.requests.push(requests::parse_request(inner, line)?),
                    other => return Err(err(line, format!("unknown surface entry `{other}`"))),
                }
            }
            Block::Shape => {
                let Some(shape) = self.shapes.last_mut() else {
                    return Err(bad());
                };
                let (w, rest) = split(inner, 2).ok_or_else(bad)?;
                match kw {
                    "field" => {
                        let ty: TypeShape = from_json(rest, line, "field")?;
                        shape.fields.push((w[1].to_owned(), ty));
                    }
                    "action" => {
                        let mut a: ActionShape = from_json(rest, line, "action")?;
                        a.name = (w[1] != "-").then(|| w[1].to_owned());
                        shape.actions.push(a);
                    }
                    other => return Err(err(line, format!("unknown shape entry `{other}`"))),
                }
            }
            Block::Output => {
                let Some(o) = self.outputs.last_mut() else {
                    return Err(bad());
                };
                outputs::parse_output_action(o, inner, line)?;
            }
            Block::None => return Err(err(line, "indented line outside a surface or shape")),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn standard() -> Lock {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tool-defs");
        let sources = crate::read_dir(&root).unwrap();
        let ir = crate::compile(&sources).ir.unwrap();
        let emitted = crate::emit::surfaces(&ir).unwrap();
        Lock::build(&ir, &emitted, None)
    }

    #[test]
    fn render_parse_round_trip_is_a_fixed_point() {
        let lock = standard();
        let text = lock.render();
        let back = Lock::parse(&text).unwrap();
        assert_eq!(back, lock);
        assert_eq!(back.render(), text);
        // The breakpoint (typed when built, read back when parsed: equal above) sits on the
        // last resident tool of every anthropic surface (tool-defs sets `cache_control: 5m`)
        // and nowhere else.
        for s in &back.surfaces {
            let at: Vec<usize> = (0..s.tools.len())
                .filter(|i| s.tools[*i].breakpoint)
                .collect();
            let want = if s.dialect == "anthropic" {
                vec![s.tools.len() - 1]
            } else {
                Vec::new()
            };
            assert_eq!(at, want, "{} {}", s.role, s.family);
            assert!(
                s.skills
                    .iter()
                    .flat_map(|k| &k.tools)
                    .all(|t| !t.breakpoint)
            );
        }
        // One tool JSON per line, each a valid JSON object.
        for l in text.lines().filter(|l| l.starts_with("json ")) {
            let (_, rest) = split(l, 3).unwrap();
            let _: serde_json::Value = serde_json::from_str(rest).unwrap();
        }
    }

    #[test]
    fn outputs_are_recorded_and_a_broken_output_line_is_refused() {
        let lock = standard();
        let text = lock.render();
        // Plain tools: one line; tools with actions: the published schema and each action's.
        assert!(text.contains("\noutput read_file {\"type\":\"object\",\"anyOf\":["));
        assert!(text.contains("\noutput shell_session {"));
        assert!(text.contains("\n  action poll {\"type\":\"object\""));
        let session = lock.output("shell_session").unwrap();
        assert_eq!(session.actions.len(), 6);
        assert!(lock.output("read_file").unwrap().action(None).is_some());
        let broken = text.replacen("\noutput read_file {", "\noutput read_file {{", 1);
        let e = Lock::parse(&broken).unwrap_err();
        assert!(e.message.starts_with("output: "), "{e}");
    }

    #[test]
    fn a_hand_edited_json_line_is_refused() {
        let text = standard().render();
        let edited = text.replacen("\"description\":\"", "\"description\":\"X", 1);
        let e = Lock::parse(&edited).unwrap_err();
        assert!(e.message.contains("does not hash"), "{e}");
    }
}
