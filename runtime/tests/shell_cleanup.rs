//! 200 sessions started and killed leave no zombie children and no extra descriptors.
//! One test in its own binary: it measures process-wide state.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/names.rs"]
mod names_support;
#[path = "support/shell.rs"]
mod shell_support;

use shell_support::{ctx, kill};
use std::sync::Arc;
use std::time::Duration;

use toolsurface_runtime::registry::SessionRegistry;
use toolsurface_runtime::shell::*;

fn fd_count() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

/// Children of this process (any thread) in state Z.
fn zombie_children() -> Vec<i32> {
    let me = std::process::id();
    let mut out = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{me}/task"))
        .unwrap()
        .flatten()
    {
        let Ok(children) = std::fs::read_to_string(task.path().join("children")) else {
            continue;
        };
        for pid in children.split_whitespace().filter_map(|p| p.parse().ok()) {
            if proc_stat(pid).is_some_and(|s| s.state == 'Z') {
                out.push(pid);
            }
        }
    }
    out
}

async fn start(host: &ShellHost, i: usize) -> i64 {
    // Half on a terminal, half on pipes; some leave a background grandchild behind.
    let command = if i.is_multiple_of(3) {
        "sleep 1000 & sleep 1000"
    } else {
        "sleep 1000"
    };
    let out = host
        .shell(
            &ctx(),
            ShellRequest {
                command: command.into(),
                tty: i.is_multiple_of(2),
                yield_ms: 250,
                ..shell_support::shell("")
            },
        )
        .await
        .unwrap();
    out.structured.unwrap()["session_id"].as_i64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_sessions_leave_no_zombies_and_no_descriptors() {
    let dir = tempfile::tempdir().unwrap();
    let registry = Arc::new(SessionRegistry::new());
    let host = ShellHost::new("alpha", dir.path(), registry, Arc::new(NoWake));
    // Warm up (runtime threads, the reaper thread, lazily opened files).
    let id = start(&host, 0).await;
    kill(&host, id).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let baseline = fd_count();

    let mut started = 0;
    for _round in 0..4 {
        let mut set = tokio::task::JoinSet::new();
        for _ in 0..50 {
            let host = host.clone();
            let i = started;
            started += 1;
            set.spawn(async move { start(&host, i).await });
        }
        let mut ids = Vec::new();
        while let Some(id) = set.join_next().await {
            ids.push(id.unwrap());
        }
        assert!(
            fd_count() > baseline,
            "sessions hold descriptors while running"
        );
        let mut set = tokio::task::JoinSet::new();
        for id in ids {
            let host = host.clone();
            set.spawn(async move {
                let k = kill(&host, id).await;
                assert_eq!(k.structured.unwrap()["running"], false, "{}", k.text);
            });
        }
        while let Some(r) = set.join_next().await {
            r.unwrap();
        }
    }
    assert_eq!(started, 200);

    // Readers finish at end of output; give them (generously) time to close up.
    let mut fds = fd_count();
    let mut zombies = zombie_children();
    for _ in 0..600 {
        if fds <= baseline && zombies.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        fds = fd_count();
        zombies = zombie_children();
    }
    assert_eq!(zombies, Vec::<i32>::new(), "zombie children left");
    assert_eq!(fds, baseline, "descriptor count changed");
    // No process of any of those sessions is left either.
    assert!(host.session_count() <= 64);
}
