//! apply_patch on arbitrary text, parser and applier both, through the runtime's public
//! `FileHost::apply_patch` on a temporary tree (two small files, recreated per input). It must
//! answer with a result or a model-facing error, never panic.
//!
//! The host would write anywhere a path points, so inputs that could name a file outside the
//! temporary tree (any `/`, `\`, `~` or `..`) or another device (`Device`) are skipped: every
//! path left is a bare name inside the tree.

#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use toolsurface_runtime::call::CallContext;
use toolsurface_runtime::files::{ApplyPatch, FileHost, FileHostConfig};

struct Fixture {
    rt: tokio::runtime::Runtime,
    tree: tempfile::TempDir,
    host: FileHost,
}

static FIXTURE: LazyLock<Fixture> = LazyLock::new(|| {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("tokio runtime: {e}"));
    let tree = tempfile::tempdir().unwrap_or_else(|e| panic!("temp tree: {e}"));
    let staging = tempfile::tempdir().unwrap_or_else(|e| panic!("staging: {e}"));
    let mut config = FileHostConfig::new(tree.path());
    config.staging_dir = Some(staging.keep());
    let host = FileHost::new(config).unwrap_or_else(|e| panic!("file host: {e}"));
    Fixture { rt, tree, host }
});

fn may_leave_the_tree(text: &str) -> bool {
    text.contains(['/', '\\', '~']) || text.contains("..") || text.contains("Device")
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if may_leave_the_tree(&text) {
        return;
    }
    let f = &*FIXTURE;
    let root = f.tree.path();
    if let Ok(entries) = std::fs::read_dir(root) {
        for e in entries.flatten() {
            let _ = std::fs::remove_file(e.path());
        }
    }
    let _ = std::fs::write(root.join("a.txt"), "one\ntwo\nthree\n");
    let _ = std::fs::write(root.join("b.txt"), "alpha\n\nbeta\n");
    let ctx = CallContext {
        call_id: "fuzz".into(),
        cancel: Default::default(),
        host: "local".into(),
        rehearsal: false,
    };
    let req = ApplyPatch {
        patch: text.into_owned(),
        device: None,
    };
    let _ = f.rt.block_on(f.host.apply_patch("fuzz", &ctx, req));
});
