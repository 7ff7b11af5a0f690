//! Cross-file checks on the model: every name that refers to something else (a family, a
//! trait, a field, a tool, a role, a skill) is resolved here, and every failure reported.
//! Indexes are BTreeMaps so checking stays near-linear and the order of reports is stable.

use std::collections::{BTreeMap, BTreeSet};

use crate::diag::{self, Diagnostic, Sources};
use crate::ir::{RUNTIME_TRAITS, TraitDecl, TraitKind, Type};
use crate::load::model::{
    ActionDef, AliasDef, Defs, FamilyDef, FreeformDef, RoleDef, SurfaceDef, ToolDef,
};
use crate::load::read::{Diags, Sp};
use crate::load::yaml::{Node, Value};

/// Name indexes shared by the checks, lowering and rendering.
pub struct Index<'a> {
    pub families: BTreeMap<&'a str, &'a FamilyDef>,
    pub traits: BTreeMap<&'a str, &'a TraitDecl>,
    /// First definition of each tool name.
    pub tools: BTreeMap<&'a str, &'a ToolDef>,
    pub aliases: BTreeSet<&'a str>,
    pub retired: BTreeMap<&'a str, &'a str>,
    pub skills: BTreeSet<&'a str>,
    pub roles: BTreeSet<&'a str>,
    /// surface.yaml was read (the family and trait vocabularies are meaningful).
    pub vocabulary_known: bool,
    pub broken_traits: BTreeSet<&'a str>,
}

impl<'a> Index<'a> {
    pub fn new(defs: &'a Defs) -> Index<'a> {
        let mut tools = BTreeMap::new();
        for t in tools_in_precedence(defs) {
            tools.entry(t.name.as_str()).or_insert(t);
        }
        let (families, traits) = match &defs.surface {
            Some(s) => (
                s.families.iter().map(|f| (f.name.as_str(), f)).collect(),
                s.traits.iter().map(|t| (t.name.as_str(), t)).collect(),
            ),
            None => (BTreeMap::new(), BTreeMap::new()),
        };
        Index {
            families,
            traits,
            tools,
            aliases: defs.aliases.iter().map(|a| a.name.as_str()).collect(),
            retired: defs
                .retired
                .iter()
                .map(|r| (r.name.as_str(), r.message.as_str()))
                .collect(),
            skills: defs.skills.iter().map(|s| s.name.as_str()).collect(),
            roles: defs.roles.iter().map(|r| r.name.as_str()).collect(),
            vocabulary_known: defs.surface.is_some(),
            broken_traits: defs
                .surface
                .iter()
                .flat_map(|s| s.broken_traits.iter().map(String::as_str))
                .collect(),
        }
    }
}

/// Report every cross-reference error in `defs`.
pub fn check(defs: &Defs, idx: &Index<'_>, sources: &Sources, d: &mut Diags) {
    check_surface(defs, d);
    check_tool_names(defs, sources, d);
    for tool in &defs.tools {
        check_tool(tool, defs, idx, d);
    }
    check_roles(defs, idx, d);
    check_skills(defs, idx, d);
    check_aliases(defs, idx, d);
    check_retired(defs, idx, d);
    check_reachable(defs, d);
}

fn hint_or<'c>(
    name: &str,
    candidates: impl IntoIterator<Item = &'c str>,
    fallback: &str,
) -> String {
    diag::did_you_mean(name, candidates).unwrap_or_else(|| fallback.to_owned())
}

fn check_surface(defs: &Defs, d: &mut Diags) {
    let Some(surface) = &defs.surface else { return };
    check_runtime_traits(surface, d);
    let names: BTreeMap<&str, &FamilyDef> = surface
        .families
        .iter()
        .map(|f| (f.name.as_str(), f))
        .collect();
    for f in &surface.families {
        if let Some(like) = &f.like {
            match names.get(like.as_str()) {
                None => d.push(
                    Diagnostic::error(
                        "unknown-family",
                        Some(like.span),
                        format!("`like: {}` names no family", like.v),
                    )
                    .with_hint(hint_or(
                        &like.v,
                        names.keys().copied(),
                        "name a family declared above",
                    )),
                ),
                Some(other) if other.name.v == f.name.v => d.push(Diagnostic::error(
                    "like-chain",
                    Some(like.span),
                    format!("family `{}` cannot be like itself", f.name.v),
                )),
                Some(other) if other.like.is_some() => d.push(Diagnostic::error(
                    "like-chain",
                    Some(like.span),
                    format!(
                        "family `{}` is itself `like` another family; name the original",
                        like.v
                    ),
                )),
                Some(_) => {}
            }
        }
        if f.strict
            && f.dialect
                .is_some_and(|d| !crate::dialect::rules(d).has_strict())
        {
            d.push(Diagnostic::error(
                "bad-strict",
                Some(f.name.span),
                format!(
                    "family `{}`: `strict` applies to the {} dialect only",
                    f.name.v,
                    crate::dialect::names_where(|r| r.has_strict())
                ),
            ));
        }
    }
}

/// Tools whose file is named after them first (they are "the" definition when a name is
/// defined twice), then the others; each group in path order.
fn tools_in_precedence(defs: &Defs) -> impl Iterator<Item = &ToolDef> {
    let matching = defs.tools.iter().filter(|t| t.name.v == t.stem);
    matching.chain(defs.tools.iter().filter(|t| t.name.v != t.stem))
}

/// Tool names are unique; tool, alias and retired names share one namespace.
fn check_tool_names(defs: &Defs, sources: &Sources, d: &mut Diags) {
    let mut first: BTreeMap<&str, &ToolDef> = BTreeMap::new();
    for t in tools_in_precedence(defs) {
        match first.get(t.name.as_str()) {
            Some(prev) => d.push(
                Diagnostic::error(
                    "duplicate-tool",
                    Some(t.name.span),
                    format!("tool `{}` is defined twice", t.name.v),
                )
                .with_hint(format!(
                    "it is already defined in {}",
                    sources.display_path(prev.file)
                )),
            ),
            None => {
                first.insert(t.name.as_str(), t);
            }
        }
    }
}

fn check_tool(tool: &ToolDef, defs: &Defs, idx: &Index<'_>, d: &mut Diags) {
    if let Some(families) = &tool.families {
        check_tool_families(tool, families, idx, d);
    }
    // Traits, tool level.
    for (k, v) in &tool.traits {
        check_trait_value(k, v, idx, d);
    }
    // Fields: the selector name may not also be a field.
    let fields: BTreeMap<&str, &crate::ir::Field> =
        tool.fields.iter().map(|f| (f.name.as_str(), f)).collect();
    if let Some(sel) = &tool.selector
        && let Some(f) = fields.get(sel.name.as_str())
    {
        d.push(Diagnostic::error(
            "selector-is-field",
            Some(f.span),
            format!("field `{}` has the selector's name", f.name),
        ));
    }
    if let Some((id, host)) = &tool.session {
        for s in std::iter::once(id).chain(host) {
            check_field_ref(s, tool, &fields, "session", d);
        }
    }
    let mut used: BTreeSet<&str> = BTreeSet::new();
    for action in &tool.actions {
        check_action(action, tool, &fields, idx, &mut used, d);
    }
    super::examples::check_examples(tool, d);
    if let Some(ff) = &tool.freeform {
        check_freeform(ff, tool, &fields, defs, idx, d);
    }
    check_unused_fields(tool, &used, d);
}

/// A tool's `families:`: known, not `like` families, each once, at least one.
fn check_tool_families(tool: &ToolDef, families: &[Sp<String>], idx: &Index<'_>, d: &mut Diags) {
    let mut seen = BTreeSet::new();
    for f in families {
        check_family_ref(f, idx, d);
        if !seen.insert(f.as_str()) {
            d.push(Diagnostic::error(
                "duplicate-name",
                Some(f.span),
                format!("family `{}` is listed twice", f.v),
            ));
        }
    }
    if tool.hosted.is_some() {
        // The entry is in one provider's shape: every family must speak that dialect.
        let dialects: BTreeSet<&str> = families
            .iter()
            .filter_map(|f| idx.families.get(f.as_str())?.dialect.map(|x| x.as_str()))
            .collect();
        if dialects.len() > 1 {
            d.push(Diagnostic::error(
                "hosted-dialects",
                families.first().map(|f| f.span),
                format!(
                    "hosted tool `{}` is published in families of {} dialects ({}); its entry is one provider's",
                    tool.name.v,
                    dialects.len(),
                    dialects.into_iter().collect::<Vec<_>>().join(", ")
                ),
            ));
        }
    }
    if families.is_empty() {
        d.push(Diagnostic::error(
            "no-families",
            None.or(families.first().map(|f| f.span))
                .or(Some(tool.name.span)),
            format!("tool `{}` is declared for no family", tool.name.v),
        ));
    }
}

/// `freeform:`: a declared field, lark syntax, an existing grammar file, and families the
/// tool is declared for.
fn check_freeform(
    ff: &FreeformDef,
    tool: &ToolDef,
    fields: &BTreeMap<&str, &crate::ir::Field>,
    defs: &Defs,
    idx: &Index<'_>,
    d: &mut Diags,
) {
    check_field_ref(&ff.field, tool, fields, "freeform", d);
    if ff.syntax.v != "lark" {
        d.push(
            Diagnostic::error(
                "bad-syntax",
                Some(ff.syntax.span),
                format!("unknown grammar syntax `{}`", ff.syntax.v),
            )
            .with_hint("syntax: lark"),
        );
    }
    if !defs.grammars.iter().any(|(p, _)| *p == ff.grammar.v) {
        let paths: Vec<&str> = defs.grammars.iter().map(|(p, _)| p.as_str()).collect();
        d.push(
            Diagnostic::error(
                "missing-grammar",
                Some(ff.grammar.span),
                format!("grammar file `{}` not found", ff.grammar.v),
            )
            .with_hint(hint_or(
                &ff.grammar.v,
                paths.iter().copied(),
                "put it under grammars/ and name it relative to the definitions folder",
            )),
        );
    }
    for f in &ff.families {
        check_family_ref(f, idx, d);
        let declared = match &tool.families {
            Some(list) => list.iter().any(|x| x.v == f.v),
            None => idx
                .families
                .get(f.as_str())
                .is_some_and(|fam| fam.like.is_none()),
        };
        if idx.families.contains_key(f.as_str()) && !declared {
            d.push(Diagnostic::error(
                "freeform-family",
                Some(f.span),
                format!("freeform family `{}` is not among the tool's families", f.v),
            ));
        }
    }
}

/// Fields no action uses and the session does not name (a warning).
fn check_unused_fields(tool: &ToolDef, used: &BTreeSet<&str>, d: &mut Diags) {
    for f in &tool.fields {
        let by_session = tool.session.as_ref().is_some_and(|(id, host)| {
            id.v == f.name || host.as_ref().is_some_and(|h| h.v == f.name)
        });
        if !used.contains(f.name.as_str()) && !by_session {
            d.push(
                Diagnostic::warning(
                    "unused-field",
                    Some(f.span),
                    format!(
                        "field `{}` of tool `{}` is used by no action",
                        f.name, tool.name.v
                    ),
                )
                .with_hint("list it under an action's `required` or `optional`, or delete it"),
            );
        }
    }
}

fn check_family_ref(f: &Sp<String>, idx: &Index<'_>, d: &mut Diags) {
    match idx.families.get(f.as_str()) {
        None => {
            if idx.vocabulary_known {
                d.push(
                    Diagnostic::error(
                        "unknown-family",
                        Some(f.span),
                        format!("unknown family `{}`", f.v),
                    )
                    .with_hint(hint_or(
                        &f.v,
                        idx.families.keys().copied(),
                        "families are declared in surface.yaml",
                    )),
                )
            }
        }
        Some(fam) => {
            if let Some(like) = &fam.like {
                d.push(
                    Diagnostic::error(
                        "like-family",
                        Some(f.span),
                        format!(
                            "`{}` is `like: {}`; a tool never names a `like` family",
                            f.v, like.v
                        ),
                    )
                    .with_hint(format!(
                        "declare the tool for `{}`; `{}` follows it",
                        like.v, f.v
                    )),
                );
            }
        }
    }
}

fn check_field_ref(
    name: &Sp<String>,
    tool: &ToolDef,
    fields: &BTreeMap<&str, &crate::ir::Field>,
    context: &str,
    d: &mut Diags,
) -> bool {
    if fields.contains_key(name.as_str()) {
        return true;
    }
    if tool.broken_fields.contains(&name.v) {
        return false;
    }
    let hint = diag::did_you_mean(&name.v, fields.keys().copied())
        .unwrap_or_else(|| format!("declare it under `fields:` of tool `{}`", tool.name.v));
    d.push(
        Diagnostic::error(
            "undeclared-field",
            Some(name.span),
            format!(
                "{context} uses field `{}`, which tool `{}` does not declare",
                name.v, tool.name.v
            ),
        )
        .with_hint(hint),
    );
    false
}

fn check_action<'t>(
    action: &'t ActionDef,
    tool: &'t ToolDef,
    fields: &BTreeMap<&str, &crate::ir::Field>,
    idx: &Index<'_>,
    used: &mut BTreeSet<&'t str>,
    d: &mut Diags,
) {
    let context = match &action.name {
        Some(n) => format!("action `{}`", n.v),
        None => format!("tool `{}`", tool.name.v),
    };
    let listed = check_listed_fields(action, tool, fields, &context, used, d);
    // A plain tool without `optional:` takes every other declared field as optional.
    if action.name.is_none() && action.optional.is_none() {
        for f in &tool.fields {
            used.insert(f.name.as_str());
        }
    }
    let uses = |name: &str| {
        listed.contains_key(name)
            || (action.name.is_none() && action.optional.is_none() && fields.contains_key(name))
    };
    check_exactly_one_of(action, tool, fields, &context, &uses, d);
    check_forbidden_with(action, tool, fields, &context, &uses, d);
    check_action_defaults(action, tool, fields, &context, &listed, d);
    for (k, v) in &action.traits {
        check_trait_value(k, v, idx, d);
    }
}

/// `required` and `optional`: declared fields, each listed once; returns which list each
/// field is in.
fn check_listed_fields<'t>(
    action: &'t ActionDef,
    tool: &ToolDef,
    fields: &BTreeMap<&str, &crate::ir::Field>,
    context: &str,
    used: &mut BTreeSet<&'t str>,
    d: &mut Diags,
) -> BTreeMap<&'t str, &'static str> {
    let mut listed: BTreeMap<&str, &'static str> = BTreeMap::new();
    let optional = action.optional.as_deref().unwrap_or_default();
    for (list, kind) in [(&action.required[..], "required"), (optional, "optional")] {
        for f in list {
            if check_field_ref(f, tool, fields, context, d) {
                used.insert(f.as_str());
            }
            if let Some(prev) = listed.insert(f.as_str(), kind) {
                d.push(Diagnostic::error(
                    "duplicate-name",
                    Some(f.span),
                    format!("{context} lists field `{}` twice ({prev} and {kind})", f.v),
                ));
            }
        }
    }
    listed
}

/// `exactly_one_of` groups: declared fields the action accepts and does not require.
fn check_exactly_one_of(
    action: &ActionDef,
    tool: &ToolDef,
    fields: &BTreeMap<&str, &crate::ir::Field>,
    context: &str,
    uses: &dyn Fn(&str) -> bool,
    d: &mut Diags,
) {
    let is_required = |name: &str| action.required.iter().any(|r| r.v == name);
    for group in &action.exactly_one_of {
        for f in group {
            if !fields.contains_key(f.as_str()) {
                check_field_ref(f, tool, fields, &format!("exactly_one_of of {context}"), d);
            } else if is_required(&f.v) {
                d.push(
                    Diagnostic::error("bad-exactly-one-of", Some(f.span), format!("`{}` is required by {context}, so it cannot be one of `exactly_one_of`", f.v))
                        .with_hint("list it under `optional` instead"),
                );
            } else if !uses(&f.v) {
                d.push(
                    Diagnostic::error(
                        "bad-exactly-one-of",
                        Some(f.span),
                        format!("{context} does not accept field `{}`", f.v),
                    )
                    .with_hint("add it to the action's `optional`"),
                );
            }
        }
    }
}

/// `defaults:` of an action: each an optional field the action takes, with a value its type
/// accepts (the rule of a field's `default:`, `bad-default`).
fn check_action_defaults(
    action: &ActionDef,
    tool: &ToolDef,
    fields: &BTreeMap<&str, &crate::ir::Field>,
    context: &str,
    listed: &BTreeMap<&str, &'static str>,
    d: &mut Diags,
) {
    for (name, value) in &action.defaults {
        let Some(field) = fields.get(name.as_str()) else {
            check_field_ref(name, tool, fields, &format!("`defaults` of {context}"), d);
            continue;
        };
        match listed.get(name.as_str()) {
            Some(&"required") => d.push(
                Diagnostic::error(
                    "bad-action-default",
                    Some(name.span),
                    format!(
                        "`{}` is required by {context}, so a default of it never applies",
                        name.v
                    ),
                )
                .with_hint("drop it from `defaults`, or list the field under `optional`"),
            ),
            Some(_) => {}
            None => {
                let taken = listed.keys().copied();
                let hint = diag::did_you_mean(&name.v, taken)
                    .unwrap_or_else(|| "add it to the action's `optional`".to_owned());
                d.push(
                    Diagnostic::error(
                        "bad-action-default",
                        Some(name.span),
                        format!("{context} does not take field `{}`", name.v),
                    )
                    .with_hint(hint),
                );
            }
        }
        if let Some(problem) = value_problem(&field.ty, value) {
            d.push(
                Diagnostic::error(
                    "bad-default",
                    Some(value.span),
                    format!("`defaults.{}` of {context} is a value {problem}", name.v),
                )
                .with_hint("the default is a value a call could send for this field"),
            );
        }
    }
}

/// `forbidden_with` pairs: two different declared fields the action accepts.
fn check_forbidden_with(
    action: &ActionDef,
    tool: &ToolDef,
    fields: &BTreeMap<&str, &crate::ir::Field>,
    context: &str,
    uses: &dyn Fn(&str) -> bool,
    d: &mut Diags,
) {
    for fw in &action.forbidden_with {
        for f in [&fw.field, &fw.with] {
            if !fields.contains_key(f.as_str()) {
                check_field_ref(f, tool, fields, &format!("forbidden_with of {context}"), d);
            } else if !uses(&f.v) {
                d.push(Diagnostic::error(
                    "bad-forbidden-with",
                    Some(f.span),
                    format!(
                        "{context} does not accept field `{}`, so forbidding it has no effect",
                        f.v
                    ),
                ));
            }
        }
        if fw.field.v == fw.with.v {
            d.push(Diagnostic::error(
                "bad-forbidden-with",
                Some(fw.with.span),
                "a field cannot be forbidden with itself",
            ));
        }
    }
}
/// Every trait the runtime reads ([`RUNTIME_TRAITS`]) is declared, as a bool. A missing one
/// is reported at a declaration whose name is close to it (the misspelling) when there is one.
fn check_runtime_traits(surface: &SurfaceDef, d: &mut Diags) {
    for name in RUNTIME_TRAITS {
        if surface.broken_traits.contains(name) {
            continue; // its declaration is already reported
        }
        let declared = surface.traits.iter().find(|t| t.name == name);
        if let Some(decl) = declared {
            if !matches!(decl.kind, TraitKind::Bool { .. }) {
                d.push(
                    Diagnostic::error(
                        "runtime-trait",
                        Some(decl.span),
                        format!("trait `{name}` is read by the runtime and must be `type: bool`"),
                    )
                    .with_hint(format!(
                        "declare it as `{name}: {{ type: bool, default: false }}`"
                    )),
                );
            }
            continue;
        }
        let others = surface
            .traits
            .iter()
            .filter(|t| !RUNTIME_TRAITS.contains(&t.name.as_str()));
        let misspelled = others
            .clone()
            .find(|t| diag::did_you_mean(&t.name, [name]).is_some());
        d.push(match misspelled {
            Some(decl) => Diagnostic::error(
                "runtime-trait",
                Some(decl.span),
                format!(
                    "trait `{}` is declared, but the runtime reads `{name}`",
                    decl.name
                ),
            )
            .with_hint(format!("rename it to `{name}`")),
            None => Diagnostic::error(
                "runtime-trait",
                Some(surface.span),
                format!("surface.yaml does not declare the runtime trait `{name}`"),
            )
            .with_hint(format!(
                "add `{name}: {{ type: bool, default: false, doc: \"…\" }}` under `traits:`"
            )),
        });
    }
}

fn check_trait_value(name: &Sp<String>, value: &Node, idx: &Index<'_>, d: &mut Diags) {
    if !idx.vocabulary_known {
        return; // surface.yaml is missing or broken; already reported
    }
    let Some(decl) = idx.traits.get(name.as_str()) else {
        if idx.broken_traits.contains(name.as_str()) {
            return;
        }
        d.push(
            Diagnostic::error(
                "unknown-trait",
                Some(name.span),
                format!("unknown trait `{}`", name.v),
            )
            .with_hint(hint_or(
                &name.v,
                idx.traits.keys().copied(),
                "traits are declared under `traits:` in surface.yaml",
            )),
        );
        return;
    };
    match (&decl.kind, &value.value) {
        (TraitKind::Bool { .. }, Value::Bool(_)) => {}
        (TraitKind::Enum { values, .. }, Value::Str(s)) if values.contains(s) => {}
        (TraitKind::Enum { values, .. }, Value::Str(s)) => d.push(
            Diagnostic::error(
                "bad-trait-value",
                Some(value.span),
                format!("`{s}` is not a value of trait `{}`", name.v),
            )
            .with_hint(hint_or(
                s,
                values.iter().map(String::as_str),
                &format!("values: {}", values.join(", ")),
            )),
        ),
        (TraitKind::Bool { .. }, other) => d.push(
            Diagnostic::error(
                "bad-trait-value",
                Some(value.span),
                format!("trait `{}` is a bool, found {}", name.v, other.kind()),
            )
            .with_hint("write true or false"),
        ),
        (TraitKind::Enum { values, .. }, other) => d.push(
            Diagnostic::error(
                "bad-trait-value",
                Some(value.span),
                format!("trait `{}` is an enum, found {}", name.v, other.kind()),
            )
            .with_hint(format!("values: {}", values.join(", "))),
        ),
    }
}

/// How a name that should be a tool fails to be one, as a diagnostic (`None`: it is a tool,
/// or the tool's file is broken and was already reported).
pub fn tool_ref_error(
    name: &Sp<String>,
    defs: &Defs,
    idx: &Index<'_>,
    context: &str,
) -> Option<Diagnostic> {
    if idx.tools.contains_key(name.as_str()) || defs.broken_tools.contains(&name.v) {
        return None;
    }
    if let Some(message) = idx.retired.get(name.as_str()) {
        return Some(
            Diagnostic::error(
                "retired-tool",
                Some(name.span),
                format!("{context} names `{}`, which is retired", name.v),
            )
            .with_hint(format!("remove it; a model calling it is told: {message}")),
        );
    }
    if let Some(alias) = defs.aliases.iter().find(|a| a.name.v == name.v) {
        let target = alias.tool.as_ref().map(|t| t.v.as_str()).unwrap_or("?");
        return Some(
            Diagnostic::error(
                "alias-not-tool",
                Some(name.span),
                format!(
                    "{context} names `{}`, which is an alias of `{target}`",
                    name.v
                ),
            )
            .with_hint(format!("name `{target}` instead")),
        );
    }
    Some(
        Diagnostic::error(
            "unknown-tool",
            Some(name.span),
            format!("{context} names unknown tool `{}`", name.v),
        )
        .with_hint(hint_or(
            &name.v,
            idx.tools.keys().copied(),
            "tools are defined in tools/<name>.yaml",
        )),
    )
}

fn check_roles(defs: &Defs, idx: &Index<'_>, d: &mut Diags) {
    let roles = RoleCheck {
        defs,
        idx,
        by_name: defs.roles.iter().map(|r| (r.name.as_str(), r)).collect(),
    };
    for role in &defs.roles {
        let context = format!("role `{}`", role.name.v);
        roles.check_extends(role, &context, d);
        roles.check_extends_cycle(role, &context, d);
        for t in &role.tools {
            if let Some(e) = tool_ref_error(t, defs, idx, &context) {
                d.push(e);
            }
        }
        roles.check_skill_refs(role, &context, d);
        if role.token_budget == Some(0) {
            d.push(Diagnostic::error(
                "bad-budget",
                Some(role.name.span),
                format!("{context} has a token budget of 0"),
            ));
        }
    }
    // Resolved lists: duplicates (including inherited) and skill tools that are resident.
    for role in &defs.roles {
        let context = format!("role `{}`", role.name.v);
        let (tools, skills) = resolve_role(role.name.as_str(), &roles.by_name);
        check_resolved_tools_unique(role, &tools, &context, d);
        roles.check_activate_skill(role, &tools, &skills, &context, d);
        roles.check_no_resident_skill_tools(role, &skills, &context, d);
    }
}

/// What the per-role checks of [`check_roles`] read.
struct RoleCheck<'a> {
    defs: &'a Defs,
    idx: &'a Index<'a>,
    by_name: BTreeMap<&'a str, &'a RoleDef>,
}

impl RoleCheck<'_> {
    fn check_extends(&self, role: &RoleDef, context: &str, d: &mut Diags) {
        if let Some(ext) = &role.extends
            && !self.by_name.contains_key(ext.as_str())
        {
            d.push(
                Diagnostic::error(
                    "unknown-role",
                    Some(ext.span),
                    format!("{context} extends unknown role `{}`", ext.v),
                )
                .with_hint(hint_or(
                    &ext.v,
                    self.by_name.keys().copied(),
                    "roles are declared in roles.yaml",
                )),
            );
        }
    }

    /// Follow `extends` from this role; a cycle through it is reported here.
    fn check_extends_cycle(&self, role: &RoleDef, context: &str, d: &mut Diags) {
        let mut seen = vec![role.name.as_str()];
        let mut cur = role.extends.as_ref();
        while let Some(ext) = cur {
            if ext.v == role.name.v {
                let chain = seen
                    .iter()
                    .chain(std::iter::once(&ext.as_str()))
                    .copied()
                    .collect::<Vec<_>>()
                    .join(" -> ");
                d.push(
                    Diagnostic::error(
                        "extends-cycle",
                        role.extends.as_ref().map(|e| e.span),
                        format!("{context} extends itself: {chain}"),
                    )
                    .with_hint("break the cycle: one of these roles must not extend the others"),
                );
                break;
            }
            if seen.contains(&ext.as_str()) {
                break; // a cycle not through this role; reported on its members
            }
            seen.push(ext.as_str());
            cur = self
                .by_name
                .get(ext.as_str())
                .and_then(|r| r.extends.as_ref());
        }
    }

    fn check_skill_refs(&self, role: &RoleDef, context: &str, d: &mut Diags) {
        let idx = self.idx;
        for s in &role.skills {
            if !idx.skills.contains(s.as_str()) && !self.defs.broken_skills.contains(&s.v) {
                d.push(
                    Diagnostic::error(
                        "unknown-skill",
                        Some(s.span),
                        format!("{context} offers unknown skill `{}`", s.v),
                    )
                    .with_hint(hint_or(
                        &s.v,
                        idx.skills.iter().copied(),
                        "skills are defined in skills/<name>.yaml",
                    )),
                );
            }
        }
    }

    /// Skills are activated through `activate_skill` (when the surface defines it): a role
    /// with skills needs it, a role without has no use for it.
    fn check_activate_skill(
        &self,
        role: &RoleDef,
        tools: &[&Sp<String>],
        skills: &[&Sp<String>],
        context: &str,
        d: &mut Diags,
    ) {
        const ACTIVATE: &str = crate::ir::ACTIVATE_SKILL_TOOL;
        if !self.idx.tools.contains_key(ACTIVATE) {
            return;
        }
        let has_activate = tools.iter().any(|t| t.v == ACTIVATE);
        if !skills.is_empty() && !has_activate {
            d.push(
                Diagnostic::warning(
                    "skills-unreachable",
                    Some(role.name.span),
                    format!(
                        "{context} offers skills but not `{ACTIVATE}`, so none can be activated"
                    ),
                )
                .with_hint(format!("add `{ACTIVATE}` to the role's tools")),
            );
        } else if skills.is_empty()
            && let Some(t) = role.tools.iter().find(|t| t.v == ACTIVATE)
        {
            d.push(
                Diagnostic::warning(
                    "activate-without-skills",
                    Some(t.span),
                    format!("{context} lists `{ACTIVATE}` but offers no skills"),
                )
                .with_hint("add `skills:` to the role, or drop the tool (it is a per-request tax)"),
            );
        }
    }

    /// A tool of a skill the role offers is appended on activation, never resident.
    fn check_no_resident_skill_tools(
        &self,
        role: &RoleDef,
        skills: &[&Sp<String>],
        context: &str,
        d: &mut Diags,
    ) {
        let skill_tools: BTreeMap<&str, &str> = skills
            .iter()
            .filter_map(|s| self.defs.skills.iter().find(|k| k.name.v == s.v))
            .flat_map(|k| k.tools.iter().map(move |t| (t.as_str(), k.name.as_str())))
            .collect();
        for t in role.tools.iter() {
            if let Some(skill) = skill_tools.get(t.as_str()) {
                d.push(
                    Diagnostic::error("resident-skill-tool", Some(t.span), format!("{context} lists `{}` as resident, but it belongs to skill `{skill}` which the role offers", t.v))
                        .with_hint("a skill's tools are appended on activation; remove it from `tools`"),
                );
            }
        }
    }
}

/// A tool listed twice in a role's resolved list (inherited first); reported on the role
/// whose own entry repeats it.
fn check_resolved_tools_unique(
    role: &RoleDef,
    tools: &[&Sp<String>],
    context: &str,
    d: &mut Diags,
) {
    // This role's own entries are the tail of the resolved list.
    let own_from = tools.len().saturating_sub(role.tools.len());
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, t) in tools.iter().enumerate() {
        let Some(&first) = seen.get(t.as_str()) else {
            seen.insert(t.as_str(), i);
            continue;
        };
        if i < own_from {
            continue; // reported on the role that lists it
        }
        let where_ = if first < own_from {
            "inherited through `extends`"
        } else {
            "listed earlier"
        };
        let at = tools
            .get(first)
            .map(|p| format!("{}:{}", p.span.line, p.span.col))
            .unwrap_or_default();
        d.push(
            Diagnostic::error(
                "duplicate-name",
                Some(t.span),
                format!("{context} lists tool `{}` twice", t.v),
            )
            .with_hint(format!(
                "it is already {where_} (at {at}); remove this entry"
            )),
        );
    }
}
/// A role's resolved tools and skills (inherited first), cycle-safe.
pub fn resolve_role<'a>(
    name: &str,
    by_name: &BTreeMap<&str, &'a crate::load::model::RoleDef>,
) -> (Vec<&'a Sp<String>>, Vec<&'a Sp<String>>) {
    let mut chain: Vec<&crate::load::model::RoleDef> = Vec::new();
    let mut cur = by_name.get(name).copied();
    while let Some(r) = cur {
        if chain.iter().any(|c| c.name.v == r.name.v) {
            break;
        }
        chain.push(r);
        cur = r
            .extends
            .as_ref()
            .and_then(|e| by_name.get(e.as_str()).copied());
    }
    let mut tools = Vec::new();
    let mut skills: Vec<&Sp<String>> = Vec::new();
    for r in chain.iter().rev() {
        tools.extend(r.tools.iter());
        for s in &r.skills {
            if !skills.iter().any(|x| x.v == s.v) {
                skills.push(s);
            }
        }
    }
    (tools, skills)
}

/// A tool no role lists and no skill offers is never published (and its templates are
/// never rendered, so never checked); a skill no role offers can never be activated.
fn check_reachable(defs: &Defs, d: &mut Diags) {
    if defs.roles_broken {
        return;
    }
    let offered: BTreeSet<&str> = defs
        .roles
        .iter()
        .flat_map(|r| r.skills.iter().map(|s| s.as_str()))
        .collect();
    let mut reachable: BTreeSet<&str> = defs
        .roles
        .iter()
        .flat_map(|r| r.tools.iter().map(|t| t.as_str()))
        .collect();
    for skill in &defs.skills {
        reachable.extend(skill.tools.iter().map(|t| t.as_str()));
        if !offered.contains(skill.name.as_str()) {
            d.push(
                Diagnostic::warning(
                    "unused-skill",
                    Some(skill.name.span),
                    format!("skill `{}` is offered by no role", skill.name.v),
                )
                .with_hint("add it to a role's `skills:` in roles.yaml, or delete it"),
            );
        }
    }
    // A misspelt reference (already an error with a did-you-mean) is not also "unused".
    let names: BTreeSet<&str> = defs.tools.iter().map(|t| t.name.as_str()).collect();
    let unresolved: Vec<&str> = reachable
        .iter()
        .copied()
        .filter(|r| !names.contains(r))
        .collect();
    for tool in &defs.tools {
        let misspelt = diag::did_you_mean(tool.name.as_str(), unresolved.iter().copied()).is_some();
        if !reachable.contains(tool.name.as_str()) && !misspelt {
            d.push(
                Diagnostic::warning(
                    "unused-tool",
                    Some(tool.name.span),
                    format!("tool `{}` is listed by no role and offered by no skill", tool.name.v),
                )
                .with_hint("it is never published and its templates are never rendered; add it to a role or a skill, or retire it"),
            );
        }
    }
}

fn check_skills(defs: &Defs, idx: &Index<'_>, d: &mut Diags) {
    let mut seen = BTreeSet::new();
    for s in &defs.skills {
        let context = format!("skill `{}`", s.name.v);
        if !seen.insert(s.name.as_str()) {
            d.push(Diagnostic::error(
                "duplicate-skill",
                Some(s.name.span),
                format!("{context} is defined twice"),
            ));
        }
        if s.tools.is_empty() {
            d.push(Diagnostic::error(
                "empty-skill",
                Some(s.name.span),
                format!("{context} has no tools"),
            ));
        }
        for t in &s.tools {
            if let Some(e) = tool_ref_error(t, defs, idx, &context) {
                d.push(e);
            }
        }
    }
}

fn check_aliases(defs: &Defs, idx: &Index<'_>, d: &mut Diags) {
    for a in &defs.aliases {
        let context = format!("alias `{}`", a.name.v);
        check_alias_shadows_nothing(a, idx, &context, d);
        let Some(target) = &a.tool else { continue };
        if idx.aliases.contains(target.as_str()) {
            d.push(alias_chain_error(a, target, defs, &context));
            continue;
        }
        if let Some(e) = tool_ref_error(target, defs, idx, &context) {
            d.push(e);
            continue;
        }
        let Some(tool) = idx.tools.get(target.as_str()) else {
            continue;
        };
        let on_tool = AliasOnTool::new(a, tool, context);
        for (k, v) in &a.set {
            match &tool.selector {
                Some(sel) if sel.name.v == k.v => on_tool.check_set_selector(k, v, d),
                _ => on_tool.check_set_field(k, v, d),
            }
        }
        on_tool.check_renames(d);
    }
}

/// An alias name is neither a tool's nor a retired name.
fn check_alias_shadows_nothing(a: &AliasDef, idx: &Index<'_>, context: &str, d: &mut Diags) {
    if let Some(t) = idx.tools.get(a.name.as_str()) {
        d.push(
            Diagnostic::error(
                "alias-shadows-tool",
                Some(a.name.span),
                format!("{context} has the name of a tool"),
            )
            .with_hint(format!(
                "tool `{}` is defined in tools/{}.yaml; remove the alias",
                t.name.v, t.stem
            )),
        );
    }
    if idx.retired.contains_key(a.name.as_str()) {
        d.push(
            Diagnostic::error("alias-shadows-retired", Some(a.name.span), format!("{context} is also a retired name"))
                .with_hint("a name is either an alias (the call is rewritten) or retired (the call is refused); pick one"),
        );
    }
}

/// An alias that targets another alias: follow the chain to the tool it ends at (point the
/// alias there), or round a cycle.
fn alias_chain_error(a: &AliasDef, target: &Sp<String>, defs: &Defs, context: &str) -> Diagnostic {
    let by_name: BTreeMap<&str, &str> = defs
        .aliases
        .iter()
        .filter_map(|x| Some((x.name.as_str(), x.tool.as_ref()?.as_str())))
        .collect();
    let mut chain = vec![a.name.as_str()];
    let mut cur = target.as_str();
    let end = loop {
        let seen = chain.contains(&cur);
        chain.push(cur);
        if seen {
            break None;
        }
        match by_name.get(cur) {
            Some(next) => cur = next,
            None => break Some(cur),
        }
    };
    match end {
        Some(tool) => Diagnostic::error(
            "alias-chain",
            Some(target.span),
            format!(
                "{context} points at alias `{}`; aliases must target a tool",
                target.v
            ),
        )
        .with_hint(format!("point it at `{tool}` directly")),
        None => Diagnostic::error(
            "alias-cycle",
            Some(target.span),
            format!(
                "{context} is part of an alias cycle: {}",
                chain.join(" -> ")
            ),
        )
        .with_hint("aliases must target a tool; point one of them at the tool it means"),
    }
}

/// An alias whose target is a tool: what its `set:` and `rename:` checks read.
struct AliasOnTool<'a> {
    alias: &'a AliasDef,
    tool: &'a ToolDef,
    fields: BTreeMap<&'a str, &'a crate::ir::Field>,
    /// The action the alias selects, when it sets the selector to a valid one.
    chosen: Option<&'a ActionDef>,
    /// "alias `x`", how messages name the alias.
    context: String,
}

impl<'a> AliasOnTool<'a> {
    fn new(alias: &'a AliasDef, tool: &'a ToolDef, context: String) -> AliasOnTool<'a> {
        let chosen = tool.selector.as_ref().and_then(|sel| {
            let (_, v) = alias.set.iter().find(|(k, _)| k.v == sel.name.v)?;
            let name = v.as_str()?;
            tool.actions
                .iter()
                .find(|x| x.name.as_ref().is_some_and(|n| n.v == name))
        });
        AliasOnTool {
            alias,
            tool,
            fields: tool.fields.iter().map(|f| (f.name.as_str(), f)).collect(),
            chosen,
            context,
        }
    }

    /// A field the alias sets or renames to that the chosen action does not accept.
    fn refused_by_action(&self, field: &Sp<String>, verb: &str) -> Option<Diagnostic> {
        let action = self.chosen?;
        let accepts = action.required.iter().any(|f| f.v == field.v)
            || action
                .optional
                .as_ref()
                .is_some_and(|o| o.iter().any(|f| f.v == field.v));
        let name = action.name.as_ref()?;
        (!accepts && self.fields.contains_key(field.as_str())).then(|| {
            Diagnostic::error(
                "alias-field-refused",
                Some(field.span),
                format!(
                    "{} {verb} `{}`, which action `{}` of tool `{}` does not accept",
                    self.context, field.v, name.v, self.tool.name.v
                ),
            )
            .with_hint(format!(
                "every call through this alias would be refused; add `{}` to the action's fields or drop it here",
                field.v
            ))
        })
    }

    /// `set:` of the selector: an action name of the tool.
    fn check_set_selector(&self, k: &Sp<String>, v: &Node, d: &mut Diags) {
        let (context, tool) = (&self.context, self.tool);
        let actions: Vec<&str> = tool
            .actions
            .iter()
            .filter_map(|x| x.name.as_ref())
            .map(|n| n.as_str())
            .collect();
        match v.as_str() {
            Some(s) if actions.contains(&s) => {}
            Some(s) => d.push(
                Diagnostic::error(
                    "unknown-action",
                    Some(v.span),
                    format!("{context}: tool `{}` has no action `{s}`", tool.name.v),
                )
                .with_hint(hint_or(
                    s,
                    actions.iter().copied(),
                    &format!("actions: {}", actions.join(", ")),
                )),
            ),
            None => d.push(crate::load::read::wrong_type(
                v,
                &format!("`{}`", k.v),
                "an action name",
            )),
        }
    }

    /// `set:` of a field: a field of the tool, a value that fits it, accepted by the action.
    fn check_set_field(&self, k: &Sp<String>, v: &Node, d: &mut Diags) {
        let (context, tool) = (&self.context, self.tool);
        match self.fields.get(k.as_str()) {
            None => {
                let mut cands: Vec<&str> = self.fields.keys().copied().collect();
                if let Some(sel) = &tool.selector {
                    cands.push(sel.name.as_str());
                }
                d.push(
                    Diagnostic::error(
                        "unknown-field",
                        Some(k.span),
                        format!(
                            "{context} sets `{}`, which is not a field of tool `{}`",
                            k.v, tool.name.v
                        ),
                    )
                    .with_hint(hint_or(
                        &k.v,
                        cands.iter().copied(),
                        &format!("fields: {}", cands.join(", ")),
                    )),
                );
            }
            Some(f) => {
                if let Some(problem) = value_problem(&f.ty, v) {
                    d.push(Diagnostic::error(
                        "bad-alias-value",
                        Some(v.span),
                        format!("{context} sets `{}` to a value {problem}", k.v),
                    ));
                }
                if let Some(diag) = self.refused_by_action(k, "sets") {
                    d.push(diag);
                }
            }
        }
    }

    /// `rename:` targets: fields of the tool, accepted by the chosen action.
    fn check_renames(&self, d: &mut Diags) {
        for (old, new) in &self.alias.rename {
            if let Some(diag) = self.refused_by_action(new, &format!("renames `{}` to", old.v)) {
                d.push(diag);
            }
            if !self.fields.contains_key(new.as_str()) {
                d.push(
                    Diagnostic::error(
                        "unknown-field",
                        Some(new.span),
                        format!(
                            "{} renames `{}` to `{}`, which is not a field of tool `{}`",
                            self.context, old.v, new.v, self.tool.name.v
                        ),
                    )
                    .with_hint(hint_or(
                        &new.v,
                        self.fields.keys().copied(),
                        "rename targets are fields of the target tool",
                    )),
                );
            }
        }
    }
}
/// Why a fixed alias argument does not fit the field it sets (`None`: it fits).
pub(crate) fn value_problem(ty: &Type, v: &Node) -> Option<String> {
    let kind = v.value.kind();
    match (ty, &v.value) {
        (Type::Annotated { ty, .. } | Type::Shape { ty, .. }, _) => value_problem(ty, v),
        (Type::Any, _) | (Type::Null, Value::Null) => None,
        (Type::Null, _) => Some(format!("of the wrong type: expected null, found {kind}")),
        (Type::Const { value, .. }, _) => (!crate::plan::json_equal(&v.to_json(), value))
            .then(|| format!("other than the field's one value {value}")),
        (Type::Union { branches, .. }, _) => {
            let problems: Vec<String> = branches
                .iter()
                .filter_map(|b| value_problem(b, v))
                .collect();
            (problems.len() == branches.len())
                .then(|| format!("that fits no branch of the field ({})", problems.join("; ")))
        }
        (
            Type::String {
                min_length,
                max_length,
                pattern,
            },
            Value::Str(s),
        ) => {
            let n = s.chars().count() as u64;
            if min_length.is_some_and(|m| n < m) || max_length.is_some_and(|m| n > m) {
                return Some(format!(
                    "of {n} characters, outside the field's length bounds"
                ));
            }
            let re = pattern.as_ref().and_then(|p| regex::Regex::new(p).ok());
            re.filter(|re| !re.is_match(s))
                .map(|re| format!("that does not match the field's pattern {}", re.as_str()))
        }
        (Type::Integer { minimum, maximum }, Value::Int(i)) => (minimum.is_some_and(|m| *i < m)
            || maximum.is_some_and(|m| *i > m))
        .then(|| format!("({i}) outside the field's bounds")),
        (Type::Integer { .. }, Value::UInt(_)) => None,
        (Type::Number { minimum, maximum }, Value::Int(_) | Value::UInt(_) | Value::Float(_)) => {
            let x = match v.value {
                Value::Int(i) => i as f64,
                Value::UInt(u) => u as f64,
                Value::Float(f) => f,
                _ => return None,
            };
            (minimum.is_some_and(|m| x < m) || maximum.is_some_and(|m| x > m))
                .then(|| format!("({x}) outside the field's bounds"))
        }
        (Type::Boolean, Value::Bool(_)) => None,
        (Type::Enum { values }, Value::Str(s)) => {
            (!values.contains(s)).then(|| format!("`{s}` that is not one of {}", values.join(", ")))
        }
        (Type::Array { items, .. }, Value::Seq(xs)) => {
            xs.iter().find_map(|x| value_problem(items, x))
        }
        (
            Type::Object {
                properties,
                additional,
                ..
            },
            Value::Map(entries),
        ) => entries.iter().find_map(|(k, x)| {
            let key = crate::load::yaml::key_text(k);
            match properties.iter().find(|p| p.name == key) {
                Some(p) => value_problem(&p.ty, x).map(|w| format!("at `{key}`: {w}")),
                None => match additional {
                    Some(t) => value_problem(t, x).map(|w| format!("at `{key}`: {w}")),
                    None => Some(format!("with `{key}`, which is not a property")),
                },
            }
        }),
        (Type::String { .. }, _) => Some(format!(
            "of the wrong type: expected a string, found {kind}"
        )),
        (Type::Integer { .. }, _) => Some(format!(
            "of the wrong type: expected an integer, found {kind}"
        )),
        (Type::Number { .. }, _) => Some(format!(
            "of the wrong type: expected a number, found {kind}"
        )),
        (Type::Boolean, _) => Some(format!(
            "of the wrong type: expected true or false, found {kind}"
        )),
        (Type::Enum { .. }, _) => Some(format!(
            "of the wrong type: expected a string, found {kind}"
        )),
        (Type::Array { .. }, _) => {
            Some(format!("of the wrong type: expected a list, found {kind}"))
        }
        (Type::Object { .. }, _) => Some(format!(
            "of the wrong type: expected a mapping, found {kind}"
        )),
    }
}

fn check_retired(defs: &Defs, idx: &Index<'_>, d: &mut Diags) {
    for r in &defs.retired {
        let context = format!("retired name `{}`", r.name.v);
        if let Some(t) = idx.tools.get(r.name.as_str()) {
            d.push(
                Diagnostic::error(
                    "retired-is-tool",
                    Some(r.name.span),
                    format!("{context} is still defined as a tool"),
                )
                .with_hint(format!(
                    "delete tools/{}.yaml, or remove it from retired.yaml",
                    t.stem
                )),
            );
        }
        if r.message.trim().is_empty() {
            d.push(Diagnostic::error(
                "empty-message",
                Some(r.name.span),
                format!("{context} has an empty message"),
            ));
        }
        for t in &r.replaced_by {
            if let Some(e) = tool_ref_error(t, defs, idx, &format!("`replaced_by` of {context}")) {
                d.push(e);
            }
        }
    }
}
