//! Request fragments: every request field the surface owns, per role × family × turn kind,
//! as one JSON object — `tools`, and where the dialect has them the per-turn restriction
//! (Chat/Responses `tool_choice` allowed tools, Gemini `toolConfig`) and
//! `parallel_tool_calls`. The `tools` bytes are the same for every turn kind and, under
//! `defer` and `allow_list`, for every skill activation; only the small restriction part
//! varies. Shapes and the reasons behind them: `docs/published-bytes.md`, "Request
//! fragments".
//!
//! Anthropic has no allowed-tools mechanism: its fragment is `tools` alone, rehearsal turns
//! included, and only the runtime refuses a call a rehearsal (or an inactive skill) does not
//! allow. MCP has no request: its fragment is the `tools/list` array.

use crate::dialect::{self, DialectRules};
use crate::ir::SkillStrategy;

use super::{EmitError, Emitted, EmittedTool};

/// The kind of turn a request belongs to (the shared vocabulary): only rehearsal turns have
/// a fragment of their own ([`TurnKind::FRAGMENTS`]).
pub use toolsurface_kernel::vocab::TurnKind;

/// The static pieces of one (role, family, turn kind) fragment; [`RequestParts::assemble`]
/// joins them with the tools array and the active skills. Generated code embeds them so a
/// host does no per-request work beyond joining a few strings when a skill is active.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestParts {
    /// `{"tools":` (Gemini `{"tools":[{"functionDeclarations":`).
    pub open: &'static str,
    /// What closes the tools member: empty (Gemini `}]`).
    pub close_tools: &'static str,
    pub restriction: Option<Restriction>,
    /// The fields after the restriction and the closing brace: `,"parallel_tool_calls":true}`
    /// for Chat and Responses, `}` elsewhere.
    pub tail: &'static str,
}

/// The dialect's allowed-tools member for one turn kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Restriction {
    /// Up to the first entry, leading comma included.
    pub open: &'static str,
    /// After the last entry.
    pub close: &'static str,
    /// The member when nothing at all is allowed (leading comma included).
    pub none: &'static str,
    /// Entries of the resident tools allowed in this turn kind, published order.
    pub resident: Vec<String>,
    /// Per offered skill (role order), the entries of its tools allowed in this turn kind.
    pub skills: Vec<(String, Vec<String>)>,
}

impl RequestParts {
    /// The kernel's view of these parts, handed to `f` (the one join, shared with the
    /// generated `request_fragment`).
    fn with_view<R>(
        &self,
        f: impl FnOnce(&toolsurface_kernel::publish::RequestParts<'_>) -> R,
    ) -> R {
        let restriction = self.restriction.as_ref();
        let resident: Vec<&str> = restriction.map_or_else(Vec::new, |r| {
            r.resident.iter().map(String::as_str).collect()
        });
        let entries: Vec<(&str, Vec<&str>)> = restriction.map_or_else(Vec::new, |r| {
            r.skills
                .iter()
                .map(|(s, e)| (s.as_str(), e.iter().map(String::as_str).collect()))
                .collect()
        });
        let skills: Vec<(&str, &[&str])> =
            entries.iter().map(|(s, e)| (*s, e.as_slice())).collect();
        let view = toolsurface_kernel::publish::RequestParts {
            open: self.open,
            close_tools: self.close_tools,
            restriction: restriction.map(|r| toolsurface_kernel::publish::Restriction {
                open: r.open,
                close: r.close,
                none: r.none,
                resident: &resident,
                skills: &skills,
            }),
            tail: self.tail,
        };
        f(&view)
    }

    /// The fragment: `open` + `tools` + `close_tools` + the restriction for `active` + `tail`.
    pub fn assemble(&self, tools: &str, active: &[&str]) -> String {
        self.with_view(|v| v.assemble(tools, active))
    }

    /// Every field but `tools`, as its own JSON object (`{}` when there is none): what the
    /// lock records per turn kind and activation, the part that may vary.
    pub fn controls(&self, active: &[&str]) -> String {
        self.with_view(|v| v.controls(active))
    }
}

/// Whether a dialect with a restriction restricts the callable tools in `turn` under
/// `strategy`: rehearsal always; a normal turn only under `allow_list` with skills on offer.
fn restricts(strategy: SkillStrategy, turn: TurnKind, has_skills: bool) -> bool {
    turn.fragment() == TurnKind::Rehearsal || strategy == SkillStrategy::AllowList && has_skills
}

impl Emitted {
    /// The static pieces of the fragment for `turn`.
    pub fn request_parts(&self, turn: TurnKind) -> RequestParts {
        self.request_parts_in(dialect::rules(self.dialect), turn)
    }

    /// [`Emitted::request_parts`] in `rules`' request shape.
    pub(crate) fn request_parts_in(
        &self,
        rules: &dyn DialectRules,
        turn: TurnKind,
    ) -> RequestParts {
        let turn = turn.fragment();
        let shape = rules.request_shape();
        let has_skills = self.skills.iter().any(|s| !s.tools.is_empty());
        let allowed = |tools: &[EmittedTool]| -> Vec<String> {
            tools
                .iter()
                .filter(|t| turn != TurnKind::Rehearsal || t.read_only)
                .filter_map(|t| t.allowed_entry.clone())
                .collect()
        };
        let restriction = shape
            .restriction
            .filter(|_| restricts(self.skill_strategy, turn, has_skills))
            .map(|r| Restriction {
                open: r.open,
                close: r.close,
                none: r.none,
                resident: allowed(&self.tools),
                skills: self
                    .skills
                    .iter()
                    .map(|s| (s.name.clone(), allowed(&s.tools)))
                    .collect(),
            });
        RequestParts {
            open: shape.open,
            close_tools: shape.close_tools,
            restriction,
            tail: shape.tail,
        }
    }

    /// The fragment for `turn` with `active` skills (any order; each must be offered).
    pub fn request(&self, turn: TurnKind, active: &[&str]) -> Result<String, EmitError> {
        let tools = self.with_skills(active)?;
        Ok(self.request_parts(turn).assemble(&tools, active))
    }

    /// [`RequestParts::controls`] for `turn` with `active` skills.
    pub fn request_controls(&self, turn: TurnKind, active: &[&str]) -> Result<String, EmitError> {
        for s in active {
            self.known_skill(s)?;
        }
        Ok(self.request_parts(turn).controls(active))
    }
}

/// What a provider would refuse, asserted on every emitted surface: in a dialect with a
/// client tool search (Responses), an array with a deferred tool has exactly one
/// `tool_search` tool, resident (never deferred itself).
pub(crate) fn check_invariants(e: &Emitted, rules: &dyn DialectRules) -> Result<(), EmitError> {
    if !rules.has_tool_search() {
        return Ok(());
    }
    let is_search = |t: &EmittedTool| t.kind == super::ToolKind::ToolSearch;
    let is_deferred = |t: &EmittedTool| t.deferred;
    let published = e.published_tools();
    let deferred = published.iter().filter(|t| is_deferred(t)).count();
    let searches = e.tools.iter().filter(|t| is_search(t)).count();
    let deferred_search = published.iter().any(|t| is_search(t) && is_deferred(t))
        || e.skills.iter().flat_map(|s| &s.tools).any(is_search);
    if deferred_search {
        return Err(EmitError::SearchToolDeferred {
            role: e.role.clone(),
            family: e.family.clone(),
        });
    }
    if deferred > 0 && searches != 1 {
        return Err(EmitError::DeferredWithoutSearch {
            role: e.role.clone(),
            family: e.family.clone(),
        });
    }
    Ok(())
}
