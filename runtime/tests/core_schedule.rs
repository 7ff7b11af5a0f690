//! Scheduling: results in call order, parallel-safe neighbours overlap, everything else runs
//! alone; parse failures, model errors and faults.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::core_support;

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering;
use std::time::Duration;

use core_support::*;
use tokio::sync::Barrier;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use toolsurface_runtime::call::CallContext;
use toolsurface_runtime::call::ToolError;
use toolsurface_runtime::call::ToolOutput;
use toolsurface_runtime::core::Batch;
use toolsurface_runtime::core::Outcome;
use toolsurface_runtime::core::Turn;

/// A deadlock guard, not a timing assertion: a schedule that serialises what must overlap
/// would hang forever on the barrier; this turns the hang into a failure.
const DEADLOCK_GUARD: Duration = Duration::from_secs(30);

async fn yield_a_few() {
    for _ in 0..5 {
        tokio::task::yield_now().await;
    }
}

fn ids(n: usize) -> impl Iterator<Item = String> {
    (0..n).map(|i| format!("call_{i}"))
}

#[tokio::test]
async fn parallel_safe_neighbours_overlap() {
    let rt = runtime();
    let barrier = Barrier::new(2);
    let barrier = &barrier;
    let batch: Batch<_> = ids(2)
        .zip([grep("a"), grep("b")])
        .collect::<Vec<_>>()
        .into();
    let turn = Turn::normal();
    let run = rt.execute(batch, &turn, |call, _ctx| async move {
        // Both calls must be inside their handlers at once to pass the barrier.
        barrier.wait().await;
        Ok(ToolOutput::text(format!("{} done", call.tag())))
    });
    let results = tokio::time::timeout(DEADLOCK_GUARD, run)
        .await
        .expect("parallel-safe calls did not overlap")
        .unwrap();
    let texts: Vec<_> = results.iter().map(|r| r.text.as_str()).collect();
    assert_eq!(texts, ["a done", "b done"]);
}

#[tokio::test]
async fn results_come_back_in_call_order_even_when_finished_out_of_order() {
    let rt = runtime();
    let log = Log::default();
    let last_done = Notify::new();
    let (log, last_done) = (&log, &last_done);
    let batch: Batch<_> = ids(3)
        .zip([grep("first"), grep("second"), grep("third")])
        .collect::<Vec<_>>()
        .into();
    let turn = Turn::normal();
    let run = rt.execute(batch, &turn, |call, _ctx| async move {
        let tag = call.tag();
        if tag == "first" {
            // Finishes only after the third has finished.
            last_done.notified().await;
        }
        log.push(format!("end {tag}"));
        if tag == "third" {
            last_done.notify_one();
        }
        Ok(ToolOutput::text(tag))
    });
    let results = tokio::time::timeout(DEADLOCK_GUARD, run)
        .await
        .unwrap()
        .unwrap();
    assert!(log.position("end third") < log.position("end first"));
    let order: Vec<_> = results
        .iter()
        .map(|r| (r.call_id.as_str(), r.text.as_str()))
        .collect();
    assert_eq!(
        order,
        [
            ("call_0", "first"),
            ("call_1", "second"),
            ("call_2", "third")
        ]
    );
}

#[tokio::test]
async fn a_non_parallel_call_never_overlaps_anything() {
    let rt = runtime();
    let log = Log::default();
    let log = &log;
    let batch: Batch<_> = ids(5)
        .zip([grep("a"), grep("b"), write("w"), grep("c"), grep("d")])
        .collect::<Vec<_>>()
        .into();
    rt.execute(batch, &Turn::normal(), |call, _ctx| async move {
        log.push(format!("start {}", call.tag()));
        yield_a_few().await;
        log.push(format!("end {}", call.tag()));
        Ok(ToolOutput::text(""))
    })
    .await
    .unwrap();
    let events = log.events();
    let start_w = log.position("start w");
    assert_eq!(
        events[start_w + 1],
        "end w",
        "something ran during w: {events:?}"
    );
    for before in ["a", "b"] {
        assert!(
            log.position(&format!("end {before}")) < start_w,
            "{events:?}"
        );
    }
    for after in ["c", "d"] {
        assert!(
            log.position(&format!("start {after}")) > start_w + 1,
            "{events:?}"
        );
    }
    // The groups around w did run concurrently: both started before either ended.
    assert!(
        log.position("start b") < log.position("end a"),
        "{events:?}"
    );
    assert!(
        log.position("start d") < log.position("end c"),
        "{events:?}"
    );
}

#[tokio::test]
async fn consecutive_exclusive_calls_run_one_at_a_time_in_order() {
    let rt = runtime();
    let log = Log::default();
    let log = &log;
    let batch: Batch<_> = ids(3)
        .zip([write("w1"), FakeCall::ReadFile { tag: "r" }, write("w2")])
        .collect::<Vec<_>>()
        .into();
    rt.execute(batch, &Turn::normal(), |call, _ctx| async move {
        log.push(format!("start {}", call.tag()));
        yield_a_few().await;
        log.push(format!("end {}", call.tag()));
        Ok(ToolOutput::text(""))
    })
    .await
    .unwrap();
    assert_eq!(
        log.events(),
        [
            "start w1", "end w1", "start r", "end r", "start w2", "end w2"
        ]
    );
}

#[tokio::test]
async fn calls_hold_the_matching_side_of_the_turn_lock() {
    let rt = runtime();
    let turn = Turn::normal();
    let seen = Mutex::new(Vec::new());
    let (turn_ref, seen_ref) = (&turn, &seen);
    let batch: Batch<_> = ids(2)
        .zip([grep("g"), write("w")])
        .collect::<Vec<_>>()
        .into();
    rt.execute(batch, &turn, |call, _ctx| async move {
        let lock = turn_ref.lock();
        let can_read = lock.try_read().is_ok();
        let can_write = lock.try_write().is_ok();
        seen_ref
            .lock()
            .unwrap()
            .push((call.tag(), can_read, can_write));
        Ok(ToolOutput::text(""))
    })
    .await
    .unwrap();
    // grep holds the read side: others may read, nobody may write.
    // write holds the write side: nobody may read or write.
    assert_eq!(
        seen.into_inner().unwrap(),
        [("g", true, false), ("w", false, false)]
    );
    assert!(
        turn.lock().try_write().is_ok(),
        "lock released after the batch"
    );
}

#[tokio::test]
async fn max_parallel_caps_a_parallel_run() {
    let mut config =
        toolsurface_runtime::core::RuntimeConfig::single_host("alpha", "/x", "main", "chat");
    config.limits.max_parallel = 2;
    let rt = runtime_with(config);
    let running = AtomicUsize::new(0);
    let peak = AtomicUsize::new(0);
    let barrier = Barrier::new(2);
    let (running, peak, barrier) = (&running, &peak, &barrier);
    let batch: Batch<_> = ids(4)
        .zip([grep("a"), grep("b"), grep("c"), grep("d")])
        .collect::<Vec<_>>()
        .into();
    let turn = Turn::normal();
    let run = rt.execute(batch, &turn, |_call, _ctx| async move {
        let now = running.fetch_add(1, Ordering::SeqCst) + 1;
        peak.fetch_max(now, Ordering::SeqCst);
        barrier.wait().await; // pairs must overlap
        yield_a_few().await;
        running.fetch_sub(1, Ordering::SeqCst);
        Ok(ToolOutput::text(""))
    });
    let results = tokio::time::timeout(DEADLOCK_GUARD, run)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(results.len(), 4);
    assert_eq!(peak.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn parse_failures_become_error_results_in_place() {
    let rt = runtime();
    let calls = vec![
        ("c1".to_owned(), Ok(grep("a"))),
        (
            "c2".to_owned(),
            Err("action=kill: unexpected field timeout_s (it belongs to wait)"),
        ),
        ("c3".to_owned(), Ok(grep("b"))),
    ];
    let batch: Batch<FakeCall> = calls.into_iter().collect();
    let results = rt
        .execute(batch, &Turn::normal(), |call, _ctx| async move {
            Ok(ToolOutput::text(call.tag()))
        })
        .await
        .unwrap();
    let summary: Vec<_> = results
        .iter()
        .map(|r| (r.call_id.as_str(), r.is_error, r.text.as_str(), r.outcome))
        .collect();
    assert_eq!(
        summary,
        [
            ("c1", false, "a", Outcome::Completed),
            (
                "c2",
                true,
                "action=kill: unexpected field timeout_s (it belongs to wait)",
                Outcome::Refused
            ),
            ("c3", false, "b", Outcome::Completed),
        ]
    );
}

#[tokio::test]
async fn model_errors_become_error_results_and_the_turn_goes_on() {
    let rt = runtime();
    let mut batch = Batch::new();
    batch.push("c1", write("bad")).push("c2", write("good"));
    let results = rt
        .execute(batch, &Turn::normal(), |call, _ctx| async move {
            match call.tag() {
                "bad" => Err(ToolError::Model("no such file: x".into())),
                _ => Ok(ToolOutput {
                    text: "wrote".into(),
                    structured: Some(serde_json::json!({"sha256": "abc"})),
                }),
            }
        })
        .await
        .unwrap();
    assert!(results[0].is_error);
    assert_eq!(results[0].text, "no such file: x");
    assert!(!results[1].is_error);
    assert_eq!(
        results[1].structured,
        Some(serde_json::json!({"sha256": "abc"}))
    );
}

#[tokio::test]
async fn a_fatal_error_ends_the_turn_and_later_calls_never_run() {
    let rt = runtime();
    let log = Log::default();
    let log = &log;
    let mut batch = Batch::new();
    batch
        .push("c1", grep("ok"))
        .push("c2", write("boom"))
        .push("c3", write("never"));
    let fault = rt
        .execute(batch, &Turn::normal(), |call, _ctx| async move {
            log.push(call.tag());
            match call.tag() {
                "boom" => Err(ToolError::Fatal("store is corrupt".into())),
                _ => Ok(ToolOutput::text("fine")),
            }
        })
        .await
        .unwrap_err();
    assert_eq!(fault.call_id, "c2");
    assert_eq!(fault.display_name, "write_file");
    assert_eq!(fault.message, "store is corrupt");
    assert_eq!(fault.completed.len(), 1);
    assert_eq!(fault.completed[0].call_id, "c1");
    assert_eq!(log.events(), ["ok", "boom"]);
    assert!(fault.to_string().contains("store is corrupt"));
}

#[tokio::test]
async fn a_fatal_error_cancels_its_running_neighbours() {
    let rt = runtime();
    let sibling_token: Mutex<Option<CancellationToken>> = Mutex::new(None);
    let sibling_started = Notify::new();
    let (slot, started) = (&sibling_token, &sibling_started);
    let mut batch = Batch::new();
    batch.push("c1", grep("waits")).push("c2", grep("fails"));
    let turn = Turn::normal();
    let run = rt.execute(batch, &turn, |call, ctx: CallContext| async move {
        if call.tag() == "waits" {
            *slot.lock().unwrap() = Some(ctx.cancel.clone());
            started.notify_one();
            std::future::pending::<()>().await;
        }
        started.notified().await;
        Err(ToolError::Fatal("disk gone".into()))
    });
    let fault = tokio::time::timeout(DEADLOCK_GUARD, run)
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(fault.call_id, "c2");
    assert!(fault.completed.is_empty());
    let token = sibling_token.lock().unwrap().clone().unwrap();
    assert!(token.is_cancelled(), "the running neighbour was not told");
}

#[tokio::test]
async fn an_empty_batch_yields_no_results() {
    let rt = runtime();
    let calls = Arc::new(AtomicUsize::new(0));
    let results = rt
        .execute(Batch::<FakeCall>::new(), &Turn::normal(), |_c, _ctx| {
            let calls = calls.clone();
            async move {
                calls.fetch_add(1, Ordering::SeqCst);
                Ok(ToolOutput::default())
            }
        })
        .await
        .unwrap();
    assert!(results.is_empty());
    assert_eq!(calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn execute_is_send_and_can_be_spawned() {
    let rt = Arc::new(runtime());
    let turn = Turn::normal();
    let handle = tokio::spawn({
        let rt = rt.clone();
        async move {
            let batch: Batch<_> = vec![("c1".to_owned(), grep("x"))].into();
            rt.execute(batch, &turn, |call, ctx| async move {
                Ok(ToolOutput::text(format!("{}@{}", call.tag(), ctx.host)))
            })
            .await
        }
    });
    let results = handle.await.unwrap().unwrap();
    assert_eq!(results[0].text, "x@alpha");
}

#[tokio::test]
async fn turns_sharing_a_schedule_exclude_each_other_but_interrupt_alone() {
    let schedule = Turn::normal();
    let a = schedule.sharing_schedule(toolsurface_runtime::core::TurnKind::Normal);
    let b = schedule.sharing_schedule(toolsurface_runtime::core::TurnKind::Normal);
    let held = a.lock().write().await;
    assert!(
        b.lock().try_read().is_err(),
        "b waits while a holds the write side"
    );
    drop(held);
    assert!(b.lock().try_write().is_ok());
    a.interrupt();
    assert!(a.is_interrupted());
    assert!(!b.is_interrupted() && !schedule.is_interrupted());
}
