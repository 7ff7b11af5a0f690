//! `Call::parse` against the `jsonschema` crate validating the same tool's strict per-action
//! union (validator built once) and against plain `serde_json::from_str` into an unvalidated
//! flat struct, all from the same shell_session arguments text (what a provider hands a host).
//! `scripts/bench` turns the medians into the ratios DESIGN.md §10 targets (each bench runs
//! once per round, [`ROUNDS`] rounds, so every ratio is a median over rounds with a spread).
//!
//! Time is the benchmarking thread's CPU time ([`ThreadCpuTime`]), not wall time: the three
//! routines are single-threaded and CPU-bound, and on a shared machine wall time also counts
//! whatever else held the core (under load 10 on 2 cores it read 6× the CPU time and the
//! ratios moved by ±50%).

#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde::Deserialize;
use toolsurface::standard::{Call, Family, Role};

/// In-run repetitions of each bench (interleaved).
const ROUNDS: usize = 5;

const ARGS: &str = r#"{"action":"wait","session_id":4242,"timeout_s":30,"until_output":"ready"}"#;

/// Every shell_session field, all optional, no checks: the "unvalidated struct" baseline.
#[derive(Deserialize)]
struct Unvalidated {
    action: String,
    session_id: Option<i64>,
    host_id: Option<String>,
    chars: Option<String>,
    keys: Option<Vec<String>>,
    peek: Option<bool>,
    offset: Option<i64>,
    timeout_s: Option<f64>,
    until_output: Option<String>,
    cols: Option<i64>,
    rows: Option<i64>,
    watcher_id: Option<i64>,
}

fn union_validator() -> jsonschema::Validator {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tool-defs");
    let sources = toolsurface_compiler::read_dir(&root).unwrap();
    let ir = toolsurface_compiler::compile(&sources).ir.unwrap();
    let tool = ir.tool("shell_session").unwrap();
    let schema = toolsurface_compiler::codegen::union::strict_union(tool);
    jsonschema::validator_for(&schema).unwrap()
}

/// CPU time of the calling thread (`CLOCK_THREAD_CPUTIME_ID`), in nanoseconds.
struct ThreadCpuTime;

fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid clock id and a valid out-pointer.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

impl Measurement for ThreadCpuTime {
    type Intermediate = u64;
    type Value = u64;
    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, start: u64) -> u64 {
        thread_cpu_ns().saturating_sub(start)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &CpuNanoseconds
    }
}

struct CpuNanoseconds;

impl ValueFormatter for CpuNanoseconds {
    fn scale_values(&self, typical: f64, values: &mut [f64]) -> &'static str {
        let (div, unit) = match typical {
            t if t < 1e3 => (1.0, "ns cpu"),
            t if t < 1e6 => (1e3, "µs cpu"),
            _ => (1e6, "ms cpu"),
        };
        values.iter_mut().for_each(|v| *v /= div);
        unit
    }
    fn scale_throughputs(
        &self,
        _: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str {
        let per = match throughput {
            Throughput::Elements(n) | Throughput::Bytes(n) | Throughput::BytesDecimal(n) => {
                *n as f64
            }
            _ => 1.0,
        };
        values.iter_mut().for_each(|v| *v = per * 1e9 / *v);
        "/s cpu"
    }
    fn scale_for_machines(&self, _: &mut [f64]) -> &'static str {
        "ns"
    }
}

fn parse(c: &mut Criterion<ThreadCpuTime>) {
    let validator = union_validator();
    // The three agree on the input before anything is timed.
    assert!(Call::parse(Role::SideChat, Family::Chat, "shell_session", ARGS).is_ok());
    assert!(validator.is_valid(&serde_json::from_str(ARGS).unwrap()));
    assert!(serde_json::from_str::<Unvalidated>(ARGS).is_ok());

    // Several in-run repetitions, interleaved (each bench once per round), so a ratio can
    // pair the numerator and denominator measured at about the same time: scripts/bench takes
    // the median of the per-round ratios and prints their spread.
    let parsed: serde_json::Value = serde_json::from_str(ARGS).unwrap();
    let mut g = c.benchmark_group("parse");
    g.warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(50);
    for round in 0..ROUNDS {
        g.bench_function(BenchmarkId::new("toolsurface_parse", round), |b| {
            b.iter(|| {
                Call::parse(
                    Role::SideChat,
                    Family::Chat,
                    "shell_session",
                    black_box(ARGS),
                )
            })
        });
        // jsonschema validates a `serde_json::Value`, so its time includes parsing the text
        // into one: the host holds text either way.
        g.bench_function(BenchmarkId::new("jsonschema_validate", round), |b| {
            b.iter(|| {
                let v: serde_json::Value = serde_json::from_str(black_box(ARGS)).unwrap();
                validator.is_valid(&v)
            })
        });
        // For reference only (not in a ratio): the validator on an already parsed value.
        g.bench_function(
            BenchmarkId::new("jsonschema_validate_preparsed", round),
            |b| b.iter(|| validator.is_valid(black_box(&parsed))),
        );
        g.bench_function(BenchmarkId::new("serde_unvalidated", round), |b| {
            b.iter(|| serde_json::from_str::<Unvalidated>(black_box(ARGS)).unwrap())
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(ThreadCpuTime);
    targets = parse
}
criterion_main!(benches);
