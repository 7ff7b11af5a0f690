//! The vocabulary compiler, generated code and runtime share, declared once: provider
//! dialects, skill strategies, routes and turn kinds. Each word is the one the definitions
//! (`surface.yaml`, `roles.yaml`) and the lock use.

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
