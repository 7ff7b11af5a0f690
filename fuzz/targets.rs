//! The fuzz targets' bodies, shared by the libFuzzer binaries (fuzz/fuzz_targets/*.rs, run by
//! scripts/fuzz) and the suite's smoke test (cli/tests/fuzz_smoke.rs, 10^4 mutated inputs per
//! target in the suite's own build). Each function takes arbitrary bytes and panics only
//! when a property the target checks is violated.
//!
//! - [`parse`]: `Call::parse` on name and argument bytes, text and `serde_json::Value` forms.
//! - [`load`]: the definitions loader with one tool file of a small valid folder replaced by
//!   the bytes: an IR or errors, never both, never neither, never a panic.
//! - [`patch`]: apply_patch (parser and applier) on a temporary tree.
//! - [`mcp`]: one arbitrary JSON-RPC message to the MCP server over an in-memory stdio
//!   connection (`mcp::stdio::serve`, as `toolsurface serve` runs it); the server must answer
//!   a `ping` after it.

#![allow(dead_code)]

use std::sync::LazyLock;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
use toolsurface::host::{HostConfig, StandardHost};
use toolsurface::standard::{Call, Family, Role};
use toolsurface_cli::mcp::{McpServer, stdio};
use toolsurface_compiler::diag::render_all;
use toolsurface_compiler::{SourceFile, Sources, compile};
use toolsurface_runtime::call::CallContext;
use toolsurface_runtime::files::{ApplyPatch, FileHost, FileHostConfig};

/// The first byte picks role × family, the rest is `name\0arguments`.
pub fn parse(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let role = Role::ALL[usize::from(pick) % Role::ALL.len()];
    let family = Family::ALL[usize::from(pick / 16) % Family::ALL.len()];
    let text = String::from_utf8_lossy(rest);
    let (name, args) = text.split_once('\0').unwrap_or((&text, ""));
    let from_text = Call::parse(role, family, name, args);
    // A freeform tool takes the raw text in one form and the object in the other: left out.
    let structured = |c: &Call| c.tool().freeform_field(family).is_none();
    match serde_json::from_str::<serde_json::Value>(args) {
        Ok(value) => {
            let from_value = Call::parse(role, family, name, &value);
            // An object accepted both ways is the same call.
            if let (Ok(a), Ok(b)) = (&from_text, &from_value)
                && value.is_object()
                && structured(a)
            {
                assert_eq!(a, b, "text and value forms disagree for {name} {args}");
            }
        }
        // Text that is not JSON is refused (the one-pass decoder reads the text itself: it must
        // not accept what serde_json refuses); an empty text is the empty object.
        Err(e) => {
            if let Ok(a) = &from_text
                && structured(a)
                && !args.trim().is_empty()
            {
                panic!("{name}: accepted arguments that are not JSON ({e}): {args:?} as {a:?}");
            }
        }
    }
}

/// The stems a `load` input may replace (the first byte picks one), each a tool of the
/// compiler's good fixture.
const STEMS: &[&str] = &[
    "activate_skill",
    "exec_command",
    "patch",
    "read_file",
    "shell",
    "shell_session",
    "sql_query",
];

static GOOD_SURFACE: LazyLock<(String, String)> = LazyLock::new(|| {
    // Built from fuzz/ (the libFuzzer binaries) or from cli/ (the smoke test): both are
    // folders of the repository root.
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let repo = manifest.join("..");
    let dir = repo.join("compiler/tests/data/good");
    let read = |p: &str| {
        std::fs::read_to_string(dir.join(p))
            .unwrap_or_else(|e| panic!("the good fixture's {p} is not readable: {e}"))
    };
    (read("surface.yaml"), read("grammars/patch.lark"))
});

/// A small valid folder (the good fixture's surface.yaml and grammar, one role listing the
/// tool) whose one tool file is the input.
pub fn load(data: &[u8]) {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let stem = STEMS[usize::from(pick) % STEMS.len()];
    let (surface, grammar) = &*GOOD_SURFACE;
    let mut files = vec![
        SourceFile::new("grammars/patch.lark", grammar.clone()),
        SourceFile::new(
            "roles.yaml",
            format!("side_chat:\n  description: The side chat.\n  tools: [{stem}]\n"),
        ),
        SourceFile::new("surface.yaml", surface.clone()),
        SourceFile::from_bytes(format!("tools/{stem}.yaml"), bytes.to_vec()),
    ];
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let sources = Sources {
        root: "fuzz".into(),
        files,
    };
    let compiled = compile(&sources);
    assert!(
        !(compiled.ir.is_some() && compiled.has_errors()),
        "an IR was produced alongside errors"
    );
    assert!(
        compiled.ir.is_some() || compiled.has_errors(),
        "no IR and no error"
    );
    let rendered = render_all(&compiled.diagnostics, &sources);
    assert!(compiled.diagnostics.is_empty() || !rendered.is_empty());
}

struct PatchFixture {
    rt: tokio::runtime::Runtime,
    tree: tempfile::TempDir,
    _staging: tempfile::TempDir,
    host: FileHost,
}

static PATCH: LazyLock<std::sync::Mutex<PatchFixture>> = LazyLock::new(|| {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("tokio runtime: {e}"));
    let tree = tempfile::tempdir().unwrap_or_else(|e| panic!("temp tree: {e}"));
    let staging = tempfile::tempdir().unwrap_or_else(|e| panic!("staging: {e}"));
    let mut config = FileHostConfig::new(tree.path());
    config.staging_dir = Some(staging.path().to_path_buf());
    let host = FileHost::new(config).unwrap_or_else(|e| panic!("file host: {e}"));
    std::sync::Mutex::new(PatchFixture {
        rt,
        tree,
        _staging: staging,
        host,
    })
});

/// Whether a patch text could name a file outside the temporary tree (or another device):
/// such inputs are skipped, so every path the host sees is a bare name inside the tree.
pub fn may_leave_the_tree(text: &str) -> bool {
    text.contains(['/', '\\', '~']) || text.contains("..") || text.contains("Device")
}

/// apply_patch on a tree of two small files, recreated per input.
pub fn patch(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if may_leave_the_tree(&text) {
        return;
    }
    let f = PATCH
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let root = f.tree.path();
    if let Ok(entries) = std::fs::read_dir(root) {
        for e in entries.flatten() {
            let p = e.path();
            let _ = std::fs::remove_file(&p).or_else(|_| std::fs::remove_dir_all(&p));
        }
    }
    let _ = std::fs::write(root.join("a.txt"), "one\ntwo\nthree\n");
    let _ = std::fs::write(root.join("b.txt"), "alpha\n\nbeta\n");
    let ctx = CallContext {
        call_id: "fuzz".into(),
        cancel: Default::default(),
        host: "local".into(),
        rehearsal: false,
        names: &toolsurface::standard::TOOL_NAMES,
    };
    let req = ApplyPatch {
        patch: text.into_owned(),
        device: None,
    };
    let _ = f.rt.block_on(f.host.apply_patch("fuzz", &ctx, req));
}

struct McpFixture {
    rt: tokio::runtime::Runtime,
    server: McpServer,
    _root: tempfile::TempDir,
}

static MCP: LazyLock<McpFixture> = LazyLock::new(|| {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("tokio runtime: {e}"));
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("temp folder: {e}"));
    let config = HostConfig::single_host("local", root.path(), Role::SideChat, Family::Chat)
        .with_state_dir(root.path().join("state"));
    let host = StandardHost::new(config).unwrap_or_else(|e| panic!("host: {e}"));
    McpFixture {
        rt,
        server: McpServer::new(host),
        _root: root,
    }
});

/// Whether any string in `v` names `tools/call` (after JSON unescaping, as rmcp reads it).
fn names_tools_call(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::String(s) => s.contains("tools/call"),
        serde_json::Value::Array(a) => a.iter().any(names_tools_call),
        serde_json::Value::Object(o) => o
            .iter()
            .any(|(k, v)| k.contains("tools/call") || names_tools_call(v)),
        _ => false,
    }
}

/// `tools/call` runs real tools (a shell among them): an input in which any line names it is
/// skipped (`Call::parse` has its own target).
pub fn mcp_skips(data: &[u8]) -> bool {
    data.split(|b| *b == b'\n').any(|line| {
        let text = String::from_utf8_lossy(line);
        text.contains("tools/call")
            || serde_json::from_str::<serde_json::Value>(&text).is_ok_and(|v| names_tools_call(&v))
    })
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":"fuzz-init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const PING: &str = r#"{"jsonrpc":"2.0","id":"fuzz-ping","method":"ping"}"#;

async fn exchange(server: McpServer, message: &[u8]) {
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    // What `toolsurface serve` runs on stdin/stdout: one session, the stdio line checks.
    let session = server
        .open_session()
        .unwrap_or_else(|e| panic!("cannot open an MCP session: {e}"));
    let max = server.limits().max_message_bytes;
    let serving = tokio::spawn(async move {
        let (input, output) = tokio::io::split(server_end);
        let _ = stdio::serve(session, input, output, max, std::future::pending()).await;
    });
    let (read, mut write) = tokio::io::split(client_end);
    let mut lines = tokio::io::BufReader::new(read).lines();
    let _ = write.write_all(format!("{INITIALIZE}\n").as_bytes()).await;
    let init = lines.next_line().await;
    assert!(
        matches!(&init, Ok(Some(l)) if l.contains("fuzz-init")),
        "no answer to initialize: {init:?}"
    );
    let mut input = Vec::with_capacity(message.len() + 128);
    for part in [
        INITIALIZED.as_bytes(),
        b"\n",
        message,
        b"\n",
        PING.as_bytes(),
        b"\n",
    ] {
        input.extend_from_slice(part);
    }
    let _ = write.write_all(&input).await;
    let answered = loop {
        match lines.next_line().await {
            Ok(Some(line)) if line.contains("\"fuzz-ping\"") => break true,
            Ok(Some(_)) => continue,
            Ok(None) | Err(_) => break false,
        }
    };
    drop(write);
    drop(lines);
    if let Err(e) = serving.await
        && e.is_panic()
    {
        std::panic::resume_unwind(e.into_panic());
    }
    assert!(answered, "the server stopped answering after the message");
}

/// A fresh connection per input: handshake, the input as one message, a ping.
pub fn mcp(data: &[u8]) {
    if mcp_skips(data) {
        return;
    }
    let f = &*MCP;
    let server = f.server.clone();
    let done = f.rt.block_on(async {
        tokio::time::timeout(Duration::from_secs(20), exchange(server, data)).await
    });
    assert!(done.is_ok(), "the exchange hung for 20 s");
}
