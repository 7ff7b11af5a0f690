//! `usage_calls_per_cpu_s` and `replay_calls_per_cpu_s` (targets: >= 500,000 calls per CPU
//! second, user + system time of the process, stable under load) and the informative
//! wall-clock `usage_calls_per_s` / `replay_calls_per_s`: the real `toolsurface usage` and
//! `toolsurface replay` binaries over a generated transcript of at least 1,000,000 tool calls
//! (every format and layout, read from disk), with the peak RSS of each run (wait4's
//! ru_maxrss: streaming keeps it flat whatever the transcript's size). The transcript is
//! generated once under target/adopt-bench/ (kept while the generator's config is unchanged).
//! Rows go to `${CARGO_TARGET_DIR:-target}/bench-rows/adopt.json` (the bench contract).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use toolsurface_cli::transcript::generate::{Config, write_all};

const MIN_CALLS: u64 = 1_000_000;
const RUNS: usize = 3;

/// The repository root (this crate is its `cli/`).
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
}

/// Generate (or reuse) the transcript; returns its folder and call count.
fn transcript(root: &Path) -> (PathBuf, u64, u64) {
    let defs = root.join("examples/consolidation/before");
    let sources = toolsurface_compiler::read_dir(&defs).unwrap();
    let ir = toolsurface_compiler::compile(&sources).ir.unwrap();
    let config = Config::new("side_chat", "chat", 56_000, 20);
    let dir = target_dir().join("adopt-bench");
    let stamp = dir.join("stamp");
    let key = format!("{config:?}");
    if let Ok(s) = std::fs::read_to_string(&stamp)
        && let Some((k, rest)) = s.split_once('\n')
    {
        let mut it = rest
            .split_whitespace()
            .map(|n| n.parse::<u64>().unwrap_or(0));
        let (calls, bytes) = (it.next().unwrap_or(0), it.next().unwrap_or(0));
        if k == key && calls >= MIN_CALLS {
            return (dir.join("transcripts"), calls, bytes);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    let g = write_all(&ir, &config, &dir.join("transcripts")).unwrap();
    assert!(g.calls >= MIN_CALLS, "generated only {} calls", g.calls);
    std::fs::write(&stamp, format!("{key}\n{} {}\n", g.calls, g.bytes)).unwrap();
    (dir.join("transcripts"), g.calls, g.bytes)
}

/// Run the binary; wall seconds, peak RSS in MiB (wait4's ru_maxrss, KiB on Linux), exit code
/// and CPU seconds (user + system: the rate per CPU second does not depend on how loaded the
/// machine is, the wall-clock rate does).
#[allow(clippy::zombie_processes)] // reaped by wait4, which also reports its peak RSS
fn run(args: &[&str]) -> (f64, f64, i32, f64) {
    let started = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_toolsurface"))
        .args(args)
        .current_dir(root())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our own child, not yet reaped; the pointers are valid for the call.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4");
    let secs = started.elapsed().as_secs_f64();
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let cpu = tv(usage.ru_utime) + tv(usage.ru_stime);
    (secs, usage.ru_maxrss as f64 / 1024.0, code, cpu)
}

fn measure(name: &str, args: &[&str], calls: u64, ok_codes: &[i32]) -> (f64, f64, f64, f64) {
    let mut rates = Vec::new();
    let mut cpu_rates = Vec::new();
    let mut rss: f64 = 0.0;
    for _ in 0..RUNS {
        let (secs, peak, code, cpu) = run(args);
        assert!(ok_codes.contains(&code), "{name}: exit {code}");
        rates.push(calls as f64 / secs);
        cpu_rates.push(calls as f64 / cpu.max(1e-9));
        rss = rss.max(peak);
    }
    cpu_rates.sort_by(f64::total_cmp);
    let per_cpu = cpu_rates[cpu_rates.len() / 2];
    let max = rates.iter().cloned().fold(f64::MIN, f64::max);
    let min = rates.iter().cloned().fold(f64::MAX, f64::min);
    rates.sort_by(f64::total_cmp);
    let median = rates[rates.len() / 2];
    println!(
        "{name}: {median:.0} calls/s (min {min:.0}, max {max:.0}), {per_cpu:.0} calls per CPU second, peak RSS {rss:.1} MiB"
    );
    (median, (max - min) / 2.0, rss, per_cpu)
}

fn main() {
    // `cargo bench` passes --bench; a plain `cargo test --benches` run passes nothing and
    // should not spend a minute generating.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let (dir, calls, bytes) = transcript(root());
    let dir_s = dir.display().to_string();
    println!(
        "transcript: {calls} calls, {:.0} MiB in {}",
        bytes as f64 / (1 << 20) as f64,
        dir_s
    );
    let before = "examples/consolidation/before";
    let usage = measure(
        "usage",
        &["usage", &dir_s, "--defs", before, "--format", "json"],
        calls,
        &[0],
    );
    let replay = measure(
        "replay",
        &[
            "replay",
            &dir_s,
            "--from",
            before,
            "--to",
            "tool-defs",
            "--role",
            "side_chat",
            "--family",
            "chat",
            "--format",
            "json",
        ],
        calls,
        &[0, 4],
    );
    let rows = serde_json::json!({
        // The targets sit on the per-CPU-second rows (stable under load); the wall-clock
        // rows stay as information.
        "usage_calls_per_s": {"value": usage.0.round(), "spread": usage.1.round()},
        "replay_calls_per_s": {"value": replay.0.round(), "spread": replay.1.round()},
        "usage_calls_per_cpu_s": {"value": usage.3.round(), "target": ">= 500000"},
        "replay_calls_per_cpu_s": {"value": replay.3.round(), "target": ">= 500000"},
        "usage_peak_rss_mib": {"value": (usage.2 * 10.0).round() / 10.0},
        "replay_peak_rss_mib": {"value": (replay.2 * 10.0).round() / 10.0},
        "adopt_transcript_calls": {"value": calls},
    });
    let out = target_dir().join("bench-rows");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("adopt.json"), format!("{rows}\n")).unwrap();
}
