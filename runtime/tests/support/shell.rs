//! What the shell tests share: a call's context and `shell_session kill` of one session.
//! Each includes it beside `names_support.rs`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use tokio_util::sync::CancellationToken;
use toolsurface_runtime::call::{CallContext, ToolOutput};
use toolsurface_runtime::shell::{
    ExecCommandRequest, Kill, Poll, ShellHost, ShellRequest, WriteStdinRequest,
};

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

// The requests as the standard definitions' defaults make them (tool-defs/tools/*.yaml
// `default:`; a parsed call gets them from the generated conversion). Tests override what
// they exercise with struct update syntax: `ShellRequest { tty: true, ..shell("cmd") }`.

/// `shell` with `command` and every default.
pub fn shell(command: &str) -> ShellRequest {
    ShellRequest {
        command: command.into(),
        workdir: None,
        yield_ms: 10_000,
        max_output_tokens: 10_000,
        tty: false,
    }
}

/// `exec_command` with `cmd` and every default.
pub fn exec_command(cmd: &str) -> ExecCommandRequest {
    ExecCommandRequest {
        cmd: cmd.into(),
        workdir: None,
        tty: false,
        yield_time_ms: 10_000,
        max_output_tokens: 10_000,
    }
}

/// `write_stdin` to session `id`, writing nothing, with every default.
pub fn write_stdin(id: i64) -> WriteStdinRequest {
    WriteStdinRequest {
        session_id: id,
        chars: None,
        yield_time_ms: 250,
        max_output_tokens: 10_000,
    }
}

/// `shell_session poll` of session `id` with every default.
pub fn poll(id: i64) -> Poll {
    Poll {
        session_id: id,
        host_id: None,
        chars: None,
        keys: None,
        peek: false,
        offset: None,
    }
}
