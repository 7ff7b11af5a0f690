//! The plan: the IR lowered once into plain, versioned, serializable data that every backend
//! reads — the call interpreter (`plan::interp`, which `check`, `import`, `replay`, `usage`
//! and the conformance corpus run), the TypeScript and Python generators, and any outside
//! generator (`toolsurface plan` writes it as JSON; `toolsurface plan --schema` its JSON
//! schema, derived from these types with schemars). buf's descriptor set is the model.
//!
//! What "lowered" means: every rule a call is checked by is here as data with nothing left to
//! derive — per tool and action the ordered fields with their types, bounds and the
//! `expected …` texts rendered once, the refusal prefix, the `belongs` lists, the constraints
//! with each member's presence rule precomputed; per role × family the offered tools, the
//! skills and the published bytes with their request-fragment parts. The refusal *wording*
//! (`unexpected field …`, did-you-mean, `got …`) is the kernel's, one small function per
//! refusal, ported once per language; the plan gives those functions their arguments.
//!
//! Stability: the JSON is canonical (declaration order everywhere, `BTreeMap` only for the
//! trait values) and changes only with the definitions or with [`PLAN_FORMAT`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::codegen::and_list;
use crate::emit::{self, EmitError, Emitted, EmittedTool};
use crate::ir::{self, Ir, Type};

pub mod conformance;
pub mod examples;
pub mod interp;

/// The part of the plan the walk reads (each tool's actions, objects, fields and types) is
/// declared in the kernel, beneath the generated code that holds a static copy of it.
pub use toolsurface_kernel::plan::{
    ActionPlan, BelongsPlan, FieldPlan, ForbiddenPlan, FreeformPlan, MemberPlan, ObjectPlan,
    Presence, SessionPlan, ToolPlan, TraitValuePlan, TypePlan,
};

/// The plan format's version. A reader refuses a plan whose `format` it does not know; it
/// grows by one when a field changes meaning or a required one is added.
pub const PLAN_FORMAT: u32 = 3;

/// A whole definitions folder, lowered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Plan {
    /// [`PLAN_FORMAT`].
    pub format: u32,
    /// `toolsurface <version>`: the compiler that lowered it.
    pub generator: String,
    /// The tool whose calls activate skills (`activate_skill`); a refusal of a skill tool
    /// names it when the surface publishes it.
    pub activation_tool: String,
    /// `surface.yaml` order.
    pub families: Vec<FamilyPlan>,
    /// The trait vocabulary, declaration order (= order of the generated tables).
    pub traits: Vec<TraitPlan>,
    /// Sorted by name: the order did-you-mean candidates are offered in.
    pub tools: Vec<ToolPlan>,
    /// Sorted by name.
    pub aliases: Vec<AliasPlan>,
    /// Sorted by name.
    pub retired: Vec<RetiredPlan>,
    /// Sorted by name.
    pub skills: Vec<SkillPlan>,
    /// `roles.yaml` order, `extends` resolved.
    pub roles: Vec<RolePlan>,
    /// Every role × family: roles in order, then families in order.
    pub surfaces: Vec<SurfacePlan>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FamilyPlan {
    pub name: String,
    /// `openai-chat`, `openai-responses`, `anthropic`, `gemini`, `mcp`.
    pub dialect: String,
    pub strict: bool,
    /// Publishes the tools declared for this other family.
    pub like: Option<String>,
    /// `defer`, `allow_list` or `append`.
    pub skills: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TraitPlan {
    pub name: String,
    pub doc: String,
    /// `None` for a bool trait; the allowed values (declaration order) for an enum trait.
    pub values: Option<Vec<String>>,
    /// The default (`true`/`false` for a bool trait, a value for an enum trait).
    pub default: TraitValuePlan,
    /// Read by the runtime through `CallInfo` (`ir::RUNTIME_TRAITS`).
    pub runtime: bool,
}

/// The `default:` a field type carries (its annotations').
fn default_of(ty: &Type) -> Option<serde_json::Value> {
    ty.peel().1.and_then(|a| a.default.clone())
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AliasPlan {
    pub name: String,
    pub tool: String,
    /// Keys renamed (old → new), applied first, in this order.
    pub rename: Vec<(String, String)>,
    /// Fixed arguments, replacing what the call gave, in this order (appended at the end of
    /// the object).
    pub set: Vec<(String, serde_json::Value)>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RetiredPlan {
    pub name: String,
    pub message: String,
    pub replaced_by: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SkillPlan {
    pub name: String,
    pub description: String,
    pub tools: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RolePlan {
    pub name: String,
    pub description: String,
    /// Resident tools, published order (before family filtering).
    pub tools: Vec<String>,
    pub skills: Vec<String>,
    /// The role's declared sandbox policy (`sandbox:` of roles.yaml, `extends` resolved).
    pub sandbox: crate::ir::Sandbox,
}

/// One role × family: what a call may name there, and the bytes a request carries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SurfacePlan {
    pub role: String,
    pub family: String,
    /// The resident tools this family publishes, in published order.
    pub resident: Vec<String>,
    /// The skills the role offers, each with the tools it makes callable here.
    pub skills: Vec<SkillSurfacePlan>,
    /// The family's own dialect.
    pub published: PublishedPlan,
    /// The same tools rendered in the MCP dialect (what `toolsurface serve` lists).
    pub mcp: PublishedPlan,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SkillSurfacePlan {
    pub skill: String,
    pub tools: Vec<String>,
}

/// The published bytes of one surface in one dialect, and what a request fragment is
/// assembled from (`emit::request`): `open` + tools + `close_tools` + the restriction for the
/// active skills + `tail`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PublishedPlan {
    pub dialect: String,
    /// `defer`, `allow_list` or `append` in this dialect.
    pub strategy: String,
    /// The canonical `tools` array (under `append`: the resident tools only).
    pub bytes: String,
    /// Lowercase hex sha256 of `bytes`.
    pub sha256: String,
    pub tools: Vec<PublishedToolPlan>,
    /// Per offered skill (role order): its tools as published (or as activation appends them
    /// under `append`, each tool once across skills, in activation order).
    pub skills: Vec<PublishedSkillPlan>,
    /// Per turn kind (`normal`, `rehearsal`).
    pub requests: Vec<RequestPlan>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PublishedToolPlan {
    pub name: String,
    /// The tool's canonical JSON (a substring of the array).
    pub json: String,
    pub sha256: String,
    /// Every action is `read_only`: allowed in rehearsal turns.
    pub read_only: bool,
    /// The tool's entry in the dialect's allowed-tools list, where the dialect has one.
    pub allowed_entry: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PublishedSkillPlan {
    pub name: String,
    pub tools: Vec<PublishedToolPlan>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RequestPlan {
    /// `normal` or `rehearsal`.
    pub turn: String,
    /// `{"tools":` (Gemini `{"tools":[{"functionDeclarations":`).
    pub open: String,
    /// Empty (Gemini `}]`).
    pub close_tools: String,
    /// The allowed-tools member, when this dialect restricts this turn kind.
    pub restriction: Option<RestrictionPlan>,
    /// `,"parallel_tool_calls":true}` (Chat, Responses) or `}`.
    pub tail: String,
}

/// The member is `open` + the allowed entries joined by `,` + `close` (resident entries, then
/// each active skill's in role order, each once), or `none` when no entry is allowed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RestrictionPlan {
    pub open: String,
    pub close: String,
    pub none: String,
    pub resident: Vec<String>,
    pub skills: Vec<(String, Vec<String>)>,
}

/// Lower a valid IR into its plan. Fails only where emission fails (a surface a provider
/// would refuse), which `check` reports first.
pub fn lower(ir: &Ir) -> Result<Plan, EmitError> {
    let mut surfaces = Vec::with_capacity(ir.surfaces.len());
    for s in &ir.surfaces {
        surfaces.push(lower_surface(ir, s, Bytes::Published)?);
    }
    Ok(lower_with(ir, surfaces))
}

/// [`lower`] without the published bytes: every rule a call is read by (what the plan
/// interpreter reads: the tools, names, skills and who offers what), each surface's
/// `published` and `mcp` left empty (no tool, no bytes). What the example check of every
/// compile, `replay` and `usage` use, none of which reads the bytes: emitting every role ×
/// family twice was most of their fixed cost.
pub fn lower_rules(ir: &Ir) -> Plan {
    let surfaces = ir
        .surfaces
        .iter()
        .filter_map(|s| lower_surface(ir, s, Bytes::Left).ok())
        .collect();
    lower_with(ir, surfaces)
}

/// Whether a surface's plan carries its published bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bytes {
    Published,
    Left,
}

fn lower_with(ir: &Ir, surfaces: Vec<SurfacePlan>) -> Plan {
    Plan {
        format: PLAN_FORMAT,
        generator: format!("toolsurface {}", env!("CARGO_PKG_VERSION")),
        activation_tool: ir::ACTIVATE_SKILL_TOOL.to_owned(),
        families: ir.families.iter().map(lower_family).collect(),
        traits: ir.traits.iter().map(lower_trait).collect(),
        tools: ir.tools.iter().map(lower_tool).collect(),
        aliases: ir.aliases.iter().map(lower_alias).collect(),
        retired: ir
            .retired
            .iter()
            .map(|r| RetiredPlan {
                name: r.name.clone(),
                message: r.message.clone(),
                replaced_by: r.replaced_by.clone(),
            })
            .collect(),
        skills: ir
            .skills
            .iter()
            .map(|s| SkillPlan {
                name: s.name.clone(),
                description: s.description.clone(),
                tools: s.tools.clone(),
            })
            .collect(),
        roles: ir
            .roles
            .iter()
            .map(|r| RolePlan {
                name: r.name.clone(),
                description: r.description.clone(),
                tools: r.tools.clone(),
                skills: r.skills.clone(),
                sandbox: r.sandbox,
            })
            .collect(),
        surfaces,
    }
}

/// The plan's JSON schema (draft 2020-12), derived from the types above.
pub fn json_schema() -> serde_json::Value {
    serde_json::Value::from(schemars::schema_for!(Plan))
}

/// The plan as canonical pretty JSON with a final newline: what `toolsurface plan` writes.
pub fn to_json(plan: &Plan) -> String {
    let mut s = serde_json::to_string_pretty(plan).unwrap_or_default();
    s.push('\n');
    s
}

fn lower_family(f: &ir::Family) -> FamilyPlan {
    FamilyPlan {
        name: f.name.clone(),
        dialect: f.dialect.as_str().to_owned(),
        strict: f.strict,
        like: f.like.clone(),
        skills: f.skills.as_str().to_owned(),
    }
}

fn trait_value(v: &ir::TraitValue) -> TraitValuePlan {
    match v {
        ir::TraitValue::Bool(b) => TraitValuePlan::Bool(*b),
        ir::TraitValue::Enum(s) => TraitValuePlan::Enum(s.clone()),
    }
}

fn lower_trait(t: &ir::TraitDecl) -> TraitPlan {
    let (values, default) = match &t.kind {
        ir::TraitKind::Bool { default } => (None, TraitValuePlan::Bool(*default)),
        ir::TraitKind::Enum { values, default } => {
            (Some(values.clone()), TraitValuePlan::Enum(default.clone()))
        }
    };
    TraitPlan {
        name: t.name.clone(),
        doc: t.doc.clone(),
        values,
        default,
        runtime: ir::RUNTIME_TRAITS.contains(&t.name.as_str()),
    }
}

fn lower_alias(a: &ir::Alias) -> AliasPlan {
    AliasPlan {
        name: a.name.clone(),
        tool: a.tool.clone(),
        rename: a
            .rename
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        set: a.set.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
    }
}

/// One tool, lowered: what `Plan::tools` holds and what Rust codegen generates the tool's
/// module from.
pub(crate) fn lower_tool(tool: &ir::Tool) -> ToolPlan {
    let selector = tool.selector.as_ref().map(|s| s.name.clone());
    let actions = tool
        .actions
        .iter()
        .map(|a| {
            let prefix = match (&selector, &a.name) {
                (Some(sel), Some(name)) => format!("{sel}={name}: "),
                _ => format!("{}: ", tool.name),
            };
            ActionPlan {
                name: a.name.clone(),
                prefix,
                traits: a
                    .traits
                    .iter()
                    .map(|(k, v)| (k.clone(), trait_value(v)))
                    .collect(),
                object: action_object(tool, a),
                examples: a.examples.iter().map(|e| e.arguments.clone()).collect(),
            }
        })
        .collect();
    ToolPlan {
        name: tool.name.clone(),
        route: tool.route.as_str().to_owned(),
        session: tool.session.as_ref().map(|s| SessionPlan {
            id: s.id.clone(),
            host: s.host.clone(),
        }),
        expected_actions: tool
            .actions
            .iter()
            .filter_map(|a| a.name.as_deref())
            .collect::<Vec<_>>()
            .join(", "),
        selector,
        freeform: tool.freeform.as_ref().map(|f| FreeformPlan {
            field: f.field.clone(),
            families: f.families.clone(),
        }),
        actions,
    }
}

/// One action's object: the tool's fields it takes, in declaration order.
fn action_object(tool: &ir::Tool, action: &ir::Action) -> ObjectPlan {
    let fields: Vec<FieldPlan> = tool
        .fields
        .iter()
        .filter(|f| action.uses(&f.name))
        .map(|f| FieldPlan {
            name: f.name.clone(),
            required: action.is_required(&f.name),
            ty: lower_type(&f.ty),
            default: tool.default_in(action, &f.name).cloned(),
        })
        .collect();
    let belongs = tool
        .fields
        .iter()
        .filter(|f| !action.uses(&f.name))
        .map(|f| BelongsPlan {
            field: f.name.clone(),
            actions: and_list(&tool.actions_using(&f.name)),
        })
        .filter(|b| !b.actions.is_empty())
        .collect();
    let member = |name: &str, forbidden: bool| MemberPlan {
        field: name.to_owned(),
        presence: presence(&fields, name, forbidden),
    };
    ObjectPlan {
        exactly_one_of: action
            .exactly_one_of
            .iter()
            .map(|g| g.iter().map(|n| member(n, false)).collect())
            .collect(),
        forbidden_with: action
            .forbidden_with
            .iter()
            .map(|fw| ForbiddenPlan {
                field: member(&fw.field, true),
                with: member(&fw.with, true),
                message: fw.message.clone(),
            })
            .collect(),
        belongs,
        fields,
        additional: tool
            .parameters
            .additional
            .as_ref()
            .map(|t| Box::new(lower_type(t))),
    }
}

/// How a constraint counts `name` as given: a required field always; in a `forbidden_with`
/// rule a boolean only when `true`; otherwise when given; a name the object lacks never.
fn presence(fields: &[FieldPlan], name: &str, forbidden: bool) -> Presence {
    match fields.iter().find(|f| f.name == name) {
        None => Presence::Never,
        Some(f) if f.required => Presence::Always,
        Some(f) if forbidden && matches!(f.ty, TypePlan::Boolean) => Presence::True,
        Some(_) => Presence::Given,
    }
}

/// A field type, lowered: the one rule every backend reads a type by (Rust codegen derives
/// its generated types from the result).
pub(crate) fn lower_type(ty: &Type) -> TypePlan {
    let expected = expected_text(ty);
    match ty {
        Type::String {
            min_length,
            max_length,
            pattern,
        } => TypePlan::String {
            min_length: *min_length,
            max_length: *max_length,
            pattern: pattern.clone(),
            expected,
        },
        Type::Integer { minimum, maximum } => TypePlan::Integer {
            minimum: *minimum,
            maximum: *maximum,
            expected,
        },
        Type::Number { minimum, maximum } => TypePlan::Number {
            minimum: *minimum,
            maximum: *maximum,
            expected,
        },
        Type::Boolean => TypePlan::Boolean,
        Type::Enum { values } => TypePlan::Enum {
            values: values.clone(),
            expected,
        },
        Type::Array {
            items,
            min_items,
            max_items,
        } => TypePlan::Array {
            items: Box::new(lower_type(items)),
            min_items: *min_items,
            max_items: *max_items,
            expected,
        },
        Type::Object {
            properties,
            additional,
            ..
        } => {
            let fields: Vec<FieldPlan> = properties
                .iter()
                .map(|p| FieldPlan {
                    name: p.name.clone(),
                    required: p.required,
                    ty: lower_type(&p.ty),
                    default: default_of(&p.ty),
                })
                .collect();
            TypePlan::Object {
                object: ObjectPlan {
                    fields,
                    belongs: Vec::new(),
                    exactly_one_of: Vec::new(),
                    forbidden_with: Vec::new(),
                    additional: additional.as_deref().map(|t| Box::new(lower_type(t))),
                },
            }
        }
        Type::Any => TypePlan::Any,
        Type::Null => TypePlan::Null,
        Type::Const { value, .. } => TypePlan::Const {
            value: value.clone(),
            expected,
        },
        Type::Union { form, branches } => TypePlan::Union {
            branches: branches.iter().map(lower_type).collect(),
            one: *form == ir::UnionForm::OneOf,
            ambiguous: format!("exactly one of {expected}"),
            expected,
        },
        // Annotations change no verdict: the walk sees the type beneath.
        Type::Annotated { ty, .. } => lower_type(ty),
        Type::Shape { name, ty } => TypePlan::Shape {
            name: name.clone(),
            ty: Box::new(lower_type(ty)),
        },
    }
}

fn bounds_text<T: std::fmt::Display>(min: Option<T>, max: Option<T>, unit: &str) -> String {
    match (min, max) {
        (Some(a), Some(b)) => format!(" from {a} to {b}{unit}"),
        (Some(a), None) => format!(" of at least {a}{unit}"),
        (None, Some(b)) => format!(" of at most {b}{unit}"),
        (None, None) => String::new(),
    }
}

fn length_text(min: Option<u64>, max: Option<u64>, unit: &str) -> String {
    match (min, max) {
        (Some(a), Some(b)) => format!(" of {a} to {b} {unit}"),
        (Some(a), None) => format!(" of at least {a} {unit}"),
        (None, Some(b)) => format!(" of at most {b} {unit}"),
        (None, None) => String::new(),
    }
}

/// What the model is told a field expects (`a number from 0 to 300`).
fn expected_text(ty: &Type) -> String {
    match ty {
        Type::String {
            min_length,
            max_length,
            pattern,
        } => {
            let mut s = format!(
                "a string{}",
                length_text(*min_length, *max_length, "characters")
            );
            if let Some(p) = pattern {
                s.push_str(" matching ");
                s.push_str(p);
            }
            s
        }
        Type::Integer { minimum, maximum } => {
            format!("an integer{}", bounds_text(*minimum, *maximum, ""))
        }
        Type::Number { minimum, maximum } => {
            format!("a number{}", bounds_text(*minimum, *maximum, ""))
        }
        Type::Boolean => "true or false".to_owned(),
        Type::Enum { values } => format!("one of {}", values.join(", ")),
        Type::Array {
            min_items,
            max_items,
            ..
        } => format!("an array{}", length_text(*min_items, *max_items, "items")),
        Type::Object { .. } => "an object".to_owned(),
        Type::Any => "any value".to_owned(),
        Type::Null => "null".to_owned(),
        Type::Const { value, .. } => value.to_string(),
        Type::Union { branches, .. } => {
            let texts: Vec<String> = branches.iter().map(expected_text).collect();
            match texts.split_last() {
                Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
                _ => texts.concat(),
            }
        }
        Type::Annotated { ty, .. } | Type::Shape { ty, .. } => expected_text(ty),
    }
}

fn lower_surface(ir: &Ir, s: &ir::SurfaceInstance, bytes: Bytes) -> Result<SurfacePlan, EmitError> {
    let (published, mcp) = match bytes {
        Bytes::Published => (
            published(&emit::surface(ir, &s.role, &s.family, None)?),
            published(&emit::surface(
                ir,
                &s.role,
                &s.family,
                Some(ir::Dialect::Mcp),
            )?),
        ),
        Bytes::Left => {
            let dialect = ir
                .family(&s.family)
                .map(|f| f.dialect)
                .unwrap_or(ir::Dialect::Mcp);
            (left(dialect), left(ir::Dialect::Mcp))
        }
    };
    Ok(SurfacePlan {
        role: s.role.clone(),
        family: s.family.clone(),
        resident: s.tools.iter().map(|t| t.name.clone()).collect(),
        skills: s
            .skills
            .iter()
            .map(|k| SkillSurfacePlan {
                skill: k.skill.clone(),
                tools: k.tools.iter().map(|t| t.name.clone()).collect(),
            })
            .collect(),
        published,
        mcp,
    })
}

/// A surface's published plan without its bytes ([`lower_rules`]).
fn left(dialect: ir::Dialect) -> PublishedPlan {
    PublishedPlan {
        dialect: dialect.as_str().to_owned(),
        strategy: String::new(),
        bytes: String::new(),
        sha256: String::new(),
        tools: Vec::new(),
        skills: Vec::new(),
        requests: Vec::new(),
    }
}

fn published_tool(t: &EmittedTool) -> PublishedToolPlan {
    PublishedToolPlan {
        name: t.name.clone(),
        json: t.json.clone(),
        sha256: t.sha256.clone(),
        read_only: t.read_only,
        allowed_entry: t.allowed_entry.clone(),
    }
}

fn published(e: &Emitted) -> PublishedPlan {
    PublishedPlan {
        dialect: e.dialect.as_str().to_owned(),
        strategy: e.skill_strategy.as_str().to_owned(),
        bytes: e.bytes.clone(),
        sha256: e.sha256.clone(),
        tools: e.tools.iter().map(published_tool).collect(),
        skills: e
            .skills
            .iter()
            .map(|k| PublishedSkillPlan {
                name: k.name.clone(),
                tools: k.tools.iter().map(published_tool).collect(),
            })
            .collect(),
        requests: emit::request::TurnKind::FRAGMENTS
            .into_iter()
            .map(|turn| {
                let parts = e.request_parts(turn);
                RequestPlan {
                    turn: turn.as_str().to_owned(),
                    open: parts.open.to_owned(),
                    close_tools: parts.close_tools.to_owned(),
                    restriction: parts.restriction.map(|r| RestrictionPlan {
                        open: r.open.to_owned(),
                        close: r.close.to_owned(),
                        none: r.none.to_owned(),
                        resident: r.resident,
                        skills: r.skills,
                    }),
                    tail: parts.tail.to_owned(),
                }
            })
            .collect(),
    }
}

/// `const`'s equality (the plan's rule for [`TypePlan::Const`]): the kernel's, which the
/// generated walks call too.
pub use toolsurface_kernel::json_equal;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    /// `lower_rules` is `lower` without the bytes: every other fact equal, surface by surface.
    #[test]
    fn the_rules_are_the_plan_without_its_bytes() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tool-defs");
        let sources = crate::read_dir(&root).expect("read tool-defs");
        let ir = crate::compile(&sources).ir.expect("tool-defs compiles");
        let mut full = super::lower(&ir).expect("tool-defs lowers");
        let rules = super::lower_rules(&ir);
        assert_eq!(full.surfaces.len(), rules.surfaces.len());
        for (f, r) in full.surfaces.iter_mut().zip(&rules.surfaces) {
            assert!(r.published.bytes.is_empty() && r.mcp.tools.is_empty());
            assert_eq!(f.published.dialect, r.published.dialect);
            f.published = r.published.clone();
            f.mcp = r.mcp.clone();
        }
        assert_eq!(full, rules);
    }
}
