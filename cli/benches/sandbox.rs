//! What the sandbox costs a spawn: `true` run through `shell` on a host confined by
//! `workspace-write` (spawned through the re-exec helper: no_new_privs, Landlock, seccomp,
//! then exec) against the same on an unconfined host, in the same process. A custom harness:
//! each repetition runs both variants `SPAWNS` times, interleaved, and takes the ratio of
//! their medians; the row is the median over repetitions, its spread (max − min) / 2.
//!
//! Row written to `${CARGO_TARGET_DIR:-target}/bench-rows/sandbox.json` (scripts/bench
//! prints and checks it): `sandboxed_spawn_ratio` (target ≤ 1.3).
//! `SANDBOX_BENCH_REPS` sets the repetitions (default 7; 1 under `cargo test --benches`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use toolsurface_runtime::call::CallContext;
use toolsurface_runtime::registry::SessionRegistry;
use toolsurface_runtime::sandbox::{Confinement, Policy, Profile, kernel_status};
use toolsurface_runtime::shell::{NoWake, ShellConfig, ShellHost, ShellRequest};

const SPAWNS: usize = 25;

fn ctx() -> CallContext {
    CallContext {
        call_id: "bench".into(),
        cancel: Default::default(),
        host: "local".into(),
        rehearsal: false,
        names: &toolsurface::standard::TOOL_NAMES,
    }
}

fn host(root: &std::path::Path, helper: &std::path::Path, confined: bool) -> ShellHost {
    let config = ShellConfig {
        sandbox_helper: Some(helper.to_path_buf()),
        ..ShellConfig::default()
    };
    let host = ShellHost::with_config(
        "bench",
        root,
        Arc::new(SessionRegistry::new()),
        Arc::new(NoWake),
        config,
    );
    if confined {
        let policy = Policy::of(Profile::WorkspaceWrite);
        let c = Confinement::new(policy, root, Some(helper.to_path_buf())).unwrap();
        host.confine(Arc::new(c)).unwrap();
    }
    host
}

/// Seconds for one `true` through `shell`, checked to have run (and confined, if so).
async fn spawn_true(host: &ShellHost) -> f64 {
    let t0 = Instant::now();
    let out = host
        .shell(
            &ctx(),
            ShellRequest {
                command: "true".into(),
                workdir: None,
                yield_ms: 30_000,
                max_output_tokens: 10_000,
                tty: false,
            },
        )
        .await
        .unwrap();
    let elapsed = t0.elapsed().as_secs_f64();
    assert_eq!(out.structured.unwrap()["exit_code"], 0, "{}", out.text);
    elapsed
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn main() {
    let benching = std::env::args().any(|a| a == "--bench");
    let reps: usize = match std::env::var("SANDBOX_BENCH_REPS") {
        Ok(v) => v.parse().expect("SANDBOX_BENCH_REPS is a number"),
        Err(_) if benching => 7,
        Err(_) => 1,
    };
    let helper = PathBuf::from(env!("CARGO_BIN_EXE_toolsurface"));
    let status = kernel_status(Some(&helper));
    assert!(
        status.can_enforce(),
        "the sandbox cannot be enforced here: {status:?}"
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let root = tempfile::tempdir().unwrap();
    let plain = host(root.path(), &helper, false);
    let confined = host(root.path(), &helper, true);
    // Warm both paths (page cache, the helper's first exec).
    rt.block_on(spawn_true(&plain));
    rt.block_on(spawn_true(&confined));
    let mut ratios = Vec::with_capacity(reps);
    for rep in 0..reps {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..SPAWNS {
            a.push(rt.block_on(spawn_true(&plain)));
            b.push(rt.block_on(spawn_true(&confined)));
        }
        let (ma, mb) = (median(&mut a), median(&mut b));
        eprintln!(
            "sandbox rep {}/{reps}: unconfined {:.2} ms, confined {:.2} ms, ratio {:.3}",
            rep + 1,
            ma * 1e3,
            mb * 1e3,
            mb / ma
        );
        ratios.push(mb / ma);
    }
    let spread = ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max)
        - ratios.iter().copied().fold(f64::INFINITY, f64::min);
    let rows = serde_json::json!({
        "sandboxed_spawn_ratio": {
            "value": (median(&mut ratios) * 1000.0).round() / 1000.0,
            "spread": (spread / 2.0 * 1000.0).round() / 1000.0,
            "target": "<= 1.3",
        }
    });
    let dir = PathBuf::from(
        std::env::var("CARGO_TARGET_DIR")
            .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../target").to_owned()),
    )
    .join("bench-rows");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("sandbox.json"), format!("{rows}\n")).unwrap();
    println!("{}", serde_json::to_string_pretty(&rows).unwrap());
}
