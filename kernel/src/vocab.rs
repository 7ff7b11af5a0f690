//! The vocabulary compiler, generated code and runtime share, declared once: provider
//! dialects, skill strategies, routes, turn kinds and the sandbox's profiles and device
//! rights. Each word is the one the definitions (`surface.yaml`, `roles.yaml`) and the lock
//! use.

use serde::{Deserialize, Serialize};

/// A provider's way of publishing tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dialect {
    OpenaiChat,
    OpenaiResponses,
    Anthropic,
    Gemini,
    Mcp,
}

impl Dialect {
    pub const ALL: [Dialect; 5] = [
        Dialect::OpenaiChat,
        Dialect::OpenaiResponses,
        Dialect::Anthropic,
        Dialect::Gemini,
        Dialect::Mcp,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            Dialect::OpenaiChat => "openai-chat",
            Dialect::OpenaiResponses => "openai-responses",
            Dialect::Anthropic => "anthropic",
            Dialect::Gemini => "gemini",
            Dialect::Mcp => "mcp",
        }
    }

    pub fn parse(s: &str) -> Option<Dialect> {
        Dialect::ALL.into_iter().find(|d| d.as_str() == s)
    }
}

/// How a family publishes the tools of the skills a role offers, and what activating one
/// changes (`docs/published-bytes.md`, "Skills"). The first two keep the `tools` bytes — the
/// start of every provider's prompt-cache prefix — identical before and after activation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SkillStrategy {
    /// Skill tools are in `tools` from the start, marked `defer_loading: true`; activation
    /// loads them through the conversation (Anthropic `tool_reference` blocks, Responses
    /// `tool_search_output`).
    Defer,
    /// Every offered skill tool is in `tools` from the start; each request restricts the
    /// callable ones (Chat/Responses `allowed_tools`, Gemini `allowedFunctionNames`; MCP:
    /// listed from the start, refused by the runtime until activated).
    AllowList,
    /// Activation appends the skill's tools to `tools` (changes the cached prefix).
    Append,
}

impl SkillStrategy {
    pub const ALL: [SkillStrategy; 3] = [
        SkillStrategy::Defer,
        SkillStrategy::AllowList,
        SkillStrategy::Append,
    ];

    /// The word `surface.yaml` uses (`defer`, `allow_list`, `append`).
    pub const fn as_str(self) -> &'static str {
        match self {
            SkillStrategy::Defer => "defer",
            SkillStrategy::AllowList => "allow_list",
            SkillStrategy::Append => "append",
        }
    }

    pub fn parse(s: &str) -> Option<SkillStrategy> {
        SkillStrategy::ALL.into_iter().find(|x| x.as_str() == s)
    }

    /// Whether activation leaves the published tool array byte-identical.
    pub const fn keeps_tools_stable(self) -> bool {
        !matches!(self, SkillStrategy::Append)
    }
}

/// Where a call runs (tool-level `route` in the definitions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Route {
    /// The host the thread is bound to.
    #[default]
    ThreadHost,
    /// The host owning the session the call names.
    SessionHost,
    /// The runtime's own process.
    Local,
}

impl Route {
    pub const fn as_str(self) -> &'static str {
        match self {
            Route::ThreadHost => "thread_host",
            Route::SessionHost => "session_host",
            Route::Local => "local",
        }
    }
}

/// Why a turn happens. Only [`TurnKind::Rehearsal`] changes what may be called (and so the
/// request fragment); no kind changes the tool array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TurnKind {
    /// A user message.
    Normal,
    /// A dry run: only read-only actions execute, and only tools whose every action is
    /// read-only are allowed.
    Rehearsal,
    /// A periodic check-in (the normal fragment).
    Heartbeat,
    /// A scheduled task or a wake-up (the normal fragment).
    Scheduled,
}

impl TurnKind {
    pub const ALL: [TurnKind; 4] = [
        TurnKind::Normal,
        TurnKind::Rehearsal,
        TurnKind::Heartbeat,
        TurnKind::Scheduled,
    ];

    /// The turn kinds whose request fragments differ, one per fragment: what the lock records
    /// and the generated `request_fragment` has statics for.
    pub const FRAGMENTS: [TurnKind; 2] = [TurnKind::Normal, TurnKind::Rehearsal];

    pub const fn as_str(self) -> &'static str {
        match self {
            TurnKind::Normal => "normal",
            TurnKind::Rehearsal => "rehearsal",
            TurnKind::Heartbeat => "heartbeat",
            TurnKind::Scheduled => "scheduled",
        }
    }

    pub fn parse(s: &str) -> Option<TurnKind> {
        TurnKind::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// The kind whose fragment this turn sends (heartbeat and scheduled turns send the normal
    /// one).
    pub const fn fragment(self) -> TurnKind {
        match self {
            TurnKind::Rehearsal => TurnKind::Rehearsal,
            TurnKind::Normal | TurnKind::Heartbeat | TurnKind::Scheduled => TurnKind::Normal,
        }
    }
}

/// How much a role may write, least first (the runtime's `sandbox::Profile`).
// Also `sandbox: profile:` of roles.yaml, the lock's `sandbox` lines and the host config's
// `ceiling`. The doc comments of these two enums are the plan schema's descriptions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum SandboxProfile {
    // Variant notes are plain comments: a doc comment would change the plan's schema.
    // Nothing but the conversation's private temp dir (the shell's scratch space); the file
    // tools write nothing.
    ReadOnly,
    // The host root, the declared workdirs, the temp dir and the host's extra roots.
    WorkspaceWrite,
    // Unconfined.
    Full,
}

impl SandboxProfile {
    pub const ALL: [SandboxProfile; 3] = [
        SandboxProfile::ReadOnly,
        SandboxProfile::WorkspaceWrite,
        SandboxProfile::Full,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            SandboxProfile::ReadOnly => "read-only",
            SandboxProfile::WorkspaceWrite => "workspace-write",
            SandboxProfile::Full => "full",
        }
    }

    /// The profile named `s`, or the error naming the known ones.
    pub fn parse(s: &str) -> Result<SandboxProfile, String> {
        SandboxProfile::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| {
                let known: Vec<&str> = SandboxProfile::ALL.map(SandboxProfile::as_str).into();
                format!("unknown sandbox profile {s:?}; known: {}", known.join(", "))
            })
    }

    /// The profile's default network for shell children: off except under `full`.
    pub const fn default_network(self) -> bool {
        matches!(self, SandboxProfile::Full)
    }

    /// The profile's default device rights: `read` under `read-only`, else `read-write`.
    pub const fn default_devices(self) -> SandboxDevices {
        match self {
            SandboxProfile::ReadOnly => SandboxDevices::Read,
            SandboxProfile::WorkspaceWrite | SandboxProfile::Full => SandboxDevices::ReadWrite,
        }
    }
}

/// What the `device` argument may do, least first (the runtime's `sandbox::Devices`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum SandboxDevices {
    None,
    Read,
    ReadWrite,
}

impl SandboxDevices {
    pub const ALL: [SandboxDevices; 3] = [
        SandboxDevices::None,
        SandboxDevices::Read,
        SandboxDevices::ReadWrite,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            SandboxDevices::None => "none",
            SandboxDevices::Read => "read",
            SandboxDevices::ReadWrite => "read-write",
        }
    }

    pub fn parse(s: &str) -> Option<SandboxDevices> {
        SandboxDevices::ALL.into_iter().find(|d| d.as_str() == s)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// The words serde reads and writes (roles.yaml through the compiler, the lock, the
    /// helper's policy JSON, the host config) are the ones `as_str` and `parse` use, and
    /// `ALL` is in `Ord` order, least first (`Policy::within` takes the minimum).
    #[test]
    fn the_sandbox_words_are_one_list_least_first() {
        for p in SandboxProfile::ALL {
            let json = serde_json::to_string(&p).unwrap();
            assert_eq!(json, format!("\"{}\"", p.as_str()));
            assert_eq!(serde_json::from_str::<SandboxProfile>(&json).unwrap(), p);
            assert_eq!(SandboxProfile::parse(p.as_str()), Ok(p));
        }
        for d in SandboxDevices::ALL {
            let json = serde_json::to_string(&d).unwrap();
            assert_eq!(json, format!("\"{}\"", d.as_str()));
            assert_eq!(serde_json::from_str::<SandboxDevices>(&json).unwrap(), d);
            assert_eq!(SandboxDevices::parse(d.as_str()), Some(d));
        }
        assert!(SandboxProfile::ALL.is_sorted());
        assert!(SandboxDevices::ALL.is_sorted());
        assert_eq!(
            SandboxProfile::parse("workspace"),
            Err(
                "unknown sandbox profile \"workspace\"; known: read-only, workspace-write, full"
                    .to_owned()
            )
        );
        assert_eq!(SandboxDevices::parse("rw"), None);
    }

    #[test]
    fn a_profile_implies_its_default_network_and_devices() {
        let defaults: Vec<(bool, SandboxDevices)> = SandboxProfile::ALL
            .iter()
            .map(|p| (p.default_network(), p.default_devices()))
            .collect();
        assert_eq!(
            defaults,
            [
                (false, SandboxDevices::Read),
                (false, SandboxDevices::ReadWrite),
                (true, SandboxDevices::ReadWrite),
            ]
        );
    }
}
