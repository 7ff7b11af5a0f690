//! A family's skill and caching keys of surface.yaml (`skills: defer | allow_list | append`,
//! `cache_control: 5m | 1h`): read, and refused where the family's dialect cannot carry
//! them out; and the per-surface invariants of deferral (OpenAI refuses deferred tools
//! without `tool_search`; the activation tool is never deferred). Kept apart from the other
//! family keys because the rule ("which dialect can do what") is the whole point.

use crate::diag::Diagnostic;
use crate::dialect::{self, Dialect};
use crate::ir::{CacheTtl, Ir, SkillStrategy};
use crate::load::read::{self, Diags, Struct};

/// The tool that activates skills (declared once, [`crate::ir::ACTIVATE_SKILL_TOOL`]): on an
/// openai-responses family with `skills: defer` it is published as the client `tool_search`.
pub use crate::ir::ACTIVATE_SKILL_TOOL as ACTIVATE_SKILL;

/// The family's `cache_control:` (anthropic only): `5m` or `1h`.
pub fn read_cache_control(
    f: &Struct<'_>,
    dialect: Option<Dialect>,
    d: &mut Diags,
) -> Option<CacheTtl> {
    let node = f.get("cache_control")?;
    if dialect.is_some_and(|x| !dialect::rules(x).has_cache_control()) {
        d.push(
            Diagnostic::error(
                "misplaced-key",
                f.key_span("cache_control"),
                format!(
                    "`cache_control` applies only to the {} dialect",
                    dialect::names_where(|r| r.has_cache_control())
                ),
            )
            .with_hint(
                "OpenAI and Gemini have no cache breakpoint on tools; their caching is by prefix",
            ),
        );
        return None;
    }
    let word = read::string(node, "cache_control", d)?;
    let ttl = CacheTtl::parse(&word.v);
    if ttl.is_none() {
        d.push(
            Diagnostic::error(
                "bad-cache-control",
                Some(word.span),
                format!("`cache_control: {}` is neither 5m nor 1h", word.v),
            )
            .with_hint("the breakpoint's lifetime: `cache_control: 5m` or `cache_control: 1h`"),
        );
    }
    ttl
}

/// Per role × family: a responses family that defers skill tools must publish the
/// activation tool (it becomes `tool_search`; OpenAI answers 400 to deferred tools without
/// one), and no skill may hold the activation tool itself (it would be deferred behind
/// itself).
pub fn check_deferral(ir: &Ir, d: &mut Diags) {
    for skill in &ir.skills {
        if skill.tools.iter().any(|t| t == ACTIVATE_SKILL) {
            d.push(
                Diagnostic::error(
                    "deferred-activation",
                    Some(skill.span),
                    format!(
                        "skill `{}` holds `{ACTIVATE_SKILL}`, the tool that activates skills",
                        skill.name
                    ),
                )
                .with_hint(format!(
                    "`{ACTIVATE_SKILL}` is never deferred: list it in the role's resident tools"
                )),
            );
        }
    }
    for s in &ir.surfaces {
        let Some(family) = ir.family(&s.family) else {
            continue;
        };
        if !dialect::rules(family.dialect).has_tool_search()
            || family.skills != SkillStrategy::Defer
        {
            continue;
        }
        let defers = s.skills.iter().any(|k| !k.tools.is_empty());
        let searches = s.tools.iter().any(|t| t.name == ACTIVATE_SKILL);
        if defers && !searches {
            let span = ir.role(&s.role).map(|r| r.span);
            d.push(
                Diagnostic::error(
                    "deferred-without-search",
                    span,
                    format!(
                        "role `{}` defers skill tools on family `{}` but publishes no `{ACTIVATE_SKILL}`, \
                         which openai-responses publishes as its `tool_search` tool",
                        s.role, s.family
                    ),
                )
                .with_hint(format!(
                    "OpenAI refuses deferred tools without tool_search; add `{ACTIVATE_SKILL}` to the \
                     role's tools, or give the family `skills: allow_list`"
                )),
            );
        }
    }
}

/// The family's `skills:` (default: [`dialect::default_skills`] of its dialect). A strategy
/// the dialect cannot do is reported at the value and the default is kept.
pub fn read_skill_strategy(
    f: &Struct<'_>,
    family: &str,
    dialect: Option<Dialect>,
    d: &mut Diags,
) -> SkillStrategy {
    let default = dialect
        .map(dialect::default_skills)
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
    let rules = dialect::rules(dialect);
    let supported = rules.supported_skills();
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
            rules.why_unsupported(strategy),
            words.join(" or ")
        )),
    );
    default
}
