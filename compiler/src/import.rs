//! Importing an existing tool surface: a provider's tools array (OpenAI Chat or Responses,
//! Anthropic, Gemini `functionDeclarations`, an MCP `tools/list` result) mapped onto the
//! definition language — one YAML file per tool, `roles.yaml` in the array's order and a
//! `surface.yaml` with the matching family — plus every construct the language cannot express,
//! named by its JSON pointer with the mapping chosen. And [`compare`]: what `emit` of the
//! imported folder still says differently from the input (the round trip's differences).
//!
//! Pure logic, no I/O: the CLI reads the input (a file, or a live MCP server) and writes the
//! files; `lint` and `merge` can reuse the mapping on schemas they hold.

use std::fmt::Write as _;

use serde_json::{Map, Value};

mod extras;
mod roundtrip;
mod shapes;

use crate::dialect::{self, DETECTION, DialectRules};
use crate::ir::{Parameters, Property, SchemaAnnotations, Template, Type, UnionForm};

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

/// A provider-hosted (server) tool: a `type` that is no dialect's tool with a definition, and
/// none of the keys any dialect holds a definition under (`local_shell`, `web_search`,
/// Anthropic's versioned `bash_20250124`, `text_editor_…`). Each dialect says its own
/// (`DialectRules::defined_types`, `definition_keys`).
pub fn is_hosted(t: &Value) -> bool {
    let Some(ty) = t.get("type").and_then(Value::as_str) else {
        return false;
    };
    Shape::ALL.into_iter().map(dialect::rules).all(|d| {
        !d.defined_types().contains(&ty) && d.definition_keys().iter().all(|k| t.get(*k).is_none())
    })
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
            let known: Vec<&str> = DETECTION
                .into_iter()
                .map(|d| dialect::rules(d).recognised_by())
                .collect();
            ImportError::Shape(format!(
                "the first tool is in no known shape: it has none of {}",
                known.join("; ")
            ))
        })
}

// --- The mapping --------------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
struct DefProp {
    name: String,
    ty: Type,
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
    /// Where the input has it: (tool `title`, `annotations.title`).
    title_at: (bool, bool),
    /// Examples, output and icon (`extras.examples` are a plain tool's; a tool with actions
    /// hands each to its action).
    extras: extras::Extras,
    /// What the root schema says beyond its properties.
    parameters: Parameters,
    /// A provider-hosted tool's entry (`hosted:`), published verbatim.
    hosted: Option<Value>,
    /// The root's `$defs` as `shapes:` (declaration order), when they import as shapes.
    shapes: Vec<(String, Type)>,
}

impl DefTool {
    /// A plain tool with no fields yet: what every mapping starts from.
    fn new(name: String, description: String) -> DefTool {
        DefTool {
            name,
            description,
            fields: Vec::new(),
            selector: None,
            freeform: None,
            traits: Vec::new(),
            title: None,
            title_at: (true, true),
            extras: extras::Extras::default(),
            parameters: Parameters::default(),
            hosted: None,
            shapes: Vec::new(),
        }
    }
}

/// The walk over one tool's schema, collecting notes.
struct Mapper<'n> {
    tool: String,
    notes: &'n mut Vec<Note>,
    strict: bool,
    /// An object without `additionalProperties` is open ([`DialectRules::absent_additional_is_open`]).
    open_by_default: bool,
    depth: usize,
    /// The root's `$defs` when they import as shapes (`import/shapes.rs`): each entry's JSON
    /// and, once mapped, its type; a `$ref` to one is a use of it.
    shapes: Vec<(String, Value, Option<Type>)>,
    /// The root's pointer (where `$defs` stands).
    root_ptr: String,
}

impl Mapper<'_> {
    fn note(&mut self, pointer: &str, message: impl Into<String>) {
        self.notes.push(Note {
            tool: self.tool.clone(),
            pointer: pointer.to_owned(),
            message: message.into(),
        });
    }

    /// Map one schema node; `ptr` is its pointer in the input. `field`: the node is a field or
    /// property (its description is the field's); otherwise (items, branches, other keys) a
    /// description is the node's own annotation.
    fn ty(&mut self, v: &Value, ptr: &str, field: bool) -> Type {
        self.depth += 1;
        let t = if self.depth > 64 {
            self.note(ptr, "nested deeper than 64 levels: mapped to any value");
            Type::Any
        } else {
            self.ty_inner(v, ptr, field)
        };
        self.depth -= 1;
        t
    }

    /// The node's type, then its annotations and the keywords kept verbatim around it.
    fn ty_inner(&mut self, v: &Value, ptr: &str, field: bool) -> Type {
        let o = match v {
            Value::Object(o) => o,
            Value::Bool(true) => return Type::Any,
            other => {
                self.note(
                    ptr,
                    format!("the schema {}: mapped to any value", short(other)),
                );
                return Type::Any;
            }
        };
        if let Some(ty) = self.shape_use(o, field) {
            return ty;
        }
        let mut ann = SchemaAnnotations::default();
        let text = |k: &str| o.get(k).and_then(Value::as_str).map(str::to_owned);
        if !field {
            ann.description = text("description");
        }
        ann.title = text("title");
        ann.format = text("format");
        ann.examples = o.get("examples").and_then(Value::as_array).cloned();
        // An annotation whose value the language cannot hold (a title that is no string, …)
        // is kept as written rather than lost.
        let held = [
            (
                "description",
                match field {
                    true => o.get("description").is_some_and(Value::is_string),
                    false => ann.description.is_some(),
                },
            ),
            ("title", ann.title.is_some()),
            ("format", ann.format.is_some()),
            ("examples", ann.examples.is_some()),
        ];
        for (k, is_held) in held {
            if let (Some(x), false) = (o.get(k), is_held) {
                keep(&mut ann, k, x);
            }
        }
        let ty = self.base(o, ptr, &mut ann);
        if let Some(d) = o.get("default") {
            // A default the type refuses would make the written folder fail `check`: it is
            // kept as written instead.
            match crate::load::check::value_problem(
                &ty,
                &crate::load::yaml::Node::from_json(d, NO_SPAN),
            ) {
                None => ann.default = Some(d.clone()),
                Some(_) => keep(&mut ann, "default", d),
            }
        }
        for (k, x) in o {
            if !crate::load::types::MODELLED.contains(&k.as_str()) {
                keep(&mut ann, k, x);
            }
        }
        if !ann.extra.is_empty() {
            let keys: Vec<&str> = ann.extra.iter().map(|(k, _)| k.as_str()).collect();
            self.note(
                ptr,
                format!(
                    "{} kept verbatim (`json_schema:`): published as written, not checked by Call::parse",
                    keys.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
                ),
            );
        }
        if ann.is_empty() {
            ty
        } else {
            Type::Annotated {
                ty: Box::new(ty),
                ann: Box::new(ann),
            }
        }
    }

    /// A `$ref` to one of the root's `$defs` that import as shapes: a use of the shape (its
    /// definition mapped once), with the use's description beside it (a field's is the
    /// field's own, read by the caller).
    fn shape_use(&mut self, o: &Map<String, Value>, field: bool) -> Option<Type> {
        let name = shapes::referenced_name(o.get("$ref")?.as_str()?)?;
        let ix = self.shapes.iter().position(|(n, _, _)| *n == name)?;
        let def = match &self.shapes[ix].2 {
            Some(t) => t.clone(),
            None => {
                let json = self.shapes[ix].1.clone();
                let ptr = format!("{}/$defs/{}", self.root_ptr, escape(&name));
                let t = self.ty(&json, &ptr, false);
                self.shapes[ix].2 = Some(t.clone());
                t
            }
        };
        let ty = Type::Shape {
            name,
            ty: Box::new(def),
        };
        let description = o.get("description").and_then(Value::as_str);
        Some(match description {
            Some(d) if !field => Type::Annotated {
                ty: Box::new(ty),
                ann: Box::new(SchemaAnnotations {
                    description: Some(d.to_owned()),
                    ..SchemaAnnotations::default()
                }),
            },
            _ => ty,
        })
    }

    /// The constructs are decided in this order (unions, const, type lists, the type, what
    /// the keys imply, any value), and the order is the mapping.
    fn base(&mut self, o: &Map<String, Value>, ptr: &str, ann: &mut SchemaAnnotations) -> Type {
        let has_type = o.contains_key("type");
        for (union, form) in [("anyOf", UnionForm::AnyOf), ("oneOf", UnionForm::OneOf)] {
            let Some(Value::Array(branches)) = o.get(union) else {
                continue;
            };
            if has_type || (union == "oneOf" && o.contains_key("anyOf")) || branches.len() < 2 {
                keep(ann, union, &o[union]);
                continue;
            }
            let branches = branches
                .iter()
                .enumerate()
                .map(|(i, b)| self.ty(b, &format!("{ptr}/{union}/{i}"), false))
                .collect();
            return Type::Union { form, branches };
        }
        let names: Vec<String> = match o.get("type") {
            Some(Value::String(s)) => vec![self.type_name(s, ptr)],
            Some(Value::Array(list)) => list
                .iter()
                .filter_map(Value::as_str)
                .map(|s| self.type_name(s, ptr))
                .collect(),
            _ => Vec::new(),
        };
        if let Some(c) = o.get("const") {
            return Type::Const {
                value: c.clone(),
                json_type: names.first().filter(|_| names.len() == 1).cloned(),
            };
        }
        if names.len() > 1 {
            let mut seen: Vec<&String> = Vec::new();
            let mut branches = Vec::with_capacity(names.len());
            for n in &names {
                if !seen.contains(&n) {
                    seen.push(n);
                    branches.push(self.plain(n, o, ptr, ann));
                }
            }
            return Type::Union {
                form: UnionForm::TypeList,
                branches,
            };
        }
        match names.first() {
            Some(n) => self.plain(n, o, ptr, ann),
            None if o.contains_key("properties") || o.contains_key("items") => {
                ann.type_implied = true;
                let implied = if o.contains_key("properties") {
                    "object"
                } else {
                    "array"
                };
                self.plain(implied, o, ptr, ann)
            }
            None if o.contains_key("enum") => {
                // An enum without a type: its values, kept as written.
                keep(ann, "enum", &o["enum"]);
                Type::Any
            }
            None => Type::Any,
        }
    }

    /// A type name as the language has it (BFCL's Python spellings mapped and reported).
    fn type_name(&mut self, s: &str, ptr: &str) -> String {
        let lower = s.to_ascii_lowercase();
        match non_standard_type(&lower) {
            Some(standard) => {
                self.note(
                    &format!("{ptr}/type"),
                    format!("type `{s}` (BFCL's spelling): mapped to `{standard}`"),
                );
                standard.to_owned()
            }
            None => {
                if lower != s {
                    self.note(
                        &format!("{ptr}/type"),
                        format!("type `{s}`: mapped to `{lower}`"),
                    );
                }
                lower
            }
        }
    }

    /// One JSON type with the keywords that apply to it; an unknown type name is any value
    /// (its `type` kept verbatim beside nothing else the language checks).
    fn plain(
        &mut self,
        ty_name: &str,
        o: &Map<String, Value>,
        ptr: &str,
        ann: &mut SchemaAnnotations,
    ) -> Type {
        let uint = |k: &str| o.get(k).and_then(Value::as_u64);
        let int = |k: &str| o.get(k).and_then(Value::as_i64);
        let num = |k: &str| o.get(k).and_then(Value::as_f64);
        match ty_name {
            "string" => match o.get("enum") {
                // A null among the values is the nullable form (a type list with null, or
                // OpenAI strict's optional field): the null branch says it.
                Some(Value::Array(all))
                    if all.iter().any(Value::is_string)
                        && all.iter().all(|v| {
                            v.is_string() || (v.is_null() && (self.strict || nullable_list(o)))
                        }) =>
                {
                    Type::Enum {
                        values: all
                            .iter()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect(),
                    }
                }
                other => {
                    if let Some(e) = other {
                        keep(ann, "enum", e);
                    }
                    Type::String {
                        min_length: uint("minLength"),
                        max_length: uint("maxLength"),
                        pattern: o.get("pattern").and_then(Value::as_str).map(str::to_owned),
                    }
                }
            },
            "integer" => {
                self.enum_kept(o, ann);
                Type::Integer {
                    minimum: int("minimum"),
                    maximum: int("maximum"),
                }
            }
            "number" => {
                self.enum_kept(o, ann);
                Type::Number {
                    minimum: num("minimum"),
                    maximum: num("maximum"),
                }
            }
            "boolean" => {
                self.enum_kept(o, ann);
                Type::Boolean
            }
            "null" => Type::Null,
            "array" => {
                let items = match o.get("items") {
                    Some(i) => self.ty(i, &format!("{ptr}/items"), false),
                    None => {
                        self.note(ptr, "an array without `items`: its items are any value (published as `items: {}`)");
                        Type::Any
                    }
                };
                Type::Array {
                    items: Box::new(items),
                    min_items: uint("minItems"),
                    max_items: uint("maxItems"),
                }
            }
            "object" => self.object(o, ptr),
            other => {
                self.note(
                    &format!("{ptr}/type"),
                    format!("type `{other}` is no JSON type: mapped to any value, the `type` kept verbatim"),
                );
                ann.extra
                    .push(("type".to_owned(), Value::String(other.to_owned())));
                Type::Any
            }
        }
    }

    /// An object: its properties and what its other keys may be.
    fn object(&mut self, o: &Map<String, Value>, ptr: &str) -> Type {
        let properties = self
            .props(o, ptr)
            .into_iter()
            .map(|p| Property {
                name: p.name,
                ty: p.ty,
                description: Template {
                    source: template_source(&p.description),
                    span: NO_SPAN,
                },
                required: p.required,
            })
            .collect();
        let (additional, implicit_open) = self.additional(o, ptr);
        Type::Object {
            properties,
            additional: additional.map(Box::new),
            implicit_open,
        }
    }

    /// `enum` on a type without string enums: kept verbatim.
    fn enum_kept(&mut self, o: &Map<String, Value>, ann: &mut SchemaAnnotations) {
        if let Some(e) = o.get("enum") {
            keep(ann, "enum", e);
        }
    }

    /// An object's `additionalProperties`: absent is open by JSON Schema's default (and stays
    /// unpublished), `false` closed, `true` open, a schema the type of the other keys.
    fn additional(&mut self, o: &Map<String, Value>, ptr: &str) -> (Option<Type>, bool) {
        match o.get("additionalProperties") {
            None if self.open_by_default => (Some(Type::Any), true),
            None => (None, false),
            Some(Value::Bool(false)) => (None, false),
            Some(Value::Bool(true)) => (Some(Type::Any), false),
            Some(schema) => (
                Some(self.ty(schema, &format!("{ptr}/additionalProperties"), false)),
                false,
            ),
        }
    }

    /// An object's properties (names checked, required marked).
    fn props(&mut self, o: &Map<String, Value>, ptr: &str) -> Vec<DefProp> {
        let required: Vec<&str> = o
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
            let mut req = required.contains(&name.as_str());
            let description = schema
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .unwrap_or_default();
            let mut ty = self.ty(schema, &p, true);
            if self.strict && req && is_nullable(schema) {
                // OpenAI strict spells an optional field as a required null union: absent = null.
                req = false;
                ty = without_null(ty);
            }
            out.push(DefProp {
                name: field_name,
                ty,
                description,
                required: req,
            });
        }
        for r in &required {
            if !props.contains_key(*r) && crate::load::read::is_field_name(r) {
                self.note(
                    &format!("{ptr}/required"),
                    format!("required `{r}` is not one of the properties: a required field of any value, `unlisted: true` (published in `required` only, as the input says)"),
                );
                out.push(DefProp {
                    name: (*r).to_owned(),
                    ty: Type::Annotated {
                        ty: Box::new(Type::Any),
                        ann: Box::new(SchemaAnnotations {
                            unlisted: true,
                            ..SchemaAnnotations::default()
                        }),
                    },
                    description: String::new(),
                    required: true,
                });
            }
        }
        out
    }
}

/// `key` kept verbatim (`json_schema:`), once: a type list maps its keywords once per listed
/// type, and each would keep it again.
fn keep(ann: &mut SchemaAnnotations, key: &str, value: &Value) {
    if !ann.extra.iter().any(|(k, _)| k == key) {
        ann.extra.push((key.to_owned(), value.clone()));
    }
}

/// `"type": [..., "null"]`.
fn nullable_list(o: &Map<String, Value>) -> bool {
    o.get("type")
        .and_then(Value::as_array)
        .is_some_and(|t| t.iter().any(|x| x == "null"))
}

/// A type with its `null` branch taken out (strict inputs: the strict family adds it back).
fn without_null(ty: Type) -> Type {
    match ty {
        Type::Annotated { ty, ann } => Type::Annotated {
            ty: Box::new(without_null(*ty)),
            ann,
        },
        Type::Union { form, branches } => {
            let mut rest: Vec<Type> = branches
                .into_iter()
                .filter(|b| !matches!(b.peel().0, Type::Null))
                .collect();
            if rest.len() == 1 {
                rest.pop().unwrap_or(Type::Any)
            } else {
                Type::Union {
                    form,
                    branches: rest,
                }
            }
        }
        t => t,
    }
}

/// Imported definitions are text; their IR nodes point nowhere.
const NO_SPAN: crate::diag::Span = crate::diag::Span {
    file: crate::diag::FileId(0),
    line: 0,
    col: 0,
    len: 0,
};

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
    (is_hosted(t) && hosted_name(t).is_none()).then(|| {
        (
            note(format!(
                "the provider-hosted tool `{ty}` has no name a tool may have: dropped"
            )),
            note(format!("the provider-hosted tool `{ty}` is not published")),
        )
    })
}

/// A hosted tool's name in the language: its entry's `name`, else its `type`.
fn hosted_name(t: &Value) -> Option<String> {
    let name = t
        .get("name")
        .or_else(|| t.get("type"))
        .and_then(Value::as_str)?;
    crate::load::read::is_tool_name(name).then(|| name.to_owned())
}

/// A provider-hosted tool as a pass-through entry (`hosted:`): published verbatim in its
/// dialect, not elsewhere.
fn hosted_tool(
    rules: &dyn DialectRules,
    ptr: &str,
    t: &Value,
    notes: &mut Vec<Note>,
) -> Option<DefTool> {
    let name = hosted_name(t)?;
    notes.push(Note {
        tool: name.clone(),
        pointer: ptr.to_owned(),
        message: format!(
            "the provider-hosted tool `{name}`: kept as a pass-through entry (`hosted:`), published verbatim in `{}` only",
            rules.family_name()
        ),
    });
    Some(DefTool {
        hosted: Some(t.clone()),
        ..DefTool::new(name, String::new())
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
        let hosted = if is_hosted(t) {
            hosted_tool(rules, ptr, t, &mut notes)
        } else {
            None
        };
        let def = match hosted {
            Some(def) => def,
            None => import_tool(rules, strict, ptr, t, &mut notes)?,
        };
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
    fn longest_in_type(ty: &Type) -> usize {
        match ty {
            Type::Object { properties, .. } => properties
                .iter()
                .map(|p| {
                    p.description
                        .source
                        .chars()
                        .count()
                        .max(longest_in_type(&p.ty))
                })
                .max()
                .unwrap_or(0),
            Type::Array { items, .. } => longest_in_type(items),
            Type::Union { branches, .. } => branches.iter().map(longest_in_type).max().unwrap_or(0),
            Type::Annotated { ty, .. } | Type::Shape { ty, .. } => longest_in_type(ty),
            _ => 0,
        }
    }
    fn longest_in(props: &[DefProp]) -> usize {
        props
            .iter()
            .map(|p| p.description.chars().count().max(longest_in_type(&p.ty)))
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
    let description = match body.get("description") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            local.push(Note {
                tool: name.clone(),
                pointer: format!("{body_ptr}/description"),
                message: format!(
                    "a description that is no string (`{other}`): dropped, the tool has none"
                ),
            });
            String::new()
        }
    };
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
        strict,
        open_by_default: rules.absent_additional_is_open(schema_key),
        depth: 0,
        shapes: Vec::new(),
        root_ptr: schema_ptr.clone(),
    };
    let mut tool = DefTool::new(name.clone(), description);
    if let Some((sel, actions, fields)) = selector_of(&mut m, schema, &schema_ptr) {
        tool.fields = fields;
        tool.selector = Some((sel, actions));
    } else {
        let written = body.get(schema_key).is_some();
        (tool.fields, tool.parameters) =
            fields_of_a_plain_object_root(&mut m, schema, &schema_ptr, written);
        tool.shapes = m
            .shapes
            .drain(..)
            .filter_map(|(name, _, ty)| Some((name, ty?)))
            .collect();
    }
    (tool.traits, tool.title, tool.title_at) = rules.read_traits_and_title(t, &name);
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
        fields: vec![DefProp {
            name: "input".into(),
            ty: Type::String {
                min_length: None,
                max_length: None,
                pattern: None,
            },
            description: String::new(),
            required: true,
        }],
        freeform: grammar,
        ..DefTool::new(name, description)
    }
}

/// The fields of a tool without actions: the root object's properties, and what the root
/// says beyond them (`parameters:`: other keys, its title and schema description, keywords
/// kept verbatim).
fn fields_of_a_plain_object_root(
    m: &mut Mapper<'_>,
    schema: &Value,
    schema_ptr: &str,
    written: bool,
) -> (Vec<DefProp>, Parameters) {
    let root = schema.as_object().cloned().unwrap_or_default();
    let mut unused_defs = Map::new();
    match shapes::shapes_of(&root) {
        Ok(defs) => {
            m.shapes = defs.shapes.into_iter().map(|(n, v)| (n, v, None)).collect();
            for name in defs.unused.keys() {
                m.note(
                    &format!("{schema_ptr}/$defs/{}", escape(name)),
                    "a `$defs` entry no property refers to: kept verbatim (`parameters: json_schema:`), published beside the shapes",
                );
            }
            unused_defs = defs.unused;
        }
        Err(why) => m.note(
            &format!("{schema_ptr}/$defs"),
            format!("`$defs` not imported as `shapes:`: {why}"),
        ),
    }
    if let Some(t) = root.get("type").and_then(Value::as_str)
        && t != "object"
    {
        let message = if non_standard_type(&t.to_ascii_lowercase()) == Some("object") {
            format!("type `{t}` (BFCL's spelling): mapped to `object`")
        } else {
            format!("a root of type `{t}`: tools take an object; read as one")
        };
        m.note(&format!("{schema_ptr}/type"), message);
    }
    let text = |k: &str| root.get(k).and_then(Value::as_str).map(str::to_owned);
    let mut ann = SchemaAnnotations {
        title: text("title"),
        description: text("description"),
        // A root written without `type` (an object by position): published as written.
        type_implied: written && !root.contains_key("type"),
        ..SchemaAnnotations::default()
    };
    for (k, v) in &root {
        let modelled = ["type", "properties", "required", "additionalProperties"];
        if k == "$defs" && !m.shapes.is_empty() {
            // Its entries nothing uses were each named above; they stay as written.
            continue;
        }
        // A title or description that is no string has no place in the language's: kept
        // verbatim like any other keyword, not lost.
        let text_held = ["title", "description"].contains(&k.as_str()) && v.is_string();
        if !modelled.contains(&k.as_str()) && !text_held {
            ann.extra.push((k.clone(), v.clone()));
        }
    }
    if !ann.extra.is_empty() {
        let keys: Vec<String> = ann.extra.iter().map(|(k, _)| format!("`{k}`")).collect();
        m.note(
            schema_ptr,
            format!(
                "{} at the root kept verbatim (`parameters: json_schema:`): published as written, not checked by Call::parse",
                keys.join(", ")
            ),
        );
    }
    if !unused_defs.is_empty() {
        ann.extra
            .push(("$defs".to_owned(), Value::Object(unused_defs)));
    }
    let (additional, implicit_open) = if root.is_empty() && m.open_by_default {
        // A tool without a schema: an object of any keys, as the provider would read it.
        (Some(Type::Any), true)
    } else {
        m.additional(&root, schema_ptr)
    };
    let params = Parameters {
        additional,
        implicit_open,
        ann,
    };
    (m.props(&root, schema_ptr), params)
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
    quoted(&template_source(s))
}

/// A description's template source: text that minijinja would read as syntax is kept raw, and
/// trailing whitespace (which the language reads as a YAML block's line break, not text) is
/// written as an expression that outputs it.
fn template_source(s: &str) -> String {
    let text = s.trim_end();
    let tail = &s[text.len()..];
    let mut out = if text.contains("{{") || text.contains("{%") || text.contains("{#") {
        format!("{{% raw %}}{text}{{% endraw %}}")
    } else {
        text.to_owned()
    };
    if !tail.is_empty() {
        let _ = write!(out, "{{{{ {} }}}}", quoted(tail));
    }
    out
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
    if let Some(entry) = &d.hosted {
        let _ = writeln!(s, "hosted: {entry}");
        let _ = writeln!(s, "families: [{}]", rules.family_name());
        return s;
    }
    write_title(&mut s, d);
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
    write_parameters(&mut s, &d.parameters);
    write_shapes(&mut s, &d.shapes);
    if d.fields.is_empty() {
        let _ = writeln!(s, "fields: {{}}");
    } else {
        let _ = writeln!(s, "fields:");
        for f in &d.fields {
            write_field(&mut s, f);
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
    if let Some(schema) = &d.extras.output_schema {
        let _ = writeln!(s, "output_schema: {schema}");
    }
    extras::write_icons(&mut s, &d.extras.icons);
    extras::write_meta(&mut s, &d.extras.meta);
    s
}

/// `parameters:`, when the root says anything beyond its fields.
fn write_parameters(s: &mut String, params: &Parameters) {
    if params.additional.is_some() || !params.ann.is_empty() {
        let mut body = String::new();
        crate::consolidate::render::additional_lines(
            params.additional.as_ref(),
            params.implicit_open,
            2,
            &mut body,
        );
        crate::consolidate::render::annotation_lines(&params.ann, 2, &mut body);
        let _ = write!(s, "parameters:\n{body}");
    }
}

/// `shapes:`, the root's `$defs` imported as shapes.
fn write_shapes(s: &mut String, shapes: &[(String, Type)]) {
    if shapes.is_empty() {
        return;
    }
    let _ = writeln!(s, "shapes:");
    for (name, ty) in shapes {
        let _ = writeln!(s, "  {}:", crate::consolidate::render::scalar(name));
        crate::consolidate::render::type_lines(ty, 4, s);
    }
}

/// `title:`: `false` for none, a mapping when the input has it in one of its two places.
fn write_title(s: &mut String, d: &DefTool) {
    match d.title.as_deref() {
        Some("") => {
            let _ = writeln!(s, "title: false");
        }
        Some(title) if d.title_at != (true, true) => {
            let (top, annotations) = d.title_at;
            let _ = writeln!(
                s,
                "title: {{ text: {}, top: {top}, annotations: {annotations} }}",
                quoted(title)
            );
        }
        Some(title) => {
            let _ = writeln!(s, "title: {}", quoted(title));
        }
        None => {}
    }
}

fn write_field(s: &mut String, f: &DefProp) {
    let _ = writeln!(s, "  {}:", key(&f.name));
    crate::consolidate::render::type_lines(&f.ty, 4, s);
    let _ = writeln!(s, "    description: {}", template(&f.description));
}

// --- The round trip ------------------------------------------------------------------------------

pub use roundtrip::{EQUIVALENCES, compare, equivalences};

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
    fn an_unknown_shape_is_refused_naming_what_each_dialect_looks_for() {
        let Err(ImportError::Shape(msg)) = tools_of(&json!([{"tool": "x"}]), None) else {
            panic!("an input of no known shape was accepted");
        };
        for d in DETECTION {
            let what = dialect::rules(d).recognised_by();
            assert!(msg.contains(what), "{msg:?} does not name {what:?}");
        }
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

    /// `doc` imported for role `main`, its shape detected.
    fn import_main(doc: &Value) -> Imported {
        let options = Options {
            role: "main".into(),
            shape: None,
            source: "t".into(),
        };
        import(doc, &options).unwrap()
    }

    #[test]
    fn a_tool_description_that_is_no_string_is_dropped_with_a_note() {
        let doc = json!({"tools": [{"name": "t", "description": ["Not", "text"],
            "inputSchema": {"type": "object", "properties": {}}}]});
        let imp = import_main(&doc);
        let note = imp
            .notes
            .iter()
            .find(|n| n.pointer == "/tools/0/description")
            .unwrap();
        assert!(
            note.message.contains(r#"(`["Not","text"]`): dropped"#),
            "{note:?}"
        );
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
        let imp = import_main(&doc);
        assert!(imp.strict);
        assert!(imp.notes.is_empty(), "{:?}", imp.notes);
        let tool = imp.files.iter().find(|f| f.path == "tools/t.yaml").unwrap();
        assert!(tool.text.contains("required: [a]\n"), "{}", tool.text);
        assert!(
            tool.text.contains("type: enum\n    values: [x, y]"),
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
