//! A fuzz smoke inside the suite's own build: every fuzz target (fuzz/targets.rs, the same
//! bodies scripts/fuzz runs under libFuzzer) on its committed seeds (fuzz/seeds/<target>/,
//! crash inputs included, so each past crash is a regression test) and on
//! `FUZZ_SMOKE_RUNS` (default 10^4) deterministic mutations of them. No coverage guidance
//! and no second build: libFuzzer's instrumentation would need one; scripts/fuzz is the real
//! fuzzer. A failing input is written to `target/fuzz-smoke/<target>-<n>` and named.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../fuzz/targets.rs"]
mod targets;

use std::path::{Path, PathBuf};

fn runs() -> usize {
    std::env::var("FUZZ_SMOKE_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}

/// The repository root (this crate is its `cli/`): tool-defs/, examples/, tests/data/.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

fn seeds(target: &str) -> Vec<Vec<u8>> {
    let dir = root().join("fuzz/seeds").join(target);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    let seeds: Vec<Vec<u8>> = paths.iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert!(!seeds.is_empty(), "no seeds in {}", dir.display());
    seeds
}

/// xorshift64*: a fixed sequence, so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Bytes the formats care about, for inserts and overwrites.
const INTERESTING: &[u8] = b"{}[]\":,\\\n -0123456789.eE+tfnul*@#|&>!\t\r\x00\xff\xc3\xa9";

/// One to four edits of a seed: overwrite, insert, delete a range, duplicate a range, splice
/// in part of another seed, truncate.
fn mutate(rng: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut v = seeds[rng.below(seeds.len())].clone();
    for _ in 0..=rng.below(4) {
        let at = rng.below(v.len() + 1);
        match rng.below(7) {
            0 if !v.is_empty() => {
                let i = at.min(v.len() - 1);
                v[i] ^= 1 << rng.below(8);
            }
            1 if !v.is_empty() => {
                let i = at.min(v.len() - 1);
                v[i] = INTERESTING[rng.below(INTERESTING.len())];
            }
            2 => v.insert(at, INTERESTING[rng.below(INTERESTING.len())]),
            3 => {
                let end = (at + rng.below(16)).min(v.len());
                v.drain(at..end);
            }
            4 => {
                let end = (at + rng.below(32)).min(v.len());
                let chunk = v[at..end].to_vec();
                let to = rng.below(v.len() + 1);
                v.splice(to..to, chunk);
            }
            5 => {
                let other = &seeds[rng.below(seeds.len())];
                let from = rng.below(other.len() + 1);
                let end = (from + rng.below(64)).min(other.len());
                v.splice(at..at, other[from..end].iter().copied());
            }
            _ => v.truncate(at),
        }
    }
    v
}

fn smoke(target: &str, run: fn(&[u8])) {
    let seeds = seeds(target);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ target.len() as u64);
    let inputs = seeds
        .iter()
        .cloned()
        .chain((0..runs()).map(|_| mutate(&mut rng, &seeds)));
    for (n, input) in inputs.enumerate() {
        if std::panic::catch_unwind(|| run(&input)).is_err() {
            let dir = root().join("target/fuzz-smoke");
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join(format!("{target}-{n}"));
            std::fs::write(&path, &input).unwrap();
            panic!(
                "fuzz target {target} failed on input {n} (written to {}; replay: scripts/fuzz --repro {target} {})",
                path.display(),
                path.display()
            );
        }
    }
}

#[test]
fn fuzz_smoke_parse() {
    smoke("parse", targets::parse);
}

#[test]
fn fuzz_smoke_load() {
    smoke("load", targets::load);
}

#[test]
fn fuzz_smoke_patch() {
    smoke("patch", targets::patch);
}

#[test]
fn fuzz_smoke_mcp() {
    smoke("mcp", targets::mcp);
}

/// The guards that keep the patch and mcp targets harmless hold for what they must catch.
#[test]
fn fuzz_guards_refuse_what_could_escape() {
    for escaping in [
        "*** Begin Patch\n*** Delete File: /etc/passwd\n*** End Patch\n",
        "*** Begin Patch\n*** Add File: ../x\n+a\n*** End Patch\n",
        "*** Begin Patch\n*** Device: other\n*** End Patch\n",
        "*** Begin Patch\n*** Update File: ~\n*** End Patch\n",
    ] {
        assert!(targets::may_leave_the_tree(escaping), "{escaping}");
    }
    assert!(!targets::may_leave_the_tree(
        "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n"
    ));
    for call in [
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#.as_slice(),
        br#"{"jsonrpc":"2.0","id":1,"method":"tools\/call"}"#,
        br#"{"jsonrpc":"2.0","id":1,"method":"\u0074ools/call"}"#,
        b"{\"x\":1}\n[{\"method\":\"tools/call\"}]",
    ] {
        assert!(
            targets::mcp_skips(call),
            "{}",
            String::from_utf8_lossy(call)
        );
    }
    assert!(!targets::mcp_skips(
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#
    ));
}
