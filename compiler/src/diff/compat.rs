//! Compatibility: for every name an old call may use on one role × family, whether the call
//! still parses on the new surface (directly, through an alias, or as a retired name), down
//! to actions, fields, bounds and enum values.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::{Finding, Findings, Locator, Verdict};
use crate::lock::{
    ActionShape, Lock, LockedAlias, LockedSurface, LockedTool, PropertyShape, ToolShape, TypeShape,
};

pub(super) fn surface(
    a: &Lock,
    b: &Lock,
    sa: &LockedSurface,
    sb: &LockedSurface,
    loc: Option<&Locator>,
    out: &mut Findings,
) {
    let pair = SurfacePair {
        a,
        b,
        sa,
        sb,
        loc,
        role: sa.role.as_str(),
        fam: Some(sa.family.as_str()),
    };
    for t in sa.offered() {
        match sb.tool(t.name.as_str()) {
            Some(tb) => pair.tool_still_offered(t, tb, out),
            None => pair.tool_no_longer_offered(t.name.as_str(), out),
        }
    }
    pair.tools_newly_offered(out);
    pair.old_aliases(out);
    pair.published_order(out);
}

/// One role × family on both sides: what every per-name rule of [`surface`] reads.
struct SurfacePair<'a> {
    a: &'a Lock,
    b: &'a Lock,
    sa: &'a LockedSurface,
    sb: &'a LockedSurface,
    loc: Option<&'a Locator>,
    role: &'a str,
    fam: Option<&'a str>,
}

impl SurfacePair<'_> {
    /// A finding about one role-level name, located at `key` and filed under tool `name`.
    fn push_named(&self, f: Finding, key: &str, name: &str, out: &mut Findings) {
        out.push(f.at(self.loc, key).tool(name), self.fam);
    }

    /// The same tool on both sides: its calls, traits and published bytes.
    fn tool_still_offered(&self, t: &LockedTool, tb: &LockedTool, out: &mut Findings) {
        let name = t.name.as_str();
        let (Some(x), Some(y)) = (self.a.shape(name), self.b.shape(name)) else {
            return;
        };
        let mut cx = Cx {
            role: self.role,
            old: name,
            new: name,
            alias: None,
            loc: self.loc,
            out: &mut *out,
            fam: self.fam,
        };
        cx.call(x, y);
        cx.traits(x, y);
        if t.sha256 != tb.sha256 {
            bytes(self.role, name, &t.json, &tb.json, self.loc, out, self.fam);
        }
    }

    /// An old tool the new surface does not offer here: still a tool elsewhere, an alias, a
    /// retired name, or gone.
    fn tool_no_longer_offered(&self, name: &str, out: &mut Findings) {
        let (b, role) = (self.b, self.role);
        let path = vec![role.to_owned(), name.to_owned()];
        if b.shape(name).is_some() {
            let f = Finding::new(
                "tool-removed",
                path,
                Verdict::Breaking,
                role,
                format!(
                    "{name}: {role} no longer offers it on this family, so old calls to it no longer parse"
                ),
            );
            self.push_named(f, &format!("role:{role}"), name, out);
        } else if let Some(al) = b.alias(name) {
            self.tool_became_alias(name, al, path, out);
        } else if let Some(r) = b.retired(name) {
            let f = Finding::new(
                "tool-retired",
                path,
                Verdict::Compatible,
                role,
                format!("{name}: retired: {}", r.message),
            );
            self.push_named(f, &format!("retired:{name}"), name, out);
        } else {
            let f = Finding::new(
                "tool-removed",
                path,
                Verdict::Breaking,
                role,
                format!(
                    "{name}: removed with no alias or retired entry; old calls to it no longer parse (add it to aliases.yaml or retired.yaml)"
                ),
            );
            self.push_named(f, &format!("role:{role}"), name, out);
        }
    }

    /// An old tool that is now an alias: its old calls are checked against the target.
    fn tool_became_alias(
        &self,
        name: &str,
        al: &LockedAlias,
        path: Vec<String>,
        out: &mut Findings,
    ) {
        let role = self.role;
        if !self.sb.offers(&al.tool) {
            let f = Finding::new(
                "tool-removed",
                path,
                Verdict::Breaking,
                role,
                format!(
                    "{name}: aliased to {}, which {role} does not offer here",
                    al.tool
                ),
            );
            self.push_named(f, &format!("alias:{name}"), name, out);
            return;
        }
        let f = Finding::new(
            "tool-merged",
            path,
            Verdict::Compatible,
            role,
            format!("{name}: merged into {}", alias_text(al)),
        );
        self.push_named(f, &format!("alias:{name}"), name, out);
        let (Some(x), Some(y)) = (self.a.shape(name), self.b.shape(&al.tool)) else {
            return;
        };
        let mut cx = Cx {
            role,
            old: name,
            new: &al.tool,
            alias: Some(al),
            loc: self.loc,
            out: &mut *out,
            fam: self.fam,
        };
        cx.call(x, y);
    }

    fn tools_newly_offered(&self, out: &mut Findings) {
        let role = self.role;
        for t in self.sb.offered() {
            if !self.sa.offers(&t.name) {
                let f = Finding::new(
                    "tool-added",
                    vec![role.to_owned(), t.name.clone()],
                    Verdict::Compatible,
                    role,
                    format!("{}: newly offered", t.name),
                );
                self.push_named(f, &format!("role:{role}"), &t.name, out);
            }
        }
    }

    /// Old aliases whose target the old surface offered.
    fn old_aliases(&self, out: &mut Findings) {
        let (b, role) = (self.b, self.role);
        for al in self.a.aliases.iter().filter(|al| self.sa.offers(&al.tool)) {
            let n = &al.name;
            let path = vec![role.to_owned(), n.clone()];
            if let Some(bl) = b.alias(n) {
                if bl != al {
                    let f = Finding::new(
                        "alias-changed",
                        path,
                        Verdict::Unknown,
                        role,
                        format!("alias {n}: was {}, now {}", alias_text(al), alias_text(bl)),
                    );
                    self.push_named(f, &format!("alias:{n}"), n, out);
                }
            } else if self.sb.offers(n) {
                let f = Finding::new(
                    "alias-replaced",
                    path,
                    Verdict::Unknown,
                    role,
                    format!("alias {n} ({}) is now a tool of its own", alias_text(al)),
                );
                self.push_named(f, &format!("tool:{n}"), n, out);
            } else if let Some(r) = b.retired(n) {
                let f = Finding::new(
                    "alias-retired",
                    path,
                    Verdict::Compatible,
                    role,
                    format!("alias {n}: retired: {}", r.message),
                );
                self.push_named(f, &format!("retired:{n}"), n, out);
            } else if !b.shapes.iter().any(|s| &s.name == n) {
                let f = Finding::new(
                    "alias-removed",
                    path,
                    Verdict::Breaking,
                    role,
                    format!(
                        "alias {n} (→ {}) removed with no retired entry; old calls using it no longer parse",
                        al.tool
                    ),
                );
                self.push_named(f, &format!("role:{role}"), n, out);
            }
        }
    }

    /// Published order of the tools both sides offer.
    fn published_order(&self, out: &mut Findings) {
        let (sa, sb, role) = (self.sa, self.sb, self.role);
        let common_a: Vec<&str> = sa
            .tools
            .iter()
            .map(|t| t.name.as_str())
            .filter(|n| sb.tools.iter().any(|t| t.name == *n))
            .collect();
        let common_b: Vec<&str> = sb
            .tools
            .iter()
            .map(|t| t.name.as_str())
            .filter(|n| sa.tools.iter().any(|t| t.name == *n))
            .collect();
        if common_a != common_b {
            out.push(
                Finding::new(
                    "order-changed",
                    vec![role.to_owned()],
                    Verdict::Compatible,
                    role,
                    format!("{role}: tools reordered: {}", common_b.join(", ")),
                )
                .at(self.loc, &format!("role:{role}")),
                self.fam,
            );
        }
    }
}

/// `introspect {target: llm}`, `read_file (host → device)`.
pub(super) fn alias_text(al: &LockedAlias) -> String {
    let mut s = al.tool.clone();
    if !al.set.is_empty() {
        let args: Vec<String> = al
            .set
            .iter()
            .map(|(k, v)| match v {
                serde_json::Value::String(x) => format!("{k}: {x}"),
                other => format!("{k}: {other}"),
            })
            .collect();
        s.push_str(&format!(" {{{}}}", args.join(", ")));
    }
    if !al.rename.is_empty() {
        let r: Vec<String> = al
            .rename
            .iter()
            .map(|(k, v)| format!("{k} → {v}"))
            .collect();
        s.push_str(&format!(" ({})", r.join(", ")));
    }
    s
}

/// Bytes of a tool changed: descriptions, grammar, or anything else not explained by a
/// structural finding.
fn bytes(
    role: &str,
    name: &str,
    old: &str,
    new: &str,
    loc: Option<&Locator>,
    out: &mut Findings,
    fam: Option<&str>,
) {
    let parse = |s: &str| serde_json::from_str::<serde_json::Value>(s).unwrap_or_default();
    let (x, y) = (parse(old), parse(new));
    let (mut dx, mut dy) = (Vec::new(), Vec::new());
    collect_at(&x, "description", &mut String::new(), &mut dx);
    collect_at(&y, "description", &mut String::new(), &mut dy);
    let mut explained = false;
    if dx != dy {
        explained = true;
        // Which texts changed, in published order: the tool's own, or a field's (the first
        // field named locates the finding at its line, unless the tool's own text changed).
        let old_at: BTreeMap<&str, &str> = dx.iter().map(|(p, t)| (p.as_str(), *t)).collect();
        let new_at: BTreeMap<&str, &str> = dy.iter().map(|(p, t)| (p.as_str(), *t)).collect();
        let mut places: Vec<TextPlace<'_>> = Vec::new();
        for p in dx.iter().chain(&dy).map(|(p, _)| p.as_str()) {
            let place = TextPlace::of(p);
            if old_at.get(p) != new_at.get(p) && !places.contains(&place) {
                places.push(place);
            }
        }
        let what: Vec<String> = places.iter().map(TextPlace::words).collect();
        let first_field = places.iter().find_map(|p| match p {
            TextPlace::Field(f) => Some(*f),
            _ => None,
        });
        let key = match first_field {
            Some(f) if !places.contains(&TextPlace::Tool) => format!("field:{name}/{f}"),
            _ => format!("description:{name}"),
        };
        out.push(
            Finding::new(
                "description-changed",
                vec![role.to_owned(), name.to_owned()],
                Verdict::Compatible,
                role,
                format!(
                    "{name}: description text {} changed (every old call still parses; the prompt cache does not)",
                    what.join(", ")
                ),
            )
            .at(loc, &key)
            .or_at(loc, &format!("description:{name}"))
            .tool(name),
            fam,
        );
    }
    let (mut gx, mut gy) = (Vec::new(), Vec::new());
    collect_at(&x, "definition", &mut String::new(), &mut gx);
    collect_at(&y, "definition", &mut String::new(), &mut gy);
    if gx != gy {
        explained = true;
        out.push(
            Finding::new(
                "grammar-changed",
                vec![role.to_owned(), name.to_owned()],
                Verdict::Unknown,
                role,
                format!("{name}: the freeform grammar changed (whether it accepts every old input cannot be decided)"),
            )
            .at(loc, &format!("tool:{name}"))
            .tool(name),
            fam,
        );
    }
    if !explained && !out.has_tool(role, name) {
        out.push(
            Finding::new(
                "bytes-changed",
                vec![role.to_owned(), name.to_owned()],
                Verdict::Compatible,
                role,
                format!("{name}: published bytes changed (schema spelling)"),
            )
            .at(loc, &format!("tool:{name}"))
            .tool(name),
            fam,
        );
    }
}

/// Every string member `key` of `v` with its JSON pointer, in document order.
fn collect_at<'v>(
    v: &'v serde_json::Value,
    key: &str,
    at: &mut String,
    out: &mut Vec<(String, &'v str)>,
) {
    let len = at.len();
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                at.push('/');
                at.push_str(&k.replace('~', "~0").replace('/', "~1"));
                if k == key
                    && let Some(s) = x.as_str()
                {
                    out.push((at.clone(), s));
                }
                collect_at(x, key, at, out);
                at.truncate(len);
            }
        }
        serde_json::Value::Array(items) => {
            for (i, x) in items.iter().enumerate() {
                at.push_str(&format!("/{i}"));
                collect_at(x, key, at, out);
                at.truncate(len);
            }
        }
        _ => {}
    }
}

/// Where a published description lies: the tool's own text, a top-level input field's
/// (`…/properties/<field>/…`, nested texts counted to their field), or the declared output
/// (beneath a dialect's output key: `outputSchema`, `output_schema`, `responseJsonSchema`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum TextPlace<'p> {
    Tool,
    Field(&'p str),
    Output,
}

impl<'p> TextPlace<'p> {
    pub(super) fn of(pointer: &'p str) -> TextPlace<'p> {
        let mut parts = pointer.split('/');
        for part in parts.by_ref() {
            if is_output_key(part) {
                return TextPlace::Output;
            }
            if part == "properties" {
                return parts.next().map_or(TextPlace::Tool, TextPlace::Field);
            }
        }
        TextPlace::Tool
    }

    fn words(&self) -> String {
        match self {
            TextPlace::Tool => "of the tool".to_owned(),
            TextPlace::Field(f) => format!("of field {f}"),
            TextPlace::Output => "of the declared output".to_owned(),
        }
    }
}

/// Whether `key` is the member some dialect publishes a declared output under.
fn is_output_key(key: &str) -> bool {
    crate::ir::Dialect::ALL
        .iter()
        .any(|d| crate::dialect::rules(*d).output_key() == Some(key))
}

/// One old tool compared with its new home (itself, or an alias target).
struct Cx<'a> {
    role: &'a str,
    /// The old tool name (the logical path of findings).
    old: &'a str,
    /// The tool the old calls land on.
    new: &'a str,
    alias: Option<&'a LockedAlias>,
    loc: Option<&'a Locator>,
    out: &'a mut Findings,
    fam: Option<&'a str>,
}

impl Cx<'_> {
    fn path(&self, rest: &[&str]) -> Vec<String> {
        let mut p = vec![self.role.to_owned(), self.old.to_owned()];
        p.extend(rest.iter().map(|s| (*s).to_owned()));
        p
    }

    fn push(&mut self, f: Finding, key: &str) {
        let key2 = format!("tool:{}", self.new);
        let f = f.at(self.loc, key).or_at(self.loc, &key2).tool(self.old);
        self.out.push(f, self.fam);
    }

    fn finding(&self, rule: &'static str, rest: &[&str], v: Verdict, msg: String) -> Finding {
        Finding::new(rule, self.path(rest), v, self.role, msg)
    }

    fn renamed<'s>(&'s self, f: &'s str) -> &'s str {
        self.alias
            .and_then(|a| a.rename.get(f))
            .map_or(f, String::as_str)
    }

    fn set(&self) -> Option<&BTreeMap<String, serde_json::Value>> {
        self.alias.map(|a| &a.set)
    }

    fn via(&self) -> String {
        match self.alias {
            Some(a) => format!(" (merged into {})", alias_text(a)),
            None => String::new(),
        }
    }

    /// The value an alias fixes for the selector `sel`, if it fixes one.
    fn fixed_selector(&self, sel: &str) -> Option<String> {
        self.set()
            .and_then(|s| s.get(sel))
            .and_then(|v| v.as_str())
            .map(str::to_owned)
    }

    /// Every old action against the new action it lands on.
    fn call(&mut self, x: &ToolShape, y: &ToolShape) {
        let old = self.old;
        let Some(pairs) = self.action_pairs(x, y) else {
            return;
        };
        for (oa, na) in pairs {
            let an = oa.name.as_deref();
            let Some(na) = na else {
                let n = an.unwrap_or("-");
                let f = self.finding(
                    "action-removed",
                    &[n],
                    Verdict::Breaking,
                    format!("{old}: action {n} removed{}", self.via()),
                );
                self.push(f, &format!("tool:{}", self.new));
                continue;
            };
            self.action(x, y, oa, na);
        }
    }

    /// Each old action with the new action its calls land on (`None`: none), by how the
    /// selector changed; `None` when a selector change already breaks every old call.
    fn action_pairs<'s>(
        &mut self,
        x: &'s ToolShape,
        y: &'s ToolShape,
    ) -> Option<Vec<(&'s ActionShape, Option<&'s ActionShape>)>> {
        let old = self.old;
        let mut pairs: Vec<(&ActionShape, Option<&ActionShape>)> = Vec::new();
        match (&x.selector, &y.selector) {
            (Some(sx), Some(sy)) => {
                if let Some(v) = self.fixed_selector(sy) {
                    let na = y.action(Some(&v));
                    pairs.extend(x.actions.iter().map(|a| (a, na)));
                } else if self.renamed(sx) != sy.as_str() {
                    let f = self.finding(
                        "selector-renamed",
                        &[],
                        Verdict::Breaking,
                        format!("{old}: selector {sx} renamed to {sy}; old calls name {sx}"),
                    );
                    self.push(f, &format!("tool:{}", self.new));
                    return None;
                } else {
                    for a in &x.actions {
                        pairs.push((a, y.action(a.name.as_deref())));
                    }
                    if self.alias.is_none() {
                        self.actions_added(x, y);
                    }
                }
            }
            (Some(sx), None) => {
                let f = self.finding(
                    "selector-removed",
                    &[],
                    Verdict::Breaking,
                    format!(
                        "{old}: the {sx} selector is gone; old calls carry it{}",
                        self.via()
                    ),
                );
                self.push(f, &format!("tool:{}", self.new));
                return None;
            }
            (None, Some(sy)) => match self.fixed_selector(sy) {
                Some(v) => pairs.extend(x.actions.iter().map(|a| (a, y.action(Some(&v))))),
                None => {
                    let f = self.finding(
                        "selector-added",
                        &[],
                        Verdict::Breaking,
                        format!("{old}: now needs {sy}; old calls carry none{}", self.via()),
                    );
                    self.push(f, &format!("tool:{}", self.new));
                    return None;
                }
            },
            (None, None) => pairs.extend(x.actions.iter().map(|a| (a, y.action(None)))),
        }
        Some(pairs)
    }

    /// Actions of the new tool that the old one did not have.
    fn actions_added(&mut self, x: &ToolShape, y: &ToolShape) {
        let old = self.old;
        for b in &y.actions {
            let Some(n) = b.name.as_deref() else { continue };
            if x.action(Some(n)).is_none() {
                let f = self.finding(
                    "action-added",
                    &[n],
                    Verdict::Compatible,
                    format!("{old}: new action {n}"),
                );
                self.push(f, &format!("action:{}/{n}", self.new));
            }
        }
    }

    /// One old action against the new action it lands on, rule family by rule family.
    fn action(&mut self, x: &ToolShape, y: &ToolShape, oa: &ActionShape, na: &ActionShape) {
        let old = self.old;
        let label = match oa.name.as_deref() {
            Some(n) => format!("{old} {n}"),
            None => old.to_owned(),
        };
        let new_action_key = match na.name.as_deref() {
            Some(n) => format!("action:{}/{n}", self.new),
            None => format!("tool:{}", self.new),
        };
        let set_keys: Vec<String> = self
            .set()
            .map(|s| s.keys().cloned().collect())
            .unwrap_or_default();
        let pair = ActionPair {
            oa,
            na,
            label,
            new_action_key,
            set_keys,
        };
        self.old_fields(x, y, &pair);
        self.required_fields_added(&pair);
        if self.alias.is_none() {
            self.optional_fields_added(&pair);
        }
        self.exactly_one_of_added(&pair);
        self.forbidden_with_added(&pair);
    }

    /// A finding below the old action (`rest` after the action's name, if it has one).
    fn push_below_action(
        &mut self,
        pair: &ActionPair<'_>,
        rule: &'static str,
        rest: &[&str],
        v: Verdict,
        msg: String,
        key: &str,
    ) {
        let p = pair.path(rest);
        let p: Vec<&str> = p.iter().map(String::as_str).collect();
        let f = self.finding(rule, &p, v, msg);
        self.push(f, key);
    }

    /// Each field an old call may send: still accepted, and with a compatible type.
    fn old_fields(&mut self, x: &ToolShape, y: &ToolShape, pair: &ActionPair<'_>) {
        let (old, oa, na) = (self.old, pair.oa, pair.na);
        for f in oa.required.iter().chain(&oa.optional) {
            let g = self.renamed(f).to_owned();
            if pair.set_keys.contains(&g) {
                continue;
            }
            if !na.uses(&g) {
                let msg = format!(
                    "{}: field {f} is no longer accepted{}",
                    pair.label,
                    self.via()
                );
                let key = pair.new_action_key.clone();
                self.push_below_action(pair, "field-removed", &[f], Verdict::Breaking, msg, &key);
                continue;
            }
            if let (Some(tx), Some(ty)) = (x.field(f), y.field(&g)) {
                // What an absent field means is the action's: its own default, else the
                // field's. One the action gives (before or after) is its own finding.
                let own = oa.defaults.contains_key(f) || na.defaults.contains_key(&g);
                let tx = with_default(tx, oa.defaults.get(f.as_str()));
                let ty = with_default(ty, na.defaults.get(&g));
                let mut changes = Vec::new();
                types(&tx, &ty, f, &mut changes);
                for c in changes {
                    if own && c.rule == "default-changed" && c.path == *f {
                        let msg = format!("{}: {f} {}{}", pair.label, c.message, self.via());
                        let key = pair.new_action_key.clone();
                        self.push_below_action(pair, c.rule, &[f], c.verdict, msg, &key);
                        continue;
                    }
                    let segs: Vec<&str> = c.path.split('/').collect();
                    let fnd = self.finding(
                        c.rule,
                        &segs,
                        c.verdict,
                        format!(
                            "{old}.{}: {}{}",
                            c.path.replace('/', "."),
                            c.message,
                            self.via()
                        ),
                    );
                    self.push(fnd, &format!("field:{}/{g}", self.new));
                }
            }
        }
    }

    /// A field the new action requires that old calls did not always send.
    fn required_fields_added(&mut self, pair: &ActionPair<'_>) {
        let oa = pair.oa;
        for r in &pair.na.required {
            if pair.set_keys.contains(r) {
                continue;
            }
            let covered = oa.required.iter().any(|f| self.renamed(f) == r.as_str());
            if !covered {
                let was = oa.optional.iter().any(|f| self.renamed(f) == r.as_str());
                let msg = format!(
                    "{}: {r} is now required{}{}",
                    pair.label,
                    if was { " (was optional)" } else { "" },
                    self.via()
                );
                let key = format!("field:{}/{r}", self.new);
                self.push_below_action(pair, "required-added", &[r], Verdict::Breaking, msg, &key);
            }
        }
    }

    /// New optional fields (not reported through an alias: its old calls never saw them).
    fn optional_fields_added(&mut self, pair: &ActionPair<'_>) {
        for f in pair.na.optional.iter().filter(|f| !pair.oa.uses(f)) {
            let msg = format!("{}: new optional field {f}", pair.label);
            let key = format!("field:{}/{f}", self.new);
            self.push_below_action(pair, "field-added", &[f], Verdict::Compatible, msg, &key);
        }
    }

    /// A new exactly_one_of group, safe only if every old call sent exactly one of it.
    fn exactly_one_of_added(&mut self, pair: &ActionPair<'_>) {
        let oa = pair.oa;
        let old_groups: Vec<Vec<String>> = oa
            .exactly_one_of
            .iter()
            .map(|g| g.iter().map(|f| self.renamed(f).to_owned()).collect())
            .collect();
        for g in &pair.na.exactly_one_of {
            if old_groups.contains(g) {
                continue;
            }
            let used: Vec<&String> = oa
                .required
                .iter()
                .chain(&oa.optional)
                .filter(|f| g.contains(&self.renamed(f).to_owned()))
                .collect();
            let safe = used.len() == 1 && used.iter().all(|f| oa.requires(f));
            if !safe {
                let tag = format!("exactly_one_of:{}", g.join(","));
                let msg = format!(
                    "{}: exactly one of {} is now required; old calls could send none or several{}",
                    pair.label,
                    g.join(", "),
                    self.via()
                );
                let key = pair.new_action_key.clone();
                self.push_below_action(
                    pair,
                    "constraint-added",
                    &[&tag],
                    Verdict::Breaking,
                    msg,
                    &key,
                );
            }
        }
    }

    /// A new forbidden_with pair that old calls could send together.
    fn forbidden_with_added(&mut self, pair: &ActionPair<'_>) {
        let oa = pair.oa;
        for (f, w) in &pair.na.forbidden_with {
            let old_uses = |n: &str| {
                oa.required
                    .iter()
                    .chain(&oa.optional)
                    .any(|o| self.renamed(o) == n)
            };
            let before = oa
                .forbidden_with
                .iter()
                .any(|(p, q)| self.renamed(p) == f.as_str() && self.renamed(q) == w.as_str());
            if !before && old_uses(f) && old_uses(w) {
                let tag = format!("forbidden_with:{f}+{w}");
                let msg = format!(
                    "{}: {f} may no longer be combined with {w}{}",
                    pair.label,
                    self.via()
                );
                let key = pair.new_action_key.clone();
                self.push_below_action(
                    pair,
                    "constraint-added",
                    &[&tag],
                    Verdict::Breaking,
                    msg,
                    &key,
                );
            }
        }
    }

    /// Trait and route changes on the same tool: not published, but behaviour changes.
    fn traits(&mut self, x: &ToolShape, y: &ToolShape) {
        let old = self.old;
        if x.route != y.route {
            let f = self.finding(
                "route-changed",
                &[],
                Verdict::Compatible,
                format!("{old}: route {} → {}", x.route, y.route),
            );
            self.push(f, &format!("tool:{old}"));
        }
        for oa in &x.actions {
            let Some(na) = y.action(oa.name.as_deref()) else {
                continue;
            };
            for (k, v) in &na.traits {
                let before = oa.traits.get(k);
                if before == Some(v) {
                    continue;
                }
                let mut p: Vec<&str> = oa.name.as_deref().into_iter().collect();
                p.push(k);
                let shown = |v: Option<&serde_json::Value>| match v {
                    Some(serde_json::Value::String(s)) => s.clone(),
                    Some(v) => v.to_string(),
                    None => "unset".to_owned(),
                };
                let f = self.finding(
                    "trait-changed",
                    &p,
                    Verdict::Compatible,
                    format!(
                        "{old}{}: trait {k} {} → {}",
                        oa.name
                            .as_deref()
                            .map(|n| format!(" {n}"))
                            .unwrap_or_default(),
                        shown(before),
                        shown(Some(v))
                    ),
                );
                let key = match oa.name.as_deref() {
                    Some(n) => format!("action:{old}/{n}"),
                    None => format!("tool:{old}"),
                };
                self.push(f, &key);
            }
        }
    }
}

/// One old action and the new action its calls land on, with what every rule of
/// [`Cx::action`] reads.
struct ActionPair<'a> {
    oa: &'a ActionShape,
    na: &'a ActionShape,
    /// `tool action` (or the tool alone): how messages name the old action.
    label: String,
    /// Locator key of the new action.
    new_action_key: String,
    /// Fields the alias fixes (`set:`): old calls through it never send them.
    set_keys: Vec<String>,
}

impl ActionPair<'_> {
    /// The old action's name (if it has one) followed by `rest`.
    fn path(&self, rest: &[&str]) -> Vec<String> {
        let an: Vec<&str> = self.oa.name.as_deref().into_iter().collect();
        an.iter().chain(rest).map(|s| (*s).to_owned()).collect()
    }
}

struct Change {
    rule: &'static str,
    /// `field[/bound]` or `field.prop/…`, `/`-separated id segments.
    path: String,
    verdict: Verdict,
    message: String,
}

fn kind(t: &TypeShape) -> &'static str {
    match t {
        TypeShape::String { .. } => "string",
        TypeShape::Integer { .. } => "integer",
        TypeShape::Number { .. } => "number",
        TypeShape::Boolean => "boolean",
        TypeShape::Enum { .. } => "enum",
        TypeShape::Array { .. } => "array",
        TypeShape::Object { .. } => "object",
        TypeShape::Any => "any",
        TypeShape::Null => "null",
        TypeShape::Const { .. } => "const",
        TypeShape::Union { .. } => "union",
        TypeShape::Annotated { schema, .. } => kind(schema),
    }
}

fn push(out: &mut Vec<Change>, rule: &'static str, path: String, v: Verdict, message: String) {
    out.push(Change {
        rule,
        path,
        verdict: v,
        message,
    });
}

fn show<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "none".to_owned(), |v| v.to_string())
}

/// A lower bound: narrowed when it rises (or appears), widened when it falls (or goes).
fn lower<T: PartialOrd + Copy + std::fmt::Display>(
    old: Option<T>,
    new: Option<T>,
    at: &str,
    name: &str,
    out: &mut Vec<Change>,
) {
    let narrowed = match (old, new) {
        (None, Some(_)) => true,
        (Some(o), Some(n)) => n > o,
        _ => false,
    };
    let widened = match (old, new) {
        (Some(_), None) => true,
        (Some(o), Some(n)) => n < o,
        _ => false,
    };
    bound(narrowed, widened, old, new, at, name, out);
}

/// An upper bound: narrowed when it falls (or appears).
fn upper<T: PartialOrd + Copy + std::fmt::Display>(
    old: Option<T>,
    new: Option<T>,
    at: &str,
    name: &str,
    out: &mut Vec<Change>,
) {
    let narrowed = match (old, new) {
        (None, Some(_)) => true,
        (Some(o), Some(n)) => n < o,
        _ => false,
    };
    let widened = match (old, new) {
        (Some(_), None) => true,
        (Some(o), Some(n)) => n > o,
        _ => false,
    };
    bound(narrowed, widened, old, new, at, name, out);
}

fn bound<T: std::fmt::Display>(
    narrowed: bool,
    widened: bool,
    old: Option<T>,
    new: Option<T>,
    at: &str,
    name: &str,
    out: &mut Vec<Change>,
) {
    let msg = format!("{name} {} → {}", show(old), show(new));
    if narrowed {
        push(
            out,
            "bound-narrowed",
            format!("{at}/{name}"),
            Verdict::Breaking,
            msg,
        );
    } else if widened {
        push(
            out,
            "bound-widened",
            format!("{at}/{name}"),
            Verdict::Compatible,
            msg,
        );
    }
}

/// The literals of a pattern that is a plain alternation (`^(?:a|b|c)$`), if it is one.
fn literals(p: &str) -> Option<Vec<String>> {
    let s = p.strip_prefix('^')?.strip_suffix('$')?;
    let s = s
        .strip_prefix("(?:")
        .or_else(|| s.strip_prefix('('))
        .and_then(|x| x.strip_suffix(')'))
        .unwrap_or(s);
    let meta = |c: char| "\\.^$|?*+()[]{}".contains(c);
    let alts: Vec<String> = s.split('|').map(str::to_owned).collect();
    alts.iter().all(|a| !a.chars().any(meta)).then_some(alts)
}

/// Whether a string satisfies a string type's constraints (`None`: cannot tell).
fn accepts(t: &TypeShape, s: &str) -> Option<bool> {
    let TypeShape::String {
        min_length,
        max_length,
        pattern,
    } = t
    else {
        return None;
    };
    let n = s.chars().count() as u64;
    if min_length.is_some_and(|m| n < m) || max_length.is_some_and(|m| n > m) {
        return Some(false);
    }
    match pattern {
        None => Some(true),
        Some(p) => regex::Regex::new(p).ok().map(|r| r.is_match(s)),
    }
}

/// One field's old and new type, compared per old type kind; `at` is the path findings are
/// reported at (`field`, `field.prop`, `field[]`).
fn types(old: &TypeShape, new: &TypeShape, at: &str, out: &mut Vec<Change>) {
    if matches!(old, TypeShape::Annotated { .. }) || matches!(new, TypeShape::Annotated { .. }) {
        annotation_changes(old, new, at, out);
        return types(peel(old), peel(new), at, out);
    }
    let pair = TypePair { old, new, at };
    match old {
        TypeShape::Any => {
            if *new != TypeShape::Any {
                push(
                    out,
                    "type-narrowed",
                    at.to_owned(),
                    Verdict::Breaking,
                    format!("any value → {}", kind(new)),
                );
            }
        }
        TypeShape::Null | TypeShape::Const { .. } | TypeShape::Union { .. } => match new {
            TypeShape::Any => push(
                out,
                "type-widened",
                at.to_owned(),
                Verdict::Compatible,
                format!("{} → any value", kind(old)),
            ),
            TypeShape::Union { form, branches } if matches!(old, TypeShape::Union { form: f, branches: b } if f == form && b.len() == branches.len()) => {
                if let TypeShape::Union { branches: b, .. } = old {
                    for (i, (x, y)) in b.iter().zip(branches).enumerate() {
                        types(x, y, &format!("{at}#{i}"), out);
                    }
                }
            }
            _ if new == old => {}
            _ => pair.kind_changed(out),
        },
        TypeShape::String {
            min_length,
            max_length,
            pattern,
        } => pair.string_changes(*min_length, *max_length, pattern.as_ref(), out),
        TypeShape::Integer { minimum, maximum } => pair.integer_changes(*minimum, *maximum, out),
        TypeShape::Number { minimum, maximum } => pair.number_changes(*minimum, *maximum, out),
        TypeShape::Boolean => match new {
            TypeShape::Boolean => {}
            _ => pair.kind_changed(out),
        },
        TypeShape::Enum { values } => pair.enum_changes(values, out),
        TypeShape::Array {
            items,
            min_items,
            max_items,
        } => pair.array_changes(items, *min_items, *max_items, out),
        TypeShape::Object {
            properties,
            additional,
        } => {
            pair.object_changes(properties, out);
            if let TypeShape::Object { additional: b, .. } = new {
                additional_change(additional.as_deref(), b.as_deref(), at, out);
            }
        }
        TypeShape::Annotated { .. } => {}
    }
}

/// `t` with the action's own default in place of the field's (`t` itself without one).
fn with_default<'t>(t: &'t TypeShape, own: Option<&serde_json::Value>) -> Cow<'t, TypeShape> {
    let Some(d) = own else {
        return Cow::Borrowed(t);
    };
    Cow::Owned(match t {
        TypeShape::Annotated {
            schema,
            format,
            other,
            ..
        } => TypeShape::Annotated {
            schema: schema.clone(),
            default: Some(d.clone()),
            format: format.clone(),
            other: other.clone(),
        },
        t => TypeShape::Annotated {
            schema: Box::new(t.clone()),
            default: Some(d.clone()),
            format: None,
            other: None,
        },
    })
}

/// The type beneath a type's annotations.
fn peel(t: &TypeShape) -> &TypeShape {
    match t {
        TypeShape::Annotated { schema, .. } => peel(schema),
        t => t,
    }
}

/// A changed `default` changes what an absent field means (breaking, as is one removed); a
/// format added or changed narrows what a reader may send (breaking), one removed widens it;
/// any other annotation is text (compatible).
fn annotation_changes(old: &TypeShape, new: &TypeShape, at: &str, out: &mut Vec<Change>) {
    let parts = |t: &TypeShape| match t {
        TypeShape::Annotated {
            default,
            format,
            other,
            ..
        } => (default.clone(), format.clone(), other.clone()),
        _ => (None, None, None),
    };
    let (d0, f0, o0) = parts(old);
    let (d1, f1, o1) = parts(new);
    let show_json = |v: &Option<serde_json::Value>| {
        v.as_ref()
            .map_or_else(|| "none".to_owned(), |v| v.to_string())
    };
    if d0 != d1 {
        let verdict = if d0.is_none() {
            Verdict::Compatible
        } else {
            Verdict::Breaking
        };
        push(
            out,
            "default-changed",
            at.to_owned(),
            verdict,
            format!("default {} → {}", show_json(&d0), show_json(&d1)),
        );
    }
    if f0 != f1 {
        let verdict = if f1.is_none() {
            Verdict::Compatible
        } else {
            Verdict::Breaking
        };
        push(
            out,
            "format-changed",
            at.to_owned(),
            verdict,
            format!("format {} → {}", show(f0), show(f1)),
        );
    }
    if o0 != o1 {
        push(
            out,
            "annotation-changed",
            at.to_owned(),
            Verdict::Compatible,
            "title, examples or verbatim keywords changed".to_owned(),
        );
    }
}

/// Other keys of an object: accepting more is compatible, fewer breaking.
fn additional_change(
    old: Option<&TypeShape>,
    new: Option<&TypeShape>,
    at: &str,
    out: &mut Vec<Change>,
) {
    match (old, new) {
        (None, None) => {}
        (None, Some(_)) => push(
            out,
            "object-opened",
            at.to_owned(),
            Verdict::Compatible,
            "other keys now accepted".to_owned(),
        ),
        (Some(_), None) => push(
            out,
            "object-closed",
            at.to_owned(),
            Verdict::Breaking,
            "other keys now refused".to_owned(),
        ),
        (Some(a), Some(b)) => types(a, b, &format!("{at}.*"), out),
    }
}

struct TypePair<'a> {
    old: &'a TypeShape,
    new: &'a TypeShape,
    at: &'a str,
}

impl TypePair<'_> {
    /// Any kind change without a rule of its own: breaking.
    fn kind_changed(&self, out: &mut Vec<Change>) {
        push(
            out,
            "type-changed",
            self.at.to_owned(),
            Verdict::Breaking,
            format!("{} → {}", kind(self.old), kind(self.new)),
        );
    }

    fn string_changes(
        &self,
        min_length: Option<u64>,
        max_length: Option<u64>,
        pattern: Option<&String>,
        out: &mut Vec<Change>,
    ) {
        let at = self.at;
        match self.new {
            TypeShape::String {
                min_length: b0,
                max_length: b1,
                pattern: bp,
            } => {
                lower(min_length, *b0, at, "min_length", out);
                upper(max_length, *b1, at, "max_length", out);
                self.pattern_change(pattern, bp.as_ref(), out);
            }
            TypeShape::Enum { values } => push(
                out,
                "type-narrowed",
                at.to_owned(),
                Verdict::Breaking,
                format!("string → enum of {}", values.join(", ")),
            ),
            _ => self.kind_changed(out),
        }
    }

    /// A string's pattern added, removed or changed; a changed alternation of literals is
    /// decided value by value.
    fn pattern_change(&self, old: Option<&String>, new: Option<&String>, out: &mut Vec<Change>) {
        let at = self.at;
        match (old, new) {
            (None, Some(q)) => push(
                out,
                "pattern-added",
                format!("{at}/pattern"),
                Verdict::Breaking,
                format!("now must match {q}"),
            ),
            (Some(_), None) => push(
                out,
                "pattern-removed",
                format!("{at}/pattern"),
                Verdict::Compatible,
                "no longer restricted by a pattern".to_owned(),
            ),
            (Some(p), Some(q)) if p != q => {
                let (v, msg) = match literals(p) {
                    Some(lits) => {
                        let rejected: Vec<&String> = lits
                            .iter()
                            .filter(|l| accepts(self.new, l) != Some(true))
                            .collect();
                        if rejected.is_empty() {
                            (
                                Verdict::Compatible,
                                format!("pattern {p} → {q} (every old value still matches)"),
                            )
                        } else {
                            let r: Vec<&str> = rejected.iter().map(|s| s.as_str()).collect();
                            (
                                Verdict::Breaking,
                                format!("pattern {p} → {q} no longer accepts {}", r.join(", ")),
                            )
                        }
                    }
                    None => (
                        Verdict::Unknown,
                        format!(
                            "pattern {p} → {q} (cannot decide whether it accepts every old value)"
                        ),
                    ),
                };
                push(out, "pattern-changed", format!("{at}/pattern"), v, msg);
            }
            _ => {}
        }
    }

    fn integer_changes(&self, minimum: Option<i64>, maximum: Option<i64>, out: &mut Vec<Change>) {
        let at = self.at;
        match self.new {
            TypeShape::Integer {
                minimum: b0,
                maximum: b1,
            } => {
                lower(minimum, *b0, at, "minimum", out);
                upper(maximum, *b1, at, "maximum", out);
            }
            TypeShape::Number {
                minimum: b0,
                maximum: b1,
            } => {
                push(
                    out,
                    "type-widened",
                    at.to_owned(),
                    Verdict::Compatible,
                    "integer → number".to_owned(),
                );
                lower(minimum.map(|v| v as f64), *b0, at, "minimum", out);
                upper(maximum.map(|v| v as f64), *b1, at, "maximum", out);
            }
            _ => self.kind_changed(out),
        }
    }

    fn number_changes(&self, minimum: Option<f64>, maximum: Option<f64>, out: &mut Vec<Change>) {
        let at = self.at;
        match self.new {
            TypeShape::Number {
                minimum: b0,
                maximum: b1,
            } => {
                lower(minimum, *b0, at, "minimum", out);
                upper(maximum, *b1, at, "maximum", out);
            }
            TypeShape::Integer { .. } => push(
                out,
                "type-narrowed",
                at.to_owned(),
                Verdict::Breaking,
                "number → integer: fractional values are refused".to_owned(),
            ),
            _ => self.kind_changed(out),
        }
    }

    fn enum_changes(&self, values: &[String], out: &mut Vec<Change>) {
        let at = self.at;
        match self.new {
            TypeShape::Enum { values: b } => {
                for v in values.iter().filter(|v| !b.contains(v)) {
                    push(
                        out,
                        "enum-value-removed",
                        format!("{at}/{v}"),
                        Verdict::Breaking,
                        format!("enum value {v} removed"),
                    );
                }
                for v in b.iter().filter(|v| !values.contains(v)) {
                    push(
                        out,
                        "enum-value-added",
                        format!("{at}/{v}"),
                        Verdict::Compatible,
                        format!("enum value {v} added"),
                    );
                }
            }
            TypeShape::String { .. } => self.enum_to_string(values, out),
            _ => self.kind_changed(out),
        }
    }

    /// Enum → string widens only if the string still accepts every old value.
    fn enum_to_string(&self, values: &[String], out: &mut Vec<Change>) {
        let rejected: Vec<&str> = values
            .iter()
            .filter(|v| accepts(self.new, v) != Some(true))
            .map(String::as_str)
            .collect();
        if rejected.is_empty() {
            push(
                out,
                "type-widened",
                self.at.to_owned(),
                Verdict::Compatible,
                "enum → string (every old value still accepted)".to_owned(),
            );
        } else {
            push(
                out,
                "type-narrowed",
                self.at.to_owned(),
                Verdict::Breaking,
                format!("enum → string refusing {}", rejected.join(", ")),
            );
        }
    }

    fn array_changes(
        &self,
        items: &TypeShape,
        min_items: Option<u64>,
        max_items: Option<u64>,
        out: &mut Vec<Change>,
    ) {
        let at = self.at;
        match self.new {
            TypeShape::Array {
                items: bi,
                min_items: b0,
                max_items: b1,
            } => {
                lower(min_items, *b0, at, "min_items", out);
                upper(max_items, *b1, at, "max_items", out);
                types(items, bi, &format!("{at}[]"), out);
            }
            _ => self.kind_changed(out),
        }
    }

    /// Object properties: removed, newly required, added, and each kept one's type.
    fn object_changes(&self, a: &[PropertyShape], out: &mut Vec<Change>) {
        let at = self.at;
        let TypeShape::Object { properties: b, .. } = self.new else {
            self.kind_changed(out);
            return;
        };
        for p in a {
            let sub = format!("{at}.{}", p.name);
            match b.iter().find(|q| q.name == p.name) {
                None => push(
                    out,
                    "field-removed",
                    sub,
                    Verdict::Breaking,
                    "property removed".to_owned(),
                ),
                Some(q) => {
                    if q.required && !p.required {
                        push(
                            out,
                            "required-added",
                            sub.clone(),
                            Verdict::Breaking,
                            "property now required".to_owned(),
                        );
                    }
                    types(&p.schema, &q.schema, &sub, out);
                }
            }
        }
        for q in b.iter().filter(|q| !a.iter().any(|p| p.name == q.name)) {
            let sub = format!("{at}.{}", q.name);
            if q.required {
                push(
                    out,
                    "required-added",
                    sub,
                    Verdict::Breaking,
                    "new required property".to_owned(),
                );
            } else {
                push(
                    out,
                    "field-added",
                    sub,
                    Verdict::Compatible,
                    "new optional property".to_owned(),
                );
            }
        }
    }
}

#[cfg(test)]
pub(super) fn literal_alternation(p: &str) -> Option<Vec<String>> {
    literals(p)
}
