//! Whether each turn kind and each skill activation keeps the cached prefix: for every
//! request a surface's lock records (`normal`, `rehearsal`, each with each offered skill
//! active), are the `tools` bytes those of the normal turn with no skill, and — on an
//! Anthropic array with a `cache_control` breakpoint — is everything up to the breakpoint
//! unchanged? The tools of a request are rebuilt from the lock and checked against the
//! fragment hash it records, so the verdict is about the bytes the lock pins.

use crate::emit::sha256_hex;
use crate::lock::{LockedRequest, LockedSurface};

/// The verdict for one request of one surface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrefixKept {
    /// `normal`, `rehearsal+sqlite`, …
    pub label: String,
    /// The `tools` bytes equal the normal turn's with no skill active.
    pub tools_identical: bool,
    /// `Some(kept)` when the array carries an Anthropic breakpoint: whether the bytes up to
    /// and including the breakpoint's tool are unchanged.
    pub breakpoint_kept: Option<bool>,
    /// The rebuilt fragment hashes to what the lock records.
    pub verified: bool,
}

/// One surface's verdicts, in the lock's request order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SurfacePrefixes {
    pub role: String,
    pub family: String,
    pub strategy: String,
    pub requests: Vec<PrefixKept>,
}

impl SurfacePrefixes {
    /// Every request keeps the tools (and the breakpoint, where there is one).
    pub fn all_kept(&self) -> bool {
        self.requests
            .iter()
            .all(|r| r.tools_identical && r.breakpoint_kept != Some(false))
    }
}

/// The verdicts for `s` (empty for a lock without request records).
pub fn prefixes(s: &LockedSurface) -> SurfacePrefixes {
    let base = s.array();
    let breakpoint = breakpoint_prefix(s);
    let requests = s
        .requests
        .iter()
        .map(|r| {
            let active: Vec<&str> = r.skill.iter().map(String::as_str).collect();
            let tools = s.array_with(&active).unwrap_or_default();
            PrefixKept {
                label: r.label(),
                tools_identical: tools == base,
                breakpoint_kept: breakpoint.as_ref().map(|p| tools.starts_with(p.as_str())),
                verified: rebuilt_matches(s, r, &tools),
            }
        })
        .collect();
    SurfacePrefixes {
        role: s.role.clone(),
        family: s.family.clone(),
        strategy: s.strategy.as_str().to_owned(),
        requests,
    }
}

/// `[` + the tools up to and including the one carrying the breakpoint (the lock's typed
/// fact), when one does.
fn breakpoint_prefix(s: &LockedSurface) -> Option<String> {
    let at = s.tools.iter().position(|t| t.breakpoint)?;
    let body: Vec<&str> = s.tools[..=at].iter().map(|t| t.json.as_str()).collect();
    Some(format!("[{}", body.join(",")))
}

/// The fragment rebuilt from `tools` and the recorded controls hashes to the recorded sha.
fn rebuilt_matches(s: &LockedSurface, r: &LockedRequest, tools: &str) -> bool {
    let shape = crate::ir::Dialect::parse(&s.dialect).map_or(crate::dialect::PLAIN_REQUEST, |d| {
        crate::dialect::rules(d).request_shape()
    });
    let rest = r.controls.strip_prefix('{').unwrap_or(&r.controls);
    let fragment = match rest {
        "}" => format!("{}{tools}{}}}", shape.open, shape.close_tools),
        _ => format!("{}{tools}{},{rest}", shape.open, shape.close_tools),
    };
    sha256_hex(fragment.as_bytes()).starts_with(&r.sha256)
}
