//! The lock's record of a surface's skill strategy and request fragments:
//!
//! ```text
//!   strategy defer
//!   request normal 0123456789abcdef {"parallel_tool_calls":true}
//!   request normal+sqlite 89abcdef01234567 {"parallel_tool_calls":true}
//!   request rehearsal fedcba9876543210 {"tool_choice":{…},"parallel_tool_calls":true}
//! ```
//!
//! One `request` line per turn kind with no skill active and with each offered skill active
//! alone: the first 16 hex digits of the whole fragment's sha256, then the fragment without
//! its `tools` member (the small part that varies; the tools are the surface's own bytes).
//! A lock written before strategies existed has no `strategy` line: its surfaces appended.
//! Kept apart from the rest of the lock so the other per-surface records merge cleanly.

use crate::emit::Emitted;
use crate::emit::request::TurnKind;
use crate::emit::sha256_hex;
use crate::ir::SkillStrategy;

use super::{KEY_LEN, LockError, LockedSurface, err, key};

/// One turn kind × activation of a surface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockedRequest {
    pub turn: TurnKind,
    /// The active skill, if any.
    pub skill: Option<String>,
    /// The first 16 hex digits of the whole fragment's sha256 (what the lock keeps).
    pub sha256: String,
    /// The fragment without `tools` (`Emitted::request_controls`).
    pub controls: String,
}

impl LockedRequest {
    /// `normal`, `rehearsal+sqlite`.
    pub fn label(&self) -> String {
        match &self.skill {
            None => self.turn.as_str().to_owned(),
            Some(s) => format!("{}+{s}", self.turn.as_str()),
        }
    }
}

/// The strategy a lock line names (`append` for a lock without one).
pub fn parse_strategy(word: &str, line: usize) -> Result<SkillStrategy, LockError> {
    SkillStrategy::parse(word).ok_or_else(|| err(line, format!("unknown skill strategy `{word}`")))
}

/// Every request the lock records for `e`: each turn kind with no skill, then with each
/// offered skill alone.
pub fn requests_of(e: &Emitted) -> Vec<LockedRequest> {
    let mut out = Vec::new();
    let mut activations: Vec<Option<&str>> = vec![None];
    activations.extend(e.skills.iter().map(|s| Some(s.name.as_str())));
    for turn in TurnKind::FRAGMENTS {
        for skill in &activations {
            let active: Vec<&str> = skill.iter().copied().collect();
            // The skills are the surface's own: neither call can fail.
            let (Ok(fragment), Ok(controls)) =
                (e.request(turn, &active), e.request_controls(turn, &active))
            else {
                continue;
            };
            out.push(LockedRequest {
                turn,
                skill: skill.map(str::to_owned),
                sha256: key(&sha256_hex(fragment.as_bytes())).to_owned(),
                controls,
            });
        }
    }
    out
}

/// The surface's `strategy` and `request` lines.
pub fn render(s: &LockedSurface, out: &mut String) {
    use std::fmt::Write as _;
    let _ = writeln!(out, "  strategy {}", s.strategy.as_str());
    for r in &s.requests {
        let _ = writeln!(
            out,
            "  request {} {} {}",
            r.label(),
            key(&r.sha256),
            r.controls
        );
    }
}

/// A `request <label> <sha16> <controls>` line (the sha is kept as the prefix it is).
pub fn parse_request(inner: &str, line: usize) -> Result<LockedRequest, LockError> {
    let bad = || err(line, "malformed `request` line");
    let (words, controls) = super::split(inner, 3).ok_or_else(bad)?;
    let (turn, skill) = match words[1].split_once('+') {
        Some((t, s)) => (t, Some(s.to_owned())),
        None => (words[1], None),
    };
    let turn =
        TurnKind::parse(turn).ok_or_else(|| err(line, format!("unknown turn kind `{turn}`")))?;
    let sha = words[2];
    if sha.len() != KEY_LEN || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(bad());
    }
    serde_json::from_str::<serde_json::Value>(controls)
        .map_err(|e| err(line, format!("request controls: {e}")))?;
    Ok(LockedRequest {
        turn,
        skill,
        sha256: sha.to_owned(),
        controls: controls.to_owned(),
    })
}

/// Whether two locks record the same strategies and request fragments, surface by surface.
pub fn same_requests(a: &super::Lock, b: &super::Lock) -> bool {
    type Key<'a> = (SkillStrategy, Vec<(String, &'a str, &'a str)>);
    fn keys(l: &super::Lock) -> Vec<Key<'_>> {
        l.surfaces
            .iter()
            .map(|s| {
                let requests = s
                    .requests
                    .iter()
                    .map(|r| (r.label(), key(&r.sha256), r.controls.as_str()))
                    .collect();
                (s.strategy, requests)
            })
            .collect()
    }
    keys(a) == keys(b)
}
