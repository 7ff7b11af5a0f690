//! Wake-up ordering around process exit: a match watcher sees every byte the process
//! printed before the exit wake-up is sent, and outlives the leader while some other
//! process still holds its output open.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::shell_support;

use shell_support::{ctx, kill};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use toolsurface_runtime::registry::SessionRegistry;
use toolsurface_runtime::shell::*;

fn host(dir: &std::path::Path) -> (ShellHost, mpsc::UnboundedReceiver<WakeUp>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let host = ShellHost::new("alpha", dir, Arc::new(SessionRegistry::new()), Arc::new(tx));
    (host, rx)
}

async fn next_wake(rx: &mut mpsc::UnboundedReceiver<WakeUp>) -> WakeUp {
    tokio::time::timeout(Duration::from_secs(60), rx.recv())
        .await
        .expect("no wake-up within 60 s")
        .expect("wake channel closed")
}

async fn monitor(host: &ShellHost, command: &str, until: &str) -> (i64, i64, i64) {
    let m = host
        .monitor_start(
            &ctx(),
            MonitorStartRequest {
                command: command.into(),
                until_output: Some(until.into()),
                workdir: None,
            },
        )
        .await
        .unwrap();
    let st = m.structured.unwrap();
    (
        st["session_id"].as_i64().unwrap(),
        st["watchers"]["match"].as_i64().unwrap(),
        st["watchers"]["exit"].as_i64().unwrap(),
    )
}

/// The process prints its match and exits at once: the output is still in the pipe when
/// the leader is reaped. Every run must wake with the match, then with the exit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_printed_right_before_exit_wakes_before_the_exit() {
    let dir = tempfile::tempdir().unwrap();
    let (host, mut rx) = host(dir.path());
    for run in 0..50 {
        let (id, match_id, exit_id) = monitor(&host, "printf 'READY\\n'; exit 0", "^READY$").await;
        let first = next_wake(&mut rx).await;
        assert_eq!(first.session_id, id, "run {run}: {first:?}");
        assert_eq!(
            (first.watcher_id, &first.kind),
            (
                Some(match_id),
                &WakeKind::Matched {
                    text: "READY".into()
                }
            ),
            "run {run}: the match was lost or came after the exit: {first:?}"
        );
        let second = next_wake(&mut rx).await;
        assert_eq!(second.session_id, id, "run {run}: {second:?}");
        assert_eq!(second.watcher_id, Some(exit_id), "run {run}: {second:?}");
        assert!(
            matches!(second.kind, WakeKind::Exited { code: Some(0) }),
            "run {run}: {second:?}"
        );
        // Release the slot (an exited, unread session would otherwise stay listed).
        kill(&host, id).await;
    }
    assert!(rx.try_recv().is_err(), "no wake-up beyond two per run");
}

/// A background child keeps the output pipe open after the leader exits: the exit wake-up
/// comes anyway (no end of output to wait for), and the match watcher keeps watching what
/// the child prints afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_exit_wakes_while_a_child_holds_the_output_and_its_match_still_fires() {
    let dir = tempfile::tempdir().unwrap();
    let (host, mut rx) = host(dir.path());
    let go = dir.path().join("go");
    let command = "echo started; \
                   (while [ ! -e go ]; do sleep 0.05; done; echo LATE READY) & exit 3";
    let (id, match_id, exit_id) = monitor(&host, command, "LATE READY").await;
    let first = next_wake(&mut rx).await;
    assert_eq!(
        (first.session_id, first.watcher_id),
        (id, Some(exit_id)),
        "{first:?}"
    );
    assert!(
        matches!(first.kind, WakeKind::Exited { code: Some(3) }),
        "{first:?}"
    );
    std::fs::write(&go, b"").unwrap();
    let second = next_wake(&mut rx).await;
    assert_eq!(
        (second.session_id, second.watcher_id, &second.kind),
        (
            id,
            Some(match_id),
            &WakeKind::Matched {
                text: "LATE READY".into()
            }
        ),
        "{second:?}"
    );
    kill(&host, id).await;
    assert!(rx.try_recv().is_err());
}
