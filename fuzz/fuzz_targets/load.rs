//! The definitions loader on arbitrary bytes: the compiler's good fixture
//! (compiler/tests/data/good) with one tool file replaced by the input (the first byte picks
//! which). Whatever the bytes, `compile` returns diagnostics or an IR — never a panic, never
//! an IR alongside errors — and every diagnostic renders.

#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use toolsurface_compiler::diag::render_all;
use toolsurface_compiler::{SourceFile, Sources, compile, read_dir};

static GOOD: LazyLock<Sources> = LazyLock::new(|| {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../compiler/tests/data/good");
    match read_dir(&dir) {
        Ok(sources) => sources,
        Err(e) => panic!("the good fixture is not readable: {e}"),
    }
});

fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let mut sources = GOOD.clone();
    let tools: Vec<usize> = (0..sources.files.len())
        .filter(|i| sources.files[*i].path.starts_with("tools/"))
        .collect();
    let at = tools[usize::from(pick) % tools.len()];
    let path = sources.files[at].path.clone();
    sources.files[at] = SourceFile::from_bytes(path, bytes.to_vec());
    let compiled = compile(&sources);
    assert!(
        !(compiled.ir.is_some() && compiled.has_errors()),
        "an IR was produced alongside errors"
    );
    assert!(
        compiled.ir.is_some() || compiled.has_errors(),
        "no IR and no error"
    );
    let _ = render_all(&compiled.diagnostics, &sources);
});
