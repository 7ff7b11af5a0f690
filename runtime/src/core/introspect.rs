//! `introspect`: the framework describing itself from the runtime's config and the surface
//! catalog — tools, skills, hosts, workdirs, LLM providers and models — with every secret
//! redacted.

use serde_json::json;

use super::Runtime;
use super::SurfaceName;
use super::SurfaceNames;
use super::config::REDACTED;
use super::suggest;
use crate::call::ToolError;
use crate::call::ToolOutput;

/// What `introspect` answers. introspect.yaml's `target` (its `pattern`, which `Call::parse`
/// enforces, and its description) is what the model is told; this enum is the runtime's one
/// spelling of the same words, in the definition's order, and
/// `tests/introspect_targets_agree.rs` holds the two equal, so a target added to the YAML
/// without an answer here (or the reverse) fails the suite, not a model's call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntrospectTarget {
    Tools,
    Skills,
    Hosts,
    Workdirs,
    Llm,
    /// `llm:<provider>`: one provider.
    LlmProvider,
    Models,
    Sandbox,
}

impl IntrospectTarget {
    /// Declaration order (introspect.yaml's).
    pub const ALL: [IntrospectTarget; 8] = [
        IntrospectTarget::Tools,
        IntrospectTarget::Skills,
        IntrospectTarget::Hosts,
        IntrospectTarget::Workdirs,
        IntrospectTarget::Llm,
        IntrospectTarget::LlmProvider,
        IntrospectTarget::Models,
        IntrospectTarget::Sandbox,
    ];

    /// The target as the model spells it (`llm:<provider>` with the placeholder).
    pub const fn spelling(self) -> &'static str {
        match self {
            IntrospectTarget::Tools => "tools",
            IntrospectTarget::Skills => "skills",
            IntrospectTarget::Hosts => "hosts",
            IntrospectTarget::Workdirs => "workdirs",
            IntrospectTarget::Llm => "llm",
            IntrospectTarget::LlmProvider => "llm:<provider>",
            IntrospectTarget::Models => "models",
            IntrospectTarget::Sandbox => "sandbox",
        }
    }

    /// `text` as a target, with the provider name of `llm:<provider>` (trimmed); `None` when
    /// it names no target.
    pub fn parse(text: &str) -> Option<(IntrospectTarget, &str)> {
        let text = text.trim();
        IntrospectTarget::ALL.into_iter().find_map(|target| {
            match target.spelling().split_once(PROVIDER_PLACEHOLDER) {
                Some((prefix, _)) => text
                    .strip_prefix(prefix)
                    .map(|provider| (target, provider.trim())),
                None => (target.spelling() == text).then_some((target, "")),
            }
        })
    }
}

const PROVIDER_PLACEHOLDER: &str = "<provider>";

/// Longest description line `introspect tools`/`skills` prints in its text.
const SUMMARY_CHARS: usize = 160;

impl<N: SurfaceNames> Runtime<N> {
    /// Answer `introspect(target)`. Unknown targets and providers are model errors listing
    /// the valid ones, with a did-you-mean.
    pub fn introspect(&self, target: &str) -> Result<ToolOutput, ToolError> {
        let Some((parsed, provider)) = IntrospectTarget::parse(target) else {
            let other = target.trim();
            let spellings = IntrospectTarget::ALL.map(IntrospectTarget::spelling);
            return Err(ToolError::Model(format!(
                "unknown target {other:?}{}; valid targets: {}",
                suggest::hint(other, self.target_names().iter().map(String::as_str)),
                spellings.join(", ")
            )));
        };
        match parsed {
            IntrospectTarget::Tools => self.introspect_tools(),
            IntrospectTarget::Skills => Ok(self.introspect_skills()),
            IntrospectTarget::Hosts => Ok(self.introspect_hosts()),
            IntrospectTarget::Workdirs => Ok(self.introspect_workdirs()),
            IntrospectTarget::Llm => Ok(self.introspect_llm()),
            IntrospectTarget::LlmProvider => self.introspect_provider(provider),
            IntrospectTarget::Models => Ok(self.introspect_models()),
            IntrospectTarget::Sandbox => Ok(self.introspect_sandbox()),
        }
    }

    /// Plain targets plus `llm:<name>` for every configured provider (did-you-mean pool).
    fn target_names(&self) -> Vec<String> {
        IntrospectTarget::ALL
            .into_iter()
            .flat_map(
                |target| match target.spelling().split_once(PROVIDER_PLACEHOLDER) {
                    Some((prefix, _)) => self
                        .config()
                        .llm
                        .iter()
                        .map(|p| format!("{prefix}{}", p.name))
                        .collect(),
                    None => vec![target.spelling().to_owned()],
                },
            )
            .collect()
    }

    /// The tools a call may use now: the published ones minus the tools of skills that are
    /// not active (under `defer` and `allow_list` those are published from the start, yet
    /// refused until activation; `introspect skills` lists them).
    fn introspect_tools(&self) -> Result<ToolOutput, ToolError> {
        let scope = self.scope();
        let inactive: Vec<String> = self
            .catalog()
            .skills(scope.role)
            .into_iter()
            .filter(|s| !scope.skills.contains(&s.skill))
            .flat_map(|s| s.tools)
            .collect();
        let tools: Vec<_> = self
            .catalog()
            .tools(&scope)
            .map_err(|e| ToolError::Fatal(format!("surface catalog: {e}")))?
            .into_iter()
            .filter(|t| !inactive.contains(&t.name))
            .collect();
        let mut text = format!(
            "{} tools (role {}, family {}{}):",
            tools.len(),
            scope.role,
            scope.family,
            skills_suffix(&scope.skills)
        );
        for tool in &tools {
            text.push_str(&format!(
                "\n- {}: {}",
                tool.name,
                summary(&tool.description)
            ));
        }
        let structured = json!({
            "role": scope.role.name(),
            "family": scope.family.name(),
            "skills": scope.skills.iter().map(|s| s.name()).collect::<Vec<_>>(),
            "tools": tools
                .iter()
                .map(|t| json!({"name": t.name, "description": t.description}))
                .collect::<Vec<_>>(),
        });
        Ok(output(text, structured))
    }

    fn introspect_skills(&self) -> ToolOutput {
        let role = self.role().name();
        let skills = self.catalog().skills(self.role());
        let active = self.active_skills();
        if skills.is_empty() {
            return output(
                format!("role {role} has no skills"),
                json!({"role": role, "skills": []}),
            );
        }
        let mut text = format!("skills for role {role}:");
        let mut listed = Vec::new();
        for skill in &skills {
            let is_active = active.contains(&skill.skill);
            text.push_str(&format!(
                "\n- {} ({}): {} Tools: {}.",
                skill.skill,
                if is_active { "active" } else { "available" },
                summary(&skill.description),
                skill.tools.join(", ")
            ));
            listed.push(json!({
                "name": skill.skill.name(),
                "description": skill.description,
                "tools": skill.tools,
                "active": is_active,
            }));
        }
        output(text, json!({"role": role, "skills": listed}))
    }

    fn introspect_hosts(&self) -> ToolOutput {
        let bound = self.bound_host();
        let sessions = self.registry().list();
        let mut text = format!("hosts (this thread is bound to {bound}):");
        let mut listed = Vec::new();
        for (name, host) in &self.config().hosts {
            let ids: Vec<i64> = sessions
                .iter()
                .filter(|(_, owner)| owner == name)
                .map(|(id, _)| *id)
                .collect();
            text.push_str(&format!(
                "\n- {name}: {}{}{}; {} session{}",
                host.root.display(),
                if *name == bound { " [bound]" } else { "" },
                host.description
                    .as_deref()
                    .map(|d| format!(" — {d}"))
                    .unwrap_or_default(),
                ids.len(),
                if ids.len() == 1 { "" } else { "s" },
            ));
            listed.push(json!({
                "name": name,
                "root": host.root.display().to_string(),
                "description": host.description,
                "bound": *name == bound,
                "sessions": ids,
            }));
        }
        output(text, json!({"bound_host": bound, "hosts": listed}))
    }

    fn introspect_workdirs(&self) -> ToolOutput {
        let dirs = self.workdirs();
        let text = if dirs.is_empty() {
            "no working directories are declared for this thread".to_owned()
        } else {
            let mut text = format!("{} working director{}:", dirs.len(), plural_y(dirs.len()));
            for dir in &dirs {
                text.push_str(&format!("\n- {}", dir.display()));
            }
            text
        };
        let listed: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        output(text, json!({"workdirs": listed}))
    }

    fn introspect_sandbox(&self) -> ToolOutput {
        let report = self.sandbox_report().unwrap_or_else(|| {
            json!({
                "profile": "full",
                "sentence": crate::sandbox::Policy::full().sentence(),
            })
        });
        let mut text = report["sentence"].as_str().unwrap_or_default().to_owned();
        if let Some(roots) = report["writable_roots"].as_array() {
            let roots: Vec<&str> = roots.iter().filter_map(|r| r.as_str()).collect();
            text.push_str(&format!("\nwritable roots: {}", roots.join(", ")));
        }
        if report["profile"] != "full" {
            text.push_str(&format!(
                "\nnetwork {}, devices {}, enforcement {}, Landlock ABI {}; spawned commands {}",
                report["network"].as_str().unwrap_or("?"),
                report["devices"].as_str().unwrap_or("?"),
                report["enforcement"].as_str().unwrap_or("?"),
                report["landlock_abi"],
                if report["shell_confined"] == true {
                    "confined by the kernel (protected paths are enforced by the file \
                     tools only; a running session keeps the roots it started with)"
                } else {
                    "UNCONFINED (the kernel cannot enforce here)"
                }
            ));
        }
        output(text, report)
    }

    fn introspect_llm(&self) -> ToolOutput {
        let providers = &self.config().llm;
        if providers.is_empty() {
            return output(
                "no LLM providers are configured".to_owned(),
                json!({"providers": []}),
            );
        }
        let mut text = format!(
            "{} LLM provider{} (details: llm:<provider>):",
            providers.len(),
            if providers.len() == 1 { "" } else { "s" }
        );
        for provider in providers {
            let redacted = provider.redacted_json();
            text.push_str(&format!(
                "\n- {}: {}; {} model{}{}; api_key {}",
                provider.name,
                redacted["base_url"].as_str().unwrap_or_default(),
                provider.models.len(),
                if provider.models.len() == 1 { "" } else { "s" },
                provider
                    .default_model
                    .as_deref()
                    .map(|m| format!(", default {m}"))
                    .unwrap_or_default(),
                if provider.api_key.is_some() {
                    REDACTED
                } else {
                    "not set"
                },
            ));
        }
        let listed: Vec<_> = providers.iter().map(|p| p.redacted_json()).collect();
        output(text, json!({"providers": listed}))
    }

    fn introspect_provider(&self, name: &str) -> Result<ToolOutput, ToolError> {
        let providers = &self.config().llm;
        let Some(provider) = providers.iter().find(|p| p.name == name) else {
            let names = providers.iter().map(|p| p.name.as_str());
            return Err(ToolError::Model(if providers.is_empty() {
                format!("unknown LLM provider {name:?}: no LLM providers are configured")
            } else {
                format!(
                    "unknown LLM provider {name:?}{}; configured providers: {}",
                    suggest::hint(name, names.clone()),
                    names.collect::<Vec<_>>().join(", ")
                )
            }));
        };
        let redacted = provider.redacted_json();
        let text = serde_json::to_string_pretty(&redacted).unwrap_or_default();
        // Keyed like every other target (`providers`, `models`, …): a bare provider object
        // would share keys (`models`) with other targets' results under another meaning.
        Ok(output(text, json!({ "provider": redacted })))
    }

    fn introspect_models(&self) -> ToolOutput {
        let providers = &self.config().llm;
        let mut text = String::new();
        let mut listed = Vec::new();
        for provider in providers {
            if !text.is_empty() {
                text.push('\n');
            }
            let models: Vec<String> = provider
                .models
                .iter()
                .map(|m| {
                    if provider.default_model.as_ref() == Some(m) {
                        format!("{m} (default)")
                    } else {
                        m.clone()
                    }
                })
                .collect();
            text.push_str(&format!(
                "{}: {}",
                provider.name,
                if models.is_empty() {
                    "no models listed".to_owned()
                } else {
                    models.join(", ")
                }
            ));
            for model in &provider.models {
                listed.push(json!({
                    "provider": provider.name,
                    "model": model,
                    "default": provider.default_model.as_ref() == Some(model),
                }));
            }
        }
        if providers.is_empty() {
            text = "no LLM providers are configured".to_owned();
        }
        output(text, json!({"models": listed}))
    }
}

fn output(text: String, structured: serde_json::Value) -> ToolOutput {
    ToolOutput {
        text,
        structured: Some(structured),
    }
}

fn skills_suffix<S: SurfaceName>(skills: &[S]) -> String {
    if skills.is_empty() {
        String::new()
    } else {
        let names: Vec<&str> = skills.iter().map(|s| s.name()).collect();
        format!(", skills {}", names.join(", "))
    }
}

fn plural_y(n: usize) -> &'static str {
    if n == 1 { "y" } else { "ies" }
}

/// The first line of a description, cut at [`SUMMARY_CHARS`] characters.
fn summary(description: &str) -> String {
    let line = description.lines().next().unwrap_or_default().trim();
    if line.chars().count() <= SUMMARY_CHARS {
        return line.to_owned();
    }
    // SUMMARY_CHARS in all, the ellipsis included.
    toolsurface_text::cut(line, SUMMARY_CHARS - 1).into_owned()
}
