//! Hosts and routing: a thread bound to one host, follow-ups routed to the session's owner,
//! proven with two local hosts whose roots hold different files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::core_support;

use std::sync::Arc;

use core_support::*;
use toolsurface_runtime::call::CallContext;
use toolsurface_runtime::call::ToolError;
use toolsurface_runtime::call::ToolOutput;
use toolsurface_runtime::core::Batch;
use toolsurface_runtime::core::LOCAL_HOST;
use toolsurface_runtime::core::Outcome;
use toolsurface_runtime::core::ToolResult;
use toolsurface_runtime::core::Turn;
use toolsurface_runtime::registry::SessionRegistry;

struct Hosts {
    _alpha: tempfile::TempDir,
    _beta: tempfile::TempDir,
    rt: Runtime,
}

/// Two hosts; each root holds `whoami.txt` naming its host.
fn hosts() -> Hosts {
    let alpha = tempfile::tempdir().unwrap();
    let beta = tempfile::tempdir().unwrap();
    std::fs::write(alpha.path().join("whoami.txt"), "alpha's root").unwrap();
    std::fs::write(beta.path().join("whoami.txt"), "beta's root").unwrap();
    let rt = runtime_with(two_host_config(alpha.path(), beta.path()));
    Hosts {
        _alpha: alpha,
        _beta: beta,
        rt,
    }
}

/// Run one call; its handler reads `whoami.txt` under the root of the host it was routed to.
async fn run_one(rt: &Runtime, call: FakeCall) -> ToolResult {
    let mut batch = Batch::new();
    batch.push("c1", call);
    let results = rt
        .execute(
            batch,
            &Turn::normal(),
            |_call, ctx: CallContext| async move {
                let Some(root) = rt.host_root(&ctx.host) else {
                    return Ok(ToolOutput::text(format!("host {} (no root)", ctx.host)));
                };
                let text = std::fs::read_to_string(root.join("whoami.txt"))
                    .map_err(|e| ToolError::Model(e.to_string()))?;
                Ok(ToolOutput::text(format!("host {}: {text}", ctx.host)))
            },
        )
        .await
        .unwrap();
    results.into_iter().next().unwrap()
}

#[tokio::test]
async fn thread_host_calls_run_on_the_bound_host() {
    let h = hosts();
    let result = run_one(&h.rt, write("w")).await;
    assert_eq!(result.text, "host alpha: alpha's root");
}

#[tokio::test]
async fn local_calls_run_in_the_runtime_process() {
    let h = hosts();
    let result = run_one(
        &h.rt,
        FakeCall::Introspect {
            target: "hosts".into(),
        },
    )
    .await;
    assert_eq!(result.text, format!("host {LOCAL_HOST} (no root)"));
}

#[tokio::test]
async fn follow_ups_go_to_the_session_owner_even_when_bound_elsewhere() {
    let h = hosts();
    let on_beta = h.rt.registry().allocate("beta");
    assert_eq!(h.rt.bound_host(), "alpha");
    let result = run_one(&h.rt, wait(on_beta, None)).await;
    assert_eq!(result.text, "host beta: beta's root");
    // And a plain call in the same thread still goes to the bound host.
    assert_eq!(
        run_one(&h.rt, write("w")).await.text,
        "host alpha: alpha's root"
    );
}

#[tokio::test]
async fn a_matching_host_id_is_accepted() {
    let h = hosts();
    let id = h.rt.registry().allocate("beta");
    let result = run_one(&h.rt, wait(id, Some("beta"))).await;
    assert!(!result.is_error);
    assert_eq!(result.text, "host beta: beta's root");
}

#[tokio::test]
async fn a_host_id_that_is_not_the_owner_is_a_model_error() {
    let h = hosts();
    let id = h.rt.registry().allocate("beta");
    let result = run_one(&h.rt, wait(id, Some("alpha"))).await;
    assert!(result.is_error);
    assert_eq!(result.outcome, Outcome::Refused);
    assert_eq!(
        result.text,
        format!(
            "session {id} belongs to host beta, not alpha; name host beta or leave the host out"
        )
    );
}

#[tokio::test]
async fn an_unknown_session_names_the_id_and_lists_known_ones() {
    let h = hosts();
    let a = h.rt.registry().allocate("alpha");
    let b = h.rt.registry().allocate("beta");
    let result = run_one(&h.rt, wait(4242, None)).await;
    assert!(result.is_error);
    assert_eq!(
        result.text,
        format!("unknown session 4242; known sessions: {a} (alpha), {b} (beta)")
    );
}

#[tokio::test]
async fn an_unknown_session_with_no_sessions_says_so() {
    let h = hosts();
    let result = run_one(&h.rt, wait(7, None)).await;
    assert_eq!(
        result.text,
        "unknown session 7: no sessions are known on any host"
    );
}

#[tokio::test]
async fn a_released_session_is_unknown_again() {
    let h = hosts();
    let id = h.rt.registry().allocate("beta");
    h.rt.registry().release(id);
    let result = run_one(&h.rt, wait(id, None)).await;
    assert!(result.is_error);
    assert!(result.text.starts_with(&format!("unknown session {id}")));
}

#[tokio::test]
async fn a_session_host_call_without_a_session_uses_the_bound_host() {
    let h = hosts();
    let result = run_one(&h.rt, FakeCall::SessionList).await;
    assert_eq!(result.text, "host alpha: alpha's root");
}

#[tokio::test]
async fn rebinding_the_thread_moves_thread_host_calls() {
    let h = hosts();
    h.rt.bind_host("beta").unwrap();
    assert_eq!(
        run_one(&h.rt, write("w")).await.text,
        "host beta: beta's root"
    );
    let err = h.rt.bind_host("btea").unwrap_err();
    assert_eq!(
        err,
        ToolError::Model("unknown host btea (did you mean beta?); known hosts: alpha, beta".into())
    );
    assert_eq!(h.rt.bound_host(), "beta");
}

#[tokio::test]
async fn session_ids_stay_unique_across_runtimes_sharing_a_registry() {
    let h = hosts();
    let registry = Arc::new(SessionRegistry::new());
    let shared = h.rt.registry().clone();
    let other = runtime_with(h.rt.config().clone()).with_registry(shared.clone());
    let mine = h.rt.registry().allocate("alpha");
    let theirs = other.registry().allocate("beta");
    assert_ne!(mine, theirs);
    // The other thread's follow-up to a session this thread started is routed to its owner.
    assert_eq!(
        run_one(&other, wait(mine, None)).await.text,
        "host alpha: alpha's root"
    );
    // A runtime with a separate registry does not know it.
    let separate = runtime_with(h.rt.config().clone()).with_registry(registry);
    assert!(run_one(&separate, wait(mine, None)).await.is_error);
}

#[test]
fn route_is_answerable_without_executing() {
    let h = hosts();
    let id = h.rt.registry().allocate("beta");
    assert_eq!(h.rt.route(&wait(id, None)).unwrap(), "beta");
    assert_eq!(h.rt.route(&grep("g")).unwrap(), "alpha");
    assert_eq!(
        h.rt.route(&FakeCall::Introspect { target: "x".into() })
            .unwrap(),
        LOCAL_HOST
    );
}
