//! Output-schema changes: what a tool's declared results (`output:`, recorded in the lock's
//! `output` section) say differently, with a compatibility verdict from the reader's side —
//! code that reads `structuredContent` (code-mode hosts, programmatic tool calling) rather
//! than a model reading arguments. The direction is the reverse of arguments':
//!
//! - **breaking**: a result field removed, or no longer required; a type widened (`null`
//!   added, a new type); an enum value added (a `match` meets a value it never saw); a new
//!   result shape in a union; a declared output removed; an object opened to any keys.
//! - **compatible**: a result field added or made required; a type narrowed; an enum value
//!   removed; a shape dropped from a union; an output declared where there was none; a
//!   description edited.
//! - **unknown**: union shapes that cannot be paired (counts differ and neither side's shapes
//!   all appear in the other's).
//!
//! Old transcripts still parse whatever the output says, so the breaking findings here mean
//! "a host's result-reading code may break", and `lock` asks for `--accept-breaking` all the
//! same: a published contract changed. Plus the cache effect of the published schema: its
//! bytes and o200k tokens before and after (MCP `outputSchema`; the Responses and Gemini
//! arrays too where a family publishes outputs, and there the array's own sha changes).

use serde_json::Value;

use super::{Finding, Findings, Locator, Verdict};
use crate::lock::{Lock, LockedOutput, LockedSurface};
use crate::tokens;

/// The published output schema of one tool, before and after.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputChange {
    pub tool: String,
    pub before: Option<OutputSide>,
    pub after: Option<OutputSide>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputSide {
    pub sha256: String,
    pub bytes: usize,
    pub tokens: usize,
}

fn side(o: Option<&LockedOutput>) -> Option<OutputSide> {
    let json = o?.published.as_deref()?;
    Some(OutputSide {
        sha256: crate::emit::sha256_hex(json.as_bytes()),
        bytes: json.len(),
        tokens: tokens::count(json),
    })
}

/// Every tool in `names` whose published output schema differs, in `names` order.
pub(super) fn output_changes(a: &Lock, b: &Lock, names: &[&str]) -> Vec<OutputChange> {
    names
        .iter()
        .filter(|n| {
            a.output(n).and_then(|o| o.published.as_ref())
                != b.output(n).and_then(|o| o.published.as_ref())
        })
        .map(|n| OutputChange {
            tool: (*n).to_owned(),
            before: side(a.output(n)),
            after: side(b.output(n)),
        })
        .collect()
}

/// One change below an action's output, before it becomes a [`Finding`].
struct Change {
    rule: &'static str,
    /// Property path segments (`files`, `[]`, `path`).
    path: Vec<String>,
    verdict: Verdict,
    message: String,
}

/// The output findings of every tool offered on both sides of one role × family.
pub(super) fn surface(
    a: &Lock,
    b: &Lock,
    sa: &LockedSurface,
    sb: &LockedSurface,
    loc: Option<&Locator>,
    out: &mut Findings,
) {
    let role = sa.role.as_str();
    for t in sa.offered() {
        let name = t.name.as_str();
        if sb.tool(name).is_none() {
            continue;
        }
        let (oa, ob) = (a.output(name), b.output(name));
        if oa == ob {
            continue;
        }
        let (Some(x), Some(y)) = (a.shape(name), b.shape(name)) else {
            continue;
        };
        for action in y
            .actions
            .iter()
            .filter(|ya| x.action(ya.name.as_deref()).is_some())
        {
            let aname = action.name.as_deref();
            let old = oa.and_then(|o| o.action(aname));
            let new = ob.and_then(|o| o.action(aname));
            for c in action_changes(old, new) {
                let shown = match aname {
                    Some(n) => format!("{name} {n}"),
                    None => name.to_owned(),
                };
                let at = if c.path.is_empty() {
                    String::new()
                } else {
                    format!(" `{}`", c.path.join("."))
                };
                let mut path = vec![
                    role.to_owned(),
                    name.to_owned(),
                    aname.unwrap_or("-").to_owned(),
                ];
                path.extend(c.path);
                let key = match aname {
                    Some(n) => format!("action:{name}/{n}"),
                    None => format!("tool:{name}"),
                };
                let f = Finding::new(
                    c.rule,
                    path,
                    c.verdict,
                    role,
                    format!("{shown}: result{at}: {}", c.message),
                )
                .at(loc, &key)
                .or_at(loc, &format!("tool:{name}"))
                .tool(name);
                out.push(f, Some(&sa.family));
            }
        }
    }
}

/// What changed in one action's output schema (canonical JSON text on either side).
fn action_changes(old: Option<&str>, new: Option<&str>) -> Vec<Change> {
    let parse = |s: &str| serde_json::from_str::<Value>(s).unwrap_or(Value::Null);
    let mut out = Vec::new();
    match (old.map(parse), new.map(parse)) {
        (None, Some(_)) => push(
            &mut out,
            "output-added",
            &[],
            Verdict::Compatible,
            "an output is declared now".into(),
        ),
        (Some(_), None) => push(
            &mut out,
            "output-removed",
            &[],
            Verdict::Breaking,
            "no output is declared any more: code reading the structured result loses its contract"
                .into(),
        ),
        (Some(x), Some(y)) => shapes(&x, &y, &[], &mut out),
        (None, None) => {}
    }
    out
}

fn push(
    out: &mut Vec<Change>,
    rule: &'static str,
    path: &[String],
    verdict: Verdict,
    message: String,
) {
    out.push(Change {
        rule,
        path: path.to_vec(),
        verdict,
        message,
    });
}

/// A schema's union shapes (`anyOf`), or the schema itself as a one-shape union.
fn branches(v: &Value) -> Vec<&Value> {
    match v.get("anyOf").and_then(Value::as_array) {
        Some(list) => list.iter().collect(),
        None => vec![v],
    }
}

/// Two unions: shapes dropped or added whole, else paired in order.
fn shapes(x: &Value, y: &Value, path: &[String], out: &mut Vec<Change>) {
    let (bx, by) = (branches(x), branches(y));
    if bx.len() == by.len() {
        for (p, q) in bx.iter().zip(&by) {
            node(p, q, path, out);
        }
        return;
    }
    let added = by.iter().filter(|q| !bx.contains(q)).count();
    let dropped = bx.iter().filter(|p| !by.contains(p)).count();
    if dropped == 0 {
        push(
            out,
            "output-shape-added",
            path,
            Verdict::Breaking,
            format!("{added} new result shape(s): code expecting the old ones meets another"),
        );
    } else if added == 0 {
        push(
            out,
            "output-shape-removed",
            path,
            Verdict::Compatible,
            format!("{dropped} result shape(s) no longer returned"),
        );
    } else {
        push(
            out,
            "output-shapes-changed",
            path,
            Verdict::Unknown,
            format!(
                "result shapes changed ({} → {}); they cannot be paired",
                bx.len(),
                by.len()
            ),
        );
    }
}

fn types(v: &Value) -> Vec<&str> {
    match v.get("type") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// One schema node against its new version.
fn node(x: &Value, y: &Value, path: &[String], out: &mut Vec<Change>) {
    if x == y {
        return;
    }
    if x.get("anyOf").is_some() || y.get("anyOf").is_some() {
        return shapes(x, y, path, out);
    }
    if x.get("description") != y.get("description") {
        push(
            out,
            "output-description-changed",
            path,
            Verdict::Compatible,
            "description changed".into(),
        );
    }
    verbatim_keywords(x, y, path, out);
    let (tx, ty) = (types(x), types(y));
    if tx != ty {
        let widened = tx.iter().all(|t| ty.contains(t));
        let narrowed = ty.iter().all(|t| tx.contains(t));
        let shown = |t: &[&str]| t.join("|");
        if narrowed {
            push(
                out,
                "output-type-narrowed",
                path,
                Verdict::Compatible,
                format!("type {} → {}", shown(&tx), shown(&ty)),
            );
        } else if widened {
            push(
                out,
                "output-type-widened",
                path,
                Verdict::Breaking,
                format!(
                    "type {} → {}: code meets a type it never saw",
                    shown(&tx),
                    shown(&ty)
                ),
            );
        } else {
            push(
                out,
                "output-type-changed",
                path,
                Verdict::Breaking,
                format!("type {} → {}", shown(&tx), shown(&ty)),
            );
            return;
        }
    }
    enum_values(x, y, path, out);
    match (x.get("items"), y.get("items")) {
        (Some(p), Some(q)) => {
            let mut at = path.to_vec();
            at.push("[]".into());
            node(p, q, &at, out);
        }
        (Some(_), None) => push(
            out,
            "output-items-widened",
            path,
            Verdict::Breaking,
            "items may now be any JSON value".into(),
        ),
        (None, Some(_)) => push(
            out,
            "output-items-narrowed",
            path,
            Verdict::Compatible,
            "items are declared now".into(),
        ),
        (None, None) => {}
    }
    properties(x, y, path, out);
}

/// Keywords kept verbatim (`json_schema:`: `$schema`, `title`, `format`…) describe a result
/// but change what no typed reader reads: each added, changed or removed one is compatible.
fn verbatim_keywords(x: &Value, y: &Value, path: &[String], out: &mut Vec<Change>) {
    let (Some(ox), Some(oy)) = (x.as_object(), y.as_object()) else {
        return;
    };
    let modelled = |k: &String| crate::load::types::OUTPUT_MODELLED.contains(&k.as_str());
    let mut keys: Vec<&String> = ox
        .keys()
        .chain(oy.keys())
        .filter(|k| !modelled(k))
        .collect();
    keys.sort();
    keys.dedup();
    for k in keys {
        let what = match (ox.get(k), oy.get(k)) {
            (a, b) if a == b => continue,
            (None, Some(_)) => "added",
            (Some(_), None) => "removed",
            _ => "changed",
        };
        push(
            out,
            "output-keyword-changed",
            path,
            Verdict::Compatible,
            format!("`{k}` {what} (kept verbatim: no typed reader reads it)"),
        );
    }
}

fn enum_values(x: &Value, y: &Value, path: &[String], out: &mut Vec<Change>) {
    let values = |v: &Value| {
        v.get("enum")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let (vx, vy) = (values(x), values(y));
    for v in vy.iter().filter(|v| !vx.contains(v)) {
        push(
            out,
            "output-enum-value-added",
            path,
            Verdict::Breaking,
            format!("new value {v}: code matching on the old values meets it"),
        );
    }
    for v in vx.iter().filter(|v| !vy.contains(v)) {
        push(
            out,
            "output-enum-value-removed",
            path,
            Verdict::Compatible,
            format!("value {v} is no longer returned"),
        );
    }
}

fn properties(x: &Value, y: &Value, path: &[String], out: &mut Vec<Change>) {
    let props = |v: &Value| v.get("properties").and_then(Value::as_object).cloned();
    let required = |v: &Value, n: &str| {
        v.get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|s| s.as_str() == Some(n)))
    };
    let (px, py) = match (props(x), props(y)) {
        (Some(px), Some(py)) => (px, py),
        (Some(_), None) => {
            return push(
                out,
                "output-object-opened",
                path,
                Verdict::Breaking,
                "its properties are no longer declared (any object)".into(),
            );
        }
        (None, Some(_)) => {
            return push(
                out,
                "output-object-closed",
                path,
                Verdict::Compatible,
                "its properties are declared now".into(),
            );
        }
        (None, None) => return,
    };
    for (n, p) in &px {
        let mut at = path.to_vec();
        at.push(n.clone());
        match py.get(n) {
            None => push(
                out,
                "output-field-removed",
                &at,
                Verdict::Breaking,
                "removed: code that reads it breaks".into(),
            ),
            Some(q) => {
                if required(x, n) && !required(y, n) {
                    push(
                        out,
                        "output-field-now-optional",
                        &at,
                        Verdict::Breaking,
                        "no longer always present".into(),
                    );
                } else if !required(x, n) && required(y, n) {
                    push(
                        out,
                        "output-field-now-required",
                        &at,
                        Verdict::Compatible,
                        "always present now".into(),
                    );
                }
                node(p, q, &at, out);
            }
        }
    }
    for n in py.keys().filter(|n| !px.contains_key(*n)) {
        let mut at = path.to_vec();
        at.push(n.clone());
        push(
            out,
            "output-field-added",
            &at,
            Verdict::Compatible,
            "new field".into(),
        );
    }
}
