//! `toolsurface check` in-process: read (tool-defs only), compile, emit every role × family,
//! build the lock (token counts reused from the prior lock where the bytes match, as `check`
//! does), parse the committed lock and diff against it. `synthetic_200` and `synthetic_2000`
//! use generated definitions (in memory, as `Sources`) with 200 and 2,000 tools spread over
//! roles of at most 125 tools. `scripts/bench` reports `check_ms`, `scale_200_ms` and
//! `scale_2000_ms`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use toolsurface_compiler::diff::{self, Options};
use toolsurface_compiler::lock::Lock;
use toolsurface_compiler::{SourceFile, Sources, compile, emit, read_dir};

/// One check of `sources` against the lock text `locked`; returns the finding count.
fn check(sources: &Sources, locked: &str) -> usize {
    let ir = compile(sources).ir.unwrap();
    let emitted = emit::surfaces(&ir).unwrap();
    let prior = Lock::parse(locked).unwrap();
    let current = Lock::build(&ir, &emitted, Some(&prior));
    let d = diff::diff(&prior, &current, None, &Options::default(), "lock", "defs");
    d.findings.len()
}

fn lock_text(sources: &Sources) -> String {
    let ir = compile(sources).ir.unwrap();
    let emitted = emit::surfaces(&ir).unwrap();
    Lock::build(&ir, &emitted, None).render()
}

/// `n` tools over roles of at most 125 resident tools each.
fn synthetic(n: usize) -> Sources {
    let mut files = Vec::new();
    files.push(SourceFile::new("surface.yaml", "families:\n  chat: { dialect: openai-chat }\n  responses: { dialect: openai-responses }\n  anthropic: { dialect: anthropic }\n  gemini: { dialect: gemini }\ntraits:\n  parallel_safe: { type: bool, default: false, doc: \"may overlap\" }\n  follow_up: { type: bool, default: false, doc: \"session\" }\n  poll: { type: bool, default: false, doc: \"poll\" }\n  read_only: { type: bool, default: false, doc: \"rehearsal\" }\n  result_on_interrupt: { type: bool, default: false, doc: \"interrupt\" }\n  cost: { type: enum, values: [neutral, self, work], default: work, doc: \"orientation cost\" }\n"));
    let per_role = 125;
    let mut roles = String::new();
    for (r, chunk) in (0..n).collect::<Vec<_>>().chunks(per_role).enumerate() {
        let _ = writeln!(roles, "role_{r}:\n  description: Role {r}.\n  tools:");
        for i in chunk {
            let _ = writeln!(roles, "    - tool_{i:04}");
        }
    }
    files.push(SourceFile::new("roles.yaml", roles));
    for i in 0..n {
        let text = if i % 4 == 0 {
            format!(
                "name: tool_{i:04}\nobject: thing {i}\ndescription: |\n  Manage thing number {i}: read it, change it or list the others. Returns the thing as JSON with its version.\nselector:\n  name: action\n  description: What to do.\nfields:\n  id:\n    type: integer\n    minimum: 1\n    description: Thing id.\n  text:\n    type: string\n    max_length: 4096\n    description: New text.\n  mode:\n    type: enum\n    values: [fast, careful]\n    description: How.\nactions:\n  read:\n    description: Read one thing.\n    required: [id]\n    traits: {{ parallel_safe: true, read_only: true, cost: neutral }}\n  write:\n    description: Replace its text.\n    required: [id, text]\n    optional: [mode]\n  list:\n    description: List things.\n    traits: {{ read_only: true, cost: self }}\n"
            )
        } else {
            format!(
                "name: tool_{i:04}\nobject: item {i}\ndescription: |\n  Look up item number {i} by key and return its value, size and last change; fails when the key is unknown.\nfields:\n  key:\n    type: string\n    min_length: 1\n    max_length: 256\n    description: Item key.\n  limit:\n    type: integer\n    minimum: 1\n    maximum: 1000\n    description: Maximum entries.\n  verbose:\n    type: boolean\n    description: Include history.\nrequired: [key]\ntraits: {{ parallel_safe: true, read_only: true, cost: neutral }}\n"
            )
        };
        files.push(SourceFile::new(format!("tools/tool_{i:04}.yaml"), text));
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Sources {
        root: format!("synthetic_{n}"),
        files,
    }
}

fn bench(c: &mut Criterion) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tool-defs");
    let committed = std::fs::read_to_string(root.join("surface.lock")).unwrap();
    let mut g = c.benchmark_group("check");
    g.sample_size(20).measurement_time(Duration::from_secs(8));
    g.bench_function("tool_defs", |b| {
        b.iter(|| {
            let sources = read_dir(&root).unwrap();
            let locked = std::fs::read_to_string(root.join("surface.lock")).unwrap();
            black_box(check(&sources, &locked))
        })
    });
    // The committed lock matches: the whole check finds nothing.
    assert_eq!(check(&read_dir(&root).unwrap(), &committed), 0);
    for n in [200usize, 2000] {
        let sources = synthetic(n);
        let locked = lock_text(&sources);
        assert_eq!(check(&sources, &locked), 0);
        if n >= 2000 {
            g.sample_size(10).measurement_time(Duration::from_secs(20));
        }
        g.bench_function(format!("synthetic_{n}"), |b| {
            b.iter(|| black_box(check(&sources, &locked)))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
