//! The text helpers every layer needs and each once grew its own copy of: "did you mean",
//! cutting a string with an ellipsis, and aligned text tables. One policy each, so a
//! compiler diagnostic, a model-facing refusal and a CLI table never disagree on how close
//! a name must be, where a cut falls, or how a column lines up. Depends on strsim alone, so
//! the compiler, the runtime and the facade can all use it without knowing each other.

use std::borrow::Cow;

/// How close a candidate must be to be suggested: Jaro-Winkler ≥ 0.8 or at most two edits,
/// compared without ASCII case.
fn score(name: &str, candidate: &str) -> Option<f64> {
    let (a, b) = (name.to_ascii_lowercase(), candidate.to_ascii_lowercase());
    let jw = strsim::jaro_winkler(&a, &b);
    (jw >= 0.8 || strsim::levenshtein(&a, &b) <= 2).then_some(jw)
}

/// The candidates close to `name`, closest first (ties by name), at most `n`.
pub fn closest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    n: usize,
) -> Vec<&'a str> {
    let mut scored: Vec<(f64, &str)> = candidates
        .into_iter()
        .filter(|c| *c != name)
        .filter_map(|c| score(name, c).map(|s| (s, c)))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(n).map(|(_, c)| c).collect()
}

/// The one candidate closest to `name`, if any is close enough to suggest.
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    closest(name, candidates, 1).into_iter().next()
}

/// `s` cut after `max_chars` characters, with `…` appended when anything was cut.
pub fn cut(s: &str, max_chars: usize) -> Cow<'_, str> {
    match s.char_indices().nth(max_chars) {
        Some((i, _)) => Cow::Owned(format!("{}…", &s[..i])),
        None => Cow::Borrowed(s),
    }
}

/// How a [`table`] lays out its columns.
#[derive(Clone, Copy, Debug)]
pub struct TableStyle<'a> {
    /// Between two cells of a row (`"  "`, `" | "`).
    pub separator: &'a str,
    /// A rule of `-` under the header, joined by `rule_joint` (`"-+-"`); `None` for no rule.
    pub rule_joint: Option<&'a str>,
    /// Columns from this index on are right-aligned (counts); `usize::MAX` for none.
    pub right_from: usize,
}

/// Rows under a header, each column as wide as its widest cell (in characters), trailing
/// blanks trimmed, one `\n` after every line.
pub fn table<S: AsRef<str>>(header: &[&str], rows: &[Vec<S>], style: TableStyle<'_>) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.as_ref().chars().count());
        }
    }
    let line = |cells: &mut dyn Iterator<Item = &str>| -> String {
        let parts: Vec<String> = cells
            .zip(&widths)
            .enumerate()
            .map(|(i, (cell, w))| {
                let pad = " ".repeat(w.saturating_sub(cell.chars().count()));
                if i >= style.right_from {
                    format!("{pad}{cell}")
                } else {
                    format!("{cell}{pad}")
                }
            })
            .collect();
        let mut l = parts.join(style.separator).trim_end().to_owned();
        l.push('\n');
        l
    };
    let mut out = line(&mut header.iter().copied());
    if let Some(joint) = style.rule_joint {
        let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
        out.push_str(&rule.join(joint));
        out.push('\n');
    }
    for row in rows {
        out.push_str(&line(&mut row.iter().map(AsRef::as_ref)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only_without_case() {
        let names = ["tools", "skills", "hosts", "workdirs"];
        assert_eq!(did_you_mean("tols", names), Some("tools"));
        assert_eq!(did_you_mean("HOSTS", names), Some("hosts"));
        assert_eq!(did_you_mean("zzzzzz", names), None);
        assert_eq!(
            did_you_mean("shel", ["shell", "shell_session"]),
            Some("shell")
        );
        // Two edits on a short name are still close; ties go to the first by name.
        assert_eq!(did_you_mean("ab", ["xb", "ay"]), Some("ay"));
    }

    #[test]
    fn closest_ranks_and_limits() {
        let got = closest("chanel", ["channel", "channels", "chat", "zzz"], 2);
        assert_eq!(got, ["channel", "channels"]);
        assert!(closest("x", ["channel"], 3).is_empty());
    }

    #[test]
    fn cut_counts_characters_not_bytes() {
        assert_eq!(cut("héllo", 2), "hé…");
        assert_eq!(cut("héllo", 5), "héllo");
        assert!(matches!(cut("abc", 3), Cow::Borrowed(_)));
    }

    #[test]
    fn table_aligns_by_characters() {
        let rows = vec![vec!["é", "10"], vec!["abc", "2"]];
        let plain = TableStyle {
            separator: "  ",
            rule_joint: None,
            right_from: 1,
        };
        assert_eq!(
            table(&["name", "n"], &rows, plain),
            "name   n\né     10\nabc    2\n"
        );
        let ruled = TableStyle {
            separator: " | ",
            rule_joint: Some("-+-"),
            right_from: usize::MAX,
        };
        assert_eq!(
            table(&["a", "b"], &rows, ruled),
            "a   | b\n----+---\né   | 10\nabc | 2\n"
        );
    }
}
