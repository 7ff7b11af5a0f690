//! Unit tests of the diff on the standard surface and the consolidation case.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::lock::Lock;

fn lock_of(dir: &str) -> Lock {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(dir);
    let sources = crate::read_dir(&root).unwrap();
    let ir = crate::compile(&sources).ir.unwrap();
    let emitted = crate::emit::surfaces(&ir).unwrap();
    Lock::build(&ir, &emitted, None)
}

#[test]
fn same_surface_has_no_findings() {
    let a = lock_of("tool-defs");
    let d = diff(&a, &a, None, &Options::default(), "a", "b");
    assert!(d.findings.is_empty(), "{:?}", d.findings);
    assert!(d.ledgers.is_empty());
    assert_eq!(d.worst(), None);
}

#[test]
fn consolidation_ledger_is_minus_18_on_every_family() {
    let a = lock_of("examples/consolidation/before");
    let b = lock_of("tool-defs");
    let opts = Options {
        role: Some("side_chat".into()),
        family: None,
    };
    let d = diff(&a, &b, None, &opts, "before", "after");
    let l = &d.ledgers[0];
    assert_eq!(l.net(), -18);
    assert_eq!(l.retired.len(), 6);
    let deltas: Vec<i64> = l.merges.iter().map(|m| m.delta).collect();
    assert_eq!(deltas.iter().sum::<i64>(), -12, "{deltas:?}");
    for f in &l.families {
        assert_eq!(f.tools.1 as i64 - f.tools.0 as i64, -18, "{}", f.family);
    }
}

#[test]
fn literal_alternations() {
    assert_eq!(
        compat::literal_alternation("^(?:tools|skills|hosts)$"),
        Some(vec!["tools".into(), "skills".into(), "hosts".into()])
    );
    assert_eq!(compat::literal_alternation("^[a-z]+$"), None);
}
