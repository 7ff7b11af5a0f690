//! `introspect`: the framework describing itself from the runtime's config and the surface
//! catalog — tools, skills, hosts, workdirs, LLM providers and models — with every secret
//! redacted.

use serde_json::json;

use super::Runtime;
use super::config::REDACTED;
use super::suggest;
use crate::call::ToolError;
use crate::call::ToolOutput;

/// Every valid `target`, as the model should spell it.
pub const INTROSPECT_TARGETS: [&str; 7] = [
    "tools",
    "skills",
    "hosts",
    "workdirs",
    "llm",
    "llm:<provider>",
    "models",
];

const PROVIDER_PREFIX: &str = "llm:";

/// Longest description line `introspect tools`/`skills` prints in its text.
const SUMMARY_CHARS: usize = 160;

impl Runtime {
    /// Answer `introspect(target)`. Unknown targets and providers are model errors listing
    /// the valid ones, with a did-you-mean.
    pub fn introspect(&self, target: &str) -> Result<ToolOutput, ToolError> {
        let target = target.trim();
        if let Some(provider) = target.strip_prefix(PROVIDER_PREFIX) {
            return self.introspect_provider(provider.trim());
        }
        match target {
            "tools" => self.introspect_tools(),
            "skills" => Ok(self.introspect_skills()),
            "hosts" => Ok(self.introspect_hosts()),
            "workdirs" => Ok(self.introspect_workdirs()),
            "llm" => Ok(self.introspect_llm()),
            "models" => Ok(self.introspect_models()),
            other => Err(ToolError::Model(format!(
                "unknown introspect target {other:?}{}; valid targets: {}",
                suggest::hint(other, self.target_names().iter().map(String::as_str)),
                INTROSPECT_TARGETS.join(", ")
            ))),
        }
    }

    /// Plain targets plus `llm:<name>` for every configured provider (did-you-mean pool).
    fn target_names(&self) -> Vec<String> {
        INTROSPECT_TARGETS
            .iter()
            .filter(|t| !t.contains('<'))
            .map(|t| (*t).to_owned())
            .chain(
                self.config()
                    .llm
                    .iter()
                    .map(|p| format!("{PROVIDER_PREFIX}{}", p.name)),
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
            .skills(&scope.role)
            .into_iter()
            .filter(|s| !scope.skills.contains(&s.name))
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
            "role": scope.role,
            "family": scope.family,
            "skills": scope.skills,
            "tools": tools
                .iter()
                .map(|t| json!({"name": t.name, "description": t.description}))
                .collect::<Vec<_>>(),
        });
        Ok(output(text, structured))
    }

    fn introspect_skills(&self) -> ToolOutput {
        let role = &self.config().role;
        let skills = self.catalog().skills(role);
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
            let is_active = active.contains(&skill.name);
            text.push_str(&format!(
                "\n- {} ({}): {} Tools: {}.",
                skill.name,
                if is_active { "active" } else { "available" },
                summary(&skill.description),
                skill.tools.join(", ")
            ));
            listed.push(json!({
                "name": skill.name,
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

fn skills_suffix(skills: &[String]) -> String {
    if skills.is_empty() {
        String::new()
    } else {
        format!(", skills {}", skills.join(", "))
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
