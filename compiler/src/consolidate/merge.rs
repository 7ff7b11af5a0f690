//! `merge`: several plain tools become one — a new tool with one action per merged tool
//! (each field declared once), or actions / choice values / parameters of an existing tool
//! (`--into read_file --param device --rename host=device`). The result is a [`Plan`]: the
//! new tool file, the aliases that keep every old call parsing, the roles and skills that
//! list the new name once at the first old one's position, rewritten `tool()` references,
//! and the ledger line. Conflicting field definitions are spelled out and need a `--prefer`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::render::{self, Agreement, flow_list, scalar};
use super::{Plan, edit, names, tool_path};
use crate::diag::Sources;
use crate::ir::{Action, Field, Ir, Route, SessionKey, Tool, TraitKind, TraitValue};

/// What the user asked for (the CLI's flags).
#[derive(Clone, Debug, Default)]
pub struct MergeRequest {
    pub tools: Vec<String>,
    pub into: String,
    pub selector: Option<String>,
    /// Action (or choice value) names, one per merged tool.
    pub as_names: Option<Vec<String>>,
    pub object: Option<String>,
    /// New optional fields of an existing target (names after renames).
    pub params: Vec<String>,
    /// Old field name → new field name, for every merged tool.
    pub renames: Vec<(String, String)>,
    /// Field (or `route`, `session`, `families`) → the merged tool whose definition wins.
    pub prefer: Vec<(String, String)>,
}

impl MergeRequest {
    fn renamed<'a>(&'a self, field: &'a str) -> &'a str {
        self.renames
            .iter()
            .find(|(old, _)| old == field)
            .map_or(field, |(_, new)| new.as_str())
    }
    fn preferred(&self, key: &str) -> Option<&str> {
        self.prefer
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, t)| t.as_str())
    }
}

/// The problems that stop a merge, each a sentence.
pub type Refusal = Vec<String>;

/// Plan the merge of `req.tools` into `req.into` over the compiled folder.
pub fn plan_merge(ir: &Ir, sources: &Sources, req: &MergeRequest) -> Result<Plan, Refusal> {
    let mut problems = Vec::new();
    let mut merged: Vec<&Tool> = Vec::new();
    for name in &req.tools {
        match ir.tool(name) {
            None => problems.push(format!("`{name}` is not a tool of this folder")),
            Some(_) if *name == req.into => {
                problems.push(format!("`{name}` is both merged and the --into target"))
            }
            Some(t) if !t.is_plain() => problems.push(format!(
                "`{name}` already has actions (selector `{}`); merge only plain tools",
                t.selector.as_ref().map_or("", |s| s.name.as_str())
            )),
            Some(t) if t.freeform.is_some() => problems.push(format!(
                "`{name}` is a freeform tool; it cannot become an action"
            )),
            Some(t) if merged.iter().any(|m| m.name == t.name) => {
                problems.push(format!("`{name}` is named twice"))
            }
            Some(t) => merged.push(t),
        }
    }
    if req.tools.is_empty() {
        problems.push("name at least one tool to merge".to_owned());
    }
    if !crate::load::read::is_tool_name(&req.into) {
        problems.push(format!(
            "`{}` is not a valid tool name (1 to 64 letters, digits, _ and -)",
            req.into
        ));
    }
    for (k, t) in &req.prefer {
        if !req.tools.contains(t) && *t != req.into {
            problems.push(format!(
                "--prefer {k}={t}: `{t}` is not one of the merged tools"
            ));
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let existing = ir.tool(&req.into);
    let mut plan = Plan::default();
    let aliases = match existing {
        None => new_tool(ir, &merged, req, &mut plan)?,
        Some(x) => match (&x.selector, &req.selector) {
            (Some(sel), Some(s)) if *s != sel.name => {
                return Err(vec![format!(
                    "`{}` selects its actions by `{}`, not `{s}`",
                    x.name, sel.name
                )]);
            }
            (Some(_), _) => into_actions(ir, sources, x, &merged, req, &mut plan)?,
            (None, Some(s)) => into_choice_field(sources, x, s, &merged, req, &mut plan)?,
            (None, None) => into_params(sources, x, &merged, req, &mut plan)?,
        },
    };
    finish(
        ir,
        sources,
        &merged,
        req,
        existing.is_none(),
        aliases,
        &mut plan,
    )?;
    Ok(plan)
}

/// One alias: old name → (set, rename).
struct AliasOut {
    name: String,
    set: Option<(String, String)>,
    rename: Vec<(String, String)>,
}

fn alias_for(t: &Tool, req: &MergeRequest, set: Option<(String, String)>) -> AliasOut {
    AliasOut {
        name: t.name.clone(),
        set,
        rename: t
            .fields
            .iter()
            .filter(|f| req.renamed(&f.name) != f.name)
            .map(|f| (f.name.clone(), req.renamed(&f.name).to_owned()))
            .collect(),
    }
}

fn action_names_for(
    merged: &[&Tool],
    req: &MergeRequest,
    into: Option<&str>,
) -> Result<Vec<String>, Refusal> {
    let names_in: Vec<&str> = merged.iter().map(|t| t.name.as_str()).collect();
    let out = match (&req.as_names, into) {
        (Some(v), _) => v.clone(),
        (None, None) => names::action_names(&names_in),
        (None, Some(x)) => names_in.iter().map(|n| names::value_name(n, x)).collect(),
    };
    if out.len() != merged.len() {
        return Err(vec![format!(
            "--as names {} action(s) for {} tool(s); give one per merged tool, in order",
            out.len(),
            merged.len()
        )]);
    }
    let mut problems = Vec::new();
    for (i, a) in out.iter().enumerate() {
        if !crate::load::read::is_name(a) {
            problems.push(format!(
                "action name `{a}` is not a valid name (^[a-z][a-z0-9_]{{0,63}}$); give the actions names with --as"
            ));
        }
        if out[..i].contains(a) {
            problems.push(format!("action name `{a}` is given twice"));
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

/// The merged tools' fields, each declared once (after renames), in first-use order, and each
/// merged tool's own defaults (`defaults:` of its action).
struct MergedFields {
    fields: Vec<(String, Field)>,
    /// One per merged tool, in order.
    defaults: Vec<BTreeMap<String, serde_json::Value>>,
}

/// How the merged tools' definitions of one field compare, each with its tool:
/// [`Agreement::DefaultsDiffer`] only where per-action defaults can say it (no tool requires
/// the field and gives it a default: `defaults:` is for optional fields).
pub(super) fn field_agreement(defs: &[(&Tool, &Field)]) -> Agreement {
    let fields: Vec<&Field> = defs.iter().map(|(_, f)| *f).collect();
    match render::agreement(&fields) {
        Agreement::DefaultsDiffer
            if defs.iter().any(|(t, f)| {
                f.ty.default_value().is_some()
                    && single_action(t).is_some_and(|a| a.required.contains(&f.name))
            }) =>
        {
            Agreement::Differ
        }
        a => a,
    }
}

/// Fields of the merged tools, declared once each (after renames), in first-use order.
/// Identical definitions merge; where they differ only in `default:` and the merged tool has
/// actions (`per_action`), the field has no default and each action keeps its tool's; other
/// differences need `--prefer FIELD=TOOL`. Fields the target already declares (`keep`) are
/// left to the target.
fn union_fields(
    merged: &[&Tool],
    req: &MergeRequest,
    keep: &dyn Fn(&str) -> bool,
    per_action: bool,
) -> Result<MergedFields, Refusal> {
    // Each field name (after renames) → who declares it: (index into `merged`, field).
    let mut out: Vec<(String, Vec<(usize, &Field)>)> = Vec::new();
    for (i, t) in merged.iter().enumerate() {
        for f in &t.fields {
            let name = req.renamed(&f.name).to_owned();
            if keep(&name) {
                continue;
            }
            match out.iter_mut().find(|(n, _)| *n == name) {
                None => out.push((name, vec![(i, f)])),
                Some((_, defs)) => defs.push((i, f)),
            }
        }
    }
    let mut fields = Vec::new();
    let mut defaults = vec![BTreeMap::new(); merged.len()];
    let mut problems = Vec::new();
    for (name, defs) in out {
        let pairs: Vec<(&Tool, &Field)> = defs.iter().map(|(i, f)| (merged[*i], *f)).collect();
        match (field_agreement(&pairs), req.preferred(&name)) {
            (Agreement::Same, _) => fields.push((name, pairs[0].1.clone())),
            (Agreement::DefaultsDiffer, None) if per_action => {
                for (i, f) in &defs {
                    if let Some(d) = f.ty.default_value() {
                        defaults[*i].insert(name.clone(), d.clone());
                    }
                }
                fields.push((name, render::without_default(pairs[0].1)));
            }
            (_, Some(p)) => match pairs.iter().find(|(t, _)| t.name == p) {
                Some((_, f)) => fields.push((name, (*f).clone())),
                None => problems.push(format!("--prefer {name}={p}: `{p}` has no field `{name}`")),
            },
            (_, None) => {
                let mut text = format!("field `{name}` is declared differently:");
                for (t, f) in &pairs {
                    let _ = write!(
                        text,
                        "\n    {}: {}",
                        t.name,
                        one_line(&render::field(&name, f, 0))
                    );
                }
                let _ = write!(
                    text,
                    "\n  choose one with --prefer {name}={}",
                    pairs[0].0.name
                );
                problems.push(text);
            }
        }
    }
    if problems.is_empty() {
        Ok(MergedFields { fields, defaults })
    } else {
        Err(problems)
    }
}

fn one_line(yaml: &str) -> String {
    yaml.lines()
        .skip(1)
        .map(str::trim)
        .collect::<Vec<_>>()
        .join("; ")
}

/// The one value every tool agrees on, or the preferred tool's, or a refusal naming them.
fn agree<T: PartialEq + Clone>(
    merged: &[&Tool],
    req: &MergeRequest,
    key: &str,
    get: &dyn Fn(&Tool) -> T,
    show: &dyn Fn(&T) -> String,
    problems: &mut Vec<String>,
) -> Option<T> {
    let first = get(merged.first()?);
    if merged.iter().all(|t| get(t) == first) {
        return Some(first);
    }
    if let Some(p) = req.preferred(key) {
        return merged.iter().find(|t| t.name == p).map(|t| get(t));
    }
    let mut text = format!("the merged tools differ in `{key}`:");
    for t in merged {
        let _ = write!(text, "\n    {}: {}", t.name, show(&get(t)));
    }
    let _ = write!(
        text,
        "\n  choose one with --prefer {key}={}",
        merged[0].name
    );
    problems.push(text);
    None
}

fn trait_text(v: &TraitValue) -> String {
    match v {
        TraitValue::Bool(b) => b.to_string(),
        TraitValue::Enum(s) => scalar(s),
    }
}

fn traits_flow(pairs: &[(String, TraitValue)]) -> String {
    let items: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("{k}: {}", trait_text(v)))
        .collect();
    format!("{{ {} }}", items.join(", "))
}

fn default_of(ir: &Ir, name: &str) -> Option<TraitValue> {
    ir.traits
        .iter()
        .find(|t| t.name == name)
        .map(|t| match &t.kind {
            TraitKind::Bool { default } => TraitValue::Bool(*default),
            TraitKind::Enum { default, .. } => TraitValue::Enum(default.clone()),
        })
}

/// One `actions:` entry at `indent`.
fn action_block(
    name: &str,
    t: &Tool,
    a: &Action,
    req: &MergeRequest,
    defaults: &BTreeMap<String, serde_json::Value>,
    traits: &[(String, TraitValue)],
    indent: usize,
) -> String {
    let pad = " ".repeat(indent);
    let r = |v: &[String]| {
        v.iter()
            .map(|f| req.renamed(f).to_owned())
            .collect::<Vec<_>>()
    };
    let mut out = format!("{pad}{name}:\n");
    let desc = t.description.source.trim();
    let _ = writeln!(
        out,
        "{pad}  description: {}",
        scalar(&desc.replace('\n', " "))
    );
    if !a.required.is_empty() {
        let _ = writeln!(out, "{pad}  required: {}", flow_list(&r(&a.required)));
    }
    if !a.optional.is_empty() {
        let _ = writeln!(out, "{pad}  optional: {}", flow_list(&r(&a.optional)));
    }
    if !a.exactly_one_of.is_empty() {
        let groups: Vec<String> = a.exactly_one_of.iter().map(|g| flow_list(&r(g))).collect();
        let _ = writeln!(out, "{pad}  exactly_one_of: [{}]", groups.join(", "));
    }
    if !a.forbidden_with.is_empty() {
        let _ = writeln!(out, "{pad}  forbidden_with:");
        for f in &a.forbidden_with {
            let _ = writeln!(
                out,
                "{pad}    - {{ field: {}, with: {}, message: {} }}",
                req.renamed(&f.field),
                req.renamed(&f.with),
                serde_json::Value::String(f.message.clone())
            );
        }
    }
    if !defaults.is_empty() {
        let items: Vec<String> = defaults
            .iter()
            .map(|(k, v)| format!("{}: {}", scalar(k), render::json(v)))
            .collect();
        let _ = writeln!(out, "{pad}  defaults: {{ {} }}", items.join(", "));
    }
    if !traits.is_empty() {
        let _ = writeln!(out, "{pad}  traits: {}", traits_flow(traits));
    }
    out
}

/// `a, b or c`.
fn or_list(items: &[String]) -> String {
    match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => items.join(""),
    }
}

fn single_action(t: &Tool) -> Option<&Action> {
    t.actions.first()
}

/// The tool-level keys every merged tool must agree on (or a `--prefer` / `--object` settles).
struct ToolKeys {
    object: String,
    route: Route,
    session: Option<SessionKey>,
    families: Vec<String>,
}

fn agreed_keys(
    merged: &[&Tool],
    req: &MergeRequest,
    problems: &mut Vec<String>,
) -> Option<ToolKeys> {
    let object = match &req.object {
        Some(o) => Some(o.clone()),
        None => {
            let first = merged[0].object.clone();
            if merged.iter().all(|t| t.object == first) {
                Some(first)
            } else {
                problems.push("the merged tools operate on different objects; name the merged tool's with --object".to_owned());
                None
            }
        }
    };
    let route = agree(
        merged,
        req,
        "route",
        &|t: &Tool| t.route,
        &|r: &Route| r.as_str().to_owned(),
        problems,
    );
    // A tool without a session (shell_list) does not disagree with those that have one.
    let with_session: Vec<&Tool> = merged
        .iter()
        .copied()
        .filter(|t| t.session.is_some())
        .collect();
    let session = if with_session.is_empty() {
        Some(None)
    } else {
        agree(
            &with_session,
            req,
            "session",
            &|t: &Tool| t.session.clone(),
            &|s: &Option<SessionKey>| format!("{s:?}"),
            problems,
        )
        .map(|s| {
            s.map(|k| SessionKey {
                id: req.renamed(&k.id).to_owned(),
                host: k.host.map(|h| req.renamed(&h).to_owned()),
            })
        })
    };
    let families = agree(
        merged,
        req,
        "families",
        &|t: &Tool| t.families.clone(),
        &|f: &Vec<String>| flow_list(f),
        problems,
    );
    Some(ToolKeys {
        object: object?,
        route: route?,
        session: session?,
        families: families?,
    })
}

/// Trait name → value, as written in a `traits:` mapping.
type Traits = Vec<(String, TraitValue)>;

/// Traits: a value every merged tool has goes to the tool level (unless it is the default);
/// the others stay on each action (unless default).
fn split_traits(ir: &Ir, merged: &[&Tool]) -> (Traits, Vec<Traits>) {
    let mut tool_traits = Vec::new();
    let mut per_action: Vec<Vec<(String, TraitValue)>> = vec![Vec::new(); merged.len()];
    for decl in &ir.traits {
        let values: Vec<Option<&TraitValue>> = merged
            .iter()
            .map(|t| single_action(t).and_then(|a| a.traits.get(&decl.name)))
            .collect();
        let default = default_of(ir, &decl.name);
        if values.iter().all(|v| *v == values[0]) {
            if let Some(v) = values[0]
                && Some(v) != default.as_ref()
            {
                tool_traits.push((decl.name.clone(), v.clone()));
            }
        } else {
            for (i, v) in values.iter().enumerate() {
                if let Some(v) = v
                    && Some(*v) != default.as_ref()
                {
                    per_action[i].push((decl.name.clone(), (*v).clone()));
                }
            }
        }
    }
    (tool_traits, per_action)
}

/// A new tool file: one action per merged tool.
fn new_tool(
    ir: &Ir,
    merged: &[&Tool],
    req: &MergeRequest,
    plan: &mut Plan,
) -> Result<Vec<AliasOut>, Refusal> {
    let actions = action_names_for(merged, req, None)?;
    let names_in: Vec<&str> = merged.iter().map(|t| t.name.as_str()).collect();
    let mut problems = Vec::new();
    let keys = agreed_keys(merged, req, &mut problems);
    let MergedFields { fields, defaults } = union_fields(merged, req, &|_| false, true)
        .unwrap_or_else(|p| {
            problems.extend(p);
            MergedFields {
                fields: Vec::new(),
                defaults: Vec::new(),
            }
        });
    let selector = req.selector.clone().unwrap_or_else(|| {
        names::selector_name(&names_in, &|s| fields.iter().any(|(n, _)| n == s)).to_owned()
    });
    if selector.is_empty() || fields.iter().any(|(n, _)| *n == selector) {
        problems.push(format!(
            "the selector `{selector}` is also a field name; pick another with --selector"
        ));
    }
    let Some(keys) = keys.filter(|_| problems.is_empty()) else {
        return Err(problems);
    };
    let ToolKeys {
        object,
        route,
        session,
        families,
    } = keys;
    let (tool_traits, per_action) = split_traits(ir, merged);
    let mut text = String::new();
    let _ = writeln!(text, "name: {}", req.into);
    let _ = writeln!(text, "object: {}", scalar(&object));
    let placeholder = format!(
        "Work with the {object}: {} ({selector} says which).",
        or_list(&actions)
    );
    let _ = writeln!(text, "description: {}", scalar(&placeholder));
    plan.notes.push(format!(
        "{}: the tool description is a generated placeholder; each action kept its old tool's description — write one that covers them",
        tool_path(&req.into)
    ));
    let all_families: Vec<String> = ir.families.iter().map(|f| f.name.clone()).collect();
    if families != all_families {
        let declared: Vec<&String> = families
            .iter()
            .filter(|f| ir.family(f).is_some_and(|x| x.like.is_none()))
            .collect();
        let _ = writeln!(text, "families: {}", flow_list(&declared));
    }
    let _ = writeln!(text, "route: {}", route.as_str());
    match session.as_ref().map(|s| (&s.id, &s.host)) {
        Some((id, Some(h))) => {
            let _ = writeln!(text, "session: {{ id: {id}, host: {h} }}");
        }
        Some((id, None)) => {
            let _ = writeln!(text, "session: {{ id: {id} }}");
        }
        None => {}
    }
    if !tool_traits.is_empty() {
        let _ = writeln!(text, "traits: {}", traits_flow(&tool_traits));
    }
    let _ = writeln!(
        text,
        "selector:\n  name: {selector}\n  description: {}",
        scalar(&format!("What to do with the {object}."))
    );
    if fields.is_empty() {
        let _ = writeln!(text, "fields: {{}}");
    } else {
        let _ = writeln!(text, "fields:");
        for (name, f) in &fields {
            text.push_str(&render::field(name, f, 2));
        }
    }
    let _ = writeln!(text, "actions:");
    let mut aliases = Vec::new();
    for (i, ((t, name), traits)) in merged.iter().zip(&actions).zip(&per_action).enumerate() {
        if let Some(a) = single_action(t) {
            let own = defaults.get(i).cloned().unwrap_or_default();
            text.push_str(&action_block(name, t, a, req, &own, traits, 2));
        }
        aliases.push(alias_for(t, req, Some((selector.clone(), name.clone()))));
    }
    plan.put(&tool_path(&req.into), text);
    Ok(aliases)
}

/// The target's declared tool-level traits (its YAML), for per-action overrides.
fn declared_tool_traits(text: &str) -> BTreeMap<String, String> {
    let mut d = Vec::new();
    let Some(root) = crate::load::yaml::parse(crate::diag::FileId(0), text, &mut d) else {
        return BTreeMap::new();
    };
    let Some(crate::load::yaml::Value::Map(entries)) = (match &root.value {
        crate::load::yaml::Value::Map(e) => e
            .iter()
            .find(|(k, _)| k.as_str() == Some("traits"))
            .map(|(_, v)| v.value.clone()),
        _ => None,
    }) else {
        return BTreeMap::new();
    };
    entries
        .iter()
        .map(|(k, v)| {
            (
                crate::load::yaml::key_text(k),
                v.to_json().to_string().trim_matches('"').to_owned(),
            )
        })
        .collect()
}

fn add_fields(text: &str, fields: &[(String, Field)]) -> Result<String, Refusal> {
    if fields.is_empty() {
        return Ok(text.to_owned());
    }
    edit::insert_under(text, "fields", &|indent| {
        fields
            .iter()
            .map(|(n, f)| render::field(n, f, indent))
            .collect()
    })
    .map_err(|e| vec![e])
}

/// New actions of a tool that already has a selector.
fn into_actions(
    ir: &Ir,
    sources: &Sources,
    x: &Tool,
    merged: &[&Tool],
    req: &MergeRequest,
    plan: &mut Plan,
) -> Result<Vec<AliasOut>, Refusal> {
    let actions = action_names_for(merged, req, Some(&x.name))?;
    let clash: Vec<String> = actions
        .iter()
        .filter(|a| x.action(a).is_some())
        .map(|a| {
            format!(
                "`{}` already has an action `{a}`; pick other names with --as",
                x.name
            )
        })
        .collect();
    if !clash.is_empty() {
        return Err(clash);
    }
    let path = tool_path(&x.name);
    let text = plan
        .text_of(sources, &path)
        .ok_or_else(|| vec![format!("{path} is missing")])?
        .to_owned();
    let MergedFields {
        fields,
        mut defaults,
    } = union_fields(merged, req, &|n| x.field(n).is_some(), true)?;
    kept_fields(x, merged, req, &mut defaults, &mut plan.notes);
    let declared = declared_tool_traits(&text);
    let mut text = add_fields(&text, &fields)?;
    let mut blocks = String::new();
    let mut aliases = Vec::new();
    let sel = x
        .selector
        .as_ref()
        .map(|s| s.name.clone())
        .unwrap_or_default();
    for ((t, name), own) in merged.iter().zip(&actions).zip(&defaults) {
        let Some(a) = single_action(t) else { continue };
        let traits: Vec<(String, TraitValue)> = a
            .traits
            .iter()
            .filter(|(k, v)| match declared.get(*k) {
                Some(d) => trait_text(v).trim_matches('"') != d,
                None => Some(*v) != default_of(ir, k).as_ref(),
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        blocks.push_str(&action_block(name, t, a, req, own, &traits, 2));
        aliases.push(alias_for(t, req, Some((sel.clone(), name.clone()))));
    }
    text = edit::insert_under(&text, "actions", &|_| blocks.clone()).map_err(|e| vec![e])?;
    plan.put(&path, text);
    plan.notes.push(format!("{path}: the new actions have the merged tools' descriptions; the tool's own description may need a word about them"));
    Ok(aliases)
}

/// The merged tools' fields the target already declares keep the target's definition. A
/// merged tool's own default there becomes its action's (`defaults:`); any other difference
/// is a note, so nothing changes unseen.
fn kept_fields(
    x: &Tool,
    merged: &[&Tool],
    req: &MergeRequest,
    defaults: &mut [BTreeMap<String, serde_json::Value>],
    notes: &mut Vec<String>,
) {
    let path = tool_path(&x.name);
    for (t, own) in merged.iter().zip(defaults.iter_mut()) {
        for f in &t.fields {
            let name = req.renamed(&f.name);
            let Some(g) = x.field(name) else { continue };
            let required = single_action(t).is_some_and(|a| a.required.contains(&f.name));
            match (render::agreement(&[g, f]), f.ty.default_value()) {
                (Agreement::Same, _) => {}
                (Agreement::DefaultsDiffer, Some(d)) if !required => {
                    own.insert(name.to_owned(), d.clone());
                }
                (Agreement::DefaultsDiffer, None) => notes.push(format!(
                    "{path}: `{}` gave `{name}` no default; as an action it takes `{}`'s ({})",
                    t.name,
                    x.name,
                    g.ty.default_value().map_or_else(String::new, render::json)
                )),
                _ => notes.push(format!(
                    "{path}: `{name}` keeps `{}`'s definition; `{}` declared it as {}",
                    x.name,
                    t.name,
                    one_line(&render::field(name, f, 0))
                )),
            }
        }
    }
}

/// New values of a plain tool's choice field (`introspect --selector target`): an enum or an
/// alternation pattern gains one value per merged tool; their fields become optional fields.
fn into_choice_field(
    sources: &Sources,
    x: &Tool,
    field: &str,
    merged: &[&Tool],
    req: &MergeRequest,
    plan: &mut Plan,
) -> Result<Vec<AliasOut>, Refusal> {
    if x.field(field).is_none() {
        return Err(vec![format!(
            "`{}` has no field `{field}` and no selector; --selector on an existing plain tool names its choice field (an enum or an alternation pattern)",
            x.name
        )]);
    }
    let values = action_names_for(merged, req, Some(&x.name))?;
    let path = tool_path(&x.name);
    let text = plan
        .text_of(sources, &path)
        .ok_or_else(|| vec![format!("{path} is missing")])?
        .to_owned();
    let value_refs: Vec<&str> = values.iter().map(String::as_str).collect();
    let text = edit::extend_choice_field(&text, field, &value_refs)
        .map_err(|e| vec![format!("{path}: {e}")])?;
    let fields = union_fields(merged, req, &|n| x.field(n).is_some(), false)?.fields;
    let text = add_fields(&text, &fields)?;
    plan.put(&path, text);
    plan.notes.push(format!(
        "{path}: `{field}` gained {}; its description and the tool's still list the old choices — reword them",
        values.join(", ")
    ));
    Ok(merged
        .iter()
        .zip(&values)
        .map(|(t, v)| alias_for(t, req, Some((field.to_owned(), v.clone()))))
        .collect())
}

/// New optional parameters of a plain tool (`--into read_file --param device --rename host=device`).
fn into_params(
    sources: &Sources,
    x: &Tool,
    merged: &[&Tool],
    req: &MergeRequest,
    plan: &mut Plan,
) -> Result<Vec<AliasOut>, Refusal> {
    let mut problems = Vec::new();
    for t in merged {
        for f in &t.fields {
            let name = req.renamed(&f.name);
            if x.field(name).is_none() && !req.params.iter().any(|p| p == name) {
                let hint = if name == f.name {
                    format!("--param {name}")
                } else {
                    format!("--param {name} --rename {}={name}", f.name)
                };
                problems.push(format!(
                    "`{}` has field `{name}`, which `{}` lacks: add it with {hint}",
                    t.name, x.name
                ));
            }
        }
    }
    for p in &req.params {
        if x.field(p).is_some() {
            problems.push(format!(
                "--param {p}: `{}` already has a field `{p}`",
                x.name
            ));
        } else if !merged
            .iter()
            .any(|t| t.fields.iter().any(|f| req.renamed(&f.name) == p))
        {
            problems.push(format!(
                "--param {p}: no merged tool has a field `{p}` (after --rename)"
            ));
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let fields = union_fields(merged, req, &|n| x.field(n).is_some(), false)?.fields;
    let path = tool_path(&x.name);
    let text = plan
        .text_of(sources, &path)
        .ok_or_else(|| vec![format!("{path} is missing")])?
        .to_owned();
    let text = add_fields(&text, &fields)?;
    plan.put(&path, text);
    for t in merged {
        for f in &t.fields {
            if let Some(g) = x.field(req.renamed(&f.name))
                && !render::same_definition(g, f)
            {
                plan.notes.push(format!(
                    "{}: `{}` keeps its own `{}` (the one of {} differed)",
                    path, x.name, g.name, t.name
                ));
            }
        }
    }
    Ok(merged.iter().map(|t| alias_for(t, req, None)).collect())
}

/// Aliases, roles and skills, references, old files, ledger.
fn finish(
    ir: &Ir,
    sources: &Sources,
    merged: &[&Tool],
    req: &MergeRequest,
    new: bool,
    aliases: Vec<AliasOut>,
    plan: &mut Plan,
) -> Result<(), Refusal> {
    let old: Vec<&str> = merged.iter().map(|t| t.name.as_str()).collect();
    let mut problems = Vec::new();
    for a in &ir.aliases {
        if old.contains(&a.tool.as_str()) {
            problems.push(format!(
                "alias `{}` leads to `{}`; point it at `{}` first (aliases.yaml)",
                a.name, a.tool, req.into
            ));
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut block = format!(
        "# merged by `toolsurface merge`: {} -> {}\n",
        old.join(", "),
        req.into
    );
    for a in &aliases {
        let _ = writeln!(block, "{}:\n  tool: {}", a.name, req.into);
        if let Some((k, v)) = &a.set {
            let _ = writeln!(block, "  set: {{ {k}: {} }}", scalar(v));
        }
        if !a.rename.is_empty() {
            let items: Vec<String> = a.rename.iter().map(|(o, n)| format!("{o}: {n}")).collect();
            let _ = writeln!(block, "  rename: {{ {} }}", items.join(", "));
        }
    }
    let aliases_text = plan
        .text_of(sources, "aliases.yaml")
        .unwrap_or("")
        .to_owned();
    plan.put("aliases.yaml", edit::append_entries(&aliases_text, &block));
    rewrite_lists_and_refs(sources, &old, Some(&req.into), Some(&req.into), plan)?;
    let delta = merged.len() as i64 - i64::from(new);
    let into = if new {
        format!("{} (new)", req.into)
    } else {
        req.into.clone()
    };
    let how = match aliases.first().and_then(|a| a.set.as_ref()) {
        Some((k, _)) => {
            let vals: Vec<&str> = aliases
                .iter()
                .filter_map(|a| a.set.as_ref().map(|(_, v)| v.as_str()))
                .collect();
            format!(" by {k}: {}", vals.join(", "))
        }
        None if !req.renames.is_empty() => {
            let r: Vec<String> = req
                .renames
                .iter()
                .map(|(o, n)| format!("{o} → {n}"))
                .collect();
            format!(" ({})", r.join(", "))
        }
        None => String::new(),
    };
    plan.ledger = format!("−{delta}: {} → {into}{how}", old.join(", "));
    Ok(())
}

/// Roles and skills: `old` out, `into` in at the first one's place; every `tool("old")`
/// reference pointed at `into` (or left, for retire, when `into` is None); old files deleted.
pub(super) fn rewrite_lists_and_refs(
    sources: &Sources,
    old: &[&str],
    into: Option<&str>,
    refs_to: Option<&str>,
    plan: &mut Plan,
) -> Result<(), Refusal> {
    let paths: Vec<String> = sources
        .files
        .iter()
        .map(|f| f.path.clone())
        .chain(plan.write.iter().map(|(p, _)| p.clone()))
        .collect();
    let mut problems = Vec::new();
    for path in &paths {
        if old.iter().any(|o| tool_path(o) == *path) {
            continue;
        }
        let Some(text) = plan.text_of(sources, path).map(str::to_owned) else {
            continue;
        };
        let mut new = text.clone();
        if path == "roles.yaml" || (path.starts_with("skills/") && path.ends_with(".yaml")) {
            match edit::replace_in_tool_lists(&new, path, old, into) {
                Ok((t, _)) => new = t,
                Err(e) => problems.push(e),
            }
        }
        if let Some(into) = refs_to
            && path.ends_with(".yaml")
            && path != "aliases.yaml"
            && path != "retired.yaml"
        {
            let call = if into == "shell_tool()" {
                into.to_owned()
            } else {
                format!("tool(\"{into}\")")
            };
            for o in old {
                let (t, lines) = edit::rewrite_tool_refs_to_call(&new, o, &call);
                for l in lines {
                    plan.notes.push(format!("{path}:{l}: a reference to {o} now names {into}; check the sentence still reads right"));
                }
                new = t;
            }
        }
        if new != text {
            plan.put(path, new);
        }
    }
    for o in old {
        let p = tool_path(o);
        plan.write.retain(|(w, _)| *w != p);
        if !plan.delete.contains(&p) {
            plan.delete.push(p);
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}
