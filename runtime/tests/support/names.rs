//! The standard surface's tool names as the generated `TOOL_NAMES` gives them (the runtime
//! tests cannot link the generated code): included by the tests whose texts name tools.
#![allow(dead_code)]

use std::any::TypeId;

use toolsurface_runtime::call::{Introspect, ToolNames};
use toolsurface_runtime::{data, files, grep, memory, messages, shell, workdirs};

pub static NAMES: ToolNames = ToolNames::new(&[
    (
        TypeId::of::<files::ApplyPatch> as fn() -> TypeId,
        "apply_patch",
    ),
    (TypeId::of::<shell::ExecCommandRequest>, "exec_command"),
    (TypeId::of::<files::FileEdit>, "file_edit"),
    (TypeId::of::<grep::GrepFilesRequest>, "grep_files"),
    (TypeId::of::<Introspect>, "introspect"),
    (TypeId::of::<messages::MessageRead>, "message_read"),
    (TypeId::of::<shell::MonitorStartRequest>, "monitor_start"),
    (TypeId::of::<files::ReadFile>, "read_file"),
    (TypeId::of::<memory::SearchMemoryRequest>, "search_memory"),
    (TypeId::of::<workdirs::SetWorkdirsRequest>, "set_workdirs"),
    (TypeId::of::<shell::ShellRequest>, "shell"),
    (TypeId::of::<shell::ShellSession>, "shell_session"),
    (TypeId::of::<data::SqlQueryRequest>, "sql_query"),
    (TypeId::of::<files::WriteFile>, "write_file"),
    (TypeId::of::<shell::WriteStdinRequest>, "write_stdin"),
]);
