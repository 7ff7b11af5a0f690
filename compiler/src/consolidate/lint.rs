//! `lint`: the three rules over a compiled surface. Merge candidates (same object, shared
//! name stems), confusable pairs, delete candidates (`replaceable_by:`, or rarely used) and
//! keeps (steady use is never a delete candidate), plus prose that names a tool without
//! `tool()`, fields described identically in several tools, and actions without an example
//! (`check`'s `no-example` rule, called, not copied). Each finding has a stable
//! id, a place, a verdict, its evidence and, where one exists, the command that applies it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::names;
use super::render::Agreement;
use super::replaceable::{self, Replaceable};
use super::usage::UsageData;
use crate::diag::{Sources, Span};
use crate::ir::{Field, Ir, Tool, Type};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Error,
    Warning,
    Note,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Note => "note",
        }
    }
}

/// When usage counts as steady, when as rare, and how close is confusable.
#[derive(Clone, Copy, Debug)]
pub struct Thresholds {
    /// Keep: used in at least this many threads …
    pub keep_threads: u64,
    /// … or in at least this share of all threads.
    pub keep_share: f64,
    /// Rare: used in at most this share of threads …
    pub rare_share: f64,
    /// … and at most this many calls.
    pub rare_calls: u64,
    /// Confusable names: Jaro-Winkler / token overlap at least this.
    pub name_similarity: f64,
    /// Confusable descriptions: word overlap at least this.
    pub description_similarity: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            keep_threads: 100,
            keep_share: 0.05,
            rare_share: 0.005,
            rare_calls: 20,
            name_similarity: 0.9,
            description_similarity: 0.5,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// Stable: rule + the names involved (`merge/shell_session`).
    pub id: String,
    pub rule: &'static str,
    pub level: Level,
    pub span: Option<Span>,
    /// One line: what to do.
    pub verdict: String,
    pub evidence: Vec<String>,
    /// The command that applies it.
    pub command: Option<String>,
}

struct Ctx<'a> {
    ir: &'a Ir,
    usage: Option<&'a UsageData>,
    th: &'a Thresholds,
}

impl Ctx<'_> {
    /// A tool's use, its aliases' calls counted too (a report of the surface before a merge
    /// counts the old names; their calls are the merged tool's now). Threads may overlap
    /// between names, so the thread count is the largest of them, a lower bound.
    fn use_of(&self, u: &UsageData, tool: &str) -> super::usage::ToolUse {
        let mut t = u.of(tool);
        for a in self.ir.aliases.iter().filter(|a| a.tool == tool) {
            let x = u.of(&a.name);
            t.calls += x.calls;
            t.threads = t.threads.max(x.threads);
        }
        t
    }
    fn steady(&self, tool: &str) -> Option<String> {
        let u = self.usage?;
        let t = self.use_of(u, tool);
        let share = if u.threads == 0 {
            0.0
        } else {
            t.threads as f64 / u.threads as f64
        };
        (t.threads >= self.th.keep_threads || share >= self.th.keep_share)
            .then(|| use_text(t.calls, t.threads, share))
    }
    fn rare(&self, tool: &str) -> Option<String> {
        let u = self.usage?;
        let t = self.use_of(u, tool);
        let share = if u.threads == 0 {
            0.0
        } else {
            t.threads as f64 / u.threads as f64
        };
        (share <= self.th.rare_share && t.calls <= self.th.rare_calls)
            .then(|| use_text(t.calls, t.threads, share))
    }
}

fn use_text(calls: u64, threads: u64, share: f64) -> String {
    format!(
        "{calls} calls in {threads} threads ({:.1}% of threads)",
        share * 100.0
    )
}

/// The resident tools of `role` (every role when `None`), in published order.
pub fn resident<'a>(ir: &'a Ir, role: Option<&str>) -> Vec<&'a Tool> {
    let mut out: Vec<&Tool> = Vec::new();
    for r in ir.roles.iter().filter(|r| role.is_none_or(|x| x == r.name)) {
        for t in &r.tools {
            if let Some(tool) = ir.tool(t)
                && !out.iter().any(|o| o.name == tool.name)
            {
                out.push(tool);
            }
        }
    }
    out
}

fn quote(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "_-.,/=".contains(c))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Lint the surface. `usage` adds the keep / rare / observed-confusion rules.
pub fn lint(
    ir: &Ir,
    sources: &Sources,
    role: Option<&str>,
    usage: Option<&UsageData>,
    th: &Thresholds,
) -> Vec<Finding> {
    let cx = Ctx { ir, usage, th };
    let tools = resident(ir, role);
    let declared: BTreeMap<&str, Replaceable> = tools
        .iter()
        .filter_map(|t| {
            let f = t.span.file;
            let text = &sources.file(f)?.text;
            replaceable::of_tool_text(f, text).map(|r| (t.name.as_str(), r))
        })
        .collect();
    let mut out = Vec::new();
    let deleted = declared_deletions(&cx, &tools, &declared, &mut out);
    let live: Vec<&Tool> = tools
        .iter()
        .copied()
        .filter(|t| !deleted.contains(&t.name))
        .collect();
    let mut merge = merge_findings(&cx, &live);
    // Keep and rare, for the tools no other rule settled: a rarely used tool with a merge
    // home is merged, not deleted.
    usage_verdicts(&cx, &live, &declared, &mut merge, &mut out);
    merge.append(&mut out);
    let mut out = merge;
    confusable(&cx, &live, &out.clone(), &mut out);
    prose_mentions(&tools, &mut out);
    copy_drift(&tools, &mut out);
    missing_examples(&offered(ir, role), &mut out);
    snake_case(&tools, &mut out);
    out
}

/// Names outside snake_case (`getMe`, `list-files`, `perPage`): a note suggesting the
/// spelling the providers' own tools use. The language takes every name a provider takes and
/// `import` keeps them; renaming is a breaking change for the callers, so the note says how
/// to keep the old name callable.
fn snake_case(tools: &[&Tool], out: &mut Vec<Finding>) {
    let suggest = |name: &str| {
        let snake = crate::import::snake_name(name);
        (snake != name).then_some(snake)
    };
    for t in tools {
        if let Some(snake) = suggest(&t.name) {
            out.push(Finding {
                id: format!("snake-case/{}", t.name),
                rule: "snake-case",
                level: Level::Note,
                span: Some(t.span),
                verdict: format!("tool `{}` could be `{snake}` (snake_case, as the providers' own tools)", t.name),
                evidence: vec![format!(
                    "a rename breaks callers of `{}`: keep it callable with an alias (`aliases.yaml`: `{}: {{ tool: {snake} }}`)",
                    t.name, t.name
                )],
                command: None,
            });
        }
        for f in &t.fields {
            if let Some(snake) = suggest(&f.name) {
                out.push(Finding {
                    id: format!("snake-case/{}/{}", t.name, f.name),
                    rule: "snake-case",
                    level: Level::Note,
                    span: Some(f.span),
                    verdict: format!("field `{}` of `{}` could be `{snake}` (snake_case)", f.name, t.name),
                    evidence: vec![format!(
                        "a rename breaks callers that send `{}`: an alias with `rename: {{ {}: {snake} }}` keeps them working",
                        f.name, f.name
                    )],
                    command: None,
                });
            }
        }
    }
}

/// The resident tools of `role` (every role when `None`), then the tools its skills append:
/// every tool a model of the role can be shown.
fn offered<'a>(ir: &'a Ir, role: Option<&str>) -> Vec<&'a Tool> {
    let mut out = resident(ir, role);
    for r in ir.roles.iter().filter(|r| role.is_none_or(|x| x == r.name)) {
        for s in ir.skills.iter().filter(|s| r.skills.contains(&s.name)) {
            for t in s.tools.iter().filter_map(|t| ir.tool(t)) {
                if !out.iter().any(|o| o.name == t.name) {
                    out.push(t);
                }
            }
        }
    }
    out
}

/// Actions without an example: `check`'s `no-example` rule
/// ([`crate::load::examples::missing_examples`]), same wording and level, as lint findings
/// over every tool the role offers (resident or through a skill).
fn missing_examples(tools: &[&Tool], out: &mut Vec<Finding>) {
    for tool in tools {
        for d in crate::load::examples::missing_examples([*tool]) {
            let action = tool
                .actions
                .iter()
                .find(|a| Some(a.span) == d.span)
                .and_then(|a| a.name.as_deref());
            out.push(Finding {
                id: match action {
                    Some(a) => format!("{}/{}/{a}", d.code, tool.name),
                    None => format!("{}/{}", d.code, tool.name),
                },
                rule: d.code,
                level: match d.severity {
                    crate::diag::Severity::Error => Level::Error,
                    crate::diag::Severity::Warning => Level::Warning,
                },
                span: d.span,
                verdict: d.message,
                evidence: d.hint.into_iter().collect(),
                command: None,
            });
        }
    }
}

/// Tools that declare `replaceable_by:` and are not in steady use: delete findings (and an
/// error for each replacement that is not a tool). Returns their names.
fn declared_deletions(
    cx: &Ctx<'_>,
    tools: &[&Tool],
    declared: &BTreeMap<&str, Replaceable>,
    out: &mut Vec<Finding>,
) -> BTreeSet<String> {
    let (ir, usage) = (cx.ir, cx.usage);
    let mut deleted = BTreeSet::new();
    for t in tools {
        let steady = cx.steady(&t.name);
        if let Some(r) = declared.get(t.name.as_str()) {
            for u in &r.tools {
                if ir.tool(&u.v).is_none() {
                    out.push(Finding {
                        id: format!("replaceable-unknown/{}/{}", t.name, u.v),
                        rule: "replaceable-unknown",
                        level: Level::Error,
                        span: Some(u.span),
                        verdict: format!("replaceable_by names `{}`, which is not a tool", u.v),
                        evidence: Vec::new(),
                        command: None,
                    });
                }
            }
            if steady.is_none() {
                deleted.insert(t.name.clone());
                let mut evidence = vec![format!(
                    "replaceable_by {}: {}",
                    r.tools
                        .iter()
                        .map(|x| x.v.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    r.message.trim()
                )];
                if let Some(u) = usage {
                    let x = u.of(&t.name);
                    evidence.push(format!(
                        "usage: {}",
                        use_text(
                            x.calls,
                            x.threads,
                            if u.threads == 0 {
                                0.0
                            } else {
                                x.threads as f64 / u.threads as f64
                            }
                        )
                    ));
                }
                out.push(Finding {
                    id: format!("delete/{}", t.name),
                    rule: "delete",
                    level: Level::Warning,
                    span: Some(r.span),
                    verdict: format!("delete {}: other tools do its job", t.name),
                    evidence,
                    command: Some(format!("toolsurface retire {}", t.name)),
                });
                continue;
            }
        }
    }
    deleted
}

/// Keep (steady use) and rare (delete candidate) for the tools no other rule settled; a
/// rarely used tool with a merge home gets that as evidence on its merge instead.
fn usage_verdicts(
    cx: &Ctx<'_>,
    live: &[&Tool],
    declared: &BTreeMap<&str, Replaceable>,
    merge: &mut [Finding],
    out: &mut Vec<Finding>,
) {
    for t in live {
        if merge
            .iter()
            .any(|f| in_same_merge(std::slice::from_ref(f), &t.name, &t.name))
        {
            if let (Some(r), Some(f)) = (
                cx.rare(&t.name),
                merge
                    .iter_mut()
                    .find(|f| in_same_merge(std::slice::from_ref(f), &t.name, &t.name)),
            ) {
                f.evidence.push(format!(
                    "{} is rarely used ({r}): merged rather than deleted",
                    t.name
                ));
            }
            if cx.steady(&t.name).is_none() {
                continue;
            }
        }
        let steady = cx.steady(&t.name);
        if let Some(s) = steady {
            let mut evidence = vec![format!("usage: {s}")];
            if declared.contains_key(t.name.as_str()) {
                evidence.push("declares replaceable_by, but steady use outweighs it".to_owned());
            }
            out.push(Finding {
                id: format!("keep/{}", t.name),
                rule: "keep",
                level: Level::Note,
                span: Some(t.span),
                verdict: format!("keep {}: in steady use", t.name),
                evidence,
                command: None,
            });
        } else if let Some(r) = cx.rare(&t.name) {
            out.push(Finding {
                id: format!("delete/{}", t.name),
                rule: "delete",
                level: Level::Warning,
                span: Some(t.span),
                verdict: format!("delete candidate {}: rarely used", t.name),
                evidence: vec![format!("usage: {r}")],
                command: Some(format!("toolsurface retire {} --message '…'", t.name)),
            });
        }
    }
}

fn field_names(t: &Tool) -> BTreeSet<&str> {
    t.fields.iter().map(|f| f.name.as_str()).collect()
}

/// A plain tool's field that works like a selector: required, an enum or an alternation.
fn choice_field(t: &Tool) -> Option<&str> {
    let a = t.actions.first()?;
    t.fields
        .iter()
        .find(|f| {
            a.is_required(&f.name)
                && match &f.ty {
                    Type::Enum { .. } => true,
                    Type::String {
                        pattern: Some(p), ..
                    } => p.starts_with("^(?:") && p.ends_with(")$"),
                    _ => false,
                }
        })
        .map(|f| f.name.as_str())
}

fn merge_findings(cx: &Ctx<'_>, live: &[&Tool]) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut objects: Vec<&str> = Vec::new();
    for t in live {
        if !t.object.is_empty() && !objects.contains(&t.object.as_str()) {
            objects.push(&t.object);
        }
    }
    for object in objects {
        let mut group: Vec<&Tool> = live
            .iter()
            .copied()
            .filter(|t| t.object == object && t.freeform.is_none())
            .collect();
        if group.len() < 2 {
            continue;
        }
        counterpart_finding(object, &mut group, &mut out);
        // b) shared first token.
        let mut stems: Vec<String> = Vec::new();
        for t in &group {
            if let Some(s) = names::tokens(&t.name).into_iter().next()
                && !stems.contains(&s)
            {
                stems.push(s);
            }
        }
        for stem in stems {
            let sub: Vec<&Tool> = group
                .iter()
                .copied()
                .filter(|t| {
                    let words = names::tokens(&t.name);
                    t.is_plain() && words.len() > 1 && words[0] == stem
                })
                .collect();
            if sub.len() < 2 {
                continue;
            }
            out.push(new_tool_finding(cx, object, &sub));
            group.retain(|t| !sub.iter().any(|s| s.name == t.name));
        }
        hub_finding(object, &group, &mut out);
    }
    out
}

/// Prefixed twins of existing tools (`ssh_read_file` next to `read_file`): the twins'
/// extra fields become parameters of the existing tools. Removes them from `group`.
fn counterpart_finding(object: &str, group: &mut Vec<&Tool>, out: &mut Vec<Finding>) {
    let mut counterparts: Vec<(&Tool, &Tool)> = Vec::new();
    for t in group.iter() {
        if let Some(u) = group.iter().find(|u| {
            u.name != t.name
                && t.is_plain()
                && u.is_plain()
                && t.name.ends_with(&format!("_{}", u.name))
        }) {
            counterparts.push((t, u));
        }
    }
    if !counterparts.is_empty() {
        let prefix = counterparts[0]
            .0
            .name
            .trim_end_matches(&counterparts[0].1.name)
            .to_owned();
        let same: Vec<(&Tool, &Tool)> = counterparts
            .iter()
            .copied()
            .filter(|(t, u)| t.name.trim_end_matches(u.name.as_str()) == prefix)
            .collect();
        let mut evidence = vec![format!(
            "same object `{object}`; each is `{prefix}` + an existing tool"
        )];
        let mut commands = Vec::new();
        let mut params: BTreeSet<&str> = BTreeSet::new();
        for (t, u) in &same {
            let extra: Vec<&str> = field_names(t)
                .difference(&field_names(u))
                .copied()
                .collect();
            let shared = field_names(t).intersection(&field_names(u)).count();
            evidence.push(format!(
                "{} = {} + {} (shares {shared} of its {} fields)",
                t.name,
                u.name,
                extra.join(", "),
                t.fields.len()
            ));
            params.extend(extra.iter().copied());
            let mut c = format!("toolsurface merge {} --into {}", t.name, u.name);
            for p in &extra {
                let _ = write!(c, " --param {p}");
            }
            commands.push(c);
        }
        let names: Vec<&str> = same.iter().map(|(t, _)| t.name.as_str()).collect();
        let into: Vec<&str> = same.iter().map(|(_, u)| u.name.as_str()).collect();
        out.push(Finding {
            id: format!("merge/{}", names.join("+")),
            rule: "merge",
            level: Level::Warning,
            span: Some(same[0].0.span),
            verdict: format!(
                "merge {} into {} as the {} parameter",
                names.join(", "),
                into.join(", "),
                params.iter().copied().collect::<Vec<_>>().join(", ")
            ),
            evidence,
            command: Some(commands.join(" && ")),
        });
        group.retain(|t| !same.iter().any(|(s, _)| s.name == t.name));
    }
}

/// Tools on one object without a shared stem, next to one tool that chooses its behaviour
/// by a required field (introspect's `target`): they become values of that field.
fn hub_finding(object: &str, group: &[&Tool], out: &mut Vec<Finding>) {
    if group.len() >= 2 {
        let hubs: Vec<&Tool> = group
            .iter()
            .copied()
            .filter(|t| choice_field(t).is_some())
            .collect();
        if let [hub] = hubs.as_slice() {
            let field = choice_field(hub).unwrap_or_default();
            // The hub's other required fields stay required for every value: a tool whose
            // calls lack one would break (`required-added` in diff), so it is no candidate.
            let needs: Vec<&String> = hub
                .actions
                .first()
                .map(|a| a.required.iter().filter(|f| f.as_str() != field).collect())
                .unwrap_or_default();
            let rest: Vec<&Tool> = group
                .iter()
                .copied()
                .filter(|t| {
                    t.name != hub.name
                        && t.is_plain()
                        && t.actions
                            .first()
                            .is_some_and(|a| needs.iter().all(|f| a.required.contains(f)))
                })
                .collect();
            if !rest.is_empty() {
                let values: Vec<String> = rest
                    .iter()
                    .map(|t| names::value_name(&t.name, &hub.name))
                    .collect();
                let names_: Vec<&str> = rest.iter().map(|t| t.name.as_str()).collect();
                out.push(Finding {
                    id: format!("merge/{}", hub.name),
                    rule: "merge",
                    level: Level::Warning,
                    span: Some(rest[0].span),
                    verdict: format!(
                        "merge {} into {} by {field}: {}",
                        names_.join(", "),
                        hub.name,
                        values.join(", ")
                    ),
                    evidence: vec![
                        format!("same object `{object}`"),
                        format!(
                            "{} chooses what it does by its required `{field}`",
                            hub.name
                        ),
                    ],
                    command: Some(format!(
                        "toolsurface merge {} --into {} --selector {field} --as {}",
                        names_.join(" "),
                        hub.name,
                        values.join(",")
                    )),
                });
            }
        }
    }
}

/// The merged tools' fields by name, those generated code would spell alike (`commentId`,
/// `comment_id`) as one under the first spelling, each with its declarers in order.
type ByField<'a> = Vec<(&'a str, Vec<(&'a Tool, &'a Field)>)>;

/// What merging `sub` into a new tool asks of the command: `--rename`s that join fields
/// spelled alike, `--prefer`s for the conflicts (first declarer wins), and the evidence lines.
struct Settled<'a> {
    by_field: ByField<'a>,
    renames: Vec<String>,
    prefer: Vec<String>,
    evidence: Vec<String>,
}

fn settle_fields<'a>(sub: &[&'a Tool]) -> Settled<'a> {
    let mut by_field: ByField<'a> = Vec::new();
    let mut renames: Vec<String> = Vec::new();
    for t in sub {
        for f in &t.fields {
            let spelled = crate::load::read::rust_spelling(&f.name);
            match by_field
                .iter_mut()
                .find(|(n, _)| crate::load::read::rust_spelling(n) == spelled)
            {
                Some((n, v)) => {
                    let rename = format!("{}={n}", f.name);
                    if f.name != *n && !renames.contains(&rename) {
                        renames.push(rename);
                    }
                    v.push((t, f));
                }
                None => by_field.push((&f.name, vec![(t, f)])),
            }
        }
    }
    let mut prefer = Vec::new();
    let mut own_defaults = Vec::new();
    let mut shared = Vec::new();
    for (name, defs) in &by_field {
        if defs.len() > 1 {
            shared.push(format!("{name} ({})", defs.len()));
            match super::merge::field_agreement(defs) {
                Agreement::Differ => prefer.push(format!("{name}={}", defs[0].0.name)),
                Agreement::DefaultsDiffer => own_defaults.push(*name),
                Agreement::Same => {}
            }
        }
    }
    prefer.extend(tool_key_prefers(sub));
    let distinct = by_field.len();
    let overlap = if distinct == 0 {
        0.0
    } else {
        shared.len() as f64 / distinct as f64
    };
    let mut evidence = vec![format!(
        "field overlap {:.0}% ({} of {distinct} fields in several tools): {}",
        overlap * 100.0,
        shared.len(),
        if shared.is_empty() {
            "none".to_owned()
        } else {
            shared.join(", ")
        }
    )];
    let lines = [
        (
            "fields spelled alike in generated code, renamed by --rename",
            renames.join(" "),
        ),
        (
            "differing defaults, kept as each action's own",
            own_defaults.join(", "),
        ),
        (
            "differing definitions, settled by --prefer",
            prefer.join(" "),
        ),
    ];
    for (what, list) in lines {
        if !list.is_empty() {
            evidence.push(format!("{what}: {list}"));
        }
    }
    Settled {
        by_field,
        renames,
        prefer,
        evidence,
    }
}

fn new_tool_finding(cx: &Ctx<'_>, object: &str, sub: &[&Tool]) -> Finding {
    let names_in: Vec<&str> = sub.iter().map(|t| t.name.as_str()).collect();
    let into = names::merged_tool_name(&names_in, object, &|n| {
        cx.ir.tool(n).is_some() || cx.ir.alias(n).is_some() || cx.ir.retired(n).is_some()
    });
    let actions = names::action_names(&names_in);
    let settled = settle_fields(sub);
    let selector = names::selector_name(&names_in, &|s| {
        settled.by_field.iter().any(|(n, _)| *n == s)
    });
    let mut evidence = vec![format!(
        "same object `{object}`, shared name stem `{}`",
        names::common_affixes(&names_in).0.join("_")
    )];
    evidence.extend(settled.evidence);
    let mut command = format!(
        "toolsurface merge {} --into {into} --selector {selector} --as {}",
        names_in.join(" "),
        actions.join(",")
    );
    for r in &settled.renames {
        let _ = write!(command, " --rename {}", quote(r));
    }
    for p in &settled.prefer {
        let _ = write!(command, " --prefer {}", quote(p));
    }
    Finding {
        id: format!("merge/{into}"),
        rule: "merge",
        level: Level::Warning,
        span: Some(sub[0].span),
        verdict: format!(
            "merge {} → {into} by {selector}: {}",
            names_in.join(", "),
            actions.join(", ")
        ),
        evidence,
        command: Some(command),
    }
}

/// `--prefer route=TOOL` / `families=TOOL` where the group disagrees: the value most of them
/// have, from its first tool.
fn tool_key_prefers(sub: &[&Tool]) -> Vec<String> {
    let mut prefer = Vec::new();
    for (key, differ) in [
        ("route", sub.iter().any(|t| t.route != sub[0].route)),
        (
            "families",
            sub.iter().any(|t| t.families != sub[0].families),
        ),
    ] {
        if differ {
            // The value most tools have, from its first tool.
            let mut counts: Vec<(String, usize, &str)> = Vec::new();
            for t in sub {
                let v = if key == "route" {
                    t.route.as_str().to_owned()
                } else {
                    t.families.join(",")
                };
                match counts.iter_mut().find(|(x, _, _)| *x == v) {
                    Some(c) => c.1 += 1,
                    None => counts.push((v, 1, &t.name)),
                }
            }
            counts.sort_by_key(|c| std::cmp::Reverse(c.1));
            if let Some((_, _, t)) = counts.first() {
                prefer.push(format!("{key}={t}"));
            }
        }
    }
    prefer
}

fn in_same_merge(found: &[Finding], a: &str, b: &str) -> bool {
    found.iter().any(|f| {
        f.rule == "merge"
            && f.command.as_ref().is_some_and(|c| {
                let words: Vec<&str> = c.split_whitespace().collect();
                words.contains(&a) && words.contains(&b)
            })
    })
}

fn confusable(cx: &Ctx<'_>, live: &[&Tool], found: &[Finding], out: &mut Vec<Finding>) {
    let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
    if let Some(u) = cx.usage {
        for c in u
            .confusion
            .iter()
            .filter(|c| c.kind == "look-alike-follow-up")
        {
            let key = if c.from < c.to {
                (c.from.clone(), c.to.clone())
            } else {
                (c.to.clone(), c.from.clone())
            };
            seen.insert(key.clone());
            let span = cx.ir.tool(&c.from).map(|t| t.span);
            let mut evidence = vec![format!(
                "observed {} times: {} then {} in the same thread",
                c.count, c.from, c.to
            )];
            if !c.example.is_empty() {
                evidence.push(format!("e.g. {}", c.example));
            }
            out.push(Finding {
                id: format!("confusable/{}~{}", key.0, key.1),
                rule: "confusable",
                level: Level::Warning,
                span,
                verdict: format!("{} and {} are confused in real use", c.from, c.to),
                evidence,
                command: None,
            });
        }
    }
    for (i, a) in live.iter().enumerate() {
        for b in &live[i + 1..] {
            let key = if a.name < b.name {
                (a.name.clone(), b.name.clone())
            } else {
                (b.name.clone(), a.name.clone())
            };
            // Only tools a model sees side by side: one family at least in common.
            let together = a.families.iter().any(|f| b.families.contains(f));
            if !together || seen.contains(&key) || in_same_merge(found, &a.name, &b.name) {
                continue;
            }
            let name = names::name_similarity(&a.name, &b.name);
            let desc = names::jaccard(
                &names::words(&a.description.source),
                &names::words(&b.description.source),
            );
            if name < cx.th.name_similarity && desc < cx.th.description_similarity {
                continue;
            }
            out.push(Finding {
                id: format!("confusable/{}~{}", key.0, key.1),
                rule: "confusable",
                level: Level::Warning,
                span: Some(a.span),
                verdict: format!("{} and {} look alike", a.name, b.name),
                evidence: vec![format!(
                    "name similarity {name:.2}, description word overlap {desc:.2}"
                )],
                command: None,
            });
        }
    }
}

fn prose_mentions(tools: &[&Tool], out: &mut Vec<Finding>) {
    let Ok(refs) = regex::Regex::new(r#"\{\{[^}]*\}\}"#) else {
        return;
    };
    for t in tools {
        let text = refs.replace_all(&t.description.source, " ");
        for other in tools
            .iter()
            .filter(|o| o.name != t.name && o.name.contains('_'))
        {
            let Ok(word) = regex::Regex::new(&format!(
                r"(^|[^A-Za-z0-9_]){}([^A-Za-z0-9_]|$)",
                regex::escape(&other.name)
            )) else {
                continue;
            };
            if word.is_match(&text) {
                out.push(Finding {
                    id: format!("mention/{}/{}", t.name, other.name),
                    rule: "mention",
                    level: Level::Warning,
                    span: Some(t.description.span),
                    verdict: format!("{}'s description names {} in prose", t.name, other.name),
                    evidence: vec![format!(
                        "write {{{{ tool(\"{}\") }}}} so a rename or retirement is checked",
                        other.name
                    )],
                    command: None,
                });
            }
        }
    }
}

fn copy_drift(tools: &[&Tool], out: &mut Vec<Finding>) {
    let mut groups: Vec<((&str, &str), Vec<&Tool>)> = Vec::new();
    for t in tools {
        for f in &t.fields {
            let key = (f.name.as_str(), f.description.source.trim());
            if key.1.len() < 8 {
                continue;
            }
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, v)) => v.push(t),
                None => groups.push((key, vec![t])),
            }
        }
    }
    for ((field, desc), ts) in groups.into_iter().filter(|(_, v)| v.len() > 1) {
        let names_: Vec<&str> = ts.iter().map(|t| t.name.as_str()).collect();
        out.push(Finding {
            id: format!("copy-drift/{field}/{}", names_.join("+")),
            rule: "copy-drift",
            level: Level::Note,
            span: ts[0].field(field).map(|f| f.span),
            verdict: format!(
                "field {field} is described identically in {} tools: {}",
                ts.len(),
                names_.join(", ")
            ),
            evidence: vec![format!(
                "\"{desc}\": copies drift apart; merging the tools declares it once"
            )],
            command: None,
        });
    }
}
