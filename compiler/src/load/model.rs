//! The definitions as written ("low" level): one struct per file kind, every name spanned,
//! nothing resolved yet. Reading a file reports what is wrong inside that file alone;
//! cross-file checks live in `check.rs`.

use std::collections::BTreeSet;

use crate::diag::{Diagnostic, FileId, Span};
use crate::ir::{
    Dialect, Field, Limits, Property, Route, SchemaAnnotations, Template, TraitDecl, TraitKind,
    Type,
};
use crate::load::read::{self, Diags, Sp, Struct};
use crate::load::shapes::ShapeCx;
use crate::load::yaml::{Node, Value};

/// Everything read from a definitions folder.
#[derive(Debug, Default)]
pub struct Defs {
    pub surface: Option<SurfaceDef>,
    pub roles: Vec<RoleDef>,
    pub aliases: Vec<AliasDef>,
    pub retired: Vec<RetiredDef>,
    pub tools: Vec<ToolDef>,
    pub skills: Vec<SkillDef>,
    /// `grammars/x.lark` -> text.
    pub grammars: Vec<(String, String)>,
    /// Names of tools whose file could not be read at all (syntax error); references to
    /// them are not reported again.
    pub broken_tools: BTreeSet<String>,
    pub broken_skills: BTreeSet<String>,
    /// roles.yaml could not be parsed: do not report "unknown role" cascades.
    pub roles_broken: bool,
}

#[derive(Debug)]
pub struct SurfaceDef {
    pub families: Vec<FamilyDef>,
    pub traits: Vec<TraitDecl>,
    /// Traits whose declaration was reported as broken (values for them are not checked).
    pub broken_traits: BTreeSet<String>,
    pub limits: Limits,
    pub span: Span,
}

#[derive(Debug)]
pub struct FamilyDef {
    pub name: Sp<String>,
    pub dialect: Option<Dialect>,
    pub strict: bool,
    pub like: Option<Sp<String>>,
    pub publish: crate::ir::Publish,
    pub skills: crate::ir::SkillStrategy,
    pub cache_control: Option<crate::ir::CacheTtl>,
}

#[derive(Debug)]
pub struct RoleDef {
    pub name: Sp<String>,
    pub description: String,
    pub extends: Option<Sp<String>>,
    pub tools: Vec<Sp<String>>,
    pub skills: Vec<Sp<String>>,
    pub token_budget: Option<u64>,
    /// `sandbox:` as written (see `load/sandbox.rs`).
    pub sandbox: Option<crate::load::sandbox::SandboxDef>,
}

#[derive(Debug)]
pub struct SkillDef {
    pub name: Sp<String>,
    pub description: String,
    pub tools: Vec<Sp<String>>,
}

#[derive(Debug)]
pub struct AliasDef {
    pub name: Sp<String>,
    pub tool: Option<Sp<String>>,
    pub set: Vec<(Sp<String>, Node)>,
    pub rename: Vec<(Sp<String>, Sp<String>)>,
}

#[derive(Debug)]
pub struct RetiredDef {
    pub name: Sp<String>,
    pub message: String,
    pub replaced_by: Vec<Sp<String>>,
}

#[derive(Debug)]
pub struct ToolDef {
    pub file: FileId,
    /// The file stem (`tools/<stem>.yaml`).
    pub stem: String,
    pub name: Sp<String>,
    pub object: String,
    pub description: Template,
    pub families: Option<Vec<Sp<String>>>,
    pub route: Route,
    pub session: Option<(Sp<String>, Option<Sp<String>>)>,
    pub traits: Vec<(Sp<String>, Node)>,
    pub selector: Option<SelectorDef>,
    pub fields: Vec<Field>,
    /// Fields whose declaration was reported as broken; references to them are not
    /// reported again.
    pub broken_fields: BTreeSet<String>,
    /// Actions of a selector tool; for a plain tool exactly one, named `None`.
    pub actions: Vec<ActionDef>,
    pub freeform: Option<FreeformDef>,
    /// Tool-level `output:` (actions without their own inherit it).
    pub output: Option<crate::ir::OutputType>,
    pub icons: Vec<crate::ir::Icon>,
    /// `meta:`, MCP `_meta` keys of the tool's own.
    pub meta: Vec<(String, serde_json::Value)>,
    /// `title:`, the MCP display title.
    pub title: Option<String>,
    /// Where it is published: (tool `title`, `annotations.title`).
    pub title_at: (bool, bool),
    /// `output_schema:`, a verbatim output schema.
    pub output_schema: Option<serde_json::Value>,
    /// `shapes:` the outputs use, resolved (see `ir::Tool::output_shapes`).
    pub output_shapes: Vec<(String, crate::ir::OutputType)>,
    /// `shapes:` the fields use, resolved (see `ir::Tool::field_shapes`).
    pub field_shapes: Vec<(String, crate::ir::Type)>,
    /// `implements:`, the Rust type the typed call becomes.
    pub implements: Option<Sp<String>>,
    /// `parameters:`, what the parameters object says beyond its fields.
    pub parameters: crate::ir::Parameters,
    /// `hosted:`, a provider-hosted tool's entry.
    pub hosted: Option<serde_json::Value>,
}

#[derive(Debug)]
pub struct SelectorDef {
    pub name: Sp<String>,
    pub description: Template,
}

#[derive(Debug)]
pub struct ActionDef {
    pub name: Option<Sp<String>>,
    pub description: Template,
    pub required: Vec<Sp<String>>,
    /// `None`: not written (a plain tool then takes every other declared field).
    pub optional: Option<Vec<Sp<String>>>,
    pub exactly_one_of: Vec<Vec<Sp<String>>>,
    pub forbidden_with: Vec<ForbiddenDef>,
    pub traits: Vec<(Sp<String>, Node)>,
    /// `defaults:` (named actions only): the action's own default for fields it takes.
    pub defaults: Vec<(Sp<String>, Node)>,
    pub examples: Vec<super::examples::ExampleDef>,
    pub output: Option<crate::ir::OutputType>,
    pub span: Span,
}

#[derive(Debug)]
pub struct ForbiddenDef {
    pub field: Sp<String>,
    pub with: Sp<String>,
    pub message: String,
}

#[derive(Debug)]
pub struct FreeformDef {
    pub families: Vec<Sp<String>>,
    pub field: Sp<String>,
    pub syntax: Sp<String>,
    pub grammar: Sp<String>,
    pub span: Span,
}

fn empty_template(span: Span) -> Template {
    Template {
        source: String::new(),
        span,
    }
}

// ---------------------------------------------------------------------------------------
// surface.yaml

pub fn read_surface(root: &Node, d: &mut Diags) -> Option<SurfaceDef> {
    let s = Struct::read(
        root,
        "surface.yaml",
        &["families", "traits", "limits"],
        &["families"],
        d,
    )?;
    let families = s
        .get("families")
        .map(|node| read_families(node, d))
        .unwrap_or_default();
    let (traits, broken_traits) = s
        .get("traits")
        .map(|node| read_traits(node, d))
        .unwrap_or_default();
    let limits = s
        .get("limits")
        .map(|node| read_limits(node, d))
        .unwrap_or_default();
    Some(SurfaceDef {
        families,
        traits,
        broken_traits,
        limits,
        span: root.span,
    })
}

/// `families:` of surface.yaml; an empty map is an error.
fn read_families(node: &Node, d: &mut Diags) -> Vec<FamilyDef> {
    let mut families = Vec::new();
    for (name, node) in read::entries(node, "families", d) {
        read::check_name(&name, "family", d);
        if let Some(family) = read_family(name, node, d) {
            families.push(family);
        }
    }
    if families.is_empty() {
        d.push(Diagnostic::error(
            "no-families",
            Some(node.span),
            "surface.yaml declares no families",
        ));
    }
    families
}

const FAMILY_KEYS: [&str; 9] = [
    "dialect",
    "strict",
    "like",
    "input_examples",
    "examples_in_description",
    "output_schema",
    "parameters_json_schema",
    "skills",
    "cache_control",
];

fn read_family(name: Sp<String>, node: &Node, d: &mut Diags) -> Option<FamilyDef> {
    let what = format!("family `{}`", name.v);
    let f = Struct::read(node, &what, &FAMILY_KEYS, &["dialect"], d)?;
    let dialect = f.get("dialect").and_then(|n| read_dialect(n, d));
    let strict = f
        .get("strict")
        .and_then(|n| read::boolean(n, "strict", d))
        .unwrap_or(false);
    let like = f.get("like").and_then(|n| read::string(n, "like", d));
    let publish = super::examples::read_publish(&f, dialect, d);
    let skills = super::strategy::read_skill_strategy(&f, &name.v, dialect, d);
    let cache_control = super::strategy::read_cache_control(&f, dialect, d);
    Some(FamilyDef {
        name,
        dialect,
        strict,
        like,
        publish,
        skills,
        cache_control,
    })
}

fn read_dialect(n: &Node, d: &mut Diags) -> Option<Dialect> {
    let s = read::string(n, "dialect", d)?;
    let parsed = Dialect::parse(&s.v);
    if parsed.is_none() {
        let names = Dialect::ALL.map(Dialect::as_str);
        let hint = crate::diag::did_you_mean(&s.v, names)
            .unwrap_or_else(|| format!("dialects: {}", names.join(", ")));
        d.push(
            Diagnostic::error(
                "unknown-dialect",
                Some(s.span),
                format!("unknown dialect `{}`", s.v),
            )
            .with_hint(hint),
        );
    }
    parsed
}

/// `traits:` of surface.yaml: the declarations that read, and the names of those that did not.
fn read_traits(node: &Node, d: &mut Diags) -> (Vec<TraitDecl>, BTreeSet<String>) {
    let mut traits = Vec::new();
    let mut broken_traits = BTreeSet::new();
    for (name, node) in read::entries(node, "traits", d) {
        read::check_name(&name, "trait", d);
        let trait_name = name.v.clone();
        match read_trait(name, node, d) {
            Some(t) => traits.push(t),
            None => {
                broken_traits.insert(trait_name);
            }
        }
    }
    (traits, broken_traits)
}

/// `limits:` of surface.yaml; 0 keeps the default. A value above the providers' own limit is
/// the surface's choice (an imported surface states what its input needs); `check` warns where
/// a published surface exceeds the provider limit.
fn read_limits(node: &Node, d: &mut Diags) -> Limits {
    let mut limits = Limits::default();
    let Some(l) = Struct::read(
        node,
        "limits",
        &["max_tools", "max_description_chars"],
        &[],
        d,
    ) else {
        return limits;
    };
    for (key, slot) in [
        ("max_tools", &mut limits.max_tools),
        ("max_description_chars", &mut limits.max_description_chars),
    ] {
        if let Some(n) = l.get(key)
            && let Some(v) = read::uint(n, key, d)
        {
            match usize::try_from(v) {
                Ok(v) if v > 0 => *slot = v,
                _ => d.push(
                    Diagnostic::error(
                        "bad-limit",
                        Some(n.span),
                        format!("`{key}: {v}` is not a count from 1"),
                    )
                    .with_hint(format!(
                        "leave it out for the providers' own limit ({})",
                        match key {
                            "max_tools" => Limits::PROVIDER.max_tools,
                            _ => Limits::PROVIDER.max_description_chars,
                        }
                    )),
                ),
            }
        }
    }
    limits
}

fn read_trait(name: Sp<String>, node: &Node, d: &mut Diags) -> Option<TraitDecl> {
    let what = format!("trait `{}`", name.v);
    let t = Struct::read(
        node,
        &what,
        &["type", "values", "default", "doc"],
        &["type"],
        d,
    )?;
    let ty = read::string(t.get("type")?, "type", d)?;
    let doc = t
        .get("doc")
        .and_then(|n| read::string(n, "doc", d))
        .map(|s| s.v)
        .unwrap_or_default();
    let kind = match ty.v.as_str() {
        "bool" => read_bool_trait(&t, &what, d)?,
        "enum" => read_enum_trait(&t, &what, d)?,
        other => {
            d.push(
                Diagnostic::error(
                    "wrong-type",
                    Some(ty.span),
                    format!("trait type `{other}` is neither bool nor enum"),
                )
                .with_hint("type: bool | enum"),
            );
            return None;
        }
    };
    Some(TraitDecl {
        name: name.v,
        kind,
        doc,
        span: name.span,
    })
}

/// `type: bool`: no `values`, `default` false unless written.
fn read_bool_trait(t: &Struct, what: &str, d: &mut Diags) -> Option<TraitKind> {
    if let Some(span) = t.key_span("values") {
        d.push(Diagnostic::error(
            "unknown-key",
            Some(span),
            format!("`values` is only allowed on enum traits ({what} is bool)"),
        ));
    }
    let default = match t.get("default") {
        Some(n) => read::boolean(n, "default", d)?,
        None => false,
    };
    Some(TraitKind::Bool { default })
}

/// `type: enum`: non-empty `values` and a `default` that is one of them.
fn read_enum_trait(t: &Struct, what: &str, d: &mut Diags) -> Option<TraitKind> {
    let Some(values_node) = t.get("values") else {
        d.push(Diagnostic::error(
            "missing-key",
            Some(t.span),
            format!("{what} is missing `values`"),
        ));
        return None;
    };
    let values = read::string_list(values_node, "values", d);
    if values.is_empty() {
        d.push(Diagnostic::error(
            "empty-enum",
            Some(values_node.span),
            format!("{what} has no values"),
        ));
        return None;
    }
    for v in &values {
        read::check_name(v, "trait value", d);
    }
    let Some(default_node) = t.get("default") else {
        d.push(
            Diagnostic::error(
                "missing-key",
                Some(t.span),
                format!("{what} is missing `default`"),
            )
            .with_hint(format!("add `default: {}`", values[0].v)),
        );
        return None;
    };
    let default = read::string(default_node, "default", d)?;
    if !values.iter().any(|v| v.v == default.v) {
        d.push(
            Diagnostic::error(
                "bad-default",
                Some(default.span),
                format!("default `{}` is not one of the values of {what}", default.v),
            )
            .with_hint(
                crate::diag::did_you_mean(&default.v, values.iter().map(|v| v.as_str()))
                    .unwrap_or_else(|| {
                        format!(
                            "values: {}",
                            values
                                .iter()
                                .map(|v| v.v.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    }),
            ),
        );
        return None;
    }
    Some(TraitKind::Enum {
        values: values.into_iter().map(|v| v.v).collect(),
        default: default.v,
    })
}

// ---------------------------------------------------------------------------------------
// roles.yaml, skills/, aliases.yaml, retired.yaml

pub fn read_roles(root: &Node, d: &mut Diags) -> Vec<RoleDef> {
    let mut out = Vec::new();
    for (name, node) in read::entries(root, "roles.yaml", d) {
        read::check_name(&name, "role", d);
        let what = format!("role `{}`", name.v);
        let Some(r) = Struct::read(
            node,
            &what,
            &[
                "description",
                "extends",
                "tools",
                "skills",
                "token_budget",
                "sandbox",
            ],
            &[],
            d,
        ) else {
            continue;
        };
        out.push(RoleDef {
            description: r
                .get("description")
                .and_then(|n| read::string(n, "description", d))
                .map(|s| s.v)
                .unwrap_or_default(),
            extends: r.get("extends").and_then(|n| read::string(n, "extends", d)),
            tools: r
                .get("tools")
                .map(|n| read::string_list(n, "tools", d))
                .unwrap_or_default(),
            skills: r
                .get("skills")
                .map(|n| read::string_list(n, "skills", d))
                .unwrap_or_default(),
            token_budget: r
                .get("token_budget")
                .and_then(|n| read::uint(n, "token_budget", d)),
            sandbox: r
                .get("sandbox")
                .and_then(|n| crate::load::sandbox::read_sandbox(n, &what, d)),
            name,
        });
    }
    out
}

pub fn read_skill(stem: &str, root: &Node, d: &mut Diags) -> Option<SkillDef> {
    let s = Struct::read(
        root,
        "a skill",
        &["name", "description", "tools"],
        &["name", "tools"],
        d,
    )?;
    let name = read::string(s.get("name")?, "name", d)?;
    if read::check_name(&name, "skill", d) && name.v != stem {
        d.push(
            Diagnostic::error(
                "name-mismatch",
                Some(name.span),
                format!("skill `{}` is defined in a file named `{stem}`", name.v),
            )
            .with_hint(format!("rename the file to skills/{}.yaml", name.v)),
        );
    }
    Some(SkillDef {
        description: s
            .get("description")
            .and_then(|n| read::string(n, "description", d))
            .map(|s| s.v)
            .unwrap_or_default(),
        tools: s
            .get("tools")
            .map(|n| read::string_list(n, "tools", d))
            .unwrap_or_default(),
        name,
    })
}

pub fn read_aliases(root: &Node, d: &mut Diags) -> Vec<AliasDef> {
    let mut out = Vec::new();
    for (name, node) in read::entries(root, "aliases.yaml", d) {
        read::check_tool_name(&name, "alias", d);
        let what = format!("alias `{}`", name.v);
        let Some(a) = Struct::read(node, &what, &["tool", "set", "rename"], &["tool"], d) else {
            continue;
        };
        let set = a
            .get("set")
            .map(|n| {
                read::entries(n, "set", d)
                    .into_iter()
                    .map(|(k, v)| (k, v.clone()))
                    .collect()
            })
            .unwrap_or_default();
        let rename = a
            .get("rename")
            .map(|n| {
                read::entries(n, "rename", d)
                    .into_iter()
                    .filter_map(|(k, v)| Some((k, read::string(v, "a rename target", d)?)))
                    .collect()
            })
            .unwrap_or_default();
        out.push(AliasDef {
            tool: a.get("tool").and_then(|n| read::string(n, "tool", d)),
            set,
            rename,
            name,
        });
    }
    out
}

pub fn read_retired(root: &Node, d: &mut Diags) -> Vec<RetiredDef> {
    let mut out = Vec::new();
    for (name, node) in read::entries(root, "retired.yaml", d) {
        read::check_tool_name(&name, "retired", d);
        let what = format!("retired name `{}`", name.v);
        let Some(r) = Struct::read(node, &what, &["message", "replaced_by"], &["message"], d)
        else {
            continue;
        };
        out.push(RetiredDef {
            message: r
                .get("message")
                .and_then(|n| read::string(n, "message", d))
                .map(|s| s.v)
                .unwrap_or_default(),
            replaced_by: r
                .get("replaced_by")
                .map(|n| read::string_list(n, "replaced_by", d))
                .unwrap_or_default(),
            name,
        });
    }
    out
}

// ---------------------------------------------------------------------------------------
// tools/NAME.yaml

const TOOL_KEYS: &[&str] = &[
    "name",
    "object",
    "description",
    "families",
    "route",
    "session",
    "traits",
    "selector",
    "fields",
    "actions",
    "required",
    "optional",
    "exactly_one_of",
    "at_most_one_of",
    "forbidden_with",
    "freeform",
    "replaceable_by",
    "examples",
    "output",
    "shapes",
    "icon",
    "title",
    "implements",
    "parameters",
    "meta",
    "hosted",
    "output_schema",
];
const ACTION_BODY_KEYS: &[&str] = &[
    "required",
    "optional",
    "exactly_one_of",
    "at_most_one_of",
    "forbidden_with",
];

pub fn read_tool(file: FileId, stem: &str, root: &Node, d: &mut Diags) -> Option<ToolDef> {
    let t = Struct::read(
        root,
        "a tool",
        TOOL_KEYS,
        &["name", "object", "description"],
        d,
    )?;
    let name = t.get("name").and_then(|n| read::string(n, "name", d))?;
    check_tool_name_matches_file(&name, stem, d);
    let object = t
        .get("object")
        .and_then(|n| read::string(n, "object", d))
        .map(|s| s.v)
        .unwrap_or_default();
    let description = t
        .get("description")
        .and_then(|n| read::template(n, "description", d))
        .unwrap_or_else(|| empty_template(name.span));
    let families = t.get("families").and_then(|n| read_tool_families(n, d));
    let route = t
        .get("route")
        .and_then(|n| read::string(n, "route", d))
        .map(|r| read_route(&r, d))
        .unwrap_or_default();
    let session = t.get("session").and_then(|n| read_session(n, d));
    let traits = t
        .get("traits")
        .map(|n| trait_values(n, d))
        .unwrap_or_default();
    if let Some(n) = t.get("replaceable_by") {
        crate::consolidate::replaceable::read_replaceable(n, d);
    }
    let selector = t.get("selector").and_then(|n| read_selector(n, d));
    let mut shapes = match t.get("shapes") {
        Some(n) => ShapeCx::read(n, d),
        None => ShapeCx::none(),
    };
    let (fields, broken_fields) = t
        .get("fields")
        .map(|node| read_fields(node, &mut shapes, d))
        .unwrap_or_default();
    let parameters = t
        .get("parameters")
        .map(|n| super::types::read_parameters(n, &mut shapes, d))
        .unwrap_or_default();
    let actions = read_actions(&t, &name, &mut shapes, d);
    let freeform = t.get("freeform").and_then(|n| read_freeform(n, d));
    let (output, icons) = super::examples::read_tool_extras(&t, &name, &mut shapes, d);
    let used_shapes = shapes.finish(d);
    check_verbatim_defs(
        &parameters,
        &used_shapes.fields,
        t.key_span("parameters"),
        d,
    );
    let meta = t.get("meta").map(|n| read_meta(n, d)).unwrap_or_default();
    let hosted = t.get("hosted").and_then(|n| read_hosted(&t, n, d));
    let implements = t
        .get("implements")
        .and_then(|n| super::implements::read_implements(n, d));
    let (title, title_at) = t
        .get("title")
        .map(|n| read_title(n, d))
        .unwrap_or((None, (true, true)));
    let output_schema = read_output_schema(&t, d);
    Some(ToolDef {
        output,
        output_schema,
        output_shapes: used_shapes.outputs,
        field_shapes: used_shapes.fields,
        title_at,
        icons,
        meta,
        hosted,
        title,
        implements,
        parameters,
        file,
        stem: stem.to_owned(),
        name,
        object,
        description,
        families,
        route,
        session,
        traits,
        selector,
        fields,
        broken_fields,
        actions,
        freeform,
    })
}

/// `output_schema:`, a verbatim output schema (refused beside a typed `output:`).
fn read_output_schema(t: &Struct<'_>, d: &mut Diags) -> Option<serde_json::Value> {
    if let (Some(span), true) = (t.key_span("output_schema"), t.get("output").is_some()) {
        d.push(Diagnostic::error(
            "output-twice",
            Some(span),
            "`output_schema` (verbatim) and `output` (typed) say the same thing: keep one",
        ));
    }
    t.get("output_schema").map(Node::to_json)
}

/// `parameters: json_schema: { $defs: … }` (entries kept as written beside the shapes) may not
/// name a shape the fields use: the published `$defs` holds each name once.
fn check_verbatim_defs(
    parameters: &crate::ir::Parameters,
    shapes: &[(String, Type)],
    at: Option<Span>,
    d: &mut Diags,
) {
    let verbatim = parameters
        .ann
        .extra
        .iter()
        .find(|(k, _)| k == "$defs")
        .and_then(|(_, v)| v.as_object());
    for name in verbatim.into_iter().flat_map(|o| o.keys()) {
        if shapes.iter().any(|(n, _)| n == name) {
            d.push(
                Diagnostic::error(
                    "shape-twice",
                    at,
                    format!(
                        "`parameters: json_schema:` keeps a `$defs` entry `{name}`, the name of a shape the fields use"
                    ),
                )
                .with_hint("rename one of them: the published `$defs` holds each name once"),
            );
        }
    }
}

/// `title:`: a text (published as the tool's `title` and `annotations.title`), `false` (no
/// title: held as an empty one), or `{ text, top, annotations }` to publish it in one place.
fn read_title(n: &Node, d: &mut Diags) -> (Option<String>, (bool, bool)) {
    match &n.value {
        Value::Bool(false) => (Some(String::new()), (true, true)),
        Value::Map(_) => {
            let Some(s) = Struct::read(n, "title", &["text", "top", "annotations"], &["text"], d)
            else {
                return (None, (true, true));
            };
            let flag = |k: &str, d: &mut Diags| {
                s.get(k)
                    .and_then(|x| read::boolean(x, k, d))
                    .unwrap_or(true)
            };
            let text = s
                .get("text")
                .and_then(|x| read::string(x, "text", d))
                .map(|x| x.v);
            (text, (flag("top", d), flag("annotations", d)))
        }
        _ => (read::string(n, "title", d).map(|s| s.v), (true, true)),
    }
}

/// `hosted:`: a provider's own entry for a tool it runs (a mapping with its `type`), published
/// verbatim. Such a tool declares no fields or actions, and names its families (the entry is
/// in their dialect's shape; `check` holds them to one dialect).
fn read_hosted(t: &Struct<'_>, n: &Node, d: &mut Diags) -> Option<serde_json::Value> {
    let entry = n.to_json();
    if entry
        .get("type")
        .and_then(serde_json::Value::as_str)
        .is_none()
    {
        d.push(
            Diagnostic::error(
                "bad-hosted",
                Some(n.span),
                "`hosted` is the provider's entry: a mapping with its `type`",
            )
            .with_hint("hosted: { type: local_shell }"),
        );
        return None;
    }
    for key in [
        "fields", "selector", "actions", "freeform", "required", "optional",
    ] {
        if let Some(span) = t.key_span(key) {
            d.push(Diagnostic::error(
                "hosted-with-fields",
                Some(span),
                format!("a hosted tool has no `{key}`: the provider defines its arguments"),
            ));
        }
    }
    if t.get("families").is_none() {
        d.push(
            Diagnostic::error(
                "hosted-without-families",
                Some(n.span),
                "a hosted tool names its `families` (those of the dialect its entry is written for)",
            )
            .with_hint("families: [responses]"),
        );
    }
    Some(entry)
}

/// `meta:`: MCP `_meta` keys, published as written; toolsurface's own namespace
/// (`io.toolsurface/`) is the compiler's to write.
fn read_meta(n: &Node, d: &mut Diags) -> Vec<(String, serde_json::Value)> {
    let mut out = Vec::new();
    for (k, v) in read::entries(n, "meta", d) {
        if k.v.starts_with(crate::emit::META_PREFIX) {
            d.push(Diagnostic::error(
                "reserved-meta",
                Some(k.span),
                format!(
                    "`{}`: keys under `{}` are written by toolsurface",
                    k.v,
                    crate::emit::META_PREFIX
                ),
            ));
            continue;
        }
        out.push((k.v, v.to_json()));
    }
    out
}

/// One tool per file, and the file is named after the tool.
fn check_tool_name_matches_file(name: &Sp<String>, stem: &str, d: &mut Diags) {
    if read::check_tool_name(name, "tool", d) && name.v != stem {
        d.push(
            Diagnostic::error(
                "name-mismatch",
                Some(name.span),
                format!("tool `{}` is defined in a file named `{stem}`", name.v),
            )
            .with_hint(format!(
                "one tool per file: rename the file to tools/{}.yaml",
                name.v
            )),
        );
    }
}

/// A tool's `families:`. A mistyped list is reported once, not again as "declared for no
/// family".
fn read_tool_families(n: &Node, d: &mut Diags) -> Option<Vec<Sp<String>>> {
    match n.value {
        Value::Seq(_) => Some(read::string_list(n, "families", d)),
        _ => {
            d.push(read::list_expected(n, "families", "a list of families"));
            None
        }
    }
}

/// `route:`; an unknown one is reported and the default kept.
fn read_route(r: &Sp<String>, d: &mut Diags) -> Route {
    match r.v.as_str() {
        "thread_host" => Route::ThreadHost,
        "session_host" => Route::SessionHost,
        "local" => Route::Local,
        other => {
            let names = ["thread_host", "session_host", "local"];
            d.push(
                Diagnostic::error(
                    "unknown-route",
                    Some(r.span),
                    format!("unknown route `{other}`"),
                )
                .with_hint(
                    crate::diag::did_you_mean(other, names)
                        .unwrap_or_else(|| "route: thread_host | session_host | local".into()),
                ),
            );
            Route::default()
        }
    }
}

/// `session: { id, host }`.
fn read_session(n: &Node, d: &mut Diags) -> Option<(Sp<String>, Option<Sp<String>>)> {
    let s = Struct::read(n, "session", &["id", "host"], &["id"], d)?;
    let id = read::string(s.get("id")?, "session id", d)?;
    let host = s
        .get("host")
        .and_then(|n| read::string(n, "session host", d));
    Some((id, host))
}

/// `selector: { name, description }`.
fn read_selector(n: &Node, d: &mut Diags) -> Option<SelectorDef> {
    let s = Struct::read(n, "selector", &["name", "description"], &["name"], d)?;
    let sel_name = read::string(s.get("name")?, "selector name", d)?;
    read::check_name(&sel_name, "selector", d);
    let description = s
        .get("description")
        .and_then(|n| read::template(n, "selector description", d))
        .unwrap_or_else(|| empty_template(sel_name.span));
    Some(SelectorDef {
        name: sel_name,
        description,
    })
}

/// `fields:`: the fields that read, and the names of those that did not.
fn read_fields(node: &Node, sh: &mut ShapeCx<'_>, d: &mut Diags) -> (Vec<Field>, BTreeSet<String>) {
    let mut fields = Vec::new();
    let mut broken_fields = BTreeSet::new();
    let mut spelled: Vec<(String, String)> = Vec::new();
    for (fname, fnode) in read::entries(node, "fields", d) {
        read::check_field_name(&fname, "field", d);
        let rust = read::rust_spelling(&fname.v);
        if let Some((other, _)) = spelled.iter().find(|(_, r)| *r == rust) {
            d.push(
                Diagnostic::error(
                    "name-collision",
                    Some(fname.span),
                    format!(
                        "field `{}` and field `{other}` are both `{rust}` in generated code",
                        fname.v
                    ),
                )
                .with_hint("rename one of them"),
            );
        }
        spelled.push((fname.v.clone(), rust));
        let what = format!("field `{}`", fname.v);
        match read_type(fnode, &what, true, sh, d) {
            Some((ty, description)) => fields.push(Field {
                description: description.unwrap_or_else(|| empty_template(fname.span)),
                name: fname.v,
                ty,
                span: fname.span,
            }),
            None => {
                broken_fields.insert(fname.v);
            }
        }
    }
    (fields, broken_fields)
}

/// The actions of a tool: those under `actions:` for a selector tool, else one unnamed
/// action whose body (`required`, `optional`, ...) sits at the top of the tool.
fn read_actions(
    t: &Struct<'_>,
    name: &Sp<String>,
    cx: &mut ShapeCx<'_>,
    d: &mut Diags,
) -> Vec<ActionDef> {
    match (t.get("selector"), t.get("actions")) {
        (_, Some(node)) => read_selector_actions(t, node, name, cx, d),
        (Some(_), None) => {
            d.push(
                Diagnostic::error(
                    "selector-without-actions",
                    t.key_span("selector"),
                    format!("tool `{}` has a selector but no actions", name.v),
                )
                .with_hint("add `actions:`, or drop the selector for a single-action tool"),
            );
            Vec::new()
        }
        (None, None) => {
            let span = name.span;
            let mut action = action_body(t, None, empty_template(span), Vec::new(), span, d);
            let what = format!("tool `{}`", name.v);
            super::examples::read_action_extras(t, &what, false, &mut action, cx, d);
            vec![action]
        }
    }
}

/// `actions:` of a tool (which should have a selector and no top-level action body).
fn read_selector_actions(
    t: &Struct<'_>,
    node: &Node,
    name: &Sp<String>,
    cx: &mut ShapeCx<'_>,
    d: &mut Diags,
) -> Vec<ActionDef> {
    if t.get("selector").is_none() {
        d.push(
            Diagnostic::error(
                "actions-without-selector",
                t.key_span("actions"),
                format!("tool `{}` has actions but no selector", name.v),
            )
            .with_hint("add `selector: { name: action, description: ... }`"),
        );
    }
    for key in ACTION_BODY_KEYS {
        if let Some(span) = t.key_span(key) {
            d.push(
                Diagnostic::error(
                    "misplaced-key",
                    Some(span),
                    format!("`{key}` belongs under an action of a tool with actions"),
                )
                .with_hint("move it into each action that needs it"),
            );
        }
    }
    let mut actions = Vec::new();
    for (aname, anode) in read::entries(node, "actions", d) {
        read::check_name(&aname, "action", d);
        if let Some(action) = read_named_action(aname, anode, cx, d) {
            actions.push(action);
        }
    }
    if actions.is_empty() {
        d.push(Diagnostic::error(
            "no-actions",
            Some(node.span),
            format!("tool `{}` declares `actions` but none", name.v),
        ));
    }
    actions
}

/// One entry of `actions:`.
fn read_named_action(
    aname: Sp<String>,
    anode: &Node,
    cx: &mut ShapeCx<'_>,
    d: &mut Diags,
) -> Option<ActionDef> {
    let what = format!("action `{}`", aname.v);
    let a = Struct::read(
        anode,
        &what,
        &[
            "description",
            "required",
            "optional",
            "exactly_one_of",
            "at_most_one_of",
            "forbidden_with",
            "traits",
            "defaults",
            "examples",
            "output",
        ],
        &[],
        d,
    )?;
    let description = a
        .get("description")
        .and_then(|n| read::template(n, "action description", d))
        .unwrap_or_else(|| empty_template(aname.span));
    let traits = a
        .get("traits")
        .map(|n| trait_values(n, d))
        .unwrap_or_default();
    let span = aname.span;
    let mut action = action_body(&a, Some(aname), description, traits, span, d);
    action.defaults = a
        .get("defaults")
        .map(|n| read::entries(n, "defaults", d))
        .unwrap_or_default()
        .into_iter()
        .map(|(k, v)| (k, v.clone()))
        .collect();
    super::examples::read_action_extras(&a, &what, true, &mut action, cx, d);
    Some(action)
}

/// `freeform: { families, field, syntax, grammar }`.
fn read_freeform(n: &Node, d: &mut Diags) -> Option<FreeformDef> {
    let f = Struct::read(
        n,
        "freeform",
        &["families", "field", "syntax", "grammar"],
        &["families", "field", "syntax", "grammar"],
        d,
    )?;
    Some(FreeformDef {
        families: f
            .get("families")
            .map(|n| read::string_list(n, "freeform families", d))
            .unwrap_or_default(),
        field: read::string(f.get("field")?, "freeform field", d)?,
        syntax: read::string(f.get("syntax")?, "syntax", d)?,
        grammar: read::string(f.get("grammar")?, "grammar", d)?,
        span: n.span,
    })
}

fn action_body(
    s: &Struct<'_>,
    name: Option<Sp<String>>,
    description: Template,
    traits: Vec<(Sp<String>, Node)>,
    span: Span,
    d: &mut Diags,
) -> ActionDef {
    let required = s
        .get("required")
        .map(|n| read::string_list(n, "required", d))
        .unwrap_or_default();
    let optional = s
        .get("optional")
        .map(|n| read::string_list(n, "optional", d));
    let exactly_one_of = s
        .get("exactly_one_of")
        .map(|n| read_groups(n, "exactly_one_of", d))
        .unwrap_or_default();
    let mut forbidden_with = s
        .get("forbidden_with")
        .map(|n| read_forbidden_with(n, d))
        .unwrap_or_default();
    if let Some(n) = s.get("at_most_one_of") {
        forbidden_with.extend(at_most_one_of(n, d));
    }
    ActionDef {
        name,
        description,
        required,
        optional,
        exactly_one_of,
        forbidden_with,
        traits,
        defaults: Vec::new(),
        examples: Vec::new(),
        output: None,
        span,
    }
}

/// `exactly_one_of: [[a, b], ...]` (or `at_most_one_of`, `key`); a group of fewer than two is
/// reported but kept.
fn read_groups(n: &Node, key: &str, d: &mut Diags) -> Vec<Vec<Sp<String>>> {
    let mut exactly_one_of = Vec::new();
    match &n.value {
        Value::Seq(groups) => {
            for g in groups {
                let group = read::string_list(g, &format!("an {key} group"), d);
                if group.len() < 2 {
                    d.push(
                        Diagnostic::error(
                            if key == "exactly_one_of" {
                                "bad-exactly-one-of"
                            } else {
                                "bad-at-most-one-of"
                            },
                            Some(g.span),
                            format!("an {key} group needs at least two fields"),
                        )
                        .with_hint(format!("write `{key}: [[a, b]]`")),
                    );
                }
                exactly_one_of.push(group);
            }
        }
        _ => d.push(read::wrong_type(
            n,
            "exactly_one_of",
            "a list of lists of fields",
        )),
    }
    exactly_one_of
}

/// `forbidden_with: [{ field, with, message }, ...]`; incomplete entries are dropped.
/// `at_most_one_of: [[a, b, c], ...]`: no two of a group together, one declaration for what
/// would be a `forbidden_with` rule per pair (it lowers to exactly those, so every backend
/// enforces it as it enforces them; a boolean counts only when `true`). The message names the
/// group.
fn at_most_one_of(n: &Node, d: &mut Diags) -> Vec<ForbiddenDef> {
    let mut out = Vec::new();
    for group in read_groups(n, "at_most_one_of", d) {
        let names: Vec<&str> = group.iter().map(|g| g.v.as_str()).collect();
        let listed = match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => names.concat(),
        };
        for (i, a) in group.iter().enumerate() {
            for b in &group[i + 1..] {
                out.push(ForbiddenDef {
                    field: a.clone(),
                    with: b.clone(),
                    message: format!(
                        "{} and {} were both given; pass at most one of {listed}.",
                        a.v, b.v
                    ),
                });
            }
        }
    }
    out
}

fn read_forbidden_with(n: &Node, d: &mut Diags) -> Vec<ForbiddenDef> {
    let mut forbidden_with = Vec::new();
    match &n.value {
        Value::Seq(items) => {
            for item in items {
                let Some(f) = Struct::read(
                    item,
                    "a forbidden_with entry",
                    &["field", "with", "message"],
                    &["field", "with", "message"],
                    d,
                ) else {
                    continue;
                };
                let field = f.get("field").and_then(|n| read::string(n, "field", d));
                let with = f.get("with").and_then(|n| read::string(n, "with", d));
                let message = f.get("message").and_then(|n| read::string(n, "message", d));
                if let (Some(field), Some(with), Some(message)) = (field, with, message) {
                    forbidden_with.push(ForbiddenDef {
                        field,
                        with,
                        message: message.v,
                    });
                }
            }
        }
        _ => d.push(read::wrong_type(n, "forbidden_with", "a list")),
    }
    forbidden_with
}

fn trait_values(node: &Node, d: &mut Diags) -> Vec<(Sp<String>, Node)> {
    read::entries(node, "traits", d)
        .into_iter()
        .map(|(k, v)| (k, v.clone()))
        .collect()
}

pub(crate) const TYPES: &[&str] = &[
    "string", "integer", "number", "boolean", "enum", "array", "object",
];

/// The field language's type names: [`TYPES`] (which outputs share) and the ones only fields
/// have.
const FIELD_TYPES: &[&str] = &[
    "string", "integer", "number", "boolean", "enum", "array", "object", "any", "null", "const",
    "any_of", "one_of",
];

fn keys_for(ty: &str) -> &'static [&'static str] {
    match ty {
        "string" => &["min_length", "max_length", "pattern", "const"],
        "integer" | "number" => &["minimum", "maximum", "const"],
        "boolean" => &["const"],
        "enum" => &["values"],
        "array" => &["items", "min_items", "max_items"],
        "object" => &["properties", "required", "additional_properties"],
        "const" => &["value"],
        "any_of" | "one_of" => &["branches"],
        _ => &[],
    }
}

/// A field type (and, when `with_description`, the field's description). Without it (array
/// items, union branches) a `description` is an annotation of the node.
pub fn read_type(
    node: &Node,
    what: &str,
    with_description: bool,
    sh: &mut ShapeCx<'_>,
    d: &mut Diags,
) -> Option<(Type, Option<Template>)> {
    let Value::Map(entries) = &node.value else {
        d.push(read::wrong_type(node, what, "a mapping with `type:`"));
        return None;
    };
    if super::shapes::is_use(node) {
        return read_shape_use(node, what, with_description, sh, d);
    }
    let listed = entries
        .iter()
        .find(|(k, _)| k.as_str() == Some("type"))
        .and_then(|(_, v)| match &v.value {
            Value::Seq(items) => Some(items),
            _ => None,
        });
    let names: Vec<String> = match listed {
        Some(items) => super::types::type_list_names(items, what, d)?,
        None => vec![read_type_name(node, entries, what, "field", FIELD_TYPES, d)?.v],
    };
    let keys: Vec<&str> = names
        .iter()
        .flat_map(|n| keys_for(n).iter().copied())
        .collect();
    report_keys_foreign_to_type(entries, &names.join(", "), &keys, what, d);
    let s = Struct::read(node, what, &[], &[], &mut Vec::new())?;
    let description = if with_description {
        read_field_description(&s, node, what, d)
    } else {
        None
    };
    let body = TypeBody { s, node, what };
    let mut branches = Vec::with_capacity(names.len());
    for name in &names {
        branches.push(body.read_one(name, sh, d)?);
    }
    let ty = match branches.len() {
        1 => branches.pop()?,
        _ => Type::Union {
            form: crate::ir::UnionForm::TypeList,
            branches,
        },
    };
    let ty = super::types::annotate(ty, &body.s, with_description, d);
    Some((ty, description))
}

/// A use of a shape as a field type, `{ shape: name, description? }`: the shape's definition
/// tagged with its name. A field's description is the use's own (none: the shape's, which
/// its definition publishes); elsewhere the use's description annotates the node.
fn read_shape_use(
    node: &Node,
    what: &str,
    with_description: bool,
    sh: &mut ShapeCx<'_>,
    d: &mut Diags,
) -> Option<(Type, Option<Template>)> {
    let (name, def, own) = sh.use_shape::<Type>(node, what, d)?;
    let ty = Type::Shape {
        name: name.v,
        ty: Box::new(def),
    };
    if with_description {
        // Without its own, the use says nothing beside the reference: the shape's own
        // description is published once, in its definition.
        let description = match &own {
            Some(n) => read::template(n, "description", d)?,
            None => empty_template(node.span),
        };
        return Some((ty, Some(description)));
    }
    let Some(n) = own else {
        return Some((ty, None));
    };
    let text = read::string(&n, "description", d)?.v.trim().to_owned();
    let ann = SchemaAnnotations {
        description: Some(text),
        ..SchemaAnnotations::default()
    };
    Some((
        Type::Annotated {
            ty: Box::new(ty),
            ann: Box::new(ann),
        },
        None,
    ))
}

/// The `type:` of a field type (or, `kind` = "output", of an output declaration), one of
/// [`TYPES`]: the one reader of the field language's type names.
pub(crate) fn read_type_name(
    node: &Node,
    entries: &[(Node, Node)],
    what: &str,
    kind: &str,
    names: &[&str],
    d: &mut Diags,
) -> Option<Sp<String>> {
    let ty_node = entries
        .iter()
        .find(|(k, _)| k.as_str() == Some("type"))
        .map(|(_, v)| v);
    let Some(ty_node) = ty_node else {
        d.push(
            Diagnostic::error(
                "missing-key",
                Some(node.span),
                format!("{what} is missing `type`"),
            )
            .with_hint(format!("type: {}", names.join(" | "))),
        );
        return None;
    };
    if ty_node.value == Value::Null && names.contains(&"null") {
        // `type: null` unquoted: YAML reads null; the writer meant the null type.
        return Some(Sp {
            v: "null".to_owned(),
            span: ty_node.span,
        });
    }
    let ty = read::string(ty_node, "type", d)?;
    if !names.contains(&ty.v.as_str()) {
        d.push(
            Diagnostic::error(
                "unknown-type",
                Some(ty.span),
                format!("unknown {kind} type `{}`", ty.v),
            )
            .with_hint(
                crate::diag::did_you_mean(&ty.v, names.iter().copied())
                    .unwrap_or_else(|| format!("type: {}", names.join(" | "))),
            ),
        );
        return None;
    }
    Some(ty)
}

/// Unknown keys of a field type (`ty`: its type name, or the names of a type list, whose
/// keys are `keys`): point out keys that belong to another type.
fn report_keys_foreign_to_type(
    entries: &[(Node, Node)],
    ty: &str,
    keys: &[&str],
    what: &str,
    d: &mut Diags,
) {
    let mut known: Vec<&str> = vec!["type", "description"];
    known.extend_from_slice(keys);
    known.extend_from_slice(super::types::ANNOTATION_KEYS);
    for (k, _) in entries {
        let Some(key) = k.as_str() else { continue };
        if known.contains(&key) {
            continue;
        }
        let owners: Vec<&str> = FIELD_TYPES
            .iter()
            .copied()
            .filter(|t| keys_for(t).contains(&key))
            .collect();
        if !owners.is_empty() {
            d.push(
                Diagnostic::error(
                    "unknown-key",
                    Some(k.span),
                    format!("`{key}` does not apply to a {ty} field ({what})"),
                )
                .with_hint(format!(
                    "`{key}` applies to {} fields",
                    owners.join(" and ")
                )),
            );
        } else {
            d.push(read::unknown_key(k.span, key, what, &known));
        }
    }
}

/// A field's (or property's) `description:`, which every field must have.
fn read_field_description(
    s: &Struct<'_>,
    node: &Node,
    what: &str,
    d: &mut Diags,
) -> Option<Template> {
    match s.get("description") {
        Some(n) => read::template(n, "description", d),
        None => {
            d.push(
                Diagnostic::error(
                    "missing-key",
                    Some(node.span),
                    format!("{what} is missing `description`"),
                )
                .with_hint("every field is described; the description is published"),
            );
            None
        }
    }
}

/// The keys of one field type, read per type kind.
struct TypeBody<'n, 'w> {
    s: Struct<'n>,
    node: &'n Node,
    /// "field `x`", "the items of ...": names the type in messages.
    what: &'w str,
}

impl TypeBody<'_, '_> {
    /// The type `name` from this node's keys (one name of a type list, or the only one).
    fn read_one(&self, name: &str, sh: &mut ShapeCx<'_>, d: &mut Diags) -> Option<Type> {
        let (s, node, what) = (&self.s, self.node, self.what);
        if matches!(name, "string" | "integer" | "number" | "boolean") && s.get("const").is_some() {
            return super::types::read_const(s, node, "const", Some(name), what, d);
        }
        Some(match name {
            "string" => self.read_string(d),
            "integer" => self.read_integer(d),
            "number" => self.read_number(d),
            "boolean" => Type::Boolean,
            "enum" => self.read_enum(d)?,
            "array" => self.read_array(sh, d)?,
            "object" => self.read_object(sh, d),
            "any" => Type::Any,
            "null" => Type::Null,
            "const" => super::types::read_const(s, node, "value", None, what, d)?,
            other => Type::Union {
                form: super::types::union_form(other)?,
                branches: super::types::read_branches(s, node, what, sh, d)?,
            },
        })
    }

    fn uint(&self, key: &str, d: &mut Diags) -> Option<u64> {
        self.s.get(key).and_then(|n| read::uint(n, key, d))
    }

    fn read_string(&self, d: &mut Diags) -> Type {
        let s = &self.s;
        let min_length = self.uint("min_length", d);
        let max_length = self.uint("max_length", d);
        check_bounds(
            s,
            "min_length",
            "max_length",
            min_length.map(|v| v as f64),
            max_length.map(|v| v as f64),
            d,
        );
        let pattern = s.get("pattern").and_then(|n| read::string(n, "pattern", d));
        if let Some(p) = &pattern
            && let Err(e) = regex::Regex::new(&p.v)
        {
            let msg = e.to_string();
            let last = msg.lines().last().unwrap_or("").trim();
            let last = last.strip_prefix("error: ").unwrap_or(last).to_owned();
            d.push(Diagnostic::error(
                "bad-pattern",
                Some(p.span),
                format!("pattern is not a valid regex: {last}"),
            ));
        }
        Type::String {
            min_length,
            max_length,
            pattern: pattern.map(|p| p.v),
        }
    }

    fn read_integer(&self, d: &mut Diags) -> Type {
        let s = &self.s;
        let minimum = s.get("minimum").and_then(|n| read::int(n, "minimum", d));
        let maximum = s.get("maximum").and_then(|n| read::int(n, "maximum", d));
        check_bounds(
            s,
            "minimum",
            "maximum",
            minimum.map(|v| v as f64),
            maximum.map(|v| v as f64),
            d,
        );
        Type::Integer { minimum, maximum }
    }

    fn read_number(&self, d: &mut Diags) -> Type {
        let s = &self.s;
        let minimum = s.get("minimum").and_then(|n| read::number(n, "minimum", d));
        let maximum = s.get("maximum").and_then(|n| read::number(n, "maximum", d));
        check_bounds(s, "minimum", "maximum", minimum, maximum, d);
        Type::Number { minimum, maximum }
    }

    fn read_enum(&self, d: &mut Diags) -> Option<Type> {
        let values = read_enum_values(self.node, &self.s, self.what, d)?;
        Some(Type::Enum {
            values: values.into_iter().map(|v| v.v).collect(),
        })
    }

    fn read_array(&self, sh: &mut ShapeCx<'_>, d: &mut Diags) -> Option<Type> {
        let what = self.what;
        let Some(inode) = self.s.get("items") else {
            d.push(
                Diagnostic::error(
                    "missing-key",
                    Some(self.node.span),
                    format!("{what} is missing `items`"),
                )
                .with_hint("items: { type: string }"),
            );
            return None;
        };
        let (items, _) = read_type(inode, &format!("the items of {what}"), false, sh, d)?;
        let min_items = self.uint("min_items", d);
        let max_items = self.uint("max_items", d);
        check_bounds(
            &self.s,
            "min_items",
            "max_items",
            min_items.map(|v| v as f64),
            max_items.map(|v| v as f64),
            d,
        );
        Some(Type::Array {
            items: Box::new(items),
            min_items,
            max_items,
        })
    }

    fn read_object(&self, sh: &mut ShapeCx<'_>, d: &mut Diags) -> Type {
        let what = self.what;
        let mut properties: Vec<Property> = Vec::new();
        if let Some(pnode) = self.s.get("properties") {
            for (pname, p) in read::entries(pnode, "properties", d) {
                read::check_field_name(&pname, "property", d);
                let pwhat = format!("property `{}` of {what}", pname.v);
                if let Some((ty, description)) = read_type(p, &pwhat, true, sh, d) {
                    properties.push(Property {
                        name: pname.v,
                        ty,
                        description: description.unwrap_or_else(|| empty_template(pname.span)),
                        required: false,
                    });
                }
            }
        }
        if let Some(rnode) = self.s.get("required") {
            mark_required_properties(rnode, &mut properties, what, d);
        }
        let (additional, implicit_open) = match self.s.get("additional_properties") {
            Some(n) => read_additional(n, &format!("the other properties of {what}"), sh, d),
            None => (None, false),
        };
        Type::Object {
            properties,
            additional: additional.map(Box::new),
            implicit_open,
        }
    }
}

/// `additional_properties:`: `false` (the default: other keys refused), `true` (any value),
/// `implicit` (any value, and no keyword published: JSON Schema's default, what an input
/// without `additionalProperties` says), or the type other keys' values have.
pub(crate) fn read_additional(
    n: &Node,
    what: &str,
    sh: &mut ShapeCx<'_>,
    d: &mut Diags,
) -> (Option<Type>, bool) {
    match &n.value {
        Value::Bool(false) => (None, false),
        Value::Bool(true) => (Some(Type::Any), false),
        Value::Str(s) if s == "implicit" => (Some(Type::Any), true),
        Value::Map(_) => (read_type(n, what, false, sh, d).map(|(t, _)| t), false),
        _ => {
            d.push(read::wrong_type(
                n,
                "additional_properties",
                "true, false, implicit or a type",
            ));
            (None, false)
        }
    }
}

/// An object type's `required:` list: each name must be one of its `properties`.
fn mark_required_properties(rnode: &Node, properties: &mut [Property], what: &str, d: &mut Diags) {
    for r in read::string_list(rnode, "required", d) {
        match properties.iter_mut().find(|p| p.name == r.v) {
            Some(p) => p.required = true,
            None => d.push(
                Diagnostic::error(
                    "unknown-property",
                    Some(r.span),
                    format!("`{}` is not a property of {what}", r.v),
                )
                .with_hint(
                    crate::diag::did_you_mean(&r.v, properties.iter().map(|p| p.name.as_str()))
                        .unwrap_or_else(|| "list it under `properties:`".into()),
                ),
            ),
        }
    }
}

fn check_bounds(
    s: &Struct<'_>,
    lo: &str,
    hi: &str,
    min: Option<f64>,
    max: Option<f64>,
    d: &mut Diags,
) {
    if let (Some(a), Some(b)) = (min, max)
        && a > b
    {
        d.push(Diagnostic::error(
            "bad-bounds",
            s.key_span(hi),
            format!("`{hi}` ({b}) is below `{lo}` ({a})"),
        ));
    }
}

/// The `values:` of an enum (fields and outputs alike): present, not empty, no duplicates.
pub(crate) fn read_enum_values(
    node: &Node,
    s: &Struct<'_>,
    what: &str,
    d: &mut Diags,
) -> Option<Vec<Sp<String>>> {
    let Some(vnode) = s.get("values") else {
        d.push(
            Diagnostic::error(
                "missing-key",
                Some(node.span),
                format!("{what} is missing `values`"),
            )
            .with_hint("values: [a, b, c]"),
        );
        return None;
    };
    let values = read::string_list(vnode, "values", d);
    if values.is_empty() {
        d.push(Diagnostic::error(
            "empty-enum",
            Some(vnode.span),
            format!("{what}: an enum needs at least one value"),
        ));
    }
    let mut seen = BTreeSet::new();
    for v in &values {
        if !seen.insert(v.v.as_str()) {
            d.push(Diagnostic::error(
                "duplicate-value",
                Some(v.span),
                format!("enum value `{}` is listed twice", v.v),
            ));
        }
    }
    Some(values)
}
