//! StandardHost and the published surface: the array is the generated one, byte for byte,
//! whatever the turn kind; skill activation appends after a byte-identical resident prefix;
//! introspect reports what the catalog publishes; aliases and retired names go through
//! handle_batch like a model would send them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::host_support;

use host_support::Fixture;
use host_support::ok;
use host_support::structured;
use toolsurface::runtime::Outcome;
use toolsurface::runtime::Turn;
use toolsurface::runtime::TurnKind;
use toolsurface::runtime::sha256_hex;
use toolsurface::standard;
use toolsurface::standard::Family;
use toolsurface::standard::Role;
use toolsurface::standard::Skill;

#[tokio::test]
async fn every_turn_kind_publishes_the_generated_array() {
    for role in Role::ALL {
        for family in Family::ALL {
            let fx = Fixture::new(role, family);
            let expected = standard::published(role, family);
            for kind in TurnKind::ALL {
                let surface = fx.host.surface(&Turn::new(kind)).unwrap();
                assert_eq!(
                    surface.bytes.as_ref(),
                    expected,
                    "{role} × {family} in a {kind:?} turn"
                );
                assert_eq!(surface.sha256, standard::published_sha256(role, family));
            }
            // The array is borrowed static bytes, not a copy.
            let surface = fx.host.surface(&Turn::normal()).unwrap();
            assert!(matches!(surface.bytes, std::borrow::Cow::Borrowed(_)));
        }
    }
}

#[tokio::test]
async fn a_rehearsal_batch_leaves_the_array_alone() {
    let fx = Fixture::new(Role::SideChat, Family::Anthropic);
    let before = fx.host.surface(&Turn::normal()).unwrap();
    let rehearsal = Turn::rehearsal();
    let results = fx
        .run(
            &rehearsal,
            &[
                ("r1", "introspect", r#"{"target":"tools"}"#),
                ("r2", "write_file", r#"{"path":"x.txt","content":"x"}"#),
            ],
        )
        .await;
    ok(&results[0]);
    assert!(results[1].is_error);
    for kind in TurnKind::ALL {
        assert_eq!(fx.host.surface(&Turn::new(kind)).unwrap(), before);
    }
}

#[tokio::test]
async fn activating_a_skill_keeps_the_published_bytes() {
    // Every standard family has `skills: defer` or `allow_list`: the skill's tools are in the
    // published array from the first request, so activation changes no byte of it.
    for family in Family::ALL {
        assert!(family.skill_strategy().keeps_tools_stable(), "{family}");
        let fx = Fixture::new(Role::Main, family);
        let resident = standard::published(Role::Main, family);
        assert!(resident.contains("\"sql_query\""), "{family}");

        // Before activation, the skill's tool is not callable.
        let refused = fx
            .one("sql_query", r#"{"database":"x.db","sql":"select 1"}"#)
            .await;
        assert!(refused.is_error);
        assert_eq!(refused.outcome, Outcome::Refused);
        assert!(refused.text.contains("sqlite"), "{}", refused.text);

        let activated = ok(&fx.one("activate_skill", r#"{"name":"sqlite"}"#).await).clone();
        let facts = structured(&activated);
        assert_eq!(facts["prefix_intact"], true, "{family}");
        assert_eq!(facts["already_active"], false);
        let sha = standard::published_sha256(Role::Main, family);
        assert_eq!(facts["previous_sha256"], sha);
        assert_eq!(facts["surface_sha256"], sha);
        // The array every turn kind publishes is still the resident one, byte for byte.
        let after = fx.host.surface(&Turn::normal()).unwrap();
        assert_eq!(after.bytes.as_ref(), resident, "{family}");
        for kind in TurnKind::ALL {
            assert_eq!(fx.host.surface(&Turn::new(kind)).unwrap(), after);
        }
        assert_eq!(fx.host.active_skills(), vec![Skill::Sqlite]);

        // Activating again changes nothing.
        let again = ok(&fx.one("activate_skill", r#"{"name":"sqlite"}"#).await).clone();
        assert_eq!(structured(&again)["already_active"], true);
        assert_eq!(fx.host.surface(&Turn::normal()).unwrap(), after);
    }
}

#[tokio::test]
async fn skill_tools_run_after_activation_against_a_real_database() {
    let fx = Fixture::new(Role::Main, Family::Chat);
    let db = fx.path("data.db");
    let status = std::process::Command::new("sqlite3")
        .arg(&db)
        .arg("create table t(name text); insert into t values ('ada'), ('grace');")
        .status()
        .unwrap();
    assert!(status.success());
    ok(&fx.one("activate_skill", r#"{"name":"sqlite"}"#).await);
    let tools = ok(&fx.one("introspect", r#"{"target":"tools"}"#).await).clone();
    let listed = structured(&tools)["tools"].as_array().unwrap().clone();
    assert_eq!(listed.last().unwrap()["name"], "sql_query", "appended last");
    assert_eq!(structured(&tools)["skills"], serde_json::json!(["sqlite"]));
    let result = fx
        .one(
            "sql_query",
            r#"{"database":"data.db","sql":"select name from t order by name"}"#,
        )
        .await;
    ok(&result);
    assert_eq!(
        structured(&result)["rows"],
        serde_json::json!([["ada"], ["grace"]])
    );
    // Writing is refused by the skill's tool itself.
    let write = fx
        .one(
            "sql_query",
            r#"{"database":"data.db","sql":"insert into t values ('eve')"}"#,
        )
        .await;
    assert!(write.is_error, "{}", write.text);
}

#[tokio::test]
async fn unknown_skills_are_a_model_error_with_a_hint() {
    let fx = Fixture::new(Role::Main, Family::Chat);
    let result = fx.one("activate_skill", r#"{"name":"sqlit"}"#).await;
    assert!(result.is_error);
    assert!(
        result.text.contains("did you mean sqlite"),
        "{}",
        result.text
    );
    assert!(fx.host.active_skills().is_empty());
}

#[tokio::test]
async fn introspect_lists_the_published_tools_and_skills() {
    let fx = Fixture::new(Role::Main, Family::Responses);
    let tools = ok(&fx.one("introspect", r#"{"target":"tools"}"#).await).clone();
    let listed: Vec<String> = structured(&tools)["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    let published: serde_json::Value =
        serde_json::from_str(standard::published(Role::Main, Family::Responses)).unwrap();
    let names: Vec<String> = published
        .as_array()
        .unwrap()
        .iter()
        // Responses publishes activate_skill as the nameless client `tool_search` tool.
        .map(|t| t["name"].as_str().unwrap_or("activate_skill").to_owned())
        .collect();
    // Under `skills: defer` the skill's tool is published (deferred) from the start, but
    // `introspect tools` lists what a call may use now: not it, until activation.
    let callable: Vec<String> = names
        .iter()
        .filter(|n| *n != "sql_query")
        .cloned()
        .collect();
    assert!(names.contains(&"sql_query".to_owned()));
    assert_eq!(listed, callable, "published order, callable tools");
    ok(&fx.one("activate_skill", r#"{"name":"sqlite"}"#).await);
    let tools = ok(&fx.one("introspect", r#"{"target":"tools"}"#).await).clone();
    let listed: Vec<&str> = structured(&tools)["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(listed, names, "published order, the skill's tool included");
    let fx = Fixture::new(Role::Main, Family::Responses);

    let skills = ok(&fx.one("introspect", r#"{"target":"skills"}"#).await).clone();
    let skill = &structured(&skills)["skills"][0];
    assert_eq!(skill["name"], "sqlite");
    assert_eq!(skill["tools"], serde_json::json!(["sql_query"]));
    assert_eq!(skill["active"], false);
    assert!(!skill["description"].as_str().unwrap().is_empty());

    // A role without skills says so.
    let side = Fixture::new(Role::SideChat, Family::Chat);
    let none = ok(&side.one("introspect", r#"{"target":"skills"}"#).await).clone();
    assert_eq!(structured(&none)["skills"], serde_json::json!([]));
}

#[tokio::test]
async fn introspect_llm_reports_configured_providers_redacted() {
    use toolsurface::runtime::LlmProviderConfig;
    use toolsurface::runtime::Secret;
    let fx = Fixture::with(Role::SideChat, Family::Chat, |c| {
        let mut provider = LlmProviderConfig::new("openai", "https://api.example/v1");
        provider.models = vec!["gpt-5".into()];
        provider.api_key = Some(Secret::new("sk-never-shown"));
        c.with_llm(provider)
    });
    for target in ["llm", "llm:openai", "models"] {
        let result = ok(&fx
            .one("introspect", &format!(r#"{{"target":"{target}"}}"#))
            .await)
        .clone();
        let all = format!("{} {}", result.text, structured(&result));
        assert!(!all.contains("sk-never-shown"), "{target}: {all}");
        assert!(all.contains("gpt-5"), "{target}: {all}");
    }
    // The alias of the case study lands on the same target.
    let aliased = ok(&fx.one("llm_config_inspect", "{}").await).clone();
    assert!(
        aliased.text.contains("https://api.example/v1"),
        "{}",
        aliased.text
    );
}

#[tokio::test]
async fn retired_and_unknown_names_answer_in_place() {
    let fx = Fixture::new(Role::SideChat, Family::Chat);
    let results = fx
        .run(
            &Turn::normal(),
            &[
                ("c1", "get_current_time", "{}"),
                ("c2", "introspect", r#"{"target":"hosts"}"#),
                ("c3", "shel", r#"{"command":"true"}"#),
                ("c4", "list_dir", r#"{"path":"."}"#),
            ],
        )
        .await;
    assert!(results[0].is_error);
    assert_eq!(results[0].outcome, Outcome::Refused);
    assert!(results[0].text.contains("date"), "{}", results[0].text);
    ok(&results[1]);
    assert!(results[2].is_error);
    assert!(
        results[2].text.contains("did you mean shell"),
        "{}",
        results[2].text
    );
    assert!(results[3].is_error);
    assert_eq!(results[3].outcome, Outcome::Refused);
}

#[tokio::test]
async fn skill_arrays_come_from_the_generated_statics() {
    for role in Role::ALL {
        for family in Family::ALL {
            for &skill in role.skills() {
                let fx = Fixture::new(role, family);
                let resident = standard::published(role, family);
                let expected = standard::published_with_skills(role, family, &[skill]);
                let activated = ok(&fx
                    .one(
                        "activate_skill",
                        &format!(r#"{{"name":"{}"}}"#, skill.as_str()),
                    )
                    .await)
                .clone();
                let facts = structured(&activated);
                let after = fx.host.surface(&Turn::normal()).unwrap();
                // Exactly the generated bytes: under defer / allow_list the published array,
                // which already carries the skill's tools.
                assert_eq!(after.bytes.as_ref(), expected.as_ref(), "{role} × {family}");
                assert_eq!(expected.as_ref(), resident, "{role} × {family}");
                let carried: Vec<&str> = standard::skill_json(role, family, skill).to_vec();
                assert!(!carried.is_empty(), "{role} × {family}: {skill} has tools");
                for tool in &carried {
                    assert!(resident.contains(tool), "{role} × {family}");
                }
                assert_eq!(facts["prefix_intact"], true);
                assert_eq!(facts["surface_sha256"], sha256_hex(expected.as_bytes()));
                assert_eq!(facts["surface_sha256"], after.sha256.as_str());
                assert_eq!(
                    facts["previous_sha256"],
                    standard::published_sha256(role, family)
                );
            }
        }
    }
}

#[test]
fn an_unknown_role_or_family_in_the_config_is_refused_once_at_startup_with_a_did_you_mean() {
    let dir = tempfile::tempdir().unwrap();
    let runtime = toolsurface_runtime::core::RuntimeConfig::single_host(
        "local",
        dir.path(),
        "mian",
        "responsse",
    );
    let config = toolsurface::host::HostConfig::new(runtime).with_state_dir(dir.path());
    let err = toolsurface::host::StandardHost::new(config).unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, toolsurface::host::HostError::Config(_)),
        "{text}"
    );
    assert!(
        text.contains("unknown role \"mian\" (did you mean main?); known: side_chat, main"),
        "{text}"
    );
    assert!(
        text.contains("unknown family \"responsse\" (did you mean responses?)"),
        "{text}"
    );
    assert_eq!(text.matches("unknown role").count(), 1, "{text}");
}

#[test]
fn the_runtime_scope_holds_the_generated_enums() {
    use toolsurface::runtime::Scope;
    let fx = Fixture::new(Role::Main, Family::Chat);
    // Compiles only because the runtime's scope is `Scope<standard::Names>`.
    let expected: Scope<standard::Names> = Scope::new(standard::Role::Main, standard::Family::Chat);
    assert_eq!(fx.host.runtime().scope(), expected);
    let skill = Role::Main.skills()[0];
    fx.host
        .runtime()
        .activate("call_1", skill.as_str())
        .unwrap();
    assert_eq!(fx.host.runtime().scope().skills, [skill]);
    assert_eq!(fx.host.active_skills(), [skill]);
}
