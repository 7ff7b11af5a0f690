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

use crate::ir::{Dialect, SkillStrategy};

use super::{EmitError, Emitted, EmittedTool};

/// The kind of turn a request belongs to. Heartbeat and scheduled turns of the runtime use
/// the normal fragment: only rehearsal restricts what may be called.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TurnKind {
    Normal,
    /// Only tools whose every action is `read_only` are allowed.
    Rehearsal,
}

impl TurnKind {
    pub const ALL: [TurnKind; 2] = [TurnKind::Normal, TurnKind::Rehearsal];

    pub fn as_str(self) -> &'static str {
        match self {
            TurnKind::Normal => "normal",
            TurnKind::Rehearsal => "rehearsal",
        }
    }

    pub fn parse(s: &str) -> Option<TurnKind> {
        TurnKind::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

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

impl Restriction {
    /// The member for the active skills: resident entries, then each active skill's in role
    /// order (whatever the activation order, so the bytes depend on the set only), each once.
    fn member(&self, active: &[&str]) -> String {
        let mut entries: Vec<&str> = self.resident.iter().map(String::as_str).collect();
        for (skill, tools) in &self.skills {
            if active.contains(&skill.as_str()) {
                for e in tools {
                    if !entries.contains(&e.as_str()) {
                        entries.push(e);
                    }
                }
            }
        }
        if entries.is_empty() {
            return self.none.to_owned();
        }
        format!("{}{}{}", self.open, entries.join(","), self.close)
    }
}

impl RequestParts {
    /// The fragment: `open` + `tools` + `close_tools` + the restriction for `active` + `tail`.
    pub fn assemble(&self, tools: &str, active: &[&str]) -> String {
        let restriction = self
            .restriction
            .as_ref()
            .map(|r| r.member(active))
            .unwrap_or_default();
        format!(
            "{}{tools}{}{restriction}{}",
            self.open, self.close_tools, self.tail
        )
    }

    /// Every field but `tools`, as its own JSON object (`{}` when there is none): what the
    /// lock records per turn kind and activation, the part that may vary.
    pub fn controls(&self, active: &[&str]) -> String {
        let restriction = self
            .restriction
            .as_ref()
            .map(|r| r.member(active))
            .unwrap_or_default();
        let rest = format!("{restriction}{}", self.tail);
        match rest.strip_prefix(',') {
            Some(inner) => format!("{{{inner}"),
            None => format!("{{{rest}"),
        }
    }
}

/// Whether `dialect` restricts the callable tools in `turn` under `strategy`: rehearsal
/// always where the dialect can; a normal turn only under `allow_list` with skills on offer.
fn restricts(dialect: Dialect, strategy: SkillStrategy, turn: TurnKind, has_skills: bool) -> bool {
    match dialect {
        Dialect::Anthropic | Dialect::Mcp => false,
        Dialect::OpenaiChat | Dialect::OpenaiResponses | Dialect::Gemini => match turn {
            TurnKind::Rehearsal => true,
            TurnKind::Normal => strategy == SkillStrategy::AllowList && has_skills,
        },
    }
}

/// The dialect's allowed-tools member around the entries: (open, close, none).
fn restriction_shape(dialect: Dialect) -> (&'static str, &'static str, &'static str) {
    match dialect {
        Dialect::OpenaiChat => (
            r#","tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":["#,
            "]}}",
            r#","tool_choice":"none""#,
        ),
        Dialect::OpenaiResponses => (
            r#","tool_choice":{"type":"allowed_tools","mode":"auto","tools":["#,
            "]}",
            r#","tool_choice":"none""#,
        ),
        // VALIDATED: text or a call, calls limited to the names (ANY would force a call).
        Dialect::Gemini => (
            r#","toolConfig":{"functionCallingConfig":{"mode":"VALIDATED","allowedFunctionNames":["#,
            "]}}",
            r#","toolConfig":{"functionCallingConfig":{"mode":"NONE"}}"#,
        ),
        Dialect::Anthropic | Dialect::Mcp => ("", "", ""),
    }
}

impl Emitted {
    /// The static pieces of the fragment for `turn`.
    pub fn request_parts(&self, turn: TurnKind) -> RequestParts {
        let (open, close_tools) = match self.dialect {
            Dialect::Gemini => (r#"{"tools":[{"functionDeclarations":"#, "}]"),
            _ => (r#"{"tools":"#, ""),
        };
        let tail = match self.dialect {
            Dialect::OpenaiChat | Dialect::OpenaiResponses => r#","parallel_tool_calls":true}"#,
            _ => "}",
        };
        let has_skills = self.skills.iter().any(|s| !s.tools.is_empty());
        let allowed = |tools: &[EmittedTool]| -> Vec<String> {
            tools
                .iter()
                .filter(|t| turn != TurnKind::Rehearsal || t.read_only)
                .filter_map(|t| t.allowed_entry.clone())
                .collect()
        };
        let restriction =
            restricts(self.dialect, self.skill_strategy, turn, has_skills).then(|| {
                let (open, close, none) = restriction_shape(self.dialect);
                Restriction {
                    open,
                    close,
                    none,
                    resident: allowed(&self.tools),
                    skills: self
                        .skills
                        .iter()
                        .map(|s| (s.name.clone(), allowed(&s.tools)))
                        .collect(),
                }
            });
        RequestParts {
            open,
            close_tools,
            restriction,
            tail,
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

/// What a provider would refuse, asserted on every emitted surface: a Responses array with a
/// deferred tool has exactly one `tool_search` tool, resident (never deferred itself).
pub(crate) fn check_invariants(e: &Emitted) -> Result<(), EmitError> {
    if e.dialect != Dialect::OpenaiResponses {
        return Ok(());
    }
    let is_search = |t: &EmittedTool| t.json.starts_with(r#"{"type":"tool_search""#);
    let is_deferred = |t: &EmittedTool| t.json.ends_with(r#","defer_loading":true}"#);
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
