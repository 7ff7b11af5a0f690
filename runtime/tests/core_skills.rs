//! Skills: under a stable delivery (defer, allow_list) activation changes no byte of the tool
//! array and hands the host the dialect's reply; under append it adds tools after the
//! resident ones, so the old array's bytes stay a prefix of the new one.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::core_support;

use std::sync::Arc;

use core_support::*;
use toolsurface_runtime::call::ToolError;
use toolsurface_runtime::core::ActivationReply;
use toolsurface_runtime::core::MAX_KEPT_ACTIVATIONS;
use toolsurface_runtime::core::RuntimeConfig;
use toolsurface_runtime::core::SkillDelivery;
use toolsurface_runtime::core::ToolResultBlock;
use toolsurface_runtime::core::Turn;
use toolsurface_runtime::core::sha256_hex;

#[test]
fn activation_appends_and_keeps_the_resident_prefix() {
    let rt = runtime();
    let before = rt.surface(&Turn::normal()).unwrap();
    let activation = rt.activate("call_1", "ops").unwrap();
    let after = rt.surface(&Turn::normal()).unwrap();

    assert_eq!(activation.skill, "ops");
    assert_eq!(activation.new_tool_names(), ["fleet_status", "deploy"]);
    assert_eq!(activation.delivery, SkillDelivery::Append);
    assert!(!activation.tools_unchanged());
    assert_eq!(activation.previous_sha256, before.sha256);
    assert_eq!(activation.surface_sha256, after.sha256);
    assert_eq!(
        activation.surface_sha256,
        sha256_hex(after.bytes.as_bytes())
    );
    assert!(activation.prefix_intact);
    assert!(!activation.already_active);
    // The arrays diverge exactly at the old closing bracket.
    assert_eq!(activation.diverges_at, before.bytes.len() - 1);
    let resident = &before.bytes[..before.bytes.len() - 1];
    assert!(after.bytes.starts_with(resident));
    assert_eq!(rt.active_skills(), ["ops"]);
    assert_eq!(after.scope.skills, ["ops"]);
    let output = activation.to_output();
    assert_eq!(
        output.text,
        "activated skill ops: 2 new tools (fleet_status, deploy), available from your next step"
    );
    assert_eq!(
        output.structured.unwrap()["diverges_at"],
        serde_json::json!(before.bytes.len() - 1)
    );
}

#[test]
fn a_second_skill_appends_after_the_first() {
    let rt = runtime();
    rt.activate("call_1", "ops").unwrap();
    let with_ops = rt.surface(&Turn::normal()).unwrap();
    let activation = rt.activate("call_1", "browser").unwrap();
    let with_both = rt.surface(&Turn::normal()).unwrap();
    assert_eq!(activation.new_tool_names(), ["browse"]);
    assert_eq!(activation.diverges_at, with_ops.bytes.len() - 1);
    assert!(
        with_both
            .bytes
            .starts_with(&with_ops.bytes[..with_ops.bytes.len() - 1])
    );
    assert_eq!(rt.active_skills(), ["ops", "browser"]);
}

#[test]
fn activating_an_active_skill_changes_nothing() {
    let rt = runtime();
    let first = rt.activate("call_1", "ops").unwrap();
    let again = rt.activate("call_1", "ops").unwrap();
    assert!(again.already_active);
    assert!(again.new_tools.is_empty());
    assert_eq!(again.surface_sha256, first.surface_sha256);
    assert_eq!(again.previous_sha256, first.surface_sha256);
    assert_eq!(rt.active_skills(), ["ops"]);
    assert_eq!(
        again.to_output().text,
        "skill ops is already active; nothing changed"
    );
}

#[test]
fn an_unknown_skill_is_a_model_error_with_a_suggestion() {
    let rt = runtime();
    let err = rt.activate("call_1", "opps").unwrap_err();
    assert_eq!(
        err,
        ToolError::Model(
            "unknown skill opps (did you mean ops?); available skills: ops, browser".into()
        )
    );
    assert!(rt.active_skills().is_empty());
}

#[test]
fn a_role_without_skills_says_so() {
    let config = RuntimeConfig::single_host("alpha", "/x", "steward", "chat");
    let rt = Runtime::new(config, Arc::new(FakeCatalog::default())).unwrap();
    assert_eq!(
        rt.activate("call_1", "ops").unwrap_err(),
        ToolError::Model("unknown skill ops: role steward has no skills".into())
    );
}

#[test]
fn a_catalog_that_reorders_the_array_is_reported() {
    let config = RuntimeConfig::single_host("alpha", "/x", "main", "chat");
    let rt = Runtime::new(
        config,
        Arc::new(FakeCatalog {
            reorder: true,
            ..FakeCatalog::default()
        }),
    )
    .unwrap();
    let activation = rt.activate("call_1", "ops").unwrap();
    assert!(!activation.prefix_intact);
    // `[{"name":"` is shared; the first tool's name is where they part.
    assert_eq!(activation.diverges_at, r#"[{"name":""#.len());
}

fn runtime_with(catalog: FakeCatalog) -> Runtime {
    let config = RuntimeConfig::single_host("alpha", "/x", "main", "chat");
    Runtime::new(config, Arc::new(catalog)).unwrap()
}

const STABLE: [SkillDelivery; 3] = [
    SkillDelivery::ToolReference,
    SkillDelivery::ToolSearchOutput,
    SkillDelivery::AllowList,
];

#[test]
fn under_a_stable_delivery_activation_changes_no_byte_of_the_array() {
    for delivery in STABLE {
        let rt = runtime_with(FakeCatalog::with_delivery(delivery));
        let before = rt.surface(&Turn::normal()).unwrap();
        let ops = rt.activate("call_1", "ops").unwrap();
        let middle = rt.surface(&Turn::normal()).unwrap();
        let browser = rt.activate("call_2", "browser").unwrap();
        let after = rt.surface(&Turn::normal()).unwrap();
        assert_eq!(before.bytes, middle.bytes, "{delivery:?}");
        assert_eq!(before.bytes, after.bytes, "{delivery:?}");
        for a in [&ops, &browser] {
            assert_eq!(a.delivery, delivery);
            assert!(a.tools_unchanged());
            assert!(a.prefix_intact);
            assert_eq!(a.diverges_at, before.bytes.len());
            assert_eq!(a.surface_sha256, before.sha256);
        }
        assert_eq!(ops.new_tool_names(), ["fleet_status", "deploy"]);
        assert_eq!(browser.new_tool_names(), ["browse"]);
        assert_eq!(rt.active_skills(), ["ops", "browser"]);
        // The skill tools were published all along.
        assert!(before.bytes.contains(r#""name":"browse""#));
    }
}

#[test]
fn each_delivery_has_its_reply_shape() {
    let rt = runtime_with(FakeCatalog::with_delivery(SkillDelivery::ToolReference));
    let reply = rt
        .activate("toolu_1", "ops")
        .unwrap()
        .reply("toolu_1")
        .unwrap();
    let ActivationReply::ToolResultContent(blocks) = reply else {
        panic!("{reply:?}")
    };
    assert!(
        matches!(&blocks[0], ToolResultBlock::Text { text } if text.contains("2 tools loaded"))
    );
    assert_eq!(
        blocks[1..],
        [
            ToolResultBlock::ToolReference {
                tool_name: "fleet_status".into()
            },
            ToolResultBlock::ToolReference {
                tool_name: "deploy".into()
            },
        ]
    );

    let rt = runtime_with(FakeCatalog::with_delivery(SkillDelivery::ToolSearchOutput));
    let reply = rt
        .activate("ts_1", "browser")
        .unwrap()
        .reply("ts_1")
        .unwrap();
    assert_eq!(
        serde_json::to_string(&reply).unwrap(),
        format!(
            r#"{{"type":"tool_search_output","call_id":"ts_1","execution":"client","tools":[{}]}}"#,
            fake_definition("browse", "Open a page.")
        )
    );

    for delivery in [SkillDelivery::AllowList, SkillDelivery::Append] {
        let rt = runtime_with(FakeCatalog::with_delivery(delivery));
        let activation = rt.activate("c", "browser").unwrap();
        assert_eq!(
            activation.reply("c").unwrap(),
            ActivationReply::Text(activation.text())
        );
    }
}

#[test]
fn a_catalog_that_changes_the_array_under_a_stable_delivery_is_a_fault() {
    let rt = runtime_with(FakeCatalog {
        appends_anyway: true,
        ..FakeCatalog::with_delivery(SkillDelivery::AllowList)
    });
    let err = rt.activate("call_1", "ops").unwrap_err();
    assert!(
        matches!(&err, ToolError::Fatal(m) if m.contains("must keep it byte-identical")),
        "{err:?}"
    );
    assert!(rt.active_skills().is_empty());
}

#[test]
fn activations_are_taken_once_by_call_id_and_kept_within_a_cap() {
    let rt = runtime_with(FakeCatalog::with_delivery(SkillDelivery::AllowList));
    rt.activate("call_a", "ops").unwrap();
    assert!(rt.take_activation("call_b").is_none());
    let taken = rt.take_activation("call_a").unwrap();
    assert_eq!(taken.skill, "ops");
    assert!(rt.take_activation("call_a").is_none());
    for i in 0..MAX_KEPT_ACTIVATIONS + 1 {
        rt.activate(&format!("again_{i}"), "ops").unwrap();
    }
    assert!(
        rt.take_activation("again_0").is_none(),
        "the oldest is dropped"
    );
    let last = rt
        .take_activation(&format!("again_{MAX_KEPT_ACTIVATIONS}"))
        .unwrap();
    assert!(last.already_active);
    assert!(last.new_tools.is_empty());
}

#[test]
fn an_unknown_role_or_family_is_refused_at_construction_with_a_did_you_mean() {
    let config = RuntimeConfig::single_host("alpha", "/x", "mian", "chta");
    let err = Runtime::new(config, Arc::new(FakeCatalog::default())).unwrap_err();
    assert_eq!(
        err.problems,
        [
            "unknown role \"mian\" (did you mean main?); known: main, steward",
            "unknown family \"chta\" (did you mean chat?); known: chat",
        ]
    );
}

#[test]
fn the_scope_holds_the_surface_names_not_strings() {
    let rt = runtime_with(FakeCatalog::default());
    rt.activate("call_1", "ops").unwrap();
    let expected: toolsurface_runtime::core::Scope<FakeNames> = toolsurface_runtime::core::Scope {
        role: FakeRole::Main,
        family: FakeFamily::Chat,
        skills: vec![FakeSkill::Ops],
    };
    assert_eq!(rt.scope(), expected);
    assert_eq!((rt.role(), rt.family()), (FakeRole::Main, FakeFamily::Chat));
}
