//! Rehearsal turns run only read-only actions; no turn kind changes the published array.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::core_support;

use core_support::*;
use toolsurface_runtime::call::CallContext;
use toolsurface_runtime::call::CallInfo;
use toolsurface_runtime::call::ToolOutput;
use toolsurface_runtime::core::Batch;
use toolsurface_runtime::core::Outcome;
use toolsurface_runtime::core::Turn;
use toolsurface_runtime::core::TurnKind;
use toolsurface_runtime::core::rehearsal_refusal;

fn mixed_batch(session: i64) -> Batch<FakeCall> {
    let mut batch = Batch::new();
    batch
        .push("c1", grep("g"))
        .push("c2", write("w"))
        .push("c3", FakeCall::ReadFile { tag: "r" })
        .push("c4", FakeCall::Shell { tag: "s" })
        .push(
            "c5",
            FakeCall::SessionPoll {
                session_id: session,
                host_id: None,
            },
        )
        .push(
            "c6",
            FakeCall::SessionKill {
                session_id: session,
                host_id: None,
            },
        );
    batch
}

#[tokio::test]
async fn rehearsal_runs_only_read_only_actions() {
    let rt = runtime();
    let session = rt.registry().allocate("alpha");
    let log = Log::default();
    let log_ref = &log;
    let results = rt
        .execute(
            mixed_batch(session),
            &Turn::rehearsal(),
            |call, ctx: CallContext| async move {
                log_ref.push(format!(
                    "{} rehearsal={}",
                    call.display_name(),
                    ctx.rehearsal
                ));
                Ok(ToolOutput::text("ran"))
            },
        )
        .await
        .unwrap();
    assert_eq!(
        log.events(),
        [
            "grep_files rehearsal=true",
            "read_file rehearsal=true",
            "shell_session poll rehearsal=true"
        ]
    );
    let texts: Vec<_> = results.iter().map(|r| r.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "ran",
            "rehearsal: write_file is not read-only; only read-only actions run in rehearsal",
            "ran",
            "rehearsal: shell is not read-only; only read-only actions run in rehearsal",
            "ran",
            "rehearsal: shell_session kill is not read-only; only read-only actions run in rehearsal",
        ]
    );
    assert!(results[1].is_error && results[3].is_error && results[5].is_error);
    assert_eq!(results[5].outcome, Outcome::Refused);
}

#[tokio::test]
async fn every_other_turn_kind_runs_everything() {
    for kind in [TurnKind::Normal, TurnKind::Heartbeat, TurnKind::Scheduled] {
        let rt = runtime();
        let session = rt.registry().allocate("alpha");
        let results = rt
            .execute(
                mixed_batch(session),
                &Turn::new(kind),
                |_call, ctx: CallContext| async move {
                    assert!(!ctx.rehearsal);
                    Ok(ToolOutput::text("ran"))
                },
            )
            .await
            .unwrap();
        assert!(
            results.iter().all(|r| r.text == "ran" && !r.is_error),
            "{kind:?}"
        );
    }
}

#[test]
fn the_refusal_text_is_the_documented_one() {
    assert_eq!(
        rehearsal_refusal("shell_session kill"),
        "rehearsal: shell_session kill is not read-only; only read-only actions run in rehearsal"
    );
}

#[test]
fn every_turn_kind_gets_the_same_scope_and_the_same_bytes() {
    let rt = runtime();
    let reference = rt.surface(&Turn::normal()).unwrap();
    for kind in TurnKind::ALL {
        let turn = Turn::new(kind);
        assert_eq!(rt.scope_for(&turn), reference.scope, "{kind:?}");
        let surface = rt.surface(&turn).unwrap();
        assert_eq!(surface.bytes, reference.bytes, "{kind:?}");
        assert_eq!(surface.sha256, reference.sha256, "{kind:?}");
    }
    // With a skill active, the key changes for every kind alike.
    rt.activate("call_1", "ops").unwrap();
    let with_skill = rt.surface(&Turn::normal()).unwrap();
    assert_ne!(with_skill.sha256, reference.sha256);
    for kind in TurnKind::ALL {
        assert_eq!(
            rt.surface(&Turn::new(kind)).unwrap().bytes,
            with_skill.bytes
        );
    }
}
