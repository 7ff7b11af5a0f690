//! Interrupts: result-on-interrupt calls hand back their real partial result; the others are
//! dropped with an honest text; calls not yet started never start.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::core_support;

use std::time::Duration;

use core_support::*;
use regex::Regex;
use tokio::sync::Notify;
use toolsurface_runtime::call::CallContext;
use toolsurface_runtime::call::ToolOutput;
use toolsurface_runtime::core::Batch;
use toolsurface_runtime::core::Outcome;
use toolsurface_runtime::core::RuntimeConfig;
use toolsurface_runtime::core::Turn;
use toolsurface_runtime::core::TurnKind;

const DEADLOCK_GUARD: Duration = Duration::from_secs(30);

fn honest(display_name: &str) -> Regex {
    Regex::new(&format!(
        r"^{display_name} was interrupted after \d+\.\d s; its output was not kept$"
    ))
    .unwrap()
}

#[tokio::test]
async fn a_result_on_interrupt_call_hands_back_its_partial_result() {
    let rt = runtime();
    let id = rt.registry().allocate("alpha");
    let turn = Turn::normal();
    let started = Notify::new();
    let started_ref = &started;
    let mut batch = Batch::new();
    batch.push("c1", wait(id, None));
    let run = rt.execute(batch, &turn, |_call, ctx: CallContext| async move {
        started_ref.notify_one();
        ctx.cancel.cancelled().await;
        Ok(ToolOutput::text("partial: 3 lines so far"))
    });
    let interrupter = async {
        started.notified().await;
        turn.interrupt();
    };
    let (results, ()) =
        tokio::time::timeout(DEADLOCK_GUARD, async { tokio::join!(run, interrupter) })
            .await
            .unwrap();
    let result = &results.unwrap()[0];
    assert!(!result.is_error);
    assert_eq!(result.text, "partial: 3 lines so far");
    assert_eq!(result.outcome, Outcome::InterruptedKept);
}

#[tokio::test]
async fn other_calls_are_dropped_with_an_honest_text() {
    let rt = runtime();
    let turn = Turn::normal();
    let started = Notify::new();
    let started_ref = &started;
    let mut batch = Batch::new();
    batch.push("c1", FakeCall::Shell { tag: "sleep" });
    let run = rt.execute(batch, &turn, |_call, _ctx| async move {
        started_ref.notify_one();
        std::future::pending::<()>().await;
        Ok(ToolOutput::text("never"))
    });
    let interrupter = async {
        started.notified().await;
        turn.interrupt();
    };
    let (results, ()) =
        tokio::time::timeout(DEADLOCK_GUARD, async { tokio::join!(run, interrupter) })
            .await
            .unwrap();
    let result = &results.unwrap()[0];
    assert!(result.is_error);
    assert_eq!(result.outcome, Outcome::InterruptedDropped);
    assert!(honest("shell").is_match(&result.text), "{}", result.text);
}

#[tokio::test]
async fn the_honest_text_names_the_action_not_just_the_tool() {
    // A follow-up that is not result_on_interrupt in this fake would be odd, so drop a
    // result_on_interrupt call by giving it no grace at all.
    let mut config = RuntimeConfig::single_host("alpha", "/x", "main", "chat");
    config.limits.interrupt_grace_ms = 0;
    let rt = runtime_with(config);
    let id = rt.registry().allocate("alpha");
    let turn = Turn::normal();
    let started = Notify::new();
    let started_ref = &started;
    let mut batch = Batch::new();
    batch.push("c1", wait(id, None));
    let run = rt.execute(batch, &turn, |_call, _ctx| async move {
        started_ref.notify_one();
        // Ignores the interrupt: after the grace it is dropped.
        std::future::pending::<()>().await;
        Ok(ToolOutput::text("never"))
    });
    let interrupter = async {
        started.notified().await;
        turn.interrupt();
    };
    let (results, ()) =
        tokio::time::timeout(DEADLOCK_GUARD, async { tokio::join!(run, interrupter) })
            .await
            .unwrap();
    let result = &results.unwrap()[0];
    assert_eq!(result.outcome, Outcome::InterruptedDropped);
    assert!(
        honest("shell_session wait").is_match(&result.text),
        "{}",
        result.text
    );
}

#[tokio::test]
async fn calls_after_the_interrupt_never_start() {
    let rt = runtime();
    let turn = Turn::normal();
    let log = Log::default();
    let (log_ref, turn_ref) = (&log, &turn);
    let mut batch = Batch::new();
    batch
        .push("c1", write("interrupts"))
        .push("c2", write("later"))
        .push("c3", grep("later too"));
    let results = rt
        .execute(batch, &turn, |call, _ctx| async move {
            log_ref.push(call.tag());
            // The user presses stop while this call finishes.
            turn_ref.interrupt();
            Ok(ToolOutput::text("done"))
        })
        .await
        .unwrap();
    assert_eq!(log.events(), ["interrupts"]);
    // It finished with the interrupt already raised: its real result is kept.
    assert_eq!(results[0].outcome, Outcome::InterruptedKept);
    assert_eq!(results[0].text, "done");
    assert_eq!(results[1].outcome, Outcome::NotStarted);
    assert_eq!(
        results[1].text,
        "write_file was not run: the turn was interrupted before it started"
    );
    assert_eq!(
        results[2].text,
        "grep_files was not run: the turn was interrupted before it started"
    );
    assert!(results[1].is_error && results[2].is_error);
}

#[tokio::test]
async fn an_interrupted_parallel_run_keeps_and_drops_per_call() {
    let rt = runtime();
    let turn = Turn::normal();
    let started = tokio::sync::Barrier::new(3);
    let started_ref = &started;
    let mut batch = Batch::new();
    batch
        .push("c1", grep("drop me"))
        .push("c2", FakeCall::SessionList)
        .push("c3", grep("already done"));
    let run = rt.execute(batch, &turn, |call, ctx: CallContext| async move {
        match call {
            FakeCall::SessionList => {
                started_ref.wait().await;
                ctx.cancel.cancelled().await;
                Ok(ToolOutput::text("2 sessions listed before the stop"))
            }
            FakeCall::Grep {
                tag: "already done",
            } => Ok(ToolOutput::text("3 matches")),
            _ => {
                started_ref.wait().await;
                std::future::pending::<()>().await;
                Ok(ToolOutput::text("never"))
            }
        }
    });
    let interrupter = async {
        started.wait().await;
        turn.interrupt();
    };
    let (results, ()) =
        tokio::time::timeout(DEADLOCK_GUARD, async { tokio::join!(run, interrupter) })
            .await
            .unwrap();
    let results = results.unwrap();
    let outcomes: Vec<_> = results.iter().map(|r| r.outcome).collect();
    assert_eq!(
        outcomes,
        [
            Outcome::InterruptedDropped,
            Outcome::InterruptedKept,
            Outcome::Completed
        ]
    );
    assert!(honest("grep_files").is_match(&results[0].text));
    assert_eq!(results[1].text, "2 sessions listed before the stop");
    assert_eq!(results[2].text, "3 matches");
}

#[tokio::test]
async fn a_turn_interrupted_before_execute_runs_nothing() {
    let rt = runtime();
    let turn = Turn::new(TurnKind::Heartbeat);
    let handle = turn.clone();
    handle.interrupt();
    assert!(turn.is_interrupted());
    let log = Log::default();
    let log_ref = &log;
    let batch: Batch<_> = vec![("c1".to_owned(), grep("a")), ("c2".to_owned(), write("b"))].into();
    let results = rt
        .execute(batch, &turn, |call, _ctx| async move {
            log_ref.push(call.tag());
            Ok(ToolOutput::default())
        })
        .await
        .unwrap();
    assert!(log.events().is_empty());
    assert!(results.iter().all(|r| r.outcome == Outcome::NotStarted));
}

#[tokio::test]
async fn handlers_see_the_turn_interrupt_in_their_context() {
    let rt = runtime();
    let turn = Turn::normal();
    let turn_ref = &turn;
    let mut batch = Batch::new();
    batch.push("c1", FakeCall::SessionList);
    let results = rt
        .execute(batch, &turn, |_call, ctx: CallContext| async move {
            let before = ctx.cancel.is_cancelled();
            turn_ref.interrupt();
            let after = ctx.cancel.is_cancelled();
            Ok(ToolOutput::text(format!("{before} {after}")))
        })
        .await
        .unwrap();
    assert_eq!(results[0].text, "false true");
}
