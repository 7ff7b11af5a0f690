//! The surface diff: what changed between two surfaces (each given as a [`Lock`], built from
//! definitions or read from a lock file), with two verdicts per finding — compatibility (does
//! every call an old transcript could hold still parse?) and cache effect (which published
//! arrays change, where they first diverge, bytes and tokens before → after) — plus the
//! consolidation ledger (what was retired, what merged into what, net tools per role).
//!
//! Works from lock data alone, so `diff` can compare two locks; a [`Locator`] built from the
//! "to" definitions adds the YAML line responsible to each finding.

pub mod activation;
mod compat;
mod ledger;
mod outputs;
pub mod render;
mod sandbox;

use std::collections::BTreeMap;

use crate::diag::{Sources, Span};
use crate::ir::Ir;
use crate::lock::{Lock, LockedSurface};

pub use ledger::{Ledger, Merge};
pub use outputs::{OutputChange, OutputSide};

/// Does every call an old transcript could hold still parse?
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    Compatible,
    /// Could not be decided (e.g. one regex replaced by another); treated as breaking by
    /// `check`, `diff` and `lock`.
    Unknown,
    Breaking,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Compatible => "compatible",
            Verdict::Unknown => "unknown",
            Verdict::Breaking => "breaking",
        }
    }
}

/// A place in the definitions (display path, 1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub line: u32,
    pub col: u32,
}

/// Where tools, fields, actions, aliases, retired names and roles are written.
#[derive(Clone, Debug, Default)]
pub struct Locator {
    at: BTreeMap<String, Location>,
}

impl Locator {
    pub fn new(ir: &Ir, sources: &Sources) -> Locator {
        let mut at = BTreeMap::new();
        let mut put = |key: String, span: Span| {
            at.insert(
                key,
                Location {
                    file: sources.display_path(span.file),
                    line: span.line,
                    col: span.col,
                },
            );
        };
        for t in &ir.tools {
            put(format!("tool:{}", t.name), t.span);
            put(format!("description:{}", t.name), t.description.span);
            for f in &t.fields {
                put(format!("field:{}/{}", t.name, f.name), f.span);
            }
            for a in &t.actions {
                if let Some(n) = &a.name {
                    put(format!("action:{}/{n}", t.name), a.span);
                }
            }
        }
        for a in &ir.aliases {
            put(format!("alias:{}", a.name), a.span);
        }
        for r in &ir.retired {
            put(format!("retired:{}", r.name), r.span);
        }
        for r in &ir.roles {
            put(format!("role:{}", r.name), r.span);
        }
        Locator { at }
    }

    fn get(&self, key: &str) -> Option<Location> {
        self.at.get(key).cloned()
    }
}

/// One change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// `rule/role/tool[/action]/field[/…]`: stable across runs.
    pub id: String,
    pub rule: &'static str,
    pub verdict: Verdict,
    pub role: String,
    pub message: String,
    /// Families of the role where it applies.
    pub families: Vec<String>,
    /// `role/family` arrays whose bytes it changes.
    pub surfaces: Vec<String>,
    /// The YAML line responsible, when the "to" side has definitions.
    pub location: Option<Location>,
    /// Tool whose bytes carry the change (for the cache effect).
    tool: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SurfaceStatus {
    Unchanged,
    Changed,
    Added,
    Removed,
}

impl SurfaceStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            SurfaceStatus::Unchanged => "unchanged",
            SurfaceStatus::Changed => "changed",
            SurfaceStatus::Added => "added",
            SurfaceStatus::Removed => "removed",
        }
    }
}

/// The cache effect on one role × family array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SurfaceChange {
    pub role: String,
    pub family: String,
    pub status: SurfaceStatus,
    pub before: Option<Side>,
    pub after: Option<Side>,
    /// First tool index where the arrays diverge (0-based).
    pub first_tool: Option<usize>,
    /// First byte offset where the arrays diverge.
    pub first_byte: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Side {
    pub sha256: String,
    pub tools: usize,
    pub bytes: usize,
    pub tokens: usize,
}

/// Restrict the diff to one role and/or family.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub role: Option<String>,
    pub family: Option<String>,
}

#[derive(Clone, Debug)]
pub struct Diff {
    /// Display names of the two sides.
    pub from: String,
    pub to: String,
    pub findings: Vec<Finding>,
    pub surfaces: Vec<SurfaceChange>,
    pub ledgers: Vec<Ledger>,
    /// Tools whose published output schema changes (bytes and tokens before → after).
    pub outputs: Vec<OutputChange>,
    /// Per surface of the "to" side: does each turn kind and skill activation keep the
    /// cached prefix (see [`activation`])?
    pub prefixes: Vec<activation::SurfacePrefixes>,
}

impl Diff {
    /// The worst verdict, `None` when nothing changed.
    pub fn worst(&self) -> Option<Verdict> {
        self.findings.iter().map(|f| f.verdict).max()
    }

    pub fn count(&self, v: Verdict) -> usize {
        self.findings.iter().filter(|f| f.verdict == v).count()
    }

    /// Whether a breaking or unknown finding is present (what `lock` refuses by default).
    pub fn is_breaking(&self) -> bool {
        self.worst() >= Some(Verdict::Unknown)
    }
}

/// Compare surface `a` (old) with `b` (new). `loc` locates findings in `b`'s definitions.
pub fn diff(
    a: &Lock,
    b: &Lock,
    loc: Option<&Locator>,
    opts: &Options,
    from: &str,
    to: &str,
) -> Diff {
    let pair = LockPair { a, b, loc, opts };
    let mut out = Findings::default();
    pair.roles_removed(&mut out);
    pair.roles_added(&mut out);
    pair.surfaces_removed_or_added(&mut out);
    pair.sandbox_changes(&mut out);
    // Surfaces present on both sides: every name an old call may use.
    for sa in a.surfaces.iter().filter(|s| pair.keeps(s)) {
        let Some(sb) = b.surface(&sa.role, &sa.family) else {
            continue;
        };
        compat::surface(a, b, sa, sb, loc, &mut out);
        outputs::surface(a, b, sa, sb, loc, &mut out);
    }
    let surfaces = pair.cache_effects();
    let mut findings = out.finish();
    pair.mark_changed_arrays(&mut findings);
    let roles_b = b.roles();
    let keep_family = |f: &str| pair.keep_family(f);
    let ledgers = a
        .roles()
        .into_iter()
        .filter(|r| pair.keep_role(r) && roles_b.contains(r))
        .filter_map(|r| ledger::ledger(a, b, r, &keep_family))
        .collect();
    let outputs = outputs::output_changes(a, b, &pair.offered_tools());
    let prefixes = b
        .surfaces
        .iter()
        .filter(|s| pair.keeps(s) && !s.requests.is_empty())
        .map(activation::prefixes)
        .collect();
    Diff {
        from: from.to_owned(),
        to: to.to_owned(),
        findings,
        surfaces,
        ledgers,
        outputs,
        prefixes,
    }
}

/// The two locks of a [`diff`] and the `--role`/`--family` filter.
struct LockPair<'a> {
    a: &'a Lock,
    b: &'a Lock,
    loc: Option<&'a Locator>,
    opts: &'a Options,
}

impl LockPair<'_> {
    fn keep_role(&self, r: &str) -> bool {
        self.opts.role.as_deref().is_none_or(|x| x == r)
    }

    fn keep_family(&self, f: &str) -> bool {
        self.opts.family.as_deref().is_none_or(|x| x == f)
    }

    fn keeps(&self, s: &LockedSurface) -> bool {
        self.keep_role(&s.role) && self.keep_family(&s.family)
    }

    /// A role gone from `b`: one breaking finding per family it published.
    fn roles_removed(&self, out: &mut Findings) {
        let (a, roles_b) = (self.a, self.b.roles());
        for r in a.roles().iter().filter(|r| self.keep_role(r)) {
            if !roles_b.contains(r) {
                for s in a
                    .surfaces
                    .iter()
                    .filter(|s| s.role == *r && self.keep_family(&s.family))
                {
                    out.push(
                        Finding::new(
                            "role-removed",
                            vec![r.to_string()],
                            Verdict::Breaking,
                            r,
                            format!("role {r} no longer exists: none of its calls parse"),
                        ),
                        Some(&s.family),
                    );
                }
            }
        }
    }

    fn roles_added(&self, out: &mut Findings) {
        let (b, roles_a) = (self.b, self.a.roles());
        for r in b.roles().iter().filter(|r| self.keep_role(r)) {
            if !roles_a.contains(r) {
                out.push(
                    Finding::new(
                        "role-added",
                        vec![r.to_string()],
                        Verdict::Compatible,
                        r,
                        format!("new role {r}"),
                    )
                    .at(self.loc, &format!("role:{r}")),
                    b.surfaces
                        .iter()
                        .find(|s| s.role == *r)
                        .map(|s| s.family.as_str()),
                );
            }
        }
    }

    /// A family a role kept on both sides stopped or started publishing.
    fn surfaces_removed_or_added(&self, out: &mut Findings) {
        let (a, b) = (self.a, self.b);
        let (roles_a, roles_b) = (a.roles(), b.roles());
        for sa in a.surfaces.iter().filter(|s| self.keeps(s)) {
            if roles_b.contains(&sa.role.as_str()) && b.surface(&sa.role, &sa.family).is_none() {
                out.push(
                    Finding::new(
                        "surface-removed",
                        vec![sa.role.clone(), sa.family.clone()],
                        Verdict::Breaking,
                        &sa.role,
                        format!(
                            "{} no longer publishes family {}: calls from its conversations on that family no longer parse",
                            sa.role, sa.family
                        ),
                    )
                    .at(self.loc, &format!("role:{}", sa.role)),
                    Some(&sa.family),
                );
            }
        }
        for sb in b.surfaces.iter().filter(|s| self.keeps(s)) {
            if roles_a.contains(&sb.role.as_str()) && a.surface(&sb.role, &sb.family).is_none() {
                out.push(
                    Finding::new(
                        "surface-added",
                        vec![sb.role.clone(), sb.family.clone()],
                        Verdict::Compatible,
                        &sb.role,
                        format!("{} now publishes family {}", sb.role, sb.family),
                    )
                    .at(self.loc, &format!("role:{}", sb.role)),
                    Some(&sb.family),
                );
            }
        }
    }

    /// Every tool a kept surface of either side offers, first-seen order (`b` first).
    fn offered_tools(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for s in self.b.surfaces.iter().chain(&self.a.surfaces) {
            if self.keeps(s) {
                for t in s.offered() {
                    if !names.contains(&t.name.as_str()) {
                        names.push(&t.name);
                    }
                }
            }
        }
        names
    }

    /// The prompt-cache effect on every role × family of either side (`b`'s order first).
    fn cache_effects(&self) -> Vec<SurfaceChange> {
        let (a, b) = (self.a, self.b);
        let mut keys: Vec<(&str, &str)> = b
            .surfaces
            .iter()
            .map(|s| (s.role.as_str(), s.family.as_str()))
            .collect();
        for s in &a.surfaces {
            if !keys.contains(&(s.role.as_str(), s.family.as_str())) {
                keys.push((&s.role, &s.family));
            }
        }
        keys.into_iter()
            .filter(|(role, family)| self.keep_role(role) && self.keep_family(family))
            .map(|(role, family)| {
                cache_effect(
                    role,
                    family,
                    a.surface(role, family),
                    b.surface(role, family),
                )
            })
            .collect()
    }

    /// Which published arrays each finding changes.
    fn mark_changed_arrays(&self, findings: &mut [Finding]) {
        let (a, b) = (self.a, self.b);
        for f in findings {
            f.surfaces = f
                .families
                .iter()
                .filter(|fam| {
                    let (sa, sb) = (a.surface(&f.role, fam), b.surface(&f.role, fam));
                    match (&f.tool, sa, sb) {
                        (Some(t), Some(sa), Some(sb)) => {
                            sa.tool(t).map(|x| &x.sha256) != sb.tool(t).map(|x| &x.sha256)
                        }
                        (_, Some(sa), Some(sb)) => sa.sha256 != sb.sha256,
                        _ => true,
                    }
                })
                .map(|fam| format!("{}/{fam}", f.role))
                .collect();
        }
    }
}

fn side(s: &LockedSurface) -> Side {
    Side {
        sha256: s.sha256.clone(),
        tools: s.published().len(),
        bytes: s.bytes,
        tokens: s.tokens,
    }
}

fn cache_effect(
    role: &str,
    family: &str,
    a: Option<&LockedSurface>,
    b: Option<&LockedSurface>,
) -> SurfaceChange {
    let (status, first_tool, first_byte) = match (a, b) {
        (Some(a), Some(b)) if a.sha256 == b.sha256 => (SurfaceStatus::Unchanged, None, None),
        (Some(a), Some(b)) => {
            let (ta, tb) = (a.published(), b.published());
            let n = ta.len().max(tb.len());
            let tool = (0..n).find(|&i| {
                ta.get(i).map(|t| &t.sha256) != tb.get(i).map(|t| &t.sha256)
                    || ta.get(i).map(|t| &t.name) != tb.get(i).map(|t| &t.name)
            });
            let (x, y) = (a.array(), b.array());
            let byte = x
                .bytes()
                .zip(y.bytes())
                .position(|(p, q)| p != q)
                .unwrap_or(x.len().min(y.len()));
            (SurfaceStatus::Changed, tool, Some(byte))
        }
        (None, Some(_)) => (SurfaceStatus::Added, None, None),
        _ => (SurfaceStatus::Removed, None, None),
    };
    SurfaceChange {
        role: role.to_owned(),
        family: family.to_owned(),
        status,
        before: a.map(side),
        after: b.map(side),
        first_tool,
        first_byte,
    }
}

impl Finding {
    fn new(
        rule: &'static str,
        path: Vec<String>,
        verdict: Verdict,
        role: &str,
        message: String,
    ) -> Finding {
        let mut id = String::from(rule);
        for p in path {
            id.push('/');
            id.push_str(&p);
        }
        Finding {
            id,
            rule,
            verdict,
            role: role.to_owned(),
            message,
            families: Vec::new(),
            surfaces: Vec::new(),
            location: None,
            tool: None,
        }
    }

    fn at(mut self, loc: Option<&Locator>, key: &str) -> Finding {
        if self.location.is_none() {
            self.location = loc.and_then(|l| l.get(key));
        }
        self
    }

    fn or_at(self, loc: Option<&Locator>, key: &str) -> Finding {
        self.at(loc, key)
    }

    fn tool(mut self, tool: &str) -> Finding {
        self.tool = Some(tool.to_owned());
        self
    }
}

/// Findings keyed by id; the same finding seen on several families is merged.
#[derive(Default)]
struct Findings {
    order: Vec<String>,
    by_id: BTreeMap<String, Finding>,
    /// (role, tool) pairs with a finding other than a trait change.
    tools: std::collections::BTreeSet<(String, String)>,
}

impl Findings {
    fn push(&mut self, f: Finding, family: Option<&str>) {
        if let Some(t) = &f.tool
            && f.rule != "trait-changed"
        {
            self.tools.insert((f.role.clone(), t.clone()));
        }
        let e = self.by_id.entry(f.id.clone()).or_insert_with(|| {
            self.order.push(f.id.clone());
            f
        });
        if let Some(fam) = family
            && !e.families.iter().any(|x| x == fam)
        {
            e.families.push(fam.to_owned());
        }
    }

    fn has_tool(&self, role: &str, tool: &str) -> bool {
        self.tools.contains(&(role.to_owned(), tool.to_owned()))
    }

    fn finish(mut self) -> Vec<Finding> {
        self.order
            .iter()
            .filter_map(|id| self.by_id.remove(id))
            .collect()
    }
}

#[cfg(test)]
mod tests;
