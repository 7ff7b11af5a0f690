//! StandardHost runs the standard roles sandboxed by default: through handle_batch, as a
//! model calls them, writes outside the roots are refused by the file tools and fail in the
//! shell with the kernel's error, set_workdirs cannot declare `/`, `introspect sandbox`
//! says what holds; `--sandbox full` (the config's override) lifts it; enforcement
//! `required` refuses to start where the sandbox cannot be enforced. Needs Landlock: fails,
//! never skips, without it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::host_support;

use host_support::Fixture;
use host_support::ok;
use host_support::structured;
use toolsurface::host::HostConfig;
use toolsurface::host::HostError;
use toolsurface::host::StandardHost;
use toolsurface::runtime::sandbox::Enforcement;
use toolsurface::standard::Family;
use toolsurface::standard::Role;

fn outside(fx: &Fixture) -> std::path::PathBuf {
    let o = fx.dir.path().join("outside");
    std::fs::create_dir_all(&o).unwrap();
    o
}

#[tokio::test]
async fn the_standard_roles_are_confined_by_default() {
    for role in [Role::SideChat, Role::Main, Role::Steward, Role::Maintainer] {
        let fx = Fixture::new(role, Family::Chat);
        let o = outside(&fx);
        let target = o.join("x.txt");
        let args = serde_json::json!({"path": target, "content": "x\n"}).to_string();
        let r = fx.one("write_file", &args).await;
        assert!(
            r.is_error && r.text.contains("refused"),
            "{role:?}: {}",
            r.text
        );
        assert!(!r.text.contains("confirm_token"), "{}", r.text);
        let cmd = format!("echo x > {} ; echo inside > in.txt", target.display());
        let r = fx
            .one("shell", &serde_json::json!({ "command": cmd }).to_string())
            .await;
        let out = structured(ok(&r))["output"].as_str().unwrap().to_owned();
        assert!(out.contains("Permission denied"), "{role:?}: {out}");
        assert!(!target.exists(), "{role:?}: the shell wrote outside");
        assert_eq!(
            std::fs::read_to_string(fx.path("in.txt")).unwrap(),
            "inside\n"
        );
        let r = fx.one("introspect", r#"{"target":"sandbox"}"#).await;
        let s = structured(ok(&r));
        assert_eq!(s["profile"], "workspace-write", "{role:?}: {s}");
        assert_eq!(s["shell_confined"], true, "{role:?}: {s}");
        assert!(s["landlock_abi"].as_i64().unwrap() >= 6, "{s}");
    }
}

#[tokio::test]
async fn set_workdirs_cannot_declare_the_root_of_the_file_system() {
    let fx = Fixture::new(Role::Main, Family::Chat);
    let r = fx.one("set_workdirs", r#"{"dirs":["/"]}"#).await;
    assert!(
        r.is_error && r.text.contains("workdir_bounds"),
        "{}",
        r.text
    );
    // A folder inside the host root may be declared, and becomes writable.
    std::fs::create_dir_all(fx.path("sub")).unwrap();
    let r = fx.one("set_workdirs", r#"{"dirs":["sub"]}"#).await;
    ok(&r);
}

#[tokio::test]
async fn sandbox_full_lifts_the_confinement() {
    let fx = Fixture::with(Role::SideChat, Family::Chat, |mut c| {
        c.sandbox.full_override = true;
        c
    });
    let target = outside(&fx).join("x.txt");
    let cmd = format!("echo x > {}", target.display());
    let r = fx
        .one("shell", &serde_json::json!({ "command": cmd }).to_string())
        .await;
    ok(&r);
    assert!(target.exists());
    let r = fx.one("introspect", r#"{"target":"sandbox"}"#).await;
    assert_eq!(structured(ok(&r))["profile"], "full");
}

#[test]
fn required_enforcement_refuses_to_start_when_the_sandbox_cannot_be_enforced() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = HostConfig::single_host("alpha", dir.path(), Role::Main, Family::Chat)
        .with_state_dir(dir.path().join("state"));
    config.sandbox.enforcement = Some(Enforcement::Required);
    config.shell.sandbox_helper = Some(dir.path().join("no-such-helper"));
    let err = StandardHost::new(config).unwrap_err();
    assert!(matches!(err, HostError::Sandbox(_)), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("no-such-helper") && text.contains("required"),
        "{text}"
    );
}
