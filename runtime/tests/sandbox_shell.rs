//! The shell's escape table, run through the real `shell` tool on this machine's kernel for
//! every profile: under `read-only` and `workspace-write` each escape fails with the
//! kernel's error, under `full` each one works. Needs Landlock: it FAILS (never skips)
//! where the kernel cannot enforce.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::shell_support;

use std::net::{TcpListener, UdpSocket};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use shell_support::ctx;
use toolsurface_runtime::call::ToolOutput;
use toolsurface_runtime::registry::SessionRegistry;
use toolsurface_runtime::sandbox::{Confinement, Policy, Profile, kernel_status};
use toolsurface_runtime::shell::{NoWake, ShellConfig, ShellHost, ShellRequest};

fn helper() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_toolsurface-sandbox"))
}

/// A workdir and an outside folder (both outside the confinement's temp dir).
struct Fixture {
    host: ShellHost,
    confinement: Arc<Confinement>,
    work: tempfile::TempDir,
    outside: tempfile::TempDir,
}

fn fixture(policy: Policy) -> Fixture {
    let status = kernel_status(Some(&helper()));
    assert!(
        status.can_enforce(),
        "this test needs Landlock and the sandbox helper: {status:?}"
    );
    let work = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let config = ShellConfig {
        sandbox_helper: Some(helper()),
        ..ShellConfig::default()
    };
    let host = ShellHost::with_config(
        "alpha",
        work.path(),
        Arc::new(SessionRegistry::new()),
        Arc::new(NoWake),
        config.clone(),
    );
    let confinement =
        Arc::new(Confinement::new(policy, work.path(), config.sandbox_helper.clone()).unwrap());
    host.confine(confinement.clone()).unwrap();
    Fixture {
        host,
        confinement,
        work,
        outside,
    }
}

async fn run(host: &ShellHost, command: &str, tty: bool) -> (i64, String) {
    let out: ToolOutput = host
        .shell(
            &ctx(),
            ShellRequest {
                command: command.into(),
                tty,
                yield_ms: 20_000,
                ..shell_support::shell("")
            },
        )
        .await
        .unwrap_or_else(|e| panic!("{command}: {e:?}"));
    let s = out.structured.unwrap();
    let code = s["exit_code"]
        .as_i64()
        .unwrap_or_else(|| panic!("{command}: no exit code in {s}"));
    (code, s["output"].as_str().unwrap().to_owned())
}

/// Runs `probes` (name, command) in one shell, each in a subshell, and returns each
/// one's exit status and output (a whole table costs one spawn).
async fn table(host: &ShellHost, probes: &[(&str, String)], tty: bool) -> Vec<(i32, String)> {
    let mut script = String::new();
    for (name, cmd) in probes {
        script.push_str(&format!(
            "out=$( ( {cmd} ) 2>&1 ); echo \"@@{name} $? $(echo $out | tr '\\n' ' ')\"\n"
        ));
    }
    let (_, output) = run(host, &script, tty).await;
    probes
        .iter()
        .map(|(name, _)| {
            let line = output
                .lines()
                .find(|l| l.starts_with(&format!("@@{name} ")))
                .unwrap_or_else(|| panic!("probe {name} missing from:\n{output}"));
            let rest = &line[name.len() + 3..];
            let (code, text) = rest.split_once(' ').unwrap_or((rest, ""));
            (code.parse().unwrap(), text.to_owned())
        })
        .collect()
}

fn q(p: &Path) -> String {
    format!("'{}'", p.display())
}

/// The escapes, with the text the kernel's refusal prints (alternatives split by `|`).
fn escapes(f: &Fixture, etc_file: &Path) -> Vec<(&'static str, String, &'static str)> {
    let secret = f.outside.path().join("secret");
    std::fs::write(&secret, "secret").unwrap();
    let w = f.work.path();
    vec![
        (
            "etc",
            format!("echo x > {}", q(etc_file)),
            "Permission denied",
        ),
        (
            "outside",
            format!("echo x > {}", q(&f.outside.path().join("new"))),
            "Permission denied",
        ),
        (
            "hardlink_out",
            format!("ln {} {}", q(&secret), q(&w.join("h"))),
            // read-only: the workdir itself is not writable.
            "Invalid cross-device link|Permission denied",
        ),
        (
            "symlink_out",
            format!(
                "ln -s {} {} && echo y > {}",
                q(&secret),
                q(&w.join("s")),
                q(&w.join("s"))
            ),
            "Permission denied",
        ),
        (
            "kill_runtime",
            format!("kill -0 {}", std::process::id()),
            "Operation not permitted",
        ),
    ]
}

/// What must keep working in every profile.
fn ordinary(f: &Fixture) -> Vec<(&'static str, String)> {
    let _ = f;
    vec![
        (
            "mktemp",
            "d=$(mktemp -d) && touch \"$d/x\" && echo \"$d\"".into(),
        ),
        ("heredoc", "cat <<EOF\nhello heredoc\nEOF".into()),
        (
            "devnull",
            "echo x > /dev/null && head -c1 /dev/zero | wc -c".into(),
        ),
        ("nnp", "grep NoNewPrivs /proc/self/status".into()),
    ]
}

/// The workspace rows: writing, and a git commit, inside the workdir.
fn workspace_rows(f: &Fixture) -> Vec<(&'static str, String)> {
    let w = q(f.work.path());
    vec![
        (
            "write_inside",
            format!("cd {w} && echo x > inside.txt && cat inside.txt"),
        ),
        (
            "git_commit",
            format!(
                "cd {w} && git init -q && git add -A && git -c user.email=t@t -c user.name=t \
                 commit -qm first && git log --oneline | wc -l"
            ),
        ),
    ]
}

fn etc_file() -> PathBuf {
    PathBuf::from(format!(
        "/etc/toolsurface-sandbox-test-{}",
        std::process::id()
    ))
}

async fn escape_table(profile: Profile) {
    let f = fixture(Policy::of(profile));
    let etc = etc_file();
    let rows = escapes(&f, &etc);
    let probes: Vec<(&str, String)> = rows.iter().map(|(n, c, _)| (*n, c.clone())).collect();
    let results = table(&f.host, &probes, false).await;
    for ((name, cmd, refusal), (code, out)) in rows.iter().zip(&results) {
        if profile == Profile::Full {
            assert_eq!(*code, 0, "{profile:?} {name}: `{cmd}` should work: {out}");
        } else {
            assert_ne!(*code, 0, "{profile:?} {name}: `{cmd}` escaped: {out}");
            assert!(
                refusal.split('|').any(|r| out.contains(r)),
                "{profile:?} {name}: `{cmd}`: {out}"
            );
        }
    }
    let _ = std::fs::remove_file(&etc);
    assert_eq!(
        f.outside.path().join("new").exists(),
        profile == Profile::Full
    );
    assert_eq!(
        std::fs::read_to_string(f.outside.path().join("secret")).unwrap(),
        if profile == Profile::Full {
            "y\n"
        } else {
            "secret"
        }
    );
    let mut ok = ordinary(&f);
    if profile != Profile::ReadOnly {
        ok.extend(workspace_rows(&f));
    }
    let results = table(&f.host, &ok, false).await;
    for ((name, cmd), (code, out)) in ok.iter().zip(&results) {
        assert_eq!(*code, 0, "{profile:?} {name}: `{cmd}` failed: {out}");
    }
    let nnp = &results[3].1;
    assert_eq!(
        nnp.trim(),
        format!("NoNewPrivs: {}", u8::from(profile != Profile::Full))
    );
    if profile != Profile::Full {
        // mktemp made its folder in the confinement's temp dir.
        assert!(
            results[0]
                .1
                .starts_with(&f.confinement.tmp().display().to_string())
        );
    }
    if profile == Profile::ReadOnly {
        let (code, out) = run(
            &f.host,
            &format!("echo x > {}/inside.txt", q(f.work.path())),
            false,
        )
        .await;
        assert_ne!(code, 0, "read-only wrote its workdir: {out}");
        assert!(out.contains("Permission denied"), "{out}");
    }
}

#[tokio::test]
async fn escapes_fail_under_workspace_write() {
    escape_table(Profile::WorkspaceWrite).await;
}

#[tokio::test]
async fn escapes_fail_under_read_only() {
    escape_table(Profile::ReadOnly).await;
}

#[tokio::test]
async fn escapes_work_under_full() {
    escape_table(Profile::Full).await;
}

/// A PTY session under the sandbox: the terminal, its size and a nested PTY work.
#[tokio::test]
async fn terminal_works_in_a_confined_pty() {
    let f = fixture(Policy::of(Profile::WorkspaceWrite));
    let probes = vec![
        ("tty", "tty".to_owned()),
        ("stty", "stty size".to_owned()),
        (
            "script",
            "script -qc 'tty && echo nested-ok' /dev/null".to_owned(),
        ),
        ("devtty", "echo hi > /dev/tty".to_owned()),
    ];
    let results = table(&f.host, &probes, true).await;
    for ((name, cmd), (code, out)) in probes.iter().zip(&results) {
        assert_eq!(*code, 0, "{name}: `{cmd}` failed: {out}");
    }
    assert!(results[0].1.starts_with("/dev/pts/"), "{:?}", results[0]);
    assert_eq!(results[1].1.trim(), "24 80");
    assert!(results[2].1.contains("nested-ok"), "{:?}", results[2]);
}

/// With the network off: TCP (bash /dev/tcp, Python connect) and UDP sendto fail with the
/// kernel's error while a Unix socketpair works; with it on (and under full) they work.
async fn network(policy: Policy) {
    let on = policy.network;
    let f = fixture(policy);
    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    let tcp_port = tcp.local_addr().unwrap().port();
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let udp_port = udp.local_addr().unwrap().port();
    let py = "/usr/bin/python3";
    let probes = vec![
        (
            "devtcp",
            format!("exec 3<>/dev/tcp/127.0.0.1/{tcp_port} && echo connected"),
        ),
        (
            "py_tcp",
            format!(
                "{py} -c 'import socket; socket.create_connection((\"127.0.0.1\", {tcp_port}), 2)'"
            ),
        ),
        (
            "py_udp",
            format!(
                "{py} -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); \
                 s.sendto(b\"ping\", (\"127.0.0.1\", {udp_port}))'"
            ),
        ),
        (
            "socketpair",
            format!(
                "{py} -c 'import socket; a, b = socket.socketpair(); a.send(b\"z\"); print(b.recv(1))'"
            ),
        ),
    ];
    let results = table(&f.host, &probes, false).await;
    for ((name, cmd), (code, out)) in probes.iter().zip(&results) {
        if on || *name == "socketpair" {
            assert_eq!(*code, 0, "{name}: `{cmd}` failed: {out}");
        } else {
            assert_ne!(*code, 0, "{name}: `{cmd}` reached the network: {out}");
            assert!(
                out.contains("Operation not permitted") || out.contains("Permission denied"),
                "{name}: {out}"
            );
        }
    }
    let mut buf = [0u8; 8];
    assert_eq!(udp.recv(&mut buf).is_ok(), on, "UDP datagram arrival");
}

#[tokio::test]
async fn network_off_denies_tcp_and_udp_but_not_unix_sockets() {
    network(Policy::of(Profile::WorkspaceWrite)).await;
}

#[tokio::test]
async fn network_on_and_full_reach_the_network() {
    let mut on = Policy::of(Profile::WorkspaceWrite);
    on.network = true;
    network(on).await;
    network(Policy::of(Profile::Full)).await;
}

/// A session keeps the roots it started under; a later command sees the new workdirs.
#[tokio::test]
async fn new_workdirs_apply_to_new_commands() {
    let f = fixture(Policy::of(Profile::WorkspaceWrite));
    let target = f.outside.path().join("later.txt");
    let (code, _) = run(&f.host, &format!("echo 1 > {}", q(&target)), false).await;
    assert_ne!(code, 0);
    f.confinement
        .set_workdirs(vec![f.outside.path().to_path_buf()]);
    let (code, out) = run(&f.host, &format!("echo 2 > {}", q(&target)), false).await;
    assert_eq!(code, 0, "{out}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "2\n");
}

/// `warn` without a usable helper runs the command and says it ran unconfined;
/// `required` refuses and runs nothing.
#[tokio::test]
async fn enforcement_without_a_helper_is_never_silent() {
    let work = tempfile::tempdir().unwrap();
    let marker = work.path().join("ran");
    for enforcement in [
        toolsurface_runtime::sandbox::Enforcement::Warn,
        toolsurface_runtime::sandbox::Enforcement::Required,
    ] {
        let host = ShellHost::new(
            "alpha",
            work.path(),
            Arc::new(SessionRegistry::new()),
            Arc::new(NoWake),
        );
        let mut policy = Policy::of(Profile::WorkspaceWrite);
        policy.enforcement = enforcement;
        let missing = Some(PathBuf::from("/nonexistent/toolsurface-sandbox"));
        host.confine(Arc::new(
            Confinement::new(policy, work.path(), missing).unwrap(),
        ))
        .unwrap();
        let result = host
            .shell(
                &ctx(),
                ShellRequest {
                    command: format!("touch {}", q(&marker)),
                    ..shell_support::shell("")
                },
            )
            .await;
        match enforcement {
            toolsurface_runtime::sandbox::Enforcement::Warn => {
                let out = result.unwrap();
                assert!(out.text.contains("UNCONFINED"), "{}", out.text);
                assert!(marker.exists());
                std::fs::remove_file(&marker).unwrap();
            }
            toolsurface_runtime::sandbox::Enforcement::Required => {
                let err = format!("{:?}", result.unwrap_err());
                assert!(err.contains("refused") && err.contains("required"), "{err}");
                assert!(!marker.exists());
            }
        }
    }
}

/// The helper the runtime discovers by itself (a test binary's `target/*/deps` parent holds
/// `toolsurface-sandbox`) passes its preflight on this kernel.
#[test]
fn the_discovered_helper_passes_its_preflight() {
    let status = kernel_status(None);
    assert!(
        status.abi >= 6,
        "Landlock ABI {} (need ≥ 6): {status:?}",
        status.abi
    );
    assert!(status.can_enforce(), "{status:?}");
}
