//! Names in, names out: the stems tool names share, the merged tool and action names they
//! suggest (`shell_poll`, `shell_wait` → `shell_session` by action `poll`, `wait`), and the
//! similarity measures behind "confusable".

use std::collections::BTreeSet;

/// Verbs that name what a tool does rather than what it is: dropped when a tool's name
/// becomes an action name of a tool that already says the verb (`list_models` → `models`).
const VERBS: &[&str] = &[
    "get", "list", "read", "show", "inspect", "view", "fetch", "query", "describe",
];

/// Verbs that make a merged selector a `mode` (ways of reading) rather than an `action`.
const READ_VERBS: &[&str] = &["read", "get", "list", "show", "view", "fetch", "query"];

/// A name's words, lowercase: split at `_`, `-` and `.` and where camelCase starts a word
/// (`shell_watch_remove`, `getIssue`, `search-issues`, `getHTTPStatus` → `get http status`),
/// so names of every spelling an adopted surface uses group, and what they suggest is snake.
pub fn tokens(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut word = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            out.extend((!word.is_empty()).then(|| std::mem::take(&mut word)));
            continue;
        }
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1);
        let starts = c.is_ascii_uppercase()
            && prev.is_some_and(|p| {
                p.is_ascii_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_ascii_uppercase() && next.is_some_and(char::is_ascii_lowercase))
            });
        if starts && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        word.push(c.to_ascii_lowercase());
    }
    out.extend((!word.is_empty()).then_some(word));
    out
}

/// The tokens every name starts with and ends with (never overlapping any name's middle).
pub fn common_affixes(names: &[&str]) -> (Vec<String>, Vec<String>) {
    let toks: Vec<Vec<String>> = names.iter().map(|n| tokens(n)).collect();
    let Some(shortest) = toks.iter().map(Vec::len).min() else {
        return (Vec::new(), Vec::new());
    };
    let mut prefix = Vec::new();
    for i in 0..shortest {
        let t = &toks[0][i];
        if toks.iter().all(|x| x[i] == *t) {
            prefix.push(t.clone());
        } else {
            break;
        }
    }
    let mut suffix = Vec::new();
    for i in 0..shortest.saturating_sub(prefix.len()) {
        let t = &toks[0][toks[0].len() - 1 - i];
        if toks.iter().all(|x| x[x.len() - 1 - i] == *t) {
            suffix.insert(0, t.clone());
        } else {
            break;
        }
    }
    // Every name must keep at least one token of its own.
    while toks.iter().any(|x| x.len() <= prefix.len() + suffix.len()) {
        if suffix.pop().is_none() && prefix.pop().is_none() {
            break;
        }
    }
    (prefix, suffix)
}

/// `shell session` → `shell_session`.
pub fn snake(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_end_matches('_').to_owned()
}

/// What a group of tools sharing `prefix…suffix` would be called once merged: the shared
/// tokens (`message_*_read` → `message_read`), or the object's name when the shared tokens
/// alone are taken or empty (`shell_*` → `shell_session`, since `shell` exists).
pub fn merged_tool_name(names: &[&str], object: &str, taken: &dyn Fn(&str) -> bool) -> String {
    let (prefix, suffix) = common_affixes(names);
    let joined = prefix
        .iter()
        .chain(suffix.iter())
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join("_");
    let free = |n: &str| !n.is_empty() && !taken(n) && !names.contains(&n);
    if free(&joined) {
        return joined;
    }
    let from_object = snake(object);
    if free(&from_object) {
        return from_object;
    }
    let mut n = 2;
    loop {
        let candidate = format!("{}_{n}", if joined.is_empty() { "merged" } else { &joined });
        if free(&candidate) {
            return candidate;
        }
        n += 1;
    }
}

/// The action name each tool becomes: its tokens minus the shared affixes
/// (`shell_watch_remove` → `watch_remove`).
pub fn action_names(names: &[&str]) -> Vec<String> {
    let (prefix, suffix) = common_affixes(names);
    names
        .iter()
        .map(|n| {
            let t = tokens(n);
            t[prefix.len()..t.len() - suffix.len()].join("_")
        })
        .collect()
}

/// The action (value) name of `name` merged into an existing tool `into`: the name without
/// verbs and without tokens of `into`'s own name (`llm_config_inspect` → `llm_config`,
/// `list_models` → `models`), or all of its tokens when that leaves none (`get`,
/// `getIntrospect` → `get_introspect`).
pub fn value_name(name: &str, into: &str) -> String {
    let own: BTreeSet<String> = tokens(into).into_iter().collect();
    let all = tokens(name);
    let kept: Vec<&str> = all
        .iter()
        .map(String::as_str)
        .filter(|t| !VERBS.contains(t) && !own.contains(*t))
        .collect();
    if kept.is_empty() {
        all.join("_")
    } else {
        kept.join("_")
    }
}

/// `mode` when the names share a reading verb (`message_*_read`), else `action`; the next of
/// `action`, `mode`, `operation`, `op` when that one is a field of the merged tool (`taken`).
pub fn selector_name(names: &[&str], taken: &dyn Fn(&str) -> bool) -> &'static str {
    let (prefix, suffix) = common_affixes(names);
    let first = if prefix
        .iter()
        .chain(&suffix)
        .any(|t| READ_VERBS.contains(&t.as_str()))
    {
        "mode"
    } else {
        "action"
    };
    std::iter::once(first)
        .chain(["action", "mode", "operation", "op"])
        .find(|s| !taken(s))
        .unwrap_or(first)
}

/// Words of a text for overlap measures: lowercase alphanumeric runs of 3+ characters,
/// template syntax skipped.
pub fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|w| w.len() >= 3)
        .map(str::to_ascii_lowercase)
        .filter(|w| !matches!(w.as_str(), "the" | "and" | "for" | "tool" | "with"))
        .collect()
}

/// |a ∩ b| / |a ∪ b| (0 for two empty sets).
pub fn jaccard<T: Ord>(a: &BTreeSet<T>, b: &BTreeSet<T>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

/// Name closeness: Jaro-Winkler of the whole names, or the share of name tokens in common.
pub fn name_similarity(a: &str, b: &str) -> f64 {
    let ta: BTreeSet<String> = tokens(a).into_iter().collect();
    let tb: BTreeSet<String> = tokens(b).into_iter().collect();
    strsim::jaro_winkler(a, b).max(jaccard(&ta, &tb))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn shell_group_names() {
        let names = [
            "shell_poll",
            "shell_wait",
            "shell_kill",
            "shell_list",
            "shell_resize",
            "shell_watch_remove",
        ];
        let taken = |n: &str| n == "shell";
        assert_eq!(
            merged_tool_name(&names, "shell session", &taken),
            "shell_session"
        );
        assert_eq!(
            action_names(&names),
            ["poll", "wait", "kill", "list", "resize", "watch_remove"]
        );
        assert_eq!(selector_name(&names, &|_| false), "action");
        assert_eq!(selector_name(&names, &|f| f == "action"), "mode");
    }

    #[test]
    fn message_group_names() {
        let names = [
            "message_history_read",
            "message_context_read",
            "message_payload_read",
        ];
        assert_eq!(
            merged_tool_name(&names, "messages", &|_| false),
            "message_read"
        );
        assert_eq!(action_names(&names), ["history", "context", "payload"]);
        assert_eq!(selector_name(&names, &|_| false), "mode");
    }

    #[test]
    fn values_for_an_existing_tool() {
        assert_eq!(value_name("llm_config_inspect", "introspect"), "llm_config");
        assert_eq!(value_name("list_models", "introspect"), "models");
        assert_eq!(value_name("get", "introspect"), "get");
    }

    #[test]
    fn affixes_leave_every_name_a_token() {
        let none: Vec<String> = Vec::new();
        assert_eq!(
            common_affixes(&["a_b", "a_b_c"]),
            (vec!["a".to_owned()], none.clone())
        );
        assert_eq!(common_affixes(&["x", "x_y"]), (none.clone(), none));
    }

    #[test]
    fn names_of_every_spelling_have_snake_words() {
        assert_eq!(tokens("shell_watch_remove"), ["shell", "watch", "remove"]);
        assert_eq!(tokens("getIssue"), ["get", "issue"]);
        assert_eq!(tokens("search-issues"), ["search", "issues"]);
        assert_eq!(tokens("getHTTPStatus"), ["get", "http", "status"]);
        assert_eq!(tokens("v2Api__x"), ["v2", "api", "x"]);
        let names = ["listIssues", "search-issues", "create_issues"];
        assert_eq!(action_names(&names), ["list", "search", "create"]);
        assert_eq!(merged_tool_name(&names, "issue", &|_| false), "issues");
        assert_eq!(value_name("getIt", "introspect"), "it");
        assert_eq!(value_name("getIntrospect", "introspect"), "get_introspect");
    }
}
