//! Lowering: the checked model -> the IR. Defaults are applied here (tool families, plain
//! tools' optional fields, trait values), `like` families expanded and `extends` resolved.
//! Lowering is tolerant (it skips what does not resolve) so templates can still be rendered
//! and checked when other errors exist; the IR is only handed out when there are none.

use std::collections::BTreeMap;

use crate::diag::Span;
use crate::ir::{
    Action, Alias, Family, Forbidden, Freeform, Ir, Retired, Role, Selector, SessionKey, Skill,
    SurfaceInstance, Tool, TraitDecl, TraitKind, TraitValue,
};
use crate::load::check::{Index, resolve_role};
use crate::load::model::{ActionDef, Defs, RoleDef, SurfaceDef, ToolDef};
use crate::load::read::Sp;
use crate::load::yaml::{Node, Value};

pub fn lower(defs: &Defs, idx: &Index<'_>) -> Ir {
    let (families, traits, limits) = match &defs.surface {
        Some(s) => (lower_families(s), s.traits.clone(), s.limits),
        None => (Vec::new(), Vec::new(), Default::default()),
    };
    let mut tools: Vec<Tool> = idx
        .tools
        .values()
        .map(|t| lower_tool(t, &families, &traits, defs))
        .collect();
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    let mut ir = Ir {
        limits,
        families,
        traits,
        tools,
        roles: lower_roles(defs),
        skills: lower_skills(defs),
        aliases: lower_aliases(defs),
        retired: lower_retired(defs),
        surfaces: Vec::new(),
    };
    ir.surfaces = surfaces_skeleton(&ir);
    ir
}

/// Families with a dialect (one without was reported).
fn lower_families(s: &SurfaceDef) -> Vec<Family> {
    s.families
        .iter()
        .filter_map(|f| {
            Some(Family {
                name: f.name.v.clone(),
                dialect: f.dialect?,
                strict: f.strict,
                like: f.like.as_ref().map(|l| l.v.clone()),
                publish: f.publish,
                skills: f.skills,
                cache_control: f.cache_control,
                span: f.name.span,
            })
        })
        .collect()
}

/// Roles in declaration order, `extends` resolved (inherited tools first, each once).
fn lower_roles(defs: &Defs) -> Vec<Role> {
    let by_name: BTreeMap<&str, &RoleDef> =
        defs.roles.iter().map(|r| (r.name.as_str(), r)).collect();
    defs.roles
        .iter()
        .map(|r| {
            let (rtools, rskills) = resolve_role(r.name.as_str(), &by_name);
            let mut seen = std::collections::BTreeSet::new();
            Role {
                name: r.name.v.clone(),
                description: r.description.clone(),
                extends: r.extends.as_ref().map(|e| e.v.clone()),
                tools: rtools
                    .into_iter()
                    .filter(|t| seen.insert(t.v.as_str()))
                    .map(|t| t.v.clone())
                    .collect(),
                skills: rskills.into_iter().map(|s| s.v.clone()).collect(),
                token_budget: inherited_budget(r, &by_name),
                sandbox: crate::load::sandbox::resolve(r, &by_name),
                span: r.name.span,
            }
        })
        .collect()
}

/// Skills by name, the first of a duplicated name kept.
fn lower_skills(defs: &Defs) -> Vec<Skill> {
    let mut skills: Vec<Skill> = defs
        .skills
        .iter()
        .map(|s| Skill {
            name: s.name.v.clone(),
            description: s.description.clone(),
            tools: s.tools.iter().map(|t| t.v.clone()).collect(),
            span: s.name.span,
        })
        .collect();
    skills.sort_by(|a, b| a.name.cmp(&b.name));
    skills.dedup_by(|a, b| a.name == b.name);
    skills
}

/// Aliases with a target, by name.
fn lower_aliases(defs: &Defs) -> Vec<Alias> {
    let mut aliases: Vec<Alias> = defs
        .aliases
        .iter()
        .filter_map(|a| {
            Some(Alias {
                name: a.name.v.clone(),
                tool: a.tool.as_ref()?.v.clone(),
                set: a
                    .set
                    .iter()
                    .map(|(k, v)| (k.v.clone(), v.to_json()))
                    .collect(),
                rename: a
                    .rename
                    .iter()
                    .map(|(k, v)| (k.v.clone(), v.v.clone()))
                    .collect(),
                span: a.name.span,
            })
        })
        .collect();
    aliases.sort_by(|a, b| a.name.cmp(&b.name));
    aliases
}

/// Retired names by name, messages without trailing whitespace.
fn lower_retired(defs: &Defs) -> Vec<Retired> {
    let mut retired: Vec<Retired> = defs
        .retired
        .iter()
        .map(|r| Retired {
            name: r.name.v.clone(),
            message: r.message.trim_end().to_owned(),
            replaced_by: r.replaced_by.iter().map(|t| t.v.clone()).collect(),
            span: r.name.span,
        })
        .collect();
    retired.sort_by(|a, b| a.name.cmp(&b.name));
    retired
}
fn inherited_budget(r: &RoleDef, by_name: &BTreeMap<&str, &RoleDef>) -> Option<u64> {
    let mut cur = Some(r);
    let mut steps = 0;
    while let Some(role) = cur {
        if role.token_budget.is_some() {
            return role.token_budget;
        }
        steps += 1;
        if steps > by_name.len() {
            return None;
        }
        cur = role
            .extends
            .as_ref()
            .and_then(|e| by_name.get(e.as_str()).copied());
    }
    None
}

/// The families a tool is published in: declared (default: every non-`like` family), plus
/// every `like` family following one of them; in `surface.yaml` order.
fn tool_families(declared: Option<&Vec<Sp<String>>>, families: &[Family]) -> Vec<String> {
    let is_declared = |name: &str| match declared {
        Some(list) => list.iter().any(|f| f.v == name),
        None => families.iter().any(|f| f.name == name && f.like.is_none()),
    };
    families
        .iter()
        .filter(|f| match &f.like {
            None => is_declared(&f.name),
            Some(like) => is_declared(like),
        })
        .map(|f| f.name.clone())
        .collect()
}

fn lower_tool(t: &ToolDef, families: &[Family], traits: &[TraitDecl], defs: &Defs) -> Tool {
    let tool_traits = trait_map(&t.traits);
    let actions = t
        .actions
        .iter()
        .map(|a| lower_action(a, t, &tool_traits, traits))
        .collect();
    Tool {
        name: t.name.v.clone(),
        object: t.object.clone(),
        description: t.description.clone(),
        families: tool_families(t.families.as_ref(), families),
        route: t.route,
        session: t.session.as_ref().map(|(id, host)| SessionKey {
            id: id.v.clone(),
            host: host.as_ref().map(|h| h.v.clone()),
        }),
        fields: t.fields.clone(),
        selector: t.selector.as_ref().map(|s| Selector {
            name: s.name.v.clone(),
            description: s.description.clone(),
        }),
        actions,
        freeform: t.freeform.as_ref().map(|f| Freeform {
            families: f.families.iter().map(|x| x.v.clone()).collect(),
            field: f.field.v.clone(),
            syntax: f.syntax.v.clone(),
            grammar: defs
                .grammars
                .iter()
                .find(|(p, _)| *p == f.grammar.v)
                .map(|(_, text)| text.clone())
                .unwrap_or_default(),
            span: f.span,
        }),
        icons: t.icons.clone(),
        meta: t.meta.clone(),
        title: t.title.clone(),
        implements: t.implements.as_ref().map(|p| p.v.clone()),
        // A hosted tool's arguments are the provider's: any pass.
        parameters: match t.hosted {
            Some(_) => crate::ir::Parameters {
                additional: Some(crate::ir::Type::Any),
                implicit_open: true,
                ..t.parameters.clone()
            },
            None => t.parameters.clone(),
        },
        hosted: t.hosted.clone(),
        title_at: t.title_at,
        output_schema: t.output_schema.clone(),
        output_shapes: t.output_shapes.clone(),
        field_shapes: t.field_shapes.clone(),
        span: Span::file_start(t.file),
    }
}

fn trait_map(values: &[(Sp<String>, Node)]) -> BTreeMap<&str, &Node> {
    values.iter().map(|(k, v)| (k.as_str(), v)).collect()
}

fn lower_action(
    a: &ActionDef,
    t: &ToolDef,
    tool_traits: &BTreeMap<&str, &Node>,
    vocabulary: &[TraitDecl],
) -> Action {
    let own = trait_map(&a.traits);
    let traits = vocabulary
        .iter()
        .map(|decl| {
            let written = own
                .get(decl.name.as_str())
                .or_else(|| tool_traits.get(decl.name.as_str()));
            let value = match (&decl.kind, written.map(|n| &n.value)) {
                (TraitKind::Bool { .. }, Some(Value::Bool(b))) => TraitValue::Bool(*b),
                (TraitKind::Enum { values, .. }, Some(Value::Str(s))) if values.contains(s) => {
                    TraitValue::Enum(s.clone())
                }
                (TraitKind::Bool { default }, _) => TraitValue::Bool(*default),
                (TraitKind::Enum { default, .. }, _) => TraitValue::Enum(default.clone()),
            };
            (decl.name.clone(), value)
        })
        .collect();
    let required: Vec<String> = a.required.iter().map(|f| f.v.clone()).collect();
    let optional: Vec<String> = match &a.optional {
        Some(list) => list.iter().map(|f| f.v.clone()).collect(),
        None if a.name.is_none() => t
            .fields
            .iter()
            .filter(|f| !required.contains(&f.name))
            .map(|f| f.name.clone())
            .collect(),
        None => Vec::new(),
    };
    Action {
        name: a.name.as_ref().map(|n| n.v.clone()),
        description: a.description.clone(),
        required,
        optional,
        exactly_one_of: a
            .exactly_one_of
            .iter()
            .map(|g| g.iter().map(|f| f.v.clone()).collect())
            .collect(),
        forbidden_with: a
            .forbidden_with
            .iter()
            .map(|f| Forbidden {
                field: f.field.v.clone(),
                with: f.with.v.clone(),
                message: f.message.trim_end().to_owned(),
            })
            .collect(),
        traits,
        defaults: a
            .defaults
            .iter()
            .map(|(k, v)| (k.v.clone(), v.to_json()))
            .collect(),
        examples: super::examples::lower_examples(a, t.selector.as_ref().map(|s| s.name.as_str())),
        output: a.output.clone().or_else(|| t.output.clone()),
        span: a.span,
    }
}

/// Every role × family with its resident tools and skill tools, not yet rendered.
fn surfaces_skeleton(ir: &Ir) -> Vec<SurfaceInstance> {
    let mut out = Vec::new();
    for role in &ir.roles {
        for family in &ir.families {
            let in_family = |name: &&String| {
                ir.tool(name)
                    .is_some_and(|t| t.families.contains(&family.name))
            };
            let tools = role
                .tools
                .iter()
                .filter(in_family)
                .map(|name| crate::ir::RenderedTool {
                    name: name.clone(),
                    description: String::new(),
                    selector: String::new(),
                    actions: Vec::new(),
                    fields: Vec::new(),
                })
                .collect();
            let skills = role
                .skills
                .iter()
                .filter_map(|s| ir.skill(s))
                .map(|s| crate::ir::SkillInstance {
                    skill: s.name.clone(),
                    tools: s
                        .tools
                        .iter()
                        .filter(in_family)
                        .map(|name| crate::ir::RenderedTool {
                            name: name.clone(),
                            description: String::new(),
                            selector: String::new(),
                            actions: Vec::new(),
                            fields: Vec::new(),
                        })
                        .collect(),
                })
                .collect();
            out.push(SurfaceInstance {
                role: role.name.clone(),
                family: family.name.clone(),
                dialect: family.dialect,
                tools,
                skills,
            });
        }
    }
    out
}
