//! 64 MiB of output through a session keeps the buffer at its cap and memory bounded.
//! One test in its own binary: it measures the process's resident set.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/names.rs"]
mod names_support;
#[path = "support/shell.rs"]
mod shell_support;

use shell_support::ctx;
use std::sync::Arc;

use toolsurface_runtime::registry::SessionRegistry;
use toolsurface_runtime::shell::*;

const SIXTY_FOUR_MIB: u64 = 64 << 20;

fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    let kb: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kb * 1024
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_four_mib_of_output_stays_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let registry = Arc::new(SessionRegistry::new());
    let host = ShellHost::new("alpha", dir.path(), registry, Arc::new(NoWake));
    let before = rss_bytes();
    for tty in [true, false] {
        let out = host
            .shell(
                &ctx(),
                ShellRequest {
                    command: format!("yes abcdefghijklmnopqrstuvwxyz | head -c {SIXTY_FOUR_MIB}"),
                    tty,
                    yield_ms: 250,
                    ..shell_support::shell("")
                },
            )
            .await
            .unwrap();
        let mut st = out.structured.unwrap();
        let id = st["session_id"].as_i64().unwrap();
        let mut peak = 0;
        for _ in 0..40 {
            if let Some((used, cap)) = host.buffer_usage(id) {
                assert!(used <= cap, "buffer {used} over its cap {cap}");
                assert_eq!(cap, DEFAULT_CAPACITY);
                peak = peak.max(used);
            }
            if st["running"] == false {
                break;
            }
            let w = host
                .wait(
                    &ctx(),
                    Wait {
                        session_id: id,
                        host_id: None,
                        timeout_s: 30.0,
                        until_output: None,
                    },
                )
                .await
                .unwrap();
            st = w.structured.unwrap();
        }
        assert_eq!(st["running"], false, "tty={tty}: {st}");
        assert_eq!(st["exit_code"], 0, "tty={tty}: {st}");
        assert_eq!(
            st["total_bytes"], SIXTY_FOUR_MIB,
            "tty={tty}: every byte was drained"
        );
        let (used, cap) = host.buffer_usage(id).unwrap();
        assert!(used <= cap);
        assert_eq!(used, cap, "the buffer is full, not larger");
        let p = host
            .poll(
                &ctx(),
                Poll {
                    session_id: id,
                    offset: Some(0),
                    peek: true,
                    ..shell_support::poll(0)
                },
            )
            .await
            .unwrap();
        let text = p.structured.unwrap()["output"].as_str().unwrap().to_owned();
        assert!(
            text.starts_with("abcdefghijklmnopqrstuvwxyz\n"),
            "{}",
            &text[..80]
        );
        assert!(text.len() < 100_000, "a read is cut to max_output_tokens");
        // Reading across the end of the kept head shows the dropped stretch.
        let p = host
            .poll(
                &ctx(),
                Poll {
                    session_id: id,
                    offset: Some((DEFAULT_CAPACITY / 4) as i64 - 100),
                    peek: true,
                    ..shell_support::poll(0)
                },
            )
            .await
            .unwrap();
        let text = p.structured.unwrap()["output"].as_str().unwrap().to_owned();
        assert!(
            text.contains("bytes dropped …]"),
            "dropped middle is marked: {text:.300}"
        );
    }
    let growth = rss_bytes().saturating_sub(before);
    assert!(
        growth < 32 << 20,
        "resident set grew by {growth} bytes for 128 MiB of output"
    );
}
