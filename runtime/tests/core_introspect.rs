//! introspect: every target answers from the config and the catalog; no secret ever shows.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::core_support;

use std::path::PathBuf;

use core_support::*;
use toolsurface_runtime::call::ToolError;
use toolsurface_runtime::call::ToolOutput;
use toolsurface_runtime::core::IntrospectTarget;
use toolsurface_runtime::core::LlmProviderConfig;
use toolsurface_runtime::core::RuntimeConfig;
use toolsurface_runtime::core::Secret;
use toolsurface_runtime::core::Turn;

const API_KEY: &str = "sk-live-DO-NOT-LEAK-4f9a";
const HEADER_TOKEN: &str = "Bearer hdr-DO-NOT-LEAK-77";
const URL_PASSWORD: &str = "pw-DO-NOT-LEAK-31";

fn config() -> RuntimeConfig {
    let mut config = two_host_config(&PathBuf::from("/srv/alpha"), &PathBuf::from("/srv/beta"));
    config.workdirs = vec![PathBuf::from("/srv/alpha/project")];
    let mut openai = LlmProviderConfig::new("openai", "https://api.openai.example/v1");
    openai.models = vec!["gpt-5".into(), "gpt-5-mini".into()];
    openai.default_model = Some("gpt-5".into());
    openai.api_key = Some(Secret::new(API_KEY));
    openai.extra.insert(
        "headers".into(),
        serde_json::json!({"Authorization": HEADER_TOKEN, "X-Team": "agents"}),
    );
    openai.extra.insert("api_version".into(), "2026-01".into());
    let mut local = LlmProviderConfig::new(
        "ollama",
        format!("http://admin:{URL_PASSWORD}@127.0.0.1:11434"),
    );
    local.models = vec!["qwen3".into()];
    config.llm = vec![openai, local];
    config
}

fn rt() -> Runtime {
    runtime_with(config())
}

fn ok(rt: &Runtime, target: &str) -> ToolOutput {
    rt.introspect(target)
        .unwrap_or_else(|e| panic!("introspect {target}: {e}"))
}

fn model_error(result: Result<ToolOutput, ToolError>) -> String {
    match result {
        Err(ToolError::Model(text)) => text,
        other => panic!("expected a model error, got {other:?}"),
    }
}

#[test]
fn tools_come_from_the_catalog_in_published_order() {
    let rt = rt();
    let out = ok(&rt, "tools");
    assert_eq!(
        out.text,
        "3 tools (role main, family chat):\n\
         - shell: Run a command on the thread's host.\n\
         - read_file: Read a file.\n\
         - introspect: Describe the framework."
    );
    let structured = out.structured.unwrap();
    assert_eq!(
        structured["tools"][1]["description"],
        "Read a file.\nSecond line is not shown in summaries."
    );
    rt.activate("call_1", "browser").unwrap();
    let out = ok(&rt, "tools");
    assert!(
        out.text
            .starts_with("4 tools (role main, family chat, skills browser):")
    );
    assert!(out.text.ends_with("- browse: Open a page."));
}

#[test]
fn tools_lists_only_what_a_call_may_use_when_skill_tools_are_published_from_the_start() {
    let config = RuntimeConfig::single_host("alpha", "/x", "main", "chat");
    let catalog = FakeCatalog::with_delivery(toolsurface_runtime::core::SkillDelivery::AllowList);
    let rt = Runtime::new(config, std::sync::Arc::new(catalog)).unwrap();
    // The array holds all six; a call may use the three resident ones.
    assert_eq!(
        rt.surface(&Turn::normal())
            .unwrap()
            .bytes
            .matches("\"name\"")
            .count(),
        6
    );
    let out = ok(&rt, "tools");
    assert!(
        out.text.starts_with("3 tools (role main, family chat):"),
        "{}",
        out.text
    );
    rt.activate("call_1", "browser").unwrap();
    let out = ok(&rt, "tools");
    assert!(
        out.text
            .starts_with("4 tools (role main, family chat, skills browser):"),
        "{}",
        out.text
    );
    assert!(out.text.ends_with("- browse: Open a page."));
    assert!(!out.text.contains("deploy"));
}

#[test]
fn skills_show_which_are_active() {
    let rt = rt();
    rt.activate("call_1", "ops").unwrap();
    let out = ok(&rt, "skills");
    assert_eq!(
        out.text,
        "skills for role main:\n\
         - ops (active): The ops skill. Tools: fleet_status, deploy.\n\
         - browser (available): The browser skill. Tools: browse."
    );
    assert_eq!(out.structured.unwrap()["skills"][0]["active"], true);
}

#[test]
fn hosts_show_roots_binding_and_sessions() {
    let rt = rt();
    let id = rt.registry().allocate("beta");
    let out = ok(&rt, "hosts");
    assert_eq!(
        out.text,
        "hosts (this thread is bound to alpha):\n\
         - alpha: /srv/alpha [bound]; 0 sessions\n\
         - beta: /srv/beta; 1 session"
    );
    let structured = out.structured.unwrap();
    assert_eq!(structured["hosts"][1]["sessions"], serde_json::json!([id]));
    assert_eq!(structured["bound_host"], "alpha");
}

#[test]
fn workdirs_follow_the_thread() {
    let rt = rt();
    assert_eq!(
        ok(&rt, "workdirs").text,
        "1 working directory:\n- /srv/alpha/project"
    );
    rt.set_workdirs(vec![]);
    assert_eq!(
        ok(&rt, "workdirs").text,
        "no working directories are declared for this thread"
    );
}

#[test]
fn llm_lists_providers_with_secrets_redacted() {
    let rt = rt();
    let out = ok(&rt, "llm");
    assert_eq!(
        out.text,
        "2 LLM providers (details: llm:<provider>):\n\
         - openai: https://api.openai.example/v1; 2 models, default gpt-5; api_key [redacted]\n\
         - ollama: http://[redacted]@127.0.0.1:11434; 1 model; api_key not set"
    );
}

#[test]
fn one_provider_in_full_redacted() {
    let rt = rt();
    let out = ok(&rt, "llm:openai");
    let structured = &out.structured.unwrap()["provider"];
    assert_eq!(structured["api_key"], "[redacted]");
    assert_eq!(structured["headers"]["Authorization"], "[redacted]");
    assert_eq!(structured["headers"]["X-Team"], "agents");
    assert_eq!(structured["api_version"], "2026-01");
    assert_eq!(
        structured["models"],
        serde_json::json!(["gpt-5", "gpt-5-mini"])
    );
    assert!(out.text.contains("\"api_key\": \"[redacted]\""));
}

#[test]
fn models_list_every_provider() {
    let rt = rt();
    let out = ok(&rt, "models");
    assert_eq!(
        out.text,
        "openai: gpt-5 (default), gpt-5-mini\nollama: qwen3"
    );
    assert_eq!(
        out.structured.unwrap()["models"].as_array().unwrap().len(),
        3
    );
}

#[test]
fn no_secret_appears_in_any_output() {
    let rt = rt();
    rt.registry().allocate("alpha");
    let mut outputs = Vec::new();
    for target in [
        "tools",
        "skills",
        "hosts",
        "workdirs",
        "llm",
        "llm:openai",
        "llm:ollama",
        "models",
    ] {
        let out = ok(&rt, target);
        outputs.push(out.text.clone());
        outputs.push(serde_json::to_string(&out.structured).unwrap());
    }
    for bad in ["llm:nope", "secrets", "llm:openia"] {
        outputs.push(format!("{:?}", rt.introspect(bad)));
    }
    outputs.push(format!("{rt:?}"));
    outputs.push(format!("{:?}", rt.config()));
    outputs.push(serde_json::to_string(rt.config()).unwrap());
    for output in &outputs {
        for secret in [API_KEY, HEADER_TOKEN, URL_PASSWORD] {
            assert!(!output.contains(secret), "secret leaked in: {output}");
        }
    }
    // The secret is still there for the code that needs it.
    assert_eq!(
        rt.config().llm[0].api_key.as_ref().map(Secret::expose),
        Some(API_KEY)
    );
}

#[test]
fn an_unknown_target_lists_the_valid_ones_with_a_suggestion() {
    let rt = rt();
    assert_eq!(
        model_error(rt.introspect("tols")),
        "unknown target \"tols\" (did you mean tools?); valid targets: \
         tools, skills, hosts, workdirs, llm, llm:<provider>, models, sandbox"
    );
    let text = model_error(rt.introspect("get_current_time"));
    for target in IntrospectTarget::ALL {
        assert!(text.contains(target.spelling()), "{text}");
    }
    assert!(!text.contains("did you mean"), "{text}");
}

#[test]
fn an_unknown_provider_lists_configured_ones_with_a_suggestion() {
    let rt = rt();
    assert_eq!(
        model_error(rt.introspect("llm:opnai")),
        "unknown LLM provider \"opnai\" (did you mean openai?); configured providers: openai, ollama"
    );
    let bare = runtime();
    assert_eq!(
        model_error(bare.introspect("llm:openai")),
        "unknown LLM provider \"openai\": no LLM providers are configured"
    );
    assert_eq!(ok(&bare, "llm").text, "no LLM providers are configured");
}

#[test]
fn targets_tolerate_surrounding_whitespace() {
    let rt = rt();
    assert_eq!(ok(&rt, " hosts ").text, ok(&rt, "hosts").text);
    assert!(ok(&rt, "llm: openai").structured.is_some());
}

#[test]
fn config_round_trips_from_json_with_secret_input() {
    let json = serde_json::json!({
        "hosts": {"alpha": {"root": "/srv/alpha"}},
        "bound_host": "alpha",
        "role": "main",
        "family": "chat",
        "llm": [{"name": "openai", "base_url": "https://x", "api_key": API_KEY, "models": ["m"]}],
    });
    let config: RuntimeConfig = serde_json::from_value(json).unwrap();
    assert_eq!(config.llm[0].api_key.as_ref().unwrap().expose(), API_KEY);
    let out = serde_json::to_string(&config).unwrap();
    assert!(!out.contains(API_KEY));
    assert!(out.contains("[redacted]"));
    let bad: Result<RuntimeConfig, _> = serde_json::from_value(serde_json::json!({
        "hosts": {}, "bound_host": "a", "role": "r", "family": "f", "typo": 1,
    }));
    assert!(bad.is_err(), "unknown keys are refused");
}

#[test]
fn an_invalid_config_is_refused_with_every_problem() {
    let mut config = config();
    config.bound_host = "gamma".into();
    config
        .llm
        .push(LlmProviderConfig::new("openai", "https://dup"));
    let err = runtime_result(config).unwrap_err();
    assert_eq!(err.problems.len(), 2, "{err}");
    assert!(
        err.to_string()
            .contains("bound_host \"gamma\" is not a configured host")
    );
}

fn runtime_result(
    config: RuntimeConfig,
) -> Result<Runtime, toolsurface_runtime::core::ConfigError> {
    Runtime::new(config, std::sync::Arc::new(FakeCatalog::default()))
}
