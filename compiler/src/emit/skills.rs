//! What a skill strategy changes in the published tool JSON, whatever the dialect:
//! `defer_loading: true` on deferred skill tools, then what the dialect adds for a tool's
//! placement (`DialectRules::placed`: the Anthropic breakpoint, MCP `_meta` naming a skill
//! tool's skill), and when `activate_skill` is published as the dialect's client
//! `tool_search` tool under `skills: defer`. The strategies themselves are documented in
//! `docs/published-bytes.md`, "Skills".

use crate::dialect::{self, DialectRules};
use crate::ir::{Family, SkillStrategy};
use crate::load::strategy::ACTIVATE_SKILL;

use super::json::Json;

/// Where a tool sits in a surface's array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Placement<'a> {
    /// A resident tool; `last` is the last one (where the Anthropic breakpoint goes).
    Resident { last: bool },
    /// A tool of the named skill.
    Skill(&'a str),
}

/// The keys the strategy adds to one tool's JSON in `rules`' dialect, appended after the
/// dialect's own keys (the key order of `docs/published-bytes.md`).
pub(crate) fn decorate(
    json: Json,
    family: &Family,
    rules: &dyn DialectRules,
    strategy: SkillStrategy,
    placement: Placement<'_>,
) -> Json {
    if dialect::defers(rules, strategy, placement) {
        json.with("defer_loading", Json::Bool(true))
    } else {
        rules.placed(json, family, placement)
    }
}

/// Whether `tool` is published as the client `tool_search` tool on this surface: it is
/// `activate_skill`, the dialect has a client tool search, the strategy is `defer`, and some
/// offered skill has tools here (else nothing is deferred and it stays a function).
pub(crate) fn is_search_tool(
    tool: &str,
    rules: &dyn DialectRules,
    strategy: SkillStrategy,
    deferred_skills: &[&str],
) -> bool {
    tool == ACTIVATE_SKILL
        && rules.has_tool_search()
        && strategy == SkillStrategy::Defer
        && !deferred_skills.is_empty()
}
