//! What the shell tests share: a call's context and `shell_session kill` of one session.
//! Each includes it beside `names_support.rs`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use tokio_util::sync::CancellationToken;
use toolsurface_runtime::call::{CallContext, ToolOutput};
use toolsurface_runtime::shell::{Kill, ShellHost};

use super::names_support;

/// A call's context on host `local`, with the standard surface's tool names.
pub fn ctx() -> CallContext {
    CallContext {
        call_id: "call-1".into(),
        cancel: CancellationToken::new(),
        host: "local".into(),
        rehearsal: false,
        names: &names_support::NAMES,
    }
}

/// Kill session `id` (it must exist) and return the result.
pub async fn kill(host: &ShellHost, id: i64) -> ToolOutput {
    let req = Kill {
        session_id: id,
        host_id: None,
    };
    host.kill(&ctx(), req).await.unwrap()
}
