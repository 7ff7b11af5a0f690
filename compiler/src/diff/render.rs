//! Diff output formats: text (optionally coloured), stable JSON, a markdown PR summary, and
//! GitHub Actions annotations at the YAML line responsible.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::{Diff, Ledger, SurfaceChange, SurfaceStatus, Verdict};

fn signed(n: i64) -> String {
    match n {
        0 => "±0".to_owned(),
        n if n > 0 => format!("+{n}"),
        n => format!("−{}", n.unsigned_abs()),
    }
}

fn delta(a: usize, b: usize) -> String {
    signed(b as i64 - a as i64)
}

struct Paint(bool);

impl Paint {
    fn v(&self, v: Verdict) -> String {
        let s = v.as_str();
        if !self.0 {
            return format!("{s:<10}");
        }
        let c = match v {
            Verdict::Breaking => "31",
            Verdict::Unknown => "33",
            Verdict::Compatible => "32",
        };
        format!("\x1b[{c}m{s:<10}\x1b[0m")
    }
    fn bold(&self, s: &str) -> String {
        if self.0 {
            format!("\x1b[1m{s}\x1b[0m")
        } else {
            s.to_owned()
        }
    }
}

/// The ledger of one role as text lines (shared by text and markdown).
fn ledger_lines(l: &Ledger) -> Vec<String> {
    let mut out = Vec::new();
    let retired = l.retired.len() as i64;
    if !l.retired.is_empty() {
        out.push(format!("retired ({})", signed(-retired)));
        let w = l.retired.iter().map(|r| r.0.len()).max().unwrap_or(0);
        for (name, msg, by) in &l.retired {
            let by = if by.is_empty() {
                String::new()
            } else {
                format!(" [→ {}]", by.join(", "))
            };
            out.push(format!("  {name:<w$}  retired: {msg}{by}"));
        }
    }
    if !l.merges.is_empty() {
        let total: i64 = l.merges.iter().map(|m| m.delta).sum();
        out.push(format!("merged ({})", signed(total)));
        for m in &l.merges {
            let names: Vec<&str> = m.names.iter().map(|(n, _)| n.as_str()).collect();
            out.push(format!(
                "  {:>3}  {} → {}",
                signed(m.delta),
                names.join(", "),
                m.into
            ));
            for (n, how) in &m.names {
                out.push(format!("         {n} → {how}"));
            }
        }
    }
    if !l.added.is_empty() {
        out.push(format!(
            "added ({}): {}",
            signed(l.added.len() as i64),
            l.added.join(", ")
        ));
    }
    if !l.dropped.is_empty() {
        out.push(format!(
            "no longer resident ({}): {}",
            signed(-(l.dropped.len() as i64)),
            l.dropped.join(", ")
        ));
    }
    if !l.removed.is_empty() {
        out.push(format!(
            "removed, nothing covers them ({}): {}",
            signed(-(l.removed.len() as i64)),
            l.removed.join(", ")
        ));
    }
    let mut parts: Vec<String> = Vec::new();
    if retired > 0 {
        parts.push(format!("{} retired", signed(-retired)));
    }
    for m in &l.merges {
        parts.push(format!("{} {}", signed(m.delta), m.short));
    }
    if !l.added.is_empty() {
        parts.push(format!("{} added", signed(l.added.len() as i64)));
    }
    if !l.dropped.is_empty() {
        parts.push(format!("{} dropped", signed(-(l.dropped.len() as i64))));
    }
    if !l.removed.is_empty() {
        parts.push(format!("{} removed", signed(-(l.removed.len() as i64))));
    }
    out.push(format!(
        "net {} tools ({} → {}): {}",
        signed(l.net()),
        l.before,
        l.after,
        parts.join(", ")
    ));
    out
}

fn family_table(l: &Ledger) -> Vec<[String; 4]> {
    l.families
        .iter()
        .map(|f| {
            [
                f.family.clone(),
                format!(
                    "{} → {} ({})",
                    f.tools.0,
                    f.tools.1,
                    delta(f.tools.0, f.tools.1)
                ),
                format!(
                    "{} → {} ({})",
                    f.bytes.0,
                    f.bytes.1,
                    delta(f.bytes.0, f.bytes.1)
                ),
                format!(
                    "{} → {} ({})",
                    f.tokens.0,
                    f.tokens.1,
                    delta(f.tokens.0, f.tokens.1)
                ),
            ]
        })
        .collect()
}

fn surface_line(s: &SurfaceChange) -> String {
    let name = format!("{}/{}", s.role, s.family);
    match (s.status, &s.before, &s.after) {
        (SurfaceStatus::Changed, Some(a), Some(b)) => format!(
            "{name}: changed from tool #{} (byte {}): {} → {} tools, {} → {} bytes, {} → {} tokens ({})",
            s.first_tool.unwrap_or(0),
            s.first_byte.unwrap_or(0),
            a.tools,
            b.tools,
            a.bytes,
            b.bytes,
            a.tokens,
            b.tokens,
            delta(a.tokens, b.tokens)
        ),
        (SurfaceStatus::Added, _, Some(b)) => {
            format!(
                "{name}: added: {} tools, {} bytes, {} tokens",
                b.tools, b.bytes, b.tokens
            )
        }
        (SurfaceStatus::Removed, Some(a), _) => format!(
            "{name}: removed (was {} tools, {} bytes, {} tokens)",
            a.tools, a.bytes, a.tokens
        ),
        _ => format!("{name}: unchanged"),
    }
}

/// One tool's published output schema, before → after (bytes and tokens).
fn output_line(o: &super::OutputChange) -> String {
    match (&o.before, &o.after) {
        (Some(a), Some(b)) => format!(
            "{}: {} → {} bytes, {} → {} tokens ({})",
            o.tool,
            a.bytes,
            b.bytes,
            a.tokens,
            b.tokens,
            delta(a.tokens, b.tokens)
        ),
        (None, Some(b)) => format!("{}: added: {} bytes, {} tokens", o.tool, b.bytes, b.tokens),
        (Some(a), None) => format!(
            "{}: removed (was {} bytes, {} tokens)",
            o.tool, a.bytes, a.tokens
        ),
        (None, None) => format!("{}: unchanged", o.tool),
    }
}

/// The output-schema section of the text and markdown forms (nothing when none changes).
fn output_lines(d: &Diff) -> Vec<String> {
    d.outputs.iter().map(output_line).collect()
}

/// Whether turn kinds and skill activations keep the cached prefix, per array of the "to"
/// side: one line when every array keeps it, else one line per array that does not.
fn prefix_lines(d: &Diff, p: &Paint, out: &mut String) {
    if d.prefixes.is_empty() {
        return;
    }
    let requests: usize = d.prefixes.iter().map(|s| s.requests.len()).sum();
    let breakpoints = d
        .prefixes
        .iter()
        .filter(|s| s.requests.iter().any(|r| r.breakpoint_kept.is_some()))
        .count();
    out.push('\n');
    let losing: Vec<_> = d.prefixes.iter().filter(|s| !s.all_kept()).collect();
    let unverified: usize = d
        .prefixes
        .iter()
        .flat_map(|s| &s.requests)
        .filter(|r| !r.verified)
        .count();
    if losing.is_empty() {
        let _ = writeln!(
            out,
            "activation keeps the cache: the tools stay byte-identical for every turn kind and \
             skill activation ({} arrays, {requests} requests; {breakpoints} with an Anthropic \
             breakpoint, kept)",
            d.prefixes.len()
        );
    } else {
        let _ = writeln!(
            out,
            "{}",
            p.bold(&format!(
                "activation busts the cache in {} of {} arrays",
                losing.len(),
                d.prefixes.len()
            ))
        );
        for s in losing {
            let lost: Vec<String> = s
                .requests
                .iter()
                .filter(|r| !r.tools_identical || r.breakpoint_kept == Some(false))
                .map(|r| match r.breakpoint_kept {
                    Some(true) => format!("{} (tools change; breakpoint prefix kept)", r.label),
                    _ => format!("{} (tools change)", r.label),
                })
                .collect();
            let _ = writeln!(
                out,
                "  {}/{} (skills: {}): {}",
                s.role,
                s.family,
                s.strategy,
                lost.join(", ")
            );
        }
    }
    if unverified > 0 {
        let _ = writeln!(
            out,
            "  warning: {unverified} recorded request fragments do not rebuild from the lock"
        );
    }
}

fn summary(d: &Diff) -> String {
    format!(
        "{} breaking, {} unknown, {} compatible",
        d.count(Verdict::Breaking),
        d.count(Verdict::Unknown),
        d.count(Verdict::Compatible)
    )
}

/// Plain or coloured text.
pub fn text(d: &Diff, color: bool) -> String {
    let p = Paint(color);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}",
        p.bold(&format!("surface diff: {} → {}", d.from, d.to))
    );
    for l in &d.ledgers {
        out.push('\n');
        let _ = writeln!(out, "{}", p.bold(&format!("ledger {}", l.role)));
        for line in ledger_lines(l) {
            let _ = writeln!(out, "  {line}");
        }
        let rows = family_table(l);
        let head = ["family", "tools", "bytes", "tokens (o200k)"].map(str::to_owned);
        let mut w = [0usize; 4];
        for r in std::iter::once(&head).chain(&rows) {
            for (i, c) in r.iter().enumerate() {
                w[i] = w[i].max(c.chars().count());
            }
        }
        for r in std::iter::once(&head).chain(&rows) {
            let mut line = String::from("  ");
            for (i, c) in r.iter().enumerate() {
                let pad = w[i] - c.chars().count();
                line.push_str(c);
                line.push_str(&" ".repeat(pad + 2));
            }
            let _ = writeln!(out, "{}", line.trim_end());
        }
    }
    let changed: Vec<&SurfaceChange> = d
        .surfaces
        .iter()
        .filter(|s| s.status != SurfaceStatus::Unchanged)
        .collect();
    out.push('\n');
    if changed.is_empty() {
        let _ = writeln!(out, "prompt caches: every array is byte-identical");
    } else {
        let _ = writeln!(
            out,
            "{}",
            p.bold(&format!(
                "prompt caches: {} of {} arrays change",
                changed.len(),
                d.surfaces.len()
            ))
        );
        for s in changed {
            let _ = writeln!(out, "  {}", surface_line(s));
        }
    }
    if !d.outputs.is_empty() {
        out.push('\n');
        let _ = writeln!(
            out,
            "{}",
            p.bold(&format!(
                "output schemas (MCP outputSchema; Responses/Gemini where published): {} change",
                d.outputs.len()
            ))
        );
        for line in output_lines(d) {
            let _ = writeln!(out, "  {line}");
        }
    }
    prefix_lines(d, &p, &mut out);
    out.push('\n');
    let _ = writeln!(out, "{}", p.bold(&format!("findings: {}", summary(d))));
    for f in &d.findings {
        let _ = writeln!(out, "  {} {}", p.v(f.verdict), f.id);
        let _ = writeln!(out, "             {}", f.message);
        let mut tail = Vec::new();
        if let Some(l) = &f.location {
            tail.push(format!("at {}:{}", l.file, l.line));
        }
        if f.surfaces.is_empty() {
            tail.push("bytes unchanged".to_owned());
        } else {
            tail.push(format!("busts {}", f.surfaces.join(", ")));
        }
        let _ = writeln!(out, "             {}", tail.join(" · "));
    }
    out
}

/// Stable JSON (keys in a fixed order, findings in discovery order).
pub fn json(d: &Diff) -> String {
    let side = |s: &Option<super::Side>| match s {
        Some(s) => {
            json!({"sha256": s.sha256, "tools": s.tools, "bytes": s.bytes, "tokens": s.tokens})
        }
        None => Value::Null,
    };
    let v = json!({
        "from": d.from,
        "to": d.to,
        "verdict": d.worst().map_or("clean", Verdict::as_str),
        "counts": {
            "breaking": d.count(Verdict::Breaking),
            "unknown": d.count(Verdict::Unknown),
            "compatible": d.count(Verdict::Compatible),
        },
        "ledgers": d.ledgers.iter().map(|l| json!({
            "role": l.role,
            "before": l.before,
            "after": l.after,
            "net": l.net(),
            "retired": l.retired.iter().map(|(n, m, by)| json!({"name": n, "message": m, "replaced_by": by})).collect::<Vec<_>>(),
            "merges": l.merges.iter().map(|m| json!({
                "into": m.into,
                "delta": m.delta,
                "names": m.names.iter().map(|(n, how)| json!({"name": n, "to": how})).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "added": l.added,
            "dropped": l.dropped,
            "removed": l.removed,
            "families": l.families.iter().map(|f| json!({
                "family": f.family,
                "tools": [f.tools.0, f.tools.1],
                "bytes": [f.bytes.0, f.bytes.1],
                "tokens": [f.tokens.0, f.tokens.1],
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "surfaces": d.surfaces.iter().map(|s| json!({
            "role": s.role,
            "family": s.family,
            "status": s.status.as_str(),
            "before": side(&s.before),
            "after": side(&s.after),
            "first_tool": s.first_tool,
            "first_byte": s.first_byte,
        })).collect::<Vec<_>>(),
        "outputs": d.outputs.iter().map(|o| json!({
            "tool": o.tool,
            "before": o.before.as_ref().map(|s| json!({"sha256": s.sha256, "bytes": s.bytes, "tokens": s.tokens})),
            "after": o.after.as_ref().map(|s| json!({"sha256": s.sha256, "bytes": s.bytes, "tokens": s.tokens})),
        })).collect::<Vec<_>>(),
        "prefixes": d.prefixes.iter().map(|s| json!({
            "role": s.role,
            "family": s.family,
            "strategy": s.strategy,
            "requests": s.requests.iter().map(|r| json!({
                "request": r.label,
                "tools_identical": r.tools_identical,
                "breakpoint_kept": r.breakpoint_kept,
                "verified": r.verified,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "findings": d.findings.iter().map(|f| json!({
            "id": f.id,
            "rule": f.rule,
            "verdict": f.verdict.as_str(),
            "role": f.role,
            "families": f.families,
            "message": f.message,
            "cache": f.surfaces,
            "location": f.location.as_ref().map(|l| json!({"file": l.file, "line": l.line, "col": l.col})),
        })).collect::<Vec<_>>(),
    });
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// A pull-request summary.
pub fn markdown(d: &Diff) -> String {
    let mut out = String::new();
    let verdict = match d.worst() {
        None => "no drift".to_owned(),
        Some(Verdict::Compatible) => "compatible drift (prompt caches bust)".to_owned(),
        Some(v) => format!("**{} drift**", v.as_str()),
    };
    let _ = writeln!(out, "## Tool surface: {verdict}\n");
    let _ = writeln!(out, "`{}` → `{}`: {}\n", d.from, d.to, summary(d));
    for l in &d.ledgers {
        let _ = writeln!(out, "### Ledger: {}\n", l.role);
        let _ = writeln!(out, "```");
        for line in ledger_lines(l) {
            let _ = writeln!(out, "{line}");
        }
        let _ = writeln!(out, "```\n");
        let _ = writeln!(out, "| family | tools | bytes | tokens (o200k) |");
        let _ = writeln!(out, "|---|---|---|---|");
        for r in family_table(l) {
            let _ = writeln!(out, "| {} | {} | {} | {} |", r[0], r[1], r[2], r[3]);
        }
        out.push('\n');
    }
    let changed: Vec<&SurfaceChange> = d
        .surfaces
        .iter()
        .filter(|s| s.status != SurfaceStatus::Unchanged)
        .collect();
    if !changed.is_empty() {
        let _ = writeln!(out, "### Prompt caches\n");
        let _ = writeln!(out, "| array | status | first tool | tokens |");
        let _ = writeln!(out, "|---|---|---|---|");
        for s in changed {
            let tokens = match (&s.before, &s.after) {
                (Some(a), Some(b)) => format!(
                    "{} → {} ({})",
                    a.tokens,
                    b.tokens,
                    delta(a.tokens, b.tokens)
                ),
                (None, Some(b)) => format!("→ {}", b.tokens),
                (Some(a), None) => format!("{} →", a.tokens),
                _ => String::new(),
            };
            let _ = writeln!(
                out,
                "| {}/{} | {} | {} | {} |",
                s.role,
                s.family,
                s.status.as_str(),
                s.first_tool.map(|i| format!("#{i}")).unwrap_or_default(),
                tokens
            );
        }
        out.push('\n');
    }
    if !d.outputs.is_empty() {
        let _ = writeln!(out, "### Output schemas\n");
        for line in output_lines(d) {
            let _ = writeln!(out, "- {}", md_escape(&line));
        }
        out.push('\n');
    }
    if !d.findings.is_empty() {
        let _ = writeln!(
            out,
            "<details><summary>{} findings</summary>\n",
            d.findings.len()
        );
        let _ = writeln!(out, "| verdict | id | what | where |");
        let _ = writeln!(out, "|---|---|---|---|");
        for f in &d.findings {
            let at = f
                .location
                .as_ref()
                .map(|l| format!("`{}:{}`", l.file, l.line))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "| {} | `{}` | {} | {} |",
                f.verdict.as_str(),
                f.id,
                md_escape(&f.message),
                at
            );
        }
        let _ = writeln!(out, "\n</details>");
    }
    out
}

fn gh_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn gh_prop(s: &str) -> String {
    gh_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// GitHub Actions workflow commands: `::error` for breaking/unknown, `::warning` for
/// compatible (cache-busting) findings, at the YAML line responsible.
pub fn github(d: &Diff) -> String {
    // The same change seen in several roles is one annotation at one line.
    let mut seen: Vec<(String, Vec<String>)> = Vec::new();
    let mut lines: Vec<(String, String, String)> = Vec::new();
    for f in &d.findings {
        let level = match f.verdict {
            Verdict::Compatible => "warning",
            _ => "error",
        };
        let mut props = Vec::new();
        if let Some(l) = &f.location {
            props.push(format!("file={}", gh_prop(&l.file)));
            props.push(format!("line={}", l.line));
            props.push(format!("col={}", l.col));
        }
        let key = format!("{level} {} {}", props.join(","), f.message);
        if let Some((_, roles)) = seen.iter_mut().find(|(k, _)| *k == key) {
            roles.push(f.role.clone());
            continue;
        }
        seen.push((key, vec![f.role.clone()]));
        props.push(format!(
            "title={}",
            gh_prop(&format!("{} ({})", f.id, f.verdict.as_str()))
        ));
        let cache = if f.surfaces.is_empty() {
            String::new()
        } else {
            format!(" [busts {}]", f.surfaces.join(", "))
        };
        lines.push((
            format!("::{level} {}::", props.join(",")),
            format!("{}{cache}", f.message),
            String::new(),
        ));
    }
    let mut out = String::new();
    for ((head, msg, _), (_, roles)) in lines.iter().zip(&seen) {
        let also = if roles.len() > 1 {
            format!(" (roles: {})", roles.join(", "))
        } else {
            String::new()
        };
        let _ = writeln!(out, "{head}{}", gh_data(&format!("{msg}{also}")));
    }
    let _ = writeln!(out, "surface diff {} → {}: {}", d.from, d.to, summary(d));
    out
}
