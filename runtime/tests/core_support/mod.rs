//! Shared fixtures for the runtime-core tests: a hand-written `Call` enum implementing
//! `CallInfo` the way generated code does, a fake surface catalog and an event log.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;
use std::sync::Mutex;

use toolsurface_runtime::call::CallInfo;
use toolsurface_runtime::call::Route;
use toolsurface_runtime::call::SessionTarget;
use toolsurface_runtime::core::CatalogError;
use toolsurface_runtime::core::HostConfig;
use toolsurface_runtime::core::Runtime;
use toolsurface_runtime::core::RuntimeConfig;
use toolsurface_runtime::core::Scope;
use toolsurface_runtime::core::SkillDelivery;
use toolsurface_runtime::core::SkillSummary;
use toolsurface_runtime::core::SkillTool;
use toolsurface_runtime::core::SurfaceCatalog;
use toolsurface_runtime::core::ToolSummary;

/// A typed call, as generated code would produce it.
#[derive(Clone, Debug, PartialEq)]
pub enum FakeCall {
    /// Parallel-safe, read-only (like grep_files).
    Grep { tag: &'static str },
    /// Read-only but not parallel-safe.
    ReadFile { tag: &'static str },
    /// A write: neither parallel-safe nor read-only.
    WriteFile { tag: &'static str },
    /// Starts a command on the thread's host.
    Shell { tag: &'static str },
    /// shell_session list: parallel-safe, read-only, session_host route, no session.
    SessionList,
    /// shell_session wait: follow-up, result on interrupt.
    SessionWait {
        session_id: i64,
        host_id: Option<String>,
    },
    /// shell_session poll: follow-up, poll, result on interrupt, read-only.
    SessionPoll {
        session_id: i64,
        host_id: Option<String>,
    },
    /// shell_session kill: follow-up.
    SessionKill {
        session_id: i64,
        host_id: Option<String>,
    },
    /// Runs in the runtime's own process.
    Introspect { target: String },
}

impl FakeCall {
    pub fn tag(&self) -> &'static str {
        match self {
            FakeCall::Grep { tag }
            | FakeCall::ReadFile { tag }
            | FakeCall::WriteFile { tag }
            | FakeCall::Shell { tag } => tag,
            _ => self.display_name(),
        }
    }
}

impl CallInfo for FakeCall {
    fn tool_name(&self) -> &'static str {
        match self {
            FakeCall::Grep { .. } => "grep_files",
            FakeCall::ReadFile { .. } => "read_file",
            FakeCall::WriteFile { .. } => "write_file",
            FakeCall::Shell { .. } => "shell",
            FakeCall::SessionList
            | FakeCall::SessionWait { .. }
            | FakeCall::SessionPoll { .. }
            | FakeCall::SessionKill { .. } => "shell_session",
            FakeCall::Introspect { .. } => "introspect",
        }
    }

    fn display_name(&self) -> &'static str {
        match self {
            FakeCall::SessionList => "shell_session list",
            FakeCall::SessionWait { .. } => "shell_session wait",
            FakeCall::SessionPoll { .. } => "shell_session poll",
            FakeCall::SessionKill { .. } => "shell_session kill",
            _ => self.tool_name(),
        }
    }

    fn is_parallel_safe(&self) -> bool {
        matches!(
            self,
            FakeCall::Grep { .. } | FakeCall::SessionList | FakeCall::Introspect { .. }
        )
    }

    fn is_follow_up(&self) -> bool {
        matches!(
            self,
            FakeCall::SessionWait { .. }
                | FakeCall::SessionPoll { .. }
                | FakeCall::SessionKill { .. }
        )
    }

    fn is_poll(&self) -> bool {
        matches!(self, FakeCall::SessionPoll { .. })
    }

    fn is_read_only(&self) -> bool {
        matches!(
            self,
            FakeCall::Grep { .. }
                | FakeCall::ReadFile { .. }
                | FakeCall::SessionList
                | FakeCall::SessionPoll { .. }
                | FakeCall::Introspect { .. }
        )
    }

    fn result_on_interrupt(&self) -> bool {
        matches!(
            self,
            FakeCall::SessionList
                | FakeCall::SessionWait { .. }
                | FakeCall::SessionPoll { .. }
                | FakeCall::SessionKill { .. }
        )
    }

    fn route(&self) -> Route {
        match self {
            FakeCall::SessionList
            | FakeCall::SessionWait { .. }
            | FakeCall::SessionPoll { .. }
            | FakeCall::SessionKill { .. } => Route::SessionHost,
            FakeCall::Introspect { .. } => Route::Local,
            _ => Route::ThreadHost,
        }
    }

    fn session_target(&self) -> Option<SessionTarget<'_>> {
        match self {
            FakeCall::SessionWait {
                session_id,
                host_id,
            }
            | FakeCall::SessionPoll {
                session_id,
                host_id,
            }
            | FakeCall::SessionKill {
                session_id,
                host_id,
            } => Some(SessionTarget {
                id: *session_id,
                host: host_id.as_deref(),
            }),
            _ => None,
        }
    }
}

pub fn grep(tag: &'static str) -> FakeCall {
    FakeCall::Grep { tag }
}

pub fn write(tag: &'static str) -> FakeCall {
    FakeCall::WriteFile { tag }
}

pub fn wait(session_id: i64, host_id: Option<&str>) -> FakeCall {
    FakeCall::SessionWait {
        session_id,
        host_id: host_id.map(str::to_owned),
    }
}

/// An ordered log of what handlers did.
#[derive(Clone, Debug, Default)]
pub struct Log(Arc<Mutex<Vec<String>>>);

impl Log {
    pub fn push(&self, event: impl Into<String>) {
        self.0.lock().unwrap().push(event.into());
    }

    pub fn events(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }

    pub fn position(&self, event: &str) -> usize {
        self.events()
            .iter()
            .position(|e| e == event)
            .unwrap_or_else(|| panic!("event {event:?} not in {:?}", self.events()))
    }
}

/// Resident tools of role "main", and two skills.
pub const RESIDENT: [(&str, &str); 3] = [
    ("shell", "Run a command on the thread's host."),
    (
        "read_file",
        "Read a file.\nSecond line is not shown in summaries.",
    ),
    ("introspect", "Describe the framework."),
];

pub fn skill_tools(skill: &str) -> Vec<(&'static str, &'static str)> {
    match skill {
        "ops" => vec![
            ("fleet_status", "Fleet status."),
            ("deploy", "Deploy a build."),
        ],
        "browser" => vec![("browse", "Open a page.")],
        _ => Vec::new(),
    }
}

/// The skills of role "main", in declaration order.
pub const SKILLS: [&str; 2] = ["ops", "browser"];

/// A catalog like the facade's. Under `Append`, resident tools then each active skill's tools
/// appended; under a stable delivery (`Defer`-like or `AllowList`), resident tools then every
/// skill's tools, whatever is active. With `reorder`, a broken catalog that puts skill tools
/// first; with `appends_anyway`, a broken one that appends under a stable delivery.
pub struct FakeCatalog {
    pub reorder: bool,
    pub delivery: SkillDelivery,
    pub appends_anyway: bool,
}

impl Default for FakeCatalog {
    fn default() -> Self {
        FakeCatalog {
            reorder: false,
            delivery: SkillDelivery::Append,
            appends_anyway: false,
        }
    }
}

impl FakeCatalog {
    pub fn with_delivery(delivery: SkillDelivery) -> Self {
        FakeCatalog {
            delivery,
            ..FakeCatalog::default()
        }
    }

    fn entries(&self, scope: &Scope) -> Result<Vec<(&'static str, &'static str)>, CatalogError> {
        if scope.role != "main" {
            return Err(CatalogError(format!("unknown role {}", scope.role)));
        }
        let mut skill_entries = Vec::new();
        for skill in &scope.skills {
            let tools = skill_tools(skill);
            if tools.is_empty() {
                return Err(CatalogError(format!("unknown skill {skill}")));
            }
            if !self.delivery.keeps_tools_stable() || self.appends_anyway {
                skill_entries.extend(tools);
            }
        }
        if self.delivery.keeps_tools_stable() && !self.appends_anyway {
            skill_entries = SKILLS.iter().flat_map(|s| skill_tools(s)).collect();
        }
        let mut all: Vec<_> = RESIDENT.to_vec();
        if self.reorder {
            skill_entries.extend(all);
            all = skill_entries;
        } else {
            all.extend(skill_entries);
        }
        Ok(all)
    }
}

/// The JSON a fake catalog publishes for one tool.
pub fn fake_definition(name: &str, description: &str) -> String {
    serde_json::json!({"name": name, "description": description}).to_string()
}

impl SurfaceCatalog for FakeCatalog {
    fn tool_array(&self, scope: &Scope) -> Result<Cow<'static, str>, CatalogError> {
        let items: Vec<String> = self
            .entries(scope)?
            .iter()
            .map(|(name, description)| fake_definition(name, description))
            .collect();
        Ok(Cow::Owned(format!("[{}]", items.join(","))))
    }

    fn tools(&self, scope: &Scope) -> Result<Vec<ToolSummary>, CatalogError> {
        Ok(self
            .entries(scope)?
            .into_iter()
            .map(|(name, description)| ToolSummary {
                name: name.to_owned(),
                description: description.to_owned(),
            })
            .collect())
    }

    fn skills(&self, role: &str) -> Vec<SkillSummary> {
        if role != "main" {
            return Vec::new();
        }
        SKILLS
            .into_iter()
            .map(|name| SkillSummary {
                name: name.to_owned(),
                description: format!("The {name} skill."),
                tools: skill_tools(name)
                    .iter()
                    .map(|(t, _)| (*t).to_owned())
                    .collect(),
            })
            .collect()
    }

    fn skill_delivery(&self, _scope: &Scope) -> Result<SkillDelivery, CatalogError> {
        Ok(self.delivery)
    }

    fn skill_tools(&self, scope: &Scope, skill: &str) -> Result<Vec<SkillTool>, CatalogError> {
        if scope.role != "main" || !SKILLS.contains(&skill) {
            return Err(CatalogError(format!("unknown skill {skill}")));
        }
        Ok(skill_tools(skill)
            .into_iter()
            .map(|(name, description)| SkillTool {
                name: name.to_owned(),
                definition: Cow::Owned(fake_definition(name, description)),
            })
            .collect())
    }
}

/// Two local hosts, `alpha` (bound) and `beta`, with different roots.
pub fn two_host_config(alpha: &Path, beta: &Path) -> RuntimeConfig {
    let mut config = RuntimeConfig::single_host("alpha", alpha, "main", "chat");
    config
        .hosts
        .insert("beta".to_owned(), HostConfig::new(beta));
    config
}

pub fn runtime_with(config: RuntimeConfig) -> Runtime {
    Runtime::new(config, Arc::new(FakeCatalog::default())).unwrap()
}

/// A runtime on one host whose root is a path that is never touched.
pub fn runtime() -> Runtime {
    runtime_with(RuntimeConfig::single_host(
        "alpha",
        "/nonexistent/alpha",
        "main",
        "chat",
    ))
}
