//! The consolidation ledger of one role: which resident tools were retired, which merged
//! into what (grouped by their new home), what is new, and the net count — per family with
//! bytes and tokens before → after.

use super::compat::alias_text;
use crate::lock::{Lock, LockedAlias};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ledger {
    pub role: String,
    /// Resident tool names over the families compared (first-seen order).
    pub before: usize,
    pub after: usize,
    /// `(name, message, replaced_by)`.
    pub retired: Vec<(String, String, Vec<String>)>,
    pub merges: Vec<Merge>,
    /// New tools that are not the home of a merge.
    pub added: Vec<String>,
    /// Removed with nothing covering them (breaking).
    pub removed: Vec<String>,
    /// Still declared, no longer resident in this role.
    pub dropped: Vec<String>,
    pub families: Vec<FamilyRow>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Merge {
    /// `shell_session (new) by action`, `the device parameter of read_file, write_file`.
    pub into: String,
    /// The home in a word or two (`shell_session`, `` `device` ``), for the net line.
    pub short: String,
    /// Old names with how each lands (`shell_poll → shell_session {action: poll}`).
    pub names: Vec<(String, String)>,
    /// Tools this group adds net (negative: fewer).
    pub delta: i64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FamilyRow {
    pub family: String,
    pub tools: (usize, usize),
    pub bytes: (usize, usize),
    pub tokens: (usize, usize),
}

impl Ledger {
    pub fn net(&self) -> i64 {
        self.after as i64 - self.before as i64
    }
}

pub(super) fn ledger(
    a: &Lock,
    b: &Lock,
    role: &str,
    keep: &dyn Fn(&str) -> bool,
) -> Option<Ledger> {
    let (na, nb) = (resident_names(a, role, keep), resident_names(b, role, keep));
    let removed: Vec<&String> = na.iter().filter(|n| !nb.contains(n)).collect();
    let mut added: Vec<String> = nb.iter().filter(|n| !na.contains(n)).cloned().collect();
    if removed.is_empty() && added.is_empty() {
        return None;
    }
    let mut ledger = Ledger {
        role: role.to_owned(),
        before: na.len(),
        after: nb.len(),
        retired: Vec::new(),
        merges: Vec::new(),
        added: Vec::new(),
        removed: Vec::new(),
        dropped: Vec::new(),
        families: Vec::new(),
    };
    let groups = sort_removed_names(&removed, b, &mut ledger);
    for (_, als) in groups {
        ledger.merges.push(merge(&als, &mut added));
    }
    ledger.added = added;
    ledger.families = family_rows(a, b, role, keep);
    Some(ledger)
}

/// A role's resident tool names over the kept families, first-seen order.
fn resident_names(l: &Lock, role: &str, keep: &dyn Fn(&str) -> bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in l
        .surfaces
        .iter()
        .filter(|s| s.role == role && keep(&s.family))
    {
        for t in &s.tools {
            if !out.contains(&t.name) {
                out.push(t.name.clone());
            }
        }
    }
    out
}

/// Each removed name into the ledger's retired, dropped or removed list, or (an alias) into
/// a merge group. Aliases with fixed arguments group by target tool; rename-only aliases
/// group by their renames (the ssh tools -> `device` on the file tools).
fn sort_removed_names<'b>(
    removed: &[&String],
    b: &'b Lock,
    ledger: &mut Ledger,
) -> Vec<(String, Vec<&'b LockedAlias>)> {
    let mut groups: Vec<(String, Vec<&LockedAlias>)> = Vec::new();
    for n in removed {
        if let Some(r) = b.retired(n) {
            ledger
                .retired
                .push(((*n).clone(), r.message.clone(), r.replaced_by.clone()));
        } else if let Some(al) = b.alias(n) {
            let key = if al.set.is_empty() {
                format!("rename:{:?}", al.rename)
            } else {
                format!("tool:{}", al.tool)
            };
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, v)) => v.push(al),
                None => groups.push((key, vec![al])),
            }
        } else if b.shape(n).is_some() {
            ledger.dropped.push((*n).clone());
        } else {
            ledger.removed.push((*n).clone());
        }
    }
    groups
}

/// One merge group; its targets that are new tools leave `added` (they are its home).
fn merge(als: &[&LockedAlias], added: &mut Vec<String>) -> Merge {
    let mut targets: Vec<&str> = Vec::new();
    for al in als {
        if !targets.contains(&al.tool.as_str()) {
            targets.push(&al.tool);
        }
    }
    let new_targets: Vec<&str> = targets
        .iter()
        .copied()
        .filter(|t| added.iter().any(|x| x == t))
        .collect();
    added.retain(|x| !new_targets.contains(&x.as_str()));
    let tag = |t: &str| {
        if new_targets.contains(&t) {
            format!("{t} (new)")
        } else {
            t.to_owned()
        }
    };
    let first = als.first().copied();
    let short = match first {
        Some(al) if al.set.is_empty() && !al.rename.is_empty() => al
            .rename
            .values()
            .map(|f| format!("`{f}`"))
            .collect::<Vec<_>>()
            .join(", "),
        _ => targets.join(", "),
    };
    Merge {
        into: merge_home(first, als, &targets, &tag),
        short,
        names: als
            .iter()
            .map(|al| (al.name.clone(), alias_text(al)))
            .collect(),
        delta: new_targets.len() as i64 - als.len() as i64,
    }
}

/// Where a merge group lands, in words: "shell_session (new) by action: poll, wait",
/// "the `device` parameter of read_file, write_file", or the target list.
fn merge_home(
    first: Option<&LockedAlias>,
    als: &[&LockedAlias],
    targets: &[&str],
    tag: &dyn Fn(&str) -> String,
) -> String {
    match first {
        Some(al) if !al.set.is_empty() => {
            let keys: Vec<&String> = al.set.keys().collect();
            let same_keys = als
                .iter()
                .all(|x| x.set.keys().collect::<Vec<_>>() == keys && x.tool == al.tool);
            let values: Vec<String> = als
                .iter()
                .filter_map(|x| x.set.values().next())
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                .collect();
            match keys.as_slice() {
                [k] if same_keys => format!("{} by {k}: {}", tag(&al.tool), values.join(", ")),
                _ => tag(&al.tool),
            }
        }
        Some(al) if !al.rename.is_empty() => {
            let fields: Vec<&String> = al.rename.values().collect();
            let fields: Vec<String> = fields.iter().map(|f| format!("`{f}`")).collect();
            let tools: Vec<String> = targets.iter().map(|t| tag(t)).collect();
            format!(
                "the {} parameter of {}",
                fields.join(", "),
                tools.join(", ")
            )
        }
        _ => targets
            .iter()
            .map(|t| tag(t))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// Tools, bytes and tokens before → after, for each kept family on both sides.
fn family_rows(a: &Lock, b: &Lock, role: &str, keep: &dyn Fn(&str) -> bool) -> Vec<FamilyRow> {
    let mut rows = Vec::new();
    for sa in a
        .surfaces
        .iter()
        .filter(|s| s.role == role && keep(&s.family))
    {
        let Some(sb) = b.surface(role, &sa.family) else {
            continue;
        };
        rows.push(FamilyRow {
            family: sa.family.clone(),
            tools: (sa.tools.len(), sb.tools.len()),
            bytes: (sa.bytes, sb.bytes),
            tokens: (sa.tokens, sb.tokens),
        });
    }
    rows
}
