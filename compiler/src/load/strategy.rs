//! A family's skill keys of surface.yaml (`skills: defer | allow_list | append`): read, and
//! refused where the family's dialect cannot carry the strategy out. Kept apart from the
//! other family keys because the rule ("which dialect can do what") is the whole point.

use crate::diag::Diagnostic;
use crate::ir::{Dialect, SkillStrategy};
use crate::load::read::{self, Diags, Struct};

/// The family's `skills:` (default: [`SkillStrategy::default_for`] its dialect). A strategy
/// the dialect cannot do is reported at the value and the default is kept.
pub fn read_skill_strategy(
    f: &Struct<'_>,
    family: &str,
    dialect: Option<Dialect>,
    d: &mut Diags,
) -> SkillStrategy {
    let default = dialect
        .map(SkillStrategy::default_for)
        .unwrap_or(SkillStrategy::Append);
    let Some(word) = f.get("skills").and_then(|n| read::string(n, "skills", d)) else {
        return default;
    };
    let names = SkillStrategy::ALL.map(SkillStrategy::as_str);
    let Some(strategy) = SkillStrategy::parse(&word.v) else {
        let hint = crate::diag::did_you_mean(&word.v, names)
            .unwrap_or_else(|| format!("skill strategies: {}", names.join(", ")));
        d.push(
            Diagnostic::error(
                "unknown-skill-strategy",
                Some(word.span),
                format!("unknown skill strategy `{}`", word.v),
            )
            .with_hint(hint),
        );
        return default;
    };
    let Some(dialect) = dialect else {
        return strategy;
    };
    let supported = SkillStrategy::supported_by(dialect);
    if supported.contains(&strategy) {
        return strategy;
    }
    let words: Vec<&str> = supported.iter().map(|s| s.as_str()).collect();
    d.push(
        Diagnostic::error(
            "unsupported-skill-strategy",
            Some(word.span),
            format!(
                "family `{family}`: the {} dialect cannot do `skills: {}`",
                dialect.as_str(),
                strategy.as_str()
            ),
        )
        .with_hint(format!(
            "{}; it can do {}",
            why_unsupported(dialect, strategy),
            words.join(" or ")
        )),
    );
    default
}

/// The one-line reason a dialect lacks a strategy (the diagnostic's hint).
fn why_unsupported(dialect: Dialect, strategy: SkillStrategy) -> &'static str {
    match (dialect, strategy) {
        (Dialect::Anthropic, SkillStrategy::AllowList) => {
            "Anthropic's tool_choice has no allowed-tools subset"
        }
        (Dialect::OpenaiChat, SkillStrategy::Defer) => {
            "Chat Completions has no deferred loading (defer_loading is a Responses key)"
        }
        (Dialect::Gemini, SkillStrategy::Defer) => "Gemini has no deferred loading or tool search",
        (Dialect::Mcp, SkillStrategy::Defer) => {
            "MCP lists tools; deferral is the client's business"
        }
        _ => "not supported",
    }
}
