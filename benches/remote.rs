//! Remote file operations over the multiplexed OpenSSH connection, against the test sshd
//! on 127.0.0.1 (runtime/tests/support/sshd.rs; needs root and openssh-server, which
//! scripts/test installs).
//!
//! - `remote/read_file`: `read_file` of a 4 KiB file with `device` (one `ssh` exec over the
//!   established master connection, the read script, sha256 on our side).
//! - `remote/ssh_true`: a bare `ssh -S <control> host true` over the same connection.
//!
//! scripts/bench: `remote_vs_ssh_true = median(remote/read_file) / median(remote/ssh_true)`
//! (target ≤ 2).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../runtime/tests/support/sshd.rs"]
mod sshd;

use std::process::{Command, Stdio};

use criterion::{Criterion, criterion_group, criterion_main};
use toolsurface_runtime::call::CallContext;
use toolsurface_runtime::files::{FileHost, FileHostConfig, ReadFile};

fn ctx() -> CallContext {
    CallContext {
        call_id: "bench".into(),
        cancel: Default::default(),
        host: "local".into(),
        rehearsal: false,
        names: &toolsurface::standard::TOOL_NAMES,
    }
}

fn remote(c: &mut Criterion) {
    let server = sshd::TestSshd::start();
    let remote_dir = server.remote_view(&server.area);
    let path = server.area.join("bench.txt");
    let line = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n";
    std::fs::write(server.remote_view(&path), line.repeat(64)).unwrap();
    assert!(remote_dir.is_dir());

    let mut cfg = FileHostConfig::new(std::env::temp_dir());
    cfg.ssh_config = Some(server.ssh_config.clone());
    let host = FileHost::new(cfg).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let req = || ReadFile {
        path: path.to_string_lossy().into_owned(),
        offset: 1,
        limit: 2000,
        device: Some(sshd::ALIAS.into()),
    };
    // establish the master connection
    let first = rt.block_on(host.read_file("bench", &ctx(), req())).unwrap();
    assert!(first.text.contains("64 lines"), "{}", first.text);

    let control = host.control_dir().join("%C");
    let ssh_true = || {
        let status = Command::new("ssh")
            .arg("-F")
            .arg(&server.ssh_config)
            .arg("-S")
            .arg(&control)
            .args(["-o", "ControlMaster=no", "-o", "BatchMode=yes", "-T"])
            .args([sshd::ALIAS, "true"])
            .stdin(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
    };
    ssh_true();

    let mut group = c.benchmark_group("remote");
    group.sample_size(50);
    group.bench_function("read_file", |b| {
        b.iter(|| rt.block_on(host.read_file("bench", &ctx(), req())).unwrap())
    });
    group.bench_function("ssh_true", |b| b.iter(ssh_true));
    group.finish();
    drop(host);
    drop(server);
}

criterion_group!(benches, remote);
criterion_main!(benches);
