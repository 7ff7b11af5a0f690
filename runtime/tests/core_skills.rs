//! Skills: activation appends tools after the resident ones, so the old array's bytes stay a
//! prefix of the new one (the provider's prompt cache keeps matching).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod core_support;

use std::sync::Arc;

use core_support::*;
use toolsurface_runtime::call::ToolError;
use toolsurface_runtime::core::Runtime;
use toolsurface_runtime::core::RuntimeConfig;
use toolsurface_runtime::core::Turn;
use toolsurface_runtime::core::sha256_hex;

#[test]
fn activation_appends_and_keeps_the_resident_prefix() {
    let rt = runtime();
    let before = rt.surface(&Turn::normal()).unwrap();
    let activation = rt.activate("ops").unwrap();
    let after = rt.surface(&Turn::normal()).unwrap();

    assert_eq!(activation.skill, "ops");
    assert_eq!(activation.new_tools, ["fleet_status", "deploy"]);
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
    rt.activate("ops").unwrap();
    let with_ops = rt.surface(&Turn::normal()).unwrap();
    let activation = rt.activate("browser").unwrap();
    let with_both = rt.surface(&Turn::normal()).unwrap();
    assert_eq!(activation.new_tools, ["browse"]);
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
    let first = rt.activate("ops").unwrap();
    let again = rt.activate("ops").unwrap();
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
    let err = rt.activate("opps").unwrap_err();
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
        rt.activate("ops").unwrap_err(),
        ToolError::Model("unknown skill ops: role steward has no skills".into())
    );
}

#[test]
fn a_catalog_that_reorders_the_array_is_reported() {
    let config = RuntimeConfig::single_host("alpha", "/x", "main", "chat");
    let rt = Runtime::new(config, Arc::new(FakeCatalog { reorder: true })).unwrap();
    let activation = rt.activate("ops").unwrap();
    assert!(!activation.prefix_intact);
    // `[{"name":"` is shared; the first tool's name is where they part.
    assert_eq!(activation.diverges_at, r#"[{"name":""#.len());
}
