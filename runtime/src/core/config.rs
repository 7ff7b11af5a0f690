//! What a host hands the runtime: hosts, the thread's binding, stores, limits and provider
//! settings. Plain serde data; secrets are wrapped so they cannot leak through `Debug`,
//! `Display` or `Serialize`.

use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::fmt;
use std::path::PathBuf;

use serde::Deserialize;
use serde::Serialize;

use super::surface::SurfaceName;
use super::surface::SurfaceNames;

/// The text every secret is replaced with in any output.
pub const REDACTED: &str = "[redacted]";

/// A configuration value that must never appear in output. Deserializes from a plain
/// string; serializes, debugs and displays as [`REDACTED`]. Only [`Secret::expose`] gives
/// the value back, for the code that actually talks to the provider.
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The secret itself. Never put the result into a tool result or a log line.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

impl Serialize for Secret {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(REDACTED)
    }
}

/// One machine the runtime can run calls on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    /// The directory relative paths of calls routed to this host resolve against.
    pub root: PathBuf,
    /// Shown by `introspect hosts`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

impl HostConfig {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        HostConfig {
            root: root.into(),
            description: None,
        }
    }
}

/// Where the embedded stores live. `None` means the family uses its default (or an
/// in-memory store, for tests).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StorePaths {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<PathBuf>,
    /// Where staged writes (unread files, permission failures) are kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staging: Option<PathBuf>,
}

/// Scheduling limits.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// At most this many parallel-safe calls of one run execute at once (≥ 1).
    pub max_parallel: usize,
    /// After an interrupt, how long a `result_on_interrupt` call may take to hand back its
    /// partial result before it is dropped like any other call.
    pub interrupt_grace_ms: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_parallel: 8,
            interrupt_grace_ms: 5_000,
        }
    }
}

/// One LLM provider, as `introspect llm` reports it. `api_key`, every entry of `extra`
/// whose key looks secret (key, token, secret, password, authorization, credential,
/// cookie) and URL userinfo are redacted in every output: `Debug` and `Serialize` both
/// print [`LlmProviderConfig::redacted_json`].
#[derive(Clone, PartialEq, Deserialize)]
pub struct LlmProviderConfig {
    pub name: String,
    pub base_url: String,
    #[serde(default)]
    pub models: Vec<String>,
    #[serde(default)]
    pub default_model: Option<String>,
    #[serde(default)]
    pub api_key: Option<Secret>,
    /// Any other provider setting (headers, api version, …), reported redacted.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

impl fmt::Debug for LlmProviderConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LlmProviderConfig({})", self.redacted_json())
    }
}

impl Serialize for LlmProviderConfig {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.redacted_json().serialize(serializer)
    }
}

impl LlmProviderConfig {
    pub fn new(name: impl Into<String>, base_url: impl Into<String>) -> Self {
        LlmProviderConfig {
            name: name.into(),
            base_url: base_url.into(),
            models: Vec::new(),
            default_model: None,
            api_key: None,
            extra: BTreeMap::new(),
        }
    }

    /// This provider as JSON with every secret replaced by [`REDACTED`].
    pub fn redacted_json(&self) -> serde_json::Value {
        let mut map = serde_json::Map::new();
        map.insert("name".into(), self.name.clone().into());
        map.insert("base_url".into(), redact_url(&self.base_url).into());
        map.insert(
            "models".into(),
            serde_json::Value::Array(self.models.iter().cloned().map(Into::into).collect()),
        );
        if let Some(model) = &self.default_model {
            map.insert("default_model".into(), model.clone().into());
        }
        map.insert(
            "api_key".into(),
            match &self.api_key {
                Some(_) => REDACTED.into(),
                None => serde_json::Value::Null,
            },
        );
        for (key, value) in &self.extra {
            if map.contains_key(key) {
                continue;
            }
            let value = if is_secret_key(key) {
                REDACTED.into()
            } else {
                redact_value(value)
            };
            map.insert(key.clone(), value);
        }
        serde_json::Value::Object(map)
    }
}

/// Everything the runtime needs to know about one conversation thread's environment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuntimeConfig {
    /// Host name → host. At least one.
    pub hosts: BTreeMap<String, HostConfig>,
    /// The host the thread is bound to; must be one of `hosts`.
    pub bound_host: String,
    /// The role whose tool array this thread publishes.
    pub role: String,
    /// The provider family (dialect) of that array.
    pub family: String,
    /// The thread's declared working directories.
    #[serde(default)]
    pub workdirs: Vec<PathBuf>,
    #[serde(default)]
    pub stores: StorePaths,
    #[serde(default)]
    pub limits: Limits,
    /// The OpenSSH config remote files use (keys come only from it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ssh_config: Option<PathBuf>,
    /// Providers `introspect llm` reports, in this order.
    #[serde(default)]
    pub llm: Vec<LlmProviderConfig>,
}

impl RuntimeConfig {
    /// A config with one host, bound to it.
    pub fn single_host(
        host: impl Into<String>,
        root: impl Into<PathBuf>,
        role: impl Into<String>,
        family: impl Into<String>,
    ) -> Self {
        let host = host.into();
        RuntimeConfig {
            hosts: BTreeMap::from([(host.clone(), HostConfig::new(root))]),
            bound_host: host,
            role: role.into(),
            family: family.into(),
            workdirs: Vec::new(),
            stores: StorePaths::default(),
            limits: Limits::default(),
            ssh_config: None,
            llm: Vec::new(),
        }
    }

    /// [`RuntimeConfig::validate`], and `role` and `family` parsed as the surface's names:
    /// the one place these config strings become the generated enums (an unknown name is a
    /// problem with a did-you-mean). Every problem is listed, not just the first.
    pub fn validate_names<N: SurfaceNames>(&self) -> Result<(N::Role, N::Family), ConfigError> {
        let mut problems = self.problems();
        let role = N::Role::parse(&self.role).map_err(|e| problems.push(e.to_string()));
        let family = N::Family::parse(&self.family).map_err(|e| problems.push(e.to_string()));
        match (role, family) {
            (Ok(role), Ok(family)) if problems.is_empty() => Ok((role, family)),
            _ => Err(ConfigError { problems }),
        }
    }

    /// Every problem with this config, not just the first (role and family are checked
    /// against a surface by [`RuntimeConfig::validate_names`]).
    pub fn validate(&self) -> Result<(), ConfigError> {
        let problems = self.problems();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(ConfigError { problems })
        }
    }

    fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if self.hosts.is_empty() {
            problems.push("no hosts configured".to_owned());
        }
        for name in self.hosts.keys() {
            if name.trim().is_empty() || name.chars().any(char::is_whitespace) {
                problems.push(format!(
                    "host name {name:?} is empty or contains whitespace"
                ));
            }
        }
        if !self.hosts.is_empty() && !self.hosts.contains_key(&self.bound_host) {
            problems.push(format!(
                "bound_host {:?} is not a configured host (known: {})",
                self.bound_host,
                self.hosts.keys().cloned().collect::<Vec<_>>().join(", ")
            ));
        }
        if self.limits.max_parallel == 0 {
            problems.push("limits.max_parallel must be at least 1".to_owned());
        }
        let mut seen = BTreeSet::new();
        for provider in &self.llm {
            if provider.name.contains(':') || provider.name.trim().is_empty() {
                problems.push(format!(
                    "llm provider name {:?} is empty or contains ':'",
                    provider.name
                ));
            }
            if !seen.insert(provider.name.as_str()) {
                problems.push(format!(
                    "llm provider {:?} is configured twice",
                    provider.name
                ));
            }
        }
        problems
    }
}

/// A [`RuntimeConfig`] the runtime refuses, with every problem found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid runtime config: {}", problems.join("; "))]
pub struct ConfigError {
    pub problems: Vec<String>,
}

/// Does a settings key name something secret? Looks at the key's words (split at `_`, `-`,
/// `.` and camelCase humps), so `api_key`, `apiKey`, `X-Api-Key`, `access_token` and
/// `Authorization` are secret while `max_tokens` and `keep_alive` are not.
pub fn is_secret_key(key: &str) -> bool {
    const WORDS: [&str; 12] = [
        "key",
        "apikey",
        "token",
        "secret",
        "password",
        "passwd",
        "passphrase",
        "authorization",
        "auth",
        "credential",
        "credentials",
        "cookie",
    ];
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in key.chars() {
        if !c.is_alphanumeric() {
            words.push(std::mem::take(&mut word));
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower {
            words.push(std::mem::take(&mut word));
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    words.push(word);
    words.iter().any(|w| WORDS.contains(&w.as_str()))
}

/// `value` with every secret-looking key's value replaced, recursively.
pub fn redact_value(value: &serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => serde_json::Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = if is_secret_key(k) {
                        REDACTED.into()
                    } else {
                        redact_value(v)
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        serde_json::Value::Array(items) => {
            serde_json::Value::Array(items.iter().map(redact_value).collect())
        }
        serde_json::Value::String(s) => redact_url(s).into(),
        other => other.clone(),
    }
}

/// Strip userinfo (`user:pass@`) from a URL-looking string; other strings pass unchanged.
pub fn redact_url(s: &str) -> String {
    let Some(scheme_end) = s.find("://") else {
        return s.to_owned();
    };
    let rest = &s[scheme_end + 3..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{}://{REDACTED}@{}", &s[..scheme_end], &rest[at + 1..]),
        None => s.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_never_prints() {
        let secret = Secret::new("sk-live-1234");
        assert_eq!(format!("{secret:?}"), REDACTED);
        assert_eq!(format!("{secret}"), REDACTED);
        assert_eq!(
            serde_json::to_string(&secret).ok().as_deref(),
            Some("\"[redacted]\"")
        );
        assert_eq!(secret.expose(), "sk-live-1234");
    }

    #[test]
    fn secret_keys_are_recognised_by_word() {
        for key in [
            "api_key",
            "apiKey",
            "X-Api-Key",
            "access_token",
            "Authorization",
            "client_secret",
            "password",
            "aws.secretAccessKey",
        ] {
            assert!(is_secret_key(key), "{key}");
        }
        for key in ["max_tokens", "keep_alive", "monkey", "model", "tokenizer"] {
            assert!(!is_secret_key(key), "{key}");
        }
    }

    #[test]
    fn url_userinfo_is_redacted() {
        assert_eq!(
            redact_url("https://bob:hunter2@api.example/v1"),
            "https://[redacted]@api.example/v1"
        );
        assert_eq!(
            redact_url("https://api.example/v1?a=b@c"),
            "https://api.example/v1?a=b@c"
        );
        assert_eq!(redact_url("plain"), "plain");
    }

    #[test]
    fn validate_reports_every_problem() {
        let mut config = RuntimeConfig::single_host("alpha", "/tmp", "main", "chat");
        config.bound_host = "gamma".into();
        config.limits.max_parallel = 0;
        config.llm = vec![
            LlmProviderConfig::new("openai", "https://x"),
            LlmProviderConfig::new("openai", "https://y"),
        ];
        let err = config.validate().err().map(|e| e.problems.len());
        assert_eq!(err, Some(3));
    }
}
