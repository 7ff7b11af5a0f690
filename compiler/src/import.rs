//! Importing an existing tool surface: a provider's tools array (OpenAI Chat or Responses,
//! Anthropic, Gemini `functionDeclarations`, an MCP `tools/list` result) mapped onto the
//! definition language — one YAML file per tool, `roles.yaml` in the array's order and a
//! `surface.yaml` with the matching family — plus every construct the language cannot express,
//! named by its JSON pointer with the mapping chosen. And [`compare`]: what `emit` of the
//! imported folder still says differently from the input (the round trip's differences).
//!
//! Pure logic, no I/O: the CLI reads the input (a file, or a live MCP server) and writes the
//! files; `lint` and `merge` can reuse the mapping on schemas they hold.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde_json::{Map, Value};

mod extras;
mod roundtrip;

use crate::dialect::{self, DETECTION, DialectRules};

/// The shape of the input array: a provider dialect (the shared vocabulary, one declaration;
/// this name is kept for the CLI, which spells it `import::Shape`).
pub use crate::ir::Dialect as Shape;

/// The family name import writes into `surface.yaml` for an input of `shape` (the standard
/// surface's names: `chat`, `responses`, …).
pub fn family_name(shape: Shape) -> &'static str {
    dialect::rules(shape).family_name()
}

/// Something the language could not say as the input said it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub tool: String,
    /// JSON pointer into the input document.
    pub pointer: String,
    pub message: String,
}

/// One file of the definitions folder, relative to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct File {
    pub path: String,
    pub text: String,
}

#[derive(Clone, Debug)]
pub struct Imported {
    pub shape: Shape,
    /// Whether the input was OpenAI strict (the family is written `strict: true`).
    pub strict: bool,
    /// Tool names in input order (after any renaming).
    pub tools: Vec<String>,
    /// Per tool, the input tool object and its pointer (for [`compare`]).
    pub inputs: Vec<(String, Value)>,
    pub files: Vec<File>,
    pub notes: Vec<Note>,
    /// The input tools not imported at all (a round-trip difference each).
    pub dropped: Vec<Note>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    #[error("the input is not a tools array of a known shape: {0}")]
    Shape(String),
    #[error("tool {pointer}: {message}")]
    Tool { pointer: String, message: String },
}

/// Options of one import.
#[derive(Clone, Debug)]
pub struct Options {
    pub role: String,
    /// Force the shape instead of detecting it.
    pub shape: Option<Shape>,
    /// Where the input came from, for the header comments.
    pub source: String,
}

/// The input's tools, each with its JSON pointer.
pub type PointedTools<'a> = Vec<(String, &'a Value)>;

/// The tools of the input with their pointers, and the shape.
pub fn tools_of(
    doc: &Value,
    forced: Option<Shape>,
) -> Result<(Shape, PointedTools<'_>), ImportError> {
    let (prefix, list): (String, Vec<&Value>) = match doc {
        Value::Array(a) => {
            if let Some((wrapping, key)) = wrapper(a) {
                let mut out = Vec::new();
                for (i, t) in a.iter().enumerate() {
                    if let Some(Value::Array(decls)) = t.get(key) {
                        for (j, d) in decls.iter().enumerate() {
                            out.push((format!("/{i}/{key}/{j}"), d));
                        }
                    }
                }
                return Ok((forced.unwrap_or(wrapping), out));
            }
            (String::new(), a.iter().collect())
        }
        Value::Object(o) => {
            let bare = DETECTION
                .into_iter()
                .filter_map(|d| dialect::rules(d).declarations_key())
                .find_map(|key| match o.get(key) {
                    Some(Value::Array(d)) => Some((key, d)),
                    _ => None,
                });
            if let Some(Value::Array(t)) = o.get("tools") {
                if wrapper(t).is_some() {
                    let (shape, inner) = tools_of(&o["tools"], forced)?;
                    return Ok((
                        shape,
                        inner
                            .into_iter()
                            .map(|(p, v)| (format!("/tools{p}"), v))
                            .collect(),
                    ));
                }
                ("/tools".to_owned(), t.iter().collect())
            } else if let Some((key, d)) = bare {
                (format!("/{key}"), d.iter().collect())
            } else if let Some(Value::Array(t)) = o.get("result").and_then(|r| r.get("tools")) {
                // A JSON-RPC tools/list response.
                ("/result/tools".to_owned(), t.iter().collect())
            } else {
                return Err(ImportError::Shape(
                    "an object without `tools` or `functionDeclarations`".into(),
                ));
            }
        }
        _ => return Err(ImportError::Shape("not an array or object".into())),
    };
    let shape = match forced {
        Some(s) => s,
        None => detect(&list)?,
    };
    Ok((
        shape,
        list.into_iter()
            .enumerate()
            .map(|(i, v)| (format!("{prefix}/{i}"), v))
            .collect(),
    ))
}

/// The dialect that wraps its tools in `list`'s entries, and the wrapping member (Gemini:
/// `[{"functionDeclarations": [...]}, ...]`).
fn wrapper(list: &[Value]) -> Option<(Shape, &'static str)> {
    DETECTION.into_iter().find_map(|d| {
        let key = dialect::rules(d).declarations_key()?;
        list.iter()
            .any(|t| t.get(key).is_some())
            .then_some((d, key))
    })
}

/// A provider-hosted (server) tool: a `type` other than a function's, and no schema of its own
/// (`local_shell`, `web_search`, Anthropic's versioned `bash_20250124`, `text_editor_…`).
pub fn is_hosted(t: &Value) -> bool {
    let Some(ty) = t.get("type").and_then(Value::as_str) else {
        return false;
    };
    !matches!(ty, "function" | "custom" | "tool_search")
        && ["function", "inputSchema", "input_schema", "parameters"]
            .iter()
            .all(|k| t.get(*k).is_none())
}

/// The shape, read from the first tool that is not provider-hosted (a hosted tool's shape is
/// its `type`: a versioned Anthropic name such as `bash_20250124`, else a Responses one).
fn detect(list: &[&Value]) -> Result<Shape, ImportError> {
    if list.is_empty() {
        return Err(ImportError::Shape("the array is empty".into()));
    }
    let Some(first) = list.iter().find(|t| !is_hosted(t)) else {
        let ty = |t: &Value| t.get("type").and_then(Value::as_str).map(str::to_owned);
        return DETECTION
            .into_iter()
            .find(|d| {
                list.iter()
                    .all(|t| dialect::rules(*d).hosts_tool(&ty(t).unwrap_or_default()))
            })
            .ok_or_else(|| ImportError::Shape("provider-hosted tools of no known dialect".into()));
    };
    DETECTION
        .into_iter()
        .find(|d| dialect::rules(*d).recognises(first))
        .ok_or_else(|| {
            ImportError::Shape(
                "the first tool has none of function, inputSchema, input_schema, type, parameters"
                    .into(),
            )
        })
}

// --- The mapping --------------------------------------------------------------------------------

/// A field type as the language writes it.
#[derive(Clone, Debug, PartialEq)]
enum DefType {
    String {
        min: Option<u64>,
        max: Option<u64>,
        pattern: Option<String>,
    },
    Integer {
        min: Option<i64>,
        max: Option<i64>,
    },
    Number {
        min: Option<f64>,
        max: Option<f64>,
    },
    Boolean,
    Enum(Vec<String>),
    Array {
        items: Box<DefType>,
        min: Option<u64>,
        max: Option<u64>,
    },
    Object(Vec<DefProp>),
}

#[derive(Clone, Debug, PartialEq)]
struct DefProp {
    name: String,
    ty: DefType,
    description: String,
    required: bool,
}

struct DefAction {
    name: String,
    description: String,
    required: Vec<String>,
    optional: Vec<String>,
    /// The input's examples that call this action.
    examples: Vec<Value>,
}

struct DefTool {
    name: String,
    description: String,
    fields: Vec<DefProp>,
    /// `None`: a plain tool (the required/optional of `fields`).
    selector: Option<(String, Vec<DefAction>)>,
    freeform: Option<(String, String)>,
    traits: Vec<(&'static str, bool)>,
    /// The MCP display title as the input wrote it (`title`, else `annotations.title`).
    title: Option<String>,
    /// Examples, output and icon (`extras.examples` are a plain tool's; a tool with actions
    /// hands each to its action).
    extras: extras::Extras,
}

/// The walk over one tool's schema, collecting notes.
struct Mapper<'n> {
    tool: String,
    notes: &'n mut Vec<Note>,
    root: &'n Value,
    strict: bool,
    depth: usize,
}

/// Keys mapped or deliberately ignored; anything else is reported.
const KNOWN_KEYS: &[&str] = &[
    "type",
    "description",
    "enum",
    "const",
    "properties",
    "required",
    "items",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "additionalProperties",
    "anyOf",
    "oneOf",
    "nullable",
    "$ref",
    "$schema",
    "$defs",
    "definitions",
    "title",
];

impl Mapper<'_> {
    fn note(&mut self, pointer: &str, message: impl Into<String>) {
        self.notes.push(Note {
            tool: self.tool.clone(),
            pointer: pointer.to_owned(),
            message: message.into(),
        });
    }

    /// Map one schema node; `ptr` is its pointer in the input.
    fn ty(&mut self, v: &Value, ptr: &str) -> DefType {
        self.depth += 1;
        let t = self.ty_inner(v, ptr);
        self.depth -= 1;
        t
    }

    /// The constructs are decided in this order (`$ref`, unions, type, const, enum, then the
    /// plain types), and the order is the mapping: each step is one method below.
    fn ty_inner(&mut self, v: &Value, ptr: &str) -> DefType {
        let Some(o) = v.as_object() else {
            self.note(ptr, "a schema that is not an object: mapped to a string");
            return string_type();
        };
        for k in o.keys() {
            if !KNOWN_KEYS.contains(&k.as_str()) {
                self.note(
                    &format!("{ptr}/{}", escape(k)),
                    format!("`{k}` has no equivalent in the definition language: dropped"),
                );
            }
        }
        if let Some(r) = o.get("$ref") {
            return self.ref_inlined_or_string(r, ptr);
        }
        for union in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = o.get(union) {
                return self.union_as_its_first_non_null_branch(union, branches, o, ptr);
            }
        }
        let ty_name = self.json_type_name_of(o, ptr);
        if let Some(c) = o.get("const") {
            return self.const_as_one_value_enum(c, &ty_name, o, ptr);
        }
        if let Some(Value::Array(all)) = o.get("enum")
            && let Some(strings) = self.enum_of_strings_without_null(all, ptr)
        {
            return DefType::Enum(strings);
        }
        self.plain(&ty_name, o, ptr)
    }

    /// A `$ref` into the input document, inlined (the language has no references); a
    /// recursive or unresolvable one is reported and mapped to a stand-in.
    fn ref_inlined_or_string(&mut self, r: &Value, ptr: &str) -> DefType {
        let target = r.as_str().unwrap_or("");
        if self.depth > 16 {
            self.note(
                ptr,
                format!("recursive `$ref` {target}: mapped to an empty object"),
            );
            return DefType::Object(Vec::new());
        }
        let resolved = target
            .strip_prefix('#')
            .and_then(|p| self.root.pointer(p))
            .cloned();
        match resolved {
            Some(inner) => {
                self.note(
                    ptr,
                    format!("`$ref` {target}: inlined (the language has no references)"),
                );
                self.ty(&inner, ptr)
            }
            None => {
                self.note(
                    ptr,
                    format!("`$ref` {target} cannot be resolved: mapped to a string"),
                );
                string_type()
            }
        }
    }

    /// `anyOf`/`oneOf`: the first non-null branch (carrying the union's description); more
    /// than one, or a dropped null outside strict mode, is reported.
    fn union_as_its_first_non_null_branch(
        &mut self,
        union: &str,
        branches: &[Value],
        o: &Map<String, Value>,
        ptr: &str,
    ) -> DefType {
        let non_null: Vec<(usize, &Value)> = branches
            .iter()
            .enumerate()
            .filter(|(_, b)| b.get("type").and_then(Value::as_str) != Some("null"))
            .collect();
        let Some((i, first)) = non_null.first().copied() else {
            self.note(ptr, format!("`{union}` of only null: mapped to a string"));
            return string_type();
        };
        if non_null.len() > 1 {
            self.note(
                &format!("{ptr}/{union}"),
                format!(
                    "a union without a discriminator ({} branches): mapped to its first branch",
                    non_null.len()
                ),
            );
        } else if non_null.len() < branches.len() && !self.strict {
            self.note(
                &format!("{ptr}/{union}"),
                "a union with null: mapped to the non-null branch (absent = null)",
            );
        }
        let mut merged = first.clone();
        if let (Some(m), Some(d)) = (merged.as_object_mut(), o.get("description")) {
            m.entry("description").or_insert_with(|| d.clone());
        }
        self.ty(&merged, &format!("{ptr}/{union}/{i}"))
    }

    /// The JSON type the node is mapped as: its `type` (the first non-null of a list), else
    /// what its keys imply, else a string (reported).
    fn json_type_name_of(&mut self, o: &Map<String, Value>, ptr: &str) -> String {
        match o.get("type") {
            Some(Value::String(s)) => {
                let lower = s.to_ascii_lowercase();
                match non_standard_type(&lower) {
                    Some(standard) => {
                        self.note(
                            &format!("{ptr}/type"),
                            format!("type `{s}` (BFCL's spelling): mapped to `{standard}`"),
                        );
                        standard.to_owned()
                    }
                    None => lower,
                }
            }
            Some(Value::Array(list)) => {
                let names: Vec<String> = list
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_ascii_lowercase)
                    .filter(|s| s != "null")
                    .collect();
                if names.len() > 1 {
                    self.note(
                        &format!("{ptr}/type"),
                        format!("a type union {names:?}: mapped to {}", names[0]),
                    );
                } else if names.len() < list.len() && !self.strict {
                    self.note(
                        &format!("{ptr}/type"),
                        "a nullable type: mapped to the type (absent = null)",
                    );
                }
                names
                    .into_iter()
                    .next()
                    .unwrap_or_else(|| "string".to_owned())
            }
            _ => {
                if o.contains_key("properties") {
                    "object".to_owned()
                } else if o.contains_key("items") {
                    "array".to_owned()
                } else if o.contains_key("enum") || o.contains_key("const") {
                    "string".to_owned()
                } else {
                    self.note(ptr, "no `type`: mapped to a string");
                    "string".to_owned()
                }
            }
        }
    }

    /// A string `const` is a one-value enum; any other is dropped and the node mapped as its
    /// plain type.
    fn const_as_one_value_enum(
        &mut self,
        c: &Value,
        ty_name: &str,
        o: &Map<String, Value>,
        ptr: &str,
    ) -> DefType {
        match c.as_str() {
            Some(s) => {
                self.note(
                    &format!("{ptr}/const"),
                    "`const`: mapped to a one-value enum",
                );
                DefType::Enum(vec![s.to_owned()])
            }
            None => {
                self.note(
                    &format!("{ptr}/const"),
                    format!("a non-string `const` {c}: dropped"),
                );
                self.plain(ty_name, o, ptr)
            }
        }
    }

    /// An `enum`'s values when all (but a null) are strings; otherwise `None`, reported, and
    /// the node is mapped as its plain type.
    fn enum_of_strings_without_null(&mut self, all: &[Value], ptr: &str) -> Option<Vec<String>> {
        // A null among the values is the nullable form (OpenAI strict): absent = null.
        let values: Vec<&Value> = all.iter().filter(|v| !v.is_null()).collect();
        if values.len() < all.len() && !self.strict {
            self.note(
                &format!("{ptr}/enum"),
                "null among the enum values: mapped to an optional enum (absent = null)",
            );
        }
        let strings: Vec<String> = values
            .iter()
            .filter_map(|v| v.as_str())
            .map(str::to_owned)
            .collect();
        if strings.len() == values.len() && !strings.is_empty() {
            return Some(strings);
        }
        self.note(
            &format!("{ptr}/enum"),
            "an enum of non-string values: dropped (the language's enums are strings)",
        );
        None
    }

    /// One arm per JSON type, each with the bounds the language keeps (a table, read as one).
    fn plain(&mut self, ty_name: &str, o: &Map<String, Value>, ptr: &str) -> DefType {
        let uint = |k: &str| o.get(k).and_then(Value::as_u64);
        match ty_name {
            "string" => DefType::String {
                min: uint("minLength").filter(|n| *n > 0),
                max: uint("maxLength"),
                pattern: o.get("pattern").and_then(Value::as_str).map(str::to_owned),
            },
            "integer" => self.integer_with_exclusive_bounds_made_inclusive(o, ptr),
            "number" => {
                let num = |k: &str| o.get(k).and_then(Value::as_f64);
                for k in ["exclusiveMinimum", "exclusiveMaximum"] {
                    if o.contains_key(k) {
                        self.note(
                            &format!("{ptr}/{k}"),
                            format!("`{k}` on a number: mapped to the inclusive bound"),
                        );
                    }
                }
                DefType::Number {
                    min: num("minimum").or(num("exclusiveMinimum")),
                    max: num("maximum").or(num("exclusiveMaximum")),
                }
            }
            "boolean" => DefType::Boolean,
            "array" => self.array_of_its_items(o, ptr),
            "object" => {
                match o.get("additionalProperties") {
                    None | Some(Value::Bool(false)) => {}
                    Some(other) => self.note(
                        &format!("{ptr}/additionalProperties"),
                        format!("`additionalProperties: {}`: the language's objects are strict; only the declared properties are kept", short(other)),
                    ),
                }
                DefType::Object(self.props(o, ptr))
            }
            "null" => {
                self.note(ptr, "type null: mapped to a string");
                string_type()
            }
            other => {
                self.note(
                    &format!("{ptr}/type"),
                    format!("type `{other}`: mapped to a string"),
                );
                string_type()
            }
        }
    }

    /// An integer's bounds; an exclusive bound becomes the inclusive one next to it (reported).
    fn integer_with_exclusive_bounds_made_inclusive(
        &mut self,
        o: &Map<String, Value>,
        ptr: &str,
    ) -> DefType {
        let int = |k: &str| {
            o.get(k)
                .and_then(|v| v.as_i64().or_else(|| v.as_f64().map(|f| f.ceil() as i64)))
        };
        let mut min = int("minimum");
        let mut max = int("maximum");
        if let Some(x) = int("exclusiveMinimum") {
            min = Some(x.saturating_add(1));
            self.note(
                &format!("{ptr}/exclusiveMinimum"),
                format!(
                    "`exclusiveMinimum` {x}: mapped to minimum {}",
                    x.saturating_add(1)
                ),
            );
        }
        if let Some(x) = int("exclusiveMaximum") {
            max = Some(x.saturating_sub(1));
            self.note(
                &format!("{ptr}/exclusiveMaximum"),
                format!(
                    "`exclusiveMaximum` {x}: mapped to maximum {}",
                    x.saturating_sub(1)
                ),
            );
        }
        DefType::Integer { min, max }
    }

    /// An array of its `items` (a string array when it has none, reported) with its length
    /// bounds.
    fn array_of_its_items(&mut self, o: &Map<String, Value>, ptr: &str) -> DefType {
        let uint = |k: &str| o.get(k).and_then(Value::as_u64);
        let items = match o.get("items") {
            Some(i) => {
                if i.get("description").is_some() {
                    self.note(
                        &format!("{ptr}/items/description"),
                        "array items carry no description in the language: dropped",
                    );
                }
                self.ty(i, &format!("{ptr}/items"))
            }
            None => {
                self.note(
                    ptr,
                    "an array without `items`: mapped to an array of strings",
                );
                string_type()
            }
        };
        DefType::Array {
            items: Box::new(items),
            min: uint("minItems").filter(|n| *n > 0),
            max: uint("maxItems"),
        }
    }

    /// An object's properties (names checked, required marked).
    fn props(&mut self, o: &Map<String, Value>, ptr: &str) -> Vec<DefProp> {
        let required: BTreeSet<&str> = o
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut out: Vec<DefProp> = Vec::new();
        let Some(Value::Object(props)) = o.get("properties") else {
            return out;
        };
        for (name, schema) in props {
            let p = format!("{ptr}/properties/{}", escape(name));
            let mut field_name = name.clone();
            if !crate::load::read::is_field_name(name) {
                field_name = snake_name(name);
                self.note(
                    &p,
                    format!("property name `{name}` is outside what every provider accepts (^[a-zA-Z0-9_.-]{{1,64}}$): renamed to `{field_name}` (calls must use the new name)"),
                );
            }
            while out.iter().any(|f| f.name == field_name) {
                field_name.push('_');
            }
            let nullable = is_nullable(schema);
            let mut req = required.contains(name.as_str());
            if self.strict && nullable && req {
                req = false;
            }
            let description = schema
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .or_else(|| first_branch_description(schema))
                .unwrap_or_default();
            let ty = self.ty(schema, &p);
            out.push(DefProp {
                name: field_name,
                ty,
                description,
                required: req,
            });
        }
        for r in &required {
            if !props.contains_key(*r) {
                self.note(
                    &format!("{ptr}/required"),
                    format!("required `{r}` is not a property: dropped"),
                );
            }
        }
        out
    }
}

/// A non-standard type name some surfaces write (BFCL's Python spellings), with the JSON
/// Schema type it means.
fn non_standard_type(lower: &str) -> Option<&'static str> {
    match lower {
        "dict" => Some("object"),
        "float" => Some("number"),
        "tuple" => Some("array"),
        _ => None,
    }
}

fn first_branch_description(schema: &Value) -> Option<String> {
    ["anyOf", "oneOf"].iter().find_map(|u| {
        schema.get(*u)?.as_array()?.iter().find_map(|b| {
            b.get("description")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
    })
}

fn is_nullable(schema: &Value) -> bool {
    let in_type = schema
        .get("type")
        .and_then(Value::as_array)
        .is_some_and(|t| t.iter().any(|x| x == "null"));
    let in_union = ["anyOf", "oneOf"].iter().any(|u| {
        schema.get(*u).and_then(Value::as_array).is_some_and(|b| {
            b.iter()
                .any(|x| x.get("type").and_then(Value::as_str) == Some("null"))
        })
    });
    in_type || in_union || schema.get("nullable") == Some(&Value::Bool(true))
}

fn string_type() -> DefType {
    DefType::String {
        min: None,
        max: None,
        pattern: None,
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s
    }
}

/// A JSON pointer segment.
fn escape(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// `^[a-z][a-z0-9_]{0,63}$`.
pub fn valid_name(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 64
        && b[0].is_ascii_lowercase()
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'_')
}

/// `oldText` → `old_text`, `list-files` → `list_files`, `2fa` → `n2fa`.
pub fn snake_name(s: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in s.chars() {
        if c.is_ascii_uppercase() {
            if prev_lower {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            prev_lower = false;
        } else if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
            prev_lower = true;
        } else {
            if !out.ends_with('_') && !out.is_empty() {
                out.push('_');
            }
            prev_lower = false;
        }
    }
    let mut out = out.trim_matches('_').to_owned();
    if !out.starts_with(|c: char| c.is_ascii_lowercase()) {
        out.insert(0, 'n');
    }
    out.truncate(64);
    out
}

/// A tool with no definition of its own to import: the note saying why, and the round-trip
/// difference its absence is. A tool the dialect says has none (the Responses client
/// `tool_search`, which the compiler publishes `activate_skill` as under `skills: defer`), or a
/// provider-hosted tool.
fn not_importable(rules: &dyn DialectRules, ptr: &str, t: &Value) -> Option<(Note, Note)> {
    let note = |message: String| Note {
        tool: String::new(),
        pointer: ptr.to_owned(),
        message,
    };
    if let Some((why, gone)) = rules.not_importable(t) {
        return Some((note(why), note(gone)));
    }
    let ty = t.get("type").and_then(Value::as_str).unwrap_or_default();
    is_hosted(t).then(|| {
        (
            note(format!(
                "the provider-hosted tool `{ty}` has no definition to import (the language has \
                 no pass-through entry yet): dropped"
            )),
            note(format!("the provider-hosted tool `{ty}` is not published")),
        )
    })
}

/// Import `doc`: the definitions folder's files and every note.
pub fn import(doc: &Value, opts: &Options) -> Result<Imported, ImportError> {
    let (shape, tools) = tools_of(doc, opts.shape)?;
    import_tools((shape, dialect::rules(shape)), &tools, opts)
}

/// Import `tools` read by `rules`, the input tagged `shape` (a dialect the [`Shape`] enum need
/// not name reads through the same code: the test dialect of `dialect/tests.rs`).
pub(crate) fn import_tools(
    (shape, rules): (Shape, &dyn DialectRules),
    tools: &[(String, &Value)],
    opts: &Options,
) -> Result<Imported, ImportError> {
    if tools.is_empty() {
        return Err(ImportError::Shape("no tools".into()));
    }
    let mut notes = Vec::new();
    let mut dropped = Vec::new();
    let mut defs: Vec<DefTool> = Vec::new();
    let mut inputs = Vec::new();
    let strict = rules.reads_strict(tools);
    for (ptr, t) in tools {
        if let Some((why, gone)) = not_importable(rules, ptr, t) {
            notes.push(why);
            dropped.push(gone);
            continue;
        }
        let def = import_tool(rules, strict, ptr, t, &mut notes)?;
        if defs.iter().any(|d| d.name == def.name) {
            return Err(ImportError::Tool {
                pointer: ptr.clone(),
                message: format!("a second tool named {}", def.name),
            });
        }
        inputs.push((ptr.clone(), (*t).clone()));
        defs.push(def);
    }
    let limits = limits_the_input_needs(&defs);
    if limits != crate::ir::Limits::default() {
        notes.push(Note {
            tool: String::new(),
            pointer: String::new(),
            message: format!(
                "the input needs `limits: {{ max_tools: {}, max_description_chars: {} }}` (over \
                 the defaults {} and {}): written into surface.yaml; `check` warns where a \
                 provider refuses them",
                limits.max_tools,
                limits.max_description_chars,
                crate::ir::Limits::default().max_tools,
                crate::ir::Limits::default().max_description_chars
            ),
        });
    }
    let mut files = Vec::new();
    files.push(File {
        path: "surface.yaml".into(),
        text: surface_yaml(
            (shape, rules),
            strict,
            opts,
            defs.iter().any(|d| !d.traits.is_empty()),
            defs.iter().any(|d| d.extras.output.is_some()),
            limits,
            tools.iter().any(|(_, t)| rules.uses_json_schema_key(t)),
        ),
    });
    files.push(File {
        path: "roles.yaml".into(),
        text: roles_yaml(&defs, opts),
    });
    for d in &defs {
        if let Some((syntax, grammar)) = &d.freeform {
            let ext = if syntax == "lark" { "lark" } else { "txt" };
            files.push(File {
                path: format!("grammars/{}.{ext}", d.name),
                text: grammar.clone(),
            });
        }
        files.push(File {
            path: format!("tools/{}.yaml", d.name),
            text: tool_yaml(d, rules, &opts.source),
        });
    }
    Ok(Imported {
        shape,
        strict,
        tools: defs.iter().map(|d| d.name.clone()).collect(),
        inputs,
        files,
        notes,
        dropped,
    })
}

/// The limits the imported definitions need: the defaults, raised to the tool count and the
/// longest description (tool, field, nested property or action) where those exceed them.
fn limits_the_input_needs(defs: &[DefTool]) -> crate::ir::Limits {
    fn longest_in(props: &[DefProp]) -> usize {
        props
            .iter()
            .map(|p| {
                let nested = match &p.ty {
                    DefType::Object(inner) => longest_in(inner),
                    DefType::Array { items, .. } => match items.as_ref() {
                        DefType::Object(inner) => longest_in(inner),
                        _ => 0,
                    },
                    _ => 0,
                };
                p.description.chars().count().max(nested)
            })
            .max()
            .unwrap_or(0)
    }
    let longest = defs
        .iter()
        .map(|d| {
            let actions = d.selector.iter().flat_map(|(_, a)| a);
            let action = actions
                .map(|a| a.description.chars().count())
                .max()
                .unwrap_or(0);
            d.description
                .chars()
                .count()
                .max(longest_in(&d.fields))
                .max(action)
        })
        .max()
        .unwrap_or(0);
    let default = crate::ir::Limits::default();
    crate::ir::Limits {
        max_tools: default.max_tools.max(defs.len()),
        max_description_chars: default.max_description_chars.max(longest),
    }
}

/// One input tool → its definition: find its body and name, report keys without an
/// equivalent, then map either a Responses freeform tool or the input schema's fields.
fn import_tool(
    rules: &dyn DialectRules,
    strict: bool,
    ptr: &str,
    t: &Value,
    notes: &mut Vec<Note>,
) -> Result<DefTool, ImportError> {
    let (body, body_ptr) = rules.tool_body(ptr, t)?;
    let raw_name = body
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| ImportError::Tool {
            pointer: body_ptr.clone(),
            message: "no `name` string".into(),
        })?;
    let mut local = Vec::new();
    let name = tool_name_renamed_when_invalid(raw_name, &body_ptr, &mut local);
    let description = body
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let schema_key = rules.schema_key(&name, body, &body_ptr, &mut local);
    note_tool_keys_without_equivalent(rules, &name, body, &body_ptr, &mut local);
    notes.append(&mut local);
    if rules.is_freeform(t) {
        return Ok(responses_custom_tool_as_freeform(
            name,
            description,
            ptr,
            t,
            notes,
        ));
    }
    let empty = Value::Object(Map::new());
    let schema = body.get(schema_key).unwrap_or(&empty);
    let schema_ptr = format!("{body_ptr}/{schema_key}");
    let tool_extras = extras::read(rules, &name, body, &body_ptr, notes);
    let mut m = Mapper {
        tool: name.clone(),
        notes,
        root: schema,
        strict,
        depth: 0,
    };
    let mut tool = DefTool {
        name: name.clone(),
        description,
        fields: Vec::new(),
        selector: None,
        freeform: None,
        traits: Vec::new(),
        title: None,
        extras: extras::Extras::default(),
    };
    if let Some((sel, actions, fields)) = selector_of(&mut m, schema, &schema_ptr) {
        tool.fields = fields;
        tool.selector = Some((sel, actions));
    } else {
        tool.fields = fields_of_a_plain_object_root(&mut m, schema, &schema_ptr);
    }
    (tool.traits, tool.title) = rules.read_traits_and_title(t, &name);
    tool.extras = tool_extras;
    examples_to_actions(&mut tool, notes);
    Ok(tool)
}

/// The tool's name as written; snake-cased (and reported) only when no provider would take it.
fn tool_name_renamed_when_invalid(raw_name: &str, body_ptr: &str, local: &mut Vec<Note>) -> String {
    if crate::load::read::is_tool_name(raw_name) {
        return raw_name.to_owned();
    }
    let name = snake_name(raw_name);
    local.push(Note {
        tool: name.clone(),
        pointer: format!("{body_ptr}/name"),
        message: format!(
            "tool name `{raw_name}` is outside what every provider accepts (^[a-zA-Z0-9_-]{{1,64}}$): renamed to `{name}`"
        ),
    });
    name
}

/// Reports every key of the tool body that neither the shape nor its extras map.
fn note_tool_keys_without_equivalent(
    rules: &dyn DialectRules,
    name: &str,
    body: &Value,
    body_ptr: &str,
    local: &mut Vec<Note>,
) {
    let Some(o) = body.as_object() else {
        return;
    };
    for k in o.keys() {
        let k_str = k.as_str();
        if !rules.tool_keys().contains(&k_str) && !rules.extras_keys().contains(&k_str) {
            local.push(Note {
                tool: name.to_owned(),
                pointer: format!("{body_ptr}/{}", escape(k)),
                message: format!("`{k}` has no equivalent in the definition language: dropped"),
            });
        }
    }
}

/// A Responses custom (freeform) tool: its grammar when it has one, else one string field
/// `input` (reported).
fn responses_custom_tool_as_freeform(
    name: String,
    description: String,
    ptr: &str,
    t: &Value,
    notes: &mut Vec<Note>,
) -> DefTool {
    let format = t.get("format");
    let grammar = format
        .filter(|f| f.get("type").and_then(Value::as_str) == Some("grammar"))
        .and_then(|f| {
            Some((
                f.get("syntax")?.as_str()?.to_owned(),
                f.get("definition")?.as_str()?.to_owned(),
            ))
        });
    if grammar.is_none() {
        notes.push(Note {
            tool: name.clone(),
            pointer: format!("{ptr}/format"),
            message: "a custom tool without a grammar: mapped to a function tool with one string field `input`".into(),
        });
    }
    DefTool {
        name,
        description,
        fields: vec![DefProp {
            name: "input".into(),
            ty: string_type(),
            description: String::new(),
            required: true,
        }],
        selector: None,
        freeform: grammar,
        traits: Vec::new(),
        title: None,
        extras: extras::Extras::default(),
    }
}

/// The fields of a tool without actions: the root object's properties, with what the root
/// says beyond them (another type, unknown keys, open `additionalProperties`) reported.
fn fields_of_a_plain_object_root(
    m: &mut Mapper<'_>,
    schema: &Value,
    schema_ptr: &str,
) -> Vec<DefProp> {
    let root = schema.as_object().cloned().unwrap_or_default();
    if let Some(t) = root.get("type").and_then(Value::as_str)
        && !t.eq_ignore_ascii_case("object")
    {
        let message = if non_standard_type(&t.to_ascii_lowercase()) == Some("object") {
            format!("type `{t}` (BFCL's spelling): mapped to `object`")
        } else {
            format!("a root of type `{t}`: tools take an object; read as one")
        };
        m.note(&format!("{schema_ptr}/type"), message);
    }
    for k in root.keys() {
        if ![
            "type",
            "properties",
            "required",
            "additionalProperties",
            "$schema",
            "$defs",
            "definitions",
            "description",
            "title",
        ]
        .contains(&k.as_str())
        {
            m.note(
                &format!("{schema_ptr}/{}", escape(k)),
                format!("`{k}` at the root has no equivalent: dropped"),
            );
        }
    }
    if let Some(extra) = root
        .get("additionalProperties")
        .filter(|v| **v != Value::Bool(false))
    {
        m.note(
            &format!("{schema_ptr}/additionalProperties"),
            format!(
                "`additionalProperties: {}`: the language refuses undeclared fields",
                short(extra)
            ),
        );
    }
    m.props(&root, schema_ptr)
}

/// A tool with actions: each example goes to the action its selector names (one that names
/// none, or an unknown one, is reported and dropped).
fn examples_to_actions(tool: &mut DefTool, notes: &mut Vec<Note>) {
    let Some((sel, actions)) = &mut tool.selector else {
        return;
    };
    for (ptr, ex) in std::mem::take(&mut tool.extras.examples) {
        let named = ex.get(sel.as_str()).and_then(Value::as_str);
        match actions.iter_mut().find(|a| Some(a.name.as_str()) == named) {
            Some(a) => a.examples.push(ex),
            None => notes.push(Note {
                tool: tool.name.clone(),
                pointer: ptr,
                message: format!("an example that names no action through `{sel}`: dropped"),
            }),
        }
    }
}

/// A root `oneOf` / `anyOf` whose branches each pin one property to a constant: the selector,
/// its actions (one per branch) and the fields (merged over the branches and the root's own
/// properties, first declaration kept).
fn selector_of(
    m: &mut Mapper<'_>,
    schema: &Value,
    ptr: &str,
) -> Option<(String, Vec<DefAction>, Vec<DefProp>)> {
    let (union, branches) = ["oneOf", "anyOf"]
        .iter()
        .find_map(|u| Some((*u, schema.get(*u)?.as_array()?)))?;
    let pinned = |b: &Value, key: &str| -> Option<String> {
        let p = b.get("properties")?.get(key)?;
        match (p.get("const"), p.get("enum").and_then(Value::as_array)) {
            (Some(Value::String(s)), _) => Some(s.clone()),
            (_, Some(vals)) if vals.len() == 1 => vals[0].as_str().map(str::to_owned),
            _ => None,
        }
    };
    let first = branches.first()?;
    let candidates: Vec<String> = first
        .get("properties")?
        .as_object()?
        .keys()
        .cloned()
        .collect();
    let sel = candidates
        .into_iter()
        .find(|k| branches.iter().all(|b| pinned(b, k).is_some()))?;
    if !valid_name(&sel) {
        return None;
    }
    m.note(
        &format!("{ptr}/{union}"),
        format!("a root `{union}` discriminated by `{sel}`: mapped to a selector with one action per branch (published as one flat object)"),
    );
    let root = schema.as_object().cloned().unwrap_or_default();
    let shared = m.props(&root, ptr);
    let mut fields: Vec<DefProp> = shared.clone();
    let mut actions = Vec::new();
    for (i, b) in branches.iter().enumerate() {
        let bptr = format!("{ptr}/{union}/{i}");
        let action = pinned(b, &sel).unwrap_or_default();
        let aname = if valid_name(&action) {
            action.clone()
        } else {
            snake_name(&action)
        };
        if aname != action {
            m.note(
                &format!("{bptr}/properties/{}", escape(&sel)),
                format!("action `{action}` renamed to `{aname}`"),
            );
        }
        let mut bo = b.as_object().cloned().unwrap_or_default();
        if let Some(Value::Object(props)) = bo.get_mut("properties") {
            props.remove(&sel);
        }
        if let Some(Value::Array(req)) = bo.get_mut("required") {
            req.retain(|r| r.as_str() != Some(sel.as_str()));
        }
        let props = m.props(&bo, &bptr);
        let mut required = Vec::new();
        let mut optional = Vec::new();
        for p in shared.iter().chain(&props) {
            if !fields.iter().any(|f| f.name == p.name) {
                fields.push(DefProp {
                    required: false,
                    ..p.clone()
                });
            } else if let Some(f) = fields.iter().find(|f| f.name == p.name)
                && f.ty != p.ty
            {
                m.note(
                    &format!("{bptr}/properties/{}", escape(&p.name)),
                    format!(
                        "`{}` differs from its first declaration: the first is kept",
                        p.name
                    ),
                );
            }
            if p.required {
                required.push(p.name.clone());
            } else {
                optional.push(p.name.clone());
            }
        }
        actions.push(DefAction {
            name: aname,
            description: b
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            required,
            optional,
            examples: Vec::new(),
        });
    }
    Some((sel, actions, fields))
}

// --- Writing YAML ---------------------------------------------------------------------------------

/// A YAML scalar for any text: JSON's double-quoted form is YAML's too.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned())
}

/// A description as a template: text that minijinja would read as syntax is kept raw.
fn template(s: &str) -> String {
    if s.contains("{{") || s.contains("{%") || s.contains("{#") {
        quoted(&format!("{{% raw %}}{s}{{% endraw %}}"))
    } else {
        quoted(s)
    }
}

/// A mapping key (quoted where YAML would read a plain one as a bool or null).
fn key(s: &str) -> String {
    match s {
        "y" | "n" | "yes" | "no" | "on" | "off" | "true" | "false" | "null" => quoted(s),
        _ => s.to_owned(),
    }
}

fn surface_yaml(
    (shape, rules): (Shape, &dyn DialectRules),
    strict: bool,
    opts: &Options,
    mcp_traits: bool,
    outputs: bool,
    limits: crate::ir::Limits,
    json_schema: bool,
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Imported by `toolsurface import` from {} ({}).",
        opts.source,
        shape.as_str()
    );
    let _ = writeln!(
        s,
        "# Review the tools (each `object:` is left for you), then `toolsurface check` this folder."
    );
    let _ = writeln!(s, "families:");
    // Where `output_schema` is a family switch (Responses, Gemini), outputs are published only
    // when the family says so.
    let publish_outputs = outputs && rules.publish_keys().contains(&"output_schema");
    if strict {
        let _ = writeln!(
            s,
            "  {}: {{ dialect: {}, strict: true }}",
            rules.family_name(),
            shape.as_str()
        );
    } else if publish_outputs || json_schema {
        let mut switches = String::new();
        if publish_outputs {
            switches.push_str(", output_schema: true");
        }
        if json_schema {
            switches.push_str(", parameters_json_schema: true");
        }
        let _ = writeln!(
            s,
            "  {}: {{ dialect: {}{switches} }}",
            rules.family_name(),
            shape.as_str()
        );
    } else {
        let _ = writeln!(
            s,
            "  {}: {{ dialect: {} }}",
            rules.family_name(),
            shape.as_str()
        );
    }
    if limits != crate::ir::Limits::default() {
        let _ = writeln!(
            s,
            "# The input needs these (over the providers' usual limits; `check` warns where one refuses them)."
        );
        let _ = writeln!(
            s,
            "limits: {{ max_tools: {}, max_description_chars: {} }}",
            limits.max_tools, limits.max_description_chars
        );
    }
    let _ = writeln!(s, "traits:");
    // Every trait the runtime reads must be declared; imported tools take the defaults.
    for name in crate::ir::RUNTIME_TRAITS {
        let doc = match name {
            "parallel_safe" => "may run concurrently with other parallel-safe calls",
            "follow_up" => "targets a running session; routed to its host",
            "poll" => "reads a running session",
            "read_only" => "allowed in rehearsal turns",
            "result_on_interrupt" => "hands back its real result when interrupted",
            _ => "read by the runtime",
        };
        let _ = writeln!(
            s,
            "  {name}: {{ type: bool, default: false, doc: {} }}",
            quoted(doc)
        );
    }
    if mcp_traits {
        let _ = writeln!(
            s,
            "  destructive: {{ type: bool, default: true, doc: \"MCP destructiveHint\" }}"
        );
        let _ = writeln!(
            s,
            "  idempotent: {{ type: bool, default: false, doc: \"MCP idempotentHint\" }}"
        );
        let _ = writeln!(
            s,
            "  open_world: {{ type: bool, default: true, doc: \"MCP openWorldHint\" }}"
        );
    }
    s
}

fn roles_yaml(defs: &[DefTool], opts: &Options) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Resident tools in the input's order.");
    let _ = writeln!(s, "{}:", key(&opts.role));
    let _ = writeln!(
        s,
        "  description: {}",
        quoted(&format!("Imported from {}.", opts.source))
    );
    let _ = writeln!(s, "  tools:");
    for d in defs {
        let _ = writeln!(s, "    - {}", d.name);
    }
    s
}

fn tool_yaml(d: &DefTool, rules: &dyn DialectRules, source: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Imported from {source}.");
    let _ = writeln!(s, "name: {}", d.name);
    let _ = writeln!(
        s,
        "object: \"\"  # TODO: what this tool operates on (file, shell session, …); the merge rule keys on it"
    );
    let _ = writeln!(s, "description: {}", template(&d.description));
    if let Some(title) = &d.title {
        let _ = writeln!(s, "title: {}", quoted(title));
    }
    if !d.traits.is_empty() {
        let t: Vec<String> = d.traits.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        let _ = writeln!(s, "traits: {{ {} }}", t.join(", "));
    }
    if let Some((syntax, _)) = &d.freeform {
        let ext = if syntax == "lark" { "lark" } else { "txt" };
        let _ = writeln!(s, "freeform:");
        let _ = writeln!(s, "  families: [{}]", rules.family_name());
        let _ = writeln!(s, "  field: input");
        let _ = writeln!(s, "  syntax: {}", quoted(syntax));
        let _ = writeln!(s, "  grammar: grammars/{}.{ext}", d.name);
    }
    if let Some((sel, _)) = &d.selector {
        let _ = writeln!(s, "selector:");
        let _ = writeln!(s, "  name: {}", key(sel));
        let _ = writeln!(s, "  description: \"\"");
    }
    if d.fields.is_empty() {
        let _ = writeln!(s, "fields: {{}}");
    } else {
        let _ = writeln!(s, "fields:");
        for f in &d.fields {
            write_field(&mut s, f, 1, true);
        }
    }
    match &d.selector {
        None => {
            let req: Vec<&str> = d
                .fields
                .iter()
                .filter(|f| f.required)
                .map(|f| f.name.as_str())
                .collect();
            let _ = writeln!(
                s,
                "required: [{}]",
                req.iter().map(|r| key(r)).collect::<Vec<_>>().join(", ")
            );
            let examples: Vec<&Value> = d.extras.examples.iter().map(|(_, v)| v).collect();
            extras::write_examples(&mut s, &examples, 0);
        }
        Some((_, actions)) => {
            let _ = writeln!(s, "actions:");
            for a in actions {
                let _ = writeln!(s, "  {}:", key(&a.name));
                let _ = writeln!(s, "    description: {}", template(&a.description));
                let _ = writeln!(
                    s,
                    "    required: [{}]",
                    a.required
                        .iter()
                        .map(|r| key(r))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                let _ = writeln!(
                    s,
                    "    optional: [{}]",
                    a.optional
                        .iter()
                        .map(|r| key(r))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                extras::write_examples(&mut s, &a.examples.iter().collect::<Vec<_>>(), 2);
            }
        }
    }
    if let Some(out) = &d.extras.output {
        extras::write_output(&mut s, out);
    }
    if let Some(icon) = &d.extras.icon {
        extras::write_icon(&mut s, icon);
    }
    s
}

fn write_field(s: &mut String, f: &DefProp, depth: usize, with_description: bool) {
    let pad = "  ".repeat(depth);
    let _ = writeln!(s, "{pad}{}:", key(&f.name));
    write_type(s, &f.ty, depth + 1);
    if with_description {
        let _ = writeln!(s, "{pad}  description: {}", template(&f.description));
    }
}

fn write_type(s: &mut String, ty: &DefType, depth: usize) {
    let pad = "  ".repeat(depth);
    match ty {
        DefType::String { min, max, pattern } => {
            let _ = writeln!(s, "{pad}type: string");
            if let Some(n) = min {
                let _ = writeln!(s, "{pad}min_length: {n}");
            }
            if let Some(n) = max {
                let _ = writeln!(s, "{pad}max_length: {n}");
            }
            if let Some(p) = pattern {
                let _ = writeln!(s, "{pad}pattern: {}", quoted(p));
            }
        }
        DefType::Integer { min, max } => {
            let _ = writeln!(s, "{pad}type: integer");
            if let Some(n) = min {
                let _ = writeln!(s, "{pad}minimum: {n}");
            }
            if let Some(n) = max {
                let _ = writeln!(s, "{pad}maximum: {n}");
            }
        }
        DefType::Number { min, max } => {
            let _ = writeln!(s, "{pad}type: number");
            for (k, v) in [("minimum", min), ("maximum", max)] {
                if let Some(n) = v {
                    let _ = writeln!(
                        s,
                        "{pad}{k}: {}",
                        serde_json::Number::from_f64(*n)
                            .map_or_else(|| n.to_string(), |n| n.to_string())
                    );
                }
            }
        }
        DefType::Boolean => {
            let _ = writeln!(s, "{pad}type: boolean");
        }
        DefType::Enum(values) => {
            let _ = writeln!(s, "{pad}type: enum");
            let v: Vec<String> = values.iter().map(|v| quoted(v)).collect();
            let _ = writeln!(s, "{pad}values: [{}]", v.join(", "));
        }
        DefType::Array { items, min, max } => {
            let _ = writeln!(s, "{pad}type: array");
            let _ = writeln!(s, "{pad}items:");
            write_type(s, items, depth + 1);
            if let Some(n) = min {
                let _ = writeln!(s, "{pad}min_items: {n}");
            }
            if let Some(n) = max {
                let _ = writeln!(s, "{pad}max_items: {n}");
            }
        }
        DefType::Object(props) => {
            let _ = writeln!(s, "{pad}type: object");
            if props.is_empty() {
                let _ = writeln!(s, "{pad}properties: {{}}");
            } else {
                let _ = writeln!(s, "{pad}properties:");
                for p in props {
                    write_field(s, p, depth + 1, true);
                }
            }
            let req: Vec<String> = props
                .iter()
                .filter(|p| p.required)
                .map(|p| key(&p.name))
                .collect();
            let _ = writeln!(s, "{pad}required: [{}]", req.join(", "));
        }
    }
}

// --- The round trip ------------------------------------------------------------------------------

pub use roundtrip::{EQUIVALENCES, compare};

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::json;

    fn pointers(doc: &Value) -> (Shape, Vec<String>) {
        let (shape, tools) = tools_of(doc, None).unwrap();
        (shape, tools.into_iter().map(|(p, _)| p).collect())
    }

    #[test]
    fn every_input_layout_is_found_with_its_pointers() {
        let decl = json!({"name": "a", "parameters": {"type": "OBJECT", "properties": {}}});
        assert_eq!(
            pointers(&json!([{"functionDeclarations": [decl.clone(), decl.clone()]}])),
            (
                Shape::Gemini,
                vec![
                    "/0/functionDeclarations/0".into(),
                    "/0/functionDeclarations/1".into()
                ]
            )
        );
        assert_eq!(
            pointers(&json!({"functionDeclarations": [decl.clone()]})),
            (Shape::Gemini, vec!["/functionDeclarations/0".into()])
        );
        assert_eq!(
            pointers(&json!({"tools": [{"functionDeclarations": [decl]}]})),
            (
                Shape::Gemini,
                vec!["/tools/0/functionDeclarations/0".into()]
            )
        );
        let mcp = json!({"name": "a", "inputSchema": {"type": "object"}});
        assert_eq!(
            pointers(&json!({"tools": [mcp.clone()]})),
            (Shape::Mcp, vec!["/tools/0".into()])
        );
        assert_eq!(
            pointers(&json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [mcp]}})),
            (Shape::Mcp, vec!["/result/tools/0".into()])
        );
        let chat = json!({"type": "function", "function": {"name": "a", "parameters": {}}});
        assert_eq!(pointers(&json!([chat])).0, Shape::OpenaiChat);
        let resp = json!({"type": "function", "name": "a", "parameters": {}});
        assert_eq!(pointers(&json!([resp])).0, Shape::OpenaiResponses);
        let anth = json!({"name": "a", "input_schema": {}});
        assert_eq!(pointers(&json!([anth])).0, Shape::Anthropic);
        assert!(tools_of(&json!("x"), None).is_err());
        assert!(tools_of(&json!([]), None).is_err());
    }

    #[test]
    fn names_are_made_valid() {
        assert_eq!(snake_name("oldText"), "old_text");
        assert_eq!(snake_name("list-files"), "list_files");
        assert_eq!(snake_name("2fa"), "n2fa");
        assert_eq!(snake_name("HTTPGet"), "httpget");
        assert!(valid_name("git_status") && !valid_name("gitStatus") && !valid_name(""));
    }

    #[test]
    fn template_syntax_in_descriptions_is_kept_raw() {
        assert_eq!(template("plain"), "\"plain\"");
        assert_eq!(template("a {{ b }}"), "\"{% raw %}a {{ b }}{% endraw %}\"");
        assert_eq!(key("on"), "\"on\"");
        assert_eq!(key("path"), "path");
    }

    #[test]
    fn a_strict_array_maps_nullable_required_fields_to_optional() {
        let doc = json!([{"type": "function", "function": {"name": "t", "strict": true, "parameters": {
            "type": "object",
            "properties": {
                "a": {"type": "string", "description": "A."},
                "b": {"type": ["integer", "null"], "description": "B."},
                "c": {"type": ["string", "null"], "enum": ["x", "y", null], "description": "C."}
            },
            "required": ["a", "b", "c"],
            "additionalProperties": false
        }}}]);
        let imp = import(
            &doc,
            &Options {
                role: "main".into(),
                shape: None,
                source: "t".into(),
            },
        )
        .unwrap();
        assert!(imp.strict);
        assert!(imp.notes.is_empty(), "{:?}", imp.notes);
        let tool = imp.files.iter().find(|f| f.path == "tools/t.yaml").unwrap();
        assert!(tool.text.contains("required: [a]\n"), "{}", tool.text);
        assert!(
            tool.text.contains("type: enum\n    values: [\"x\", \"y\"]"),
            "{}",
            tool.text
        );
        let surface = &imp.files[0].text;
        assert!(
            surface.contains("chat: { dialect: openai-chat, strict: true }"),
            "{surface}"
        );
    }
}
