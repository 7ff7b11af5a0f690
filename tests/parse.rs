//! `Call::parse` on the standard surface (tool-defs, compiled in by build.rs): the case study's
//! accept/refuse list verbatim, then a table of calls through one `check` helper. Every refusal
//! is pinned to the exact text the model gets.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use toolsurface::standard::{Call, Family, Role, Scope, Skill, shell_session};
use toolsurface::{CallErrorKind, runtime::CallInfo};

/// Parse `args` (JSON text) as a call to `name` for `role` × `family` and compare with
/// `expect`: `ok`, `ok <typed call as JSON>`, `err <exact message>`, or `err^ <message prefix>`.
fn try_check(role: &str, family: &str, name: &str, args: &str, expect: &str) -> Result<(), String> {
    let role: Role = role.parse().map_err(|e| format!("{e}"))?;
    let family: Family = family.parse().map_err(|e| format!("{e}"))?;
    let got = Call::parse(role, family, name, args);
    let ctx = format!("{name} {args} ({role} × {family})");
    match (expect.split_once(' ').unwrap_or((expect, "")), got) {
        (("ok", ""), Ok(_)) => Ok(()),
        (("ok", json), Ok(call)) => {
            let got = serde_json::to_string(&call).unwrap();
            if got == json {
                Ok(())
            } else {
                Err(format!("{ctx}:\n  got  {got}\n  want {json}"))
            }
        }
        (("err", msg), Err(e)) if e.message == msg => Ok(()),
        (("err^", prefix), Err(e)) if e.message.starts_with(prefix) => Ok(()),
        ((kind, want), Ok(call)) => Err(format!("{ctx}: expected {kind} {want}, got {call:?}")),
        ((kind, want), Err(e)) => Err(format!(
            "{ctx}:\n  got  error {}\n  want {kind} {want}",
            e.message
        )),
    }
}

fn check(role: &str, family: &str, name: &str, args: &str, expect: &str) {
    if let Err(e) = try_check(role, family, name, args, expect) {
        panic!("{e}");
    }
}

fn side(name: &str, args: &str, expect: &str) {
    check("side_chat", "chat", name, args, expect);
}

// --- The case study's list, verbatim -------------------------------------------------------

#[test]
fn case_study_accepts() {
    side(
        "shell_session",
        r#"{"action":"kill","session_id":4242}"#,
        "ok",
    );
    side(
        "shell_session",
        r#"{"action":"resize","session_id":4242,"cols":80,"rows":24}"#,
        "ok",
    );
}

#[test]
fn case_study_refuses() {
    let s = "shell_session";
    side(
        s,
        r#"{"action":"wait","session_id":4242,"chars":"x"}"#,
        "err action=wait: unexpected field chars (it belongs to poll)",
    );
    side(
        s,
        r#"{"action":"kill","session_id":4242,"timeout_s":3}"#,
        "err action=kill: unexpected field timeout_s (it belongs to wait)",
    );
    side(
        s,
        r#"{"action":"list","session_id":4242}"#,
        "err action=list: unexpected field session_id (it belongs to poll, wait, kill, resize and unwatch)",
    );
    side(
        s,
        r#"{"action":"poll","session_id":4242,"until_output":"x"}"#,
        "err action=poll: unexpected field until_output (it belongs to wait)",
    );
    side(
        s,
        r#"{"action":"resize","session_id":4242}"#,
        "err action=resize: missing field cols",
    );
    side(
        s,
        r#"{"session_id":4242}"#,
        "err missing action: expected one of poll, wait, kill, list, resize, unwatch",
    );
}

// --- The table -------------------------------------------------------------------------------

const DEVICE_RE: &str = r"^(?:[A-Za-z0-9_][A-Za-z0-9._-]*@)?(?:[A-Za-z0-9_][A-Za-z0-9._-]*|\[[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*(?:%[A-Za-z0-9._-]+)?\])$";

/// (role, family, tool, arguments, expectation)
const CASES: &[(&str, &str, &str, &str, &str)] = &[
    // shell_session: the forms the brief pins.
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":"bogus"}"#,
        "err action=bogus: unknown action; expected one of poll, wait, kill, list, resize, unwatch",
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":"wait","session_id":1,"timeout_s":"x"}"#,
        r#"err action=wait: timeout_s: expected a number from 0 to 300, got "x""#,
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":"wait","session_id":1,"timeout_s":301}"#,
        "err action=wait: timeout_s: expected a number from 0 to 300, got 301",
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":"wait","session_id":1,"timeout_s":2.5}"#,
        r#"ok {"name":"shell_session","arguments":{"action":"wait","session_id":1,"timeout_s":2.5}}"#,
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":"list"}"#,
        r#"ok {"name":"shell_session","arguments":{"action":"list"}}"#,
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":"kill","session_id":0}"#,
        "err action=kill: session_id: expected an integer of at least 1, got 0",
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":"kill","session_id":"4242"}"#,
        r#"err action=kill: session_id: expected an integer of at least 1, got "4242""#,
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":"kill","session_id":4242.0}"#,
        r#"ok {"name":"shell_session","arguments":{"action":"kill","session_id":4242}}"#,
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":"kill","session_id":4242.5}"#,
        "err action=kill: session_id: expected an integer of at least 1, got 4242.5",
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":"kill","session_id":4242,"session_id":4243}"#,
        "err action=kill: duplicate field session_id",
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":"kill","action":"list"}"#,
        "err action=kill: duplicate field action",
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":"kill","sesion_id":4242}"#,
        "err action=kill: unexpected field sesion_id (did you mean session_id?)",
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":"kill","zzz":1}"#,
        "err action=kill: unexpected field zzz (expected one of session_id, host_id)",
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":"list","zzz":1}"#,
        "err action=list: unexpected field zzz (it takes no fields)",
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":3}"#,
        "err action: expected one of poll, wait, kill, list, resize, unwatch, got 3",
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":null,"session_id":1}"#,
        "err missing action: expected one of poll, wait, kill, list, resize, unwatch",
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":"resize","session_id":4242,"cols":80}"#,
        "err action=resize: missing field rows",
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":"resize","session_id":4242,"cols":0,"rows":24}"#,
        "err action=resize: cols: expected an integer from 1 to 1000, got 0",
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":"poll","session_id":7,"keys":["C-c","Enter"],"peek":true}"#,
        r#"ok {"name":"shell_session","arguments":{"action":"poll","session_id":7,"keys":["C-c","Enter"],"peek":true}}"#,
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":"poll","session_id":7,"keys":[]}"#,
        "err action=poll: keys: expected an array of 1 to 32 items, got an array of 0 items",
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":"poll","session_id":7,"keys":["ok",5]}"#,
        "err action=poll: keys[1]: expected a string of 1 to 16 characters, got 5",
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":"poll","session_id":7,"peek":"yes"}"#,
        r#"err action=poll: peek: expected true or false, got "yes""#,
    ),
    // Null is "not given" (strict-mode families send null for every other property).
    (
        "side_chat",
        "chat_strict",
        "shell_session",
        r#"{"action":"kill","session_id":4242,"timeout_s":null,"chars":null,"cols":null}"#,
        r#"ok {"name":"shell_session","arguments":{"action":"kill","session_id":4242}}"#,
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":"kill","session_id":null}"#,
        "err action=kill: missing field session_id",
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":"kill","session_id":1,"bogus":null}"#,
        "err action=kill: unexpected field bogus (expected one of session_id, host_id)",
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"[1,2]"#,
        "err shell_session: arguments must be a JSON object, got an array of 2 items",
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":"kill""#,
        "err^ shell_session: arguments are not valid JSON (",
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        "",
        "err missing action: expected one of poll, wait, kill, list, resize, unwatch",
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":"kill","session_id":1} trailing"#,
        "err^ shell_session: arguments are not valid JSON (",
    ),
    (
        "side_chat",
        "chat",
        "shell_session",
        r#"{"action":"wait","session_id":1,"until_output":""}"#,
        r#"err action=wait: until_output: expected a string of 1 to 1024 characters, got """#,
    ),
    // message_read: selector `mode`, exactly_one_of, enums.
    (
        "side_chat",
        "chat",
        "message_read",
        r#"{"mode":"history","session_id":"s1"}"#,
        r#"ok {"name":"message_read","arguments":{"mode":"history","session_id":"s1"}}"#,
    ),
    (
        "side_chat",
        "chat",
        "message_read",
        r#"{"mode":"history","channel":"ops","view":"turns","limit":5}"#,
        r#"ok {"name":"message_read","arguments":{"mode":"history","channel":"ops","view":"turns","limit":5}}"#,
    ),
    (
        "side_chat",
        "chat",
        "message_read",
        r#"{"mode":"history"}"#,
        "err mode=history: expected exactly one of session_id, channel; got none",
    ),
    (
        "side_chat",
        "chat",
        "message_read",
        r#"{"mode":"history","session_id":"s","channel":"c"}"#,
        "err mode=history: expected exactly one of session_id, channel; got session_id and channel",
    ),
    (
        "side_chat",
        "chat",
        "message_read",
        r#"{"mode":"history","session_id":"s","view":"full"}"#,
        r#"err mode=history: view: expected one of transcript, turns, audit, got "full""#,
    ),
    (
        "side_chat",
        "chat",
        "message_read",
        r#"{"mode":"history","session_id":"s","limit":0}"#,
        "err mode=history: limit: expected an integer from 1 to 50000, got 0",
    ),
    (
        "side_chat",
        "chat",
        "message_read",
        r#"{"mode":"context","message_id":"m1","before":2,"after":2}"#,
        r#"ok {"name":"message_read","arguments":{"mode":"context","message_id":"m1","before":2,"after":2}}"#,
    ),
    (
        "side_chat",
        "chat",
        "message_read",
        r#"{"mode":"context","message_id":"m1","field":"content"}"#,
        "err mode=context: unexpected field field (it belongs to payload)",
    ),
    (
        "side_chat",
        "chat",
        "message_read",
        r#"{"mode":"payload","message_id":"m1"}"#,
        "err mode=payload: missing field field",
    ),
    (
        "side_chat",
        "chat",
        "message_read",
        r#"{"mode":"payload","message_id":"m1","field":"tool_calls","offset":4000}"#,
        r#"ok {"name":"message_read","arguments":{"mode":"payload","message_id":"m1","field":"tool_calls","offset":4000}}"#,
    ),
    (
        "side_chat",
        "chat",
        "message_read",
        r#"{"mode":"payload","message_id":"m1","field":"body"}"#,
        r#"err mode=payload: field: expected one of content, tool_result, reasoning, tool_calls, got "body""#,
    ),
    (
        "side_chat",
        "chat",
        "message_read",
        r#"{"session_id":"s"}"#,
        "err missing mode: expected one of history, context, payload",
    ),
    (
        "side_chat",
        "chat",
        "message_read",
        r#"{"mode":"transcript"}"#,
        "err mode=transcript: unknown mode; expected one of history, context, payload",
    ),
    (
        "side_chat",
        "chat",
        "message_read",
        r#"{"mode":"history","session":"s"}"#,
        "err mode=history: unexpected field session (did you mean session_id?)",
    ),
    // Files and `device`.
    (
        "side_chat",
        "chat",
        "read_file",
        r#"{"path":"src/main.rs","offset":10,"limit":20}"#,
        r#"ok {"name":"read_file","arguments":{"path":"src/main.rs","offset":10,"limit":20}}"#,
    ),
    (
        "side_chat",
        "chat",
        "read_file",
        r#"{"path":"/etc/hosts","devce":"web1"}"#,
        "err read_file: unexpected field devce (did you mean device?)",
    ),
    (
        "side_chat",
        "chat",
        "read_file",
        r#"{"device":"web1"}"#,
        "err read_file: missing field path",
    ),
    (
        "side_chat",
        "chat",
        "read_file",
        r#"{"path":""}"#,
        r#"err read_file: path: expected a string of 1 to 4096 characters, got """#,
    ),
    (
        "side_chat",
        "chat",
        "read_file",
        r#"{"path":"a","limit":20001}"#,
        "err read_file: limit: expected an integer from 1 to 20000, got 20001",
    ),
    (
        "side_chat",
        "chat",
        "read_file",
        r#"{"path":"a","device":"web1"}"#,
        "ok",
    ),
    (
        "side_chat",
        "chat",
        "read_file",
        r#"{"path":"a","device":"deploy@web-1.example.com"}"#,
        "ok",
    ),
    (
        "side_chat",
        "chat",
        "read_file",
        r#"{"path":"a","device":"[fe80::1%eth0]"}"#,
        "ok",
    ),
    (
        "side_chat",
        "chat",
        "read_file",
        r#"{"path":"a","device":"admin@[2001:db8::1]"}"#,
        "ok",
    ),
    (
        "side_chat",
        "chat",
        "read_file",
        r#"{"path":"a","device":"10.0.0.7"}"#,
        "ok",
    ),
    (
        "side_chat",
        "chat",
        "read_file",
        r#"{"path":"a","device":"-oProxyCommand=sh -c 'id'"}"#,
        "err^ read_file: device: expected a string of 1 to 255 characters matching ",
    ),
    (
        "side_chat",
        "chat",
        "read_file",
        r#"{"path":"a","device":"-v"}"#,
        "err^ read_file: device: expected",
    ),
    (
        "side_chat",
        "chat",
        "read_file",
        r#"{"path":"a","device":""}"#,
        "err^ read_file: device: expected",
    ),
    (
        "side_chat",
        "chat",
        "read_file",
        r#"{"path":"a","device":" web1"}"#,
        "err^ read_file: device: expected",
    ),
    (
        "side_chat",
        "chat",
        "read_file",
        r#"{"path":"a","device":"web1 "}"#,
        "err^ read_file: device: expected",
    ),
    (
        "side_chat",
        "chat",
        "read_file",
        r#"{"path":"a","device":"web 1"}"#,
        "err^ read_file: device: expected",
    ),
    (
        "side_chat",
        "chat",
        "read_file",
        r#"{"path":"a","device":"web1;rm -rf /"}"#,
        "err^ read_file: device: expected",
    ),
    (
        "side_chat",
        "chat",
        "read_file",
        r#"{"path":"a","device":"$(id)"}"#,
        "err^ read_file: device: expected",
    ),
    (
        "side_chat",
        "chat",
        "read_file",
        r#"{"path":"a","device":"`id`"}"#,
        "err^ read_file: device: expected",
    ),
    (
        "side_chat",
        "chat",
        "read_file",
        r#"{"path":"a","device":"web1\nweb2"}"#,
        "err^ read_file: device: expected",
    ),
    (
        "side_chat",
        "chat",
        "read_file",
        r#"{"path":"a","device":"web1|nc"}"#,
        "err^ read_file: device: expected",
    ),
    (
        "side_chat",
        "chat",
        "read_file",
        r#"{"path":"a","device":"a@b@c"}"#,
        "err^ read_file: device: expected",
    ),
    (
        "side_chat",
        "chat",
        "read_file",
        r#"{"path":"a","device":"web1\t"}"#,
        "err^ read_file: device: expected",
    ),
    (
        "side_chat",
        "chat",
        "read_file",
        r#"{"path":"a","device":"@web1"}"#,
        "err^ read_file: device: expected",
    ),
    (
        "side_chat",
        "chat",
        "read_file",
        r#"{"path":"a","device":5}"#,
        "err^ read_file: device: expected",
    ),
    (
        "side_chat",
        "chat",
        "write_file",
        r#"{"path":"a","content":"x","create_only":true,"device":"web1"}"#,
        "err write_file: create_only is not available with device: remote writes need expected_sha256 (replace a known version) or overwrite: true.",
    ),
    (
        "side_chat",
        "chat",
        "write_file",
        r#"{"path":"a","content":"x","confirm_token":"t1","device":"web1"}"#,
        "err write_file: confirm_token is not available with device: remote writes are never staged; pass expected_sha256 (replace a known version) or overwrite: true.",
    ),
    (
        "side_chat",
        "chat",
        "write_file",
        r#"{"path":"a","content":"x","create_only":true,"overwrite":true}"#,
        "err write_file: create_only and overwrite contradict each other; pass one of them.",
    ),
    (
        "side_chat",
        "chat",
        "write_file",
        r#"{"path":"a","content":"x","create_only":false,"device":"web1","overwrite":true}"#,
        "ok",
    ),
    (
        "side_chat",
        "chat",
        "write_file",
        r#"{"path":"a","content":"x","expected_sha256":"deadbeef","device":"web1"}"#,
        "ok",
    ),
    (
        "side_chat",
        "chat",
        "write_file",
        r#"{"path":"a","content":"x","expected_sha256":"xyz"}"#,
        r#"err write_file: expected_sha256: expected a string matching ^[0-9a-fA-F]{8,64}$, got "xyz""#,
    ),
    (
        "side_chat",
        "chat",
        "write_file",
        r#"{"path":"a"}"#,
        "err write_file: missing field content",
    ),
    (
        "side_chat",
        "chat",
        "file_edit",
        r#"{"path":"a","old_text":"x","new_text":"y","device":"-i key"}"#,
        "err^ file_edit: device: expected",
    ),
    (
        "side_chat",
        "chat",
        "file_edit",
        r#"{"path":"a","old_text":"x","new_text":"y","replace_all":true}"#,
        "ok",
    ),
    (
        "side_chat",
        "chat",
        "apply_patch",
        r#"{"patch":"*** Begin Patch\n*** End Patch","device":"$(reboot)"}"#,
        "err^ apply_patch: device: expected",
    ),
    // Freeform: on responses the raw input becomes `patch`.
    (
        "side_chat",
        "responses",
        "apply_patch",
        "*** Begin Patch\n*** Device: web1\n*** End Patch",
        r#"ok {"name":"apply_patch","arguments":{"patch":"*** Begin Patch\n*** Device: web1\n*** End Patch"}}"#,
    ),
    (
        "side_chat",
        "chat",
        "apply_patch",
        "*** Begin Patch",
        "err^ apply_patch: arguments are not valid JSON (",
    ),
    // Aliases: fixed arguments, renames.
    (
        "side_chat",
        "chat",
        "shell_poll",
        r#"{"session_id":4242}"#,
        r#"ok {"name":"shell_session","arguments":{"action":"poll","session_id":4242}}"#,
    ),
    (
        "side_chat",
        "chat",
        "shell_kill",
        r#"{"session_id":4242,"timeout_s":3}"#,
        "err action=kill: unexpected field timeout_s (it belongs to wait)",
    ),
    (
        "side_chat",
        "chat",
        "shell_wait",
        r#"{"action":"kill","session_id":1,"timeout_s":3}"#,
        r#"ok {"name":"shell_session","arguments":{"action":"wait","session_id":1,"timeout_s":3.0}}"#,
    ),
    (
        "side_chat",
        "chat",
        "shell_list",
        "",
        r#"ok {"name":"shell_session","arguments":{"action":"list"}}"#,
    ),
    (
        "side_chat",
        "chat",
        "shell_watch_remove",
        r#"{"session_id":9,"watcher_id":2}"#,
        r#"ok {"name":"shell_session","arguments":{"action":"unwatch","session_id":9,"watcher_id":2}}"#,
    ),
    (
        "side_chat",
        "chat",
        "ssh_read_file",
        r#"{"path":"/etc/hosts","host":"web1"}"#,
        r#"ok {"name":"read_file","arguments":{"path":"/etc/hosts","device":"web1"}}"#,
    ),
    (
        "side_chat",
        "chat",
        "ssh_read_file",
        r#"{"path":"/etc/hosts","host":"web1","device":"web2"}"#,
        "err read_file: duplicate field device",
    ),
    (
        "side_chat",
        "chat",
        "ssh_write_file",
        r#"{"path":"a","content":"x","host":"web1","create_only":true}"#,
        "err write_file: create_only is not available with device: remote writes need expected_sha256 (replace a known version) or overwrite: true.",
    ),
    (
        "side_chat",
        "chat",
        "ssh_file_edit",
        r#"{"path":"a","old_text":"x","new_text":"y","host":"-oProxyCommand=x"}"#,
        "err^ file_edit: device: expected",
    ),
    (
        "side_chat",
        "chat",
        "message_history_read",
        r#"{"channel":"ops"}"#,
        r#"ok {"name":"message_read","arguments":{"mode":"history","channel":"ops"}}"#,
    ),
    (
        "side_chat",
        "chat",
        "message_payload_read",
        r#"{"message_id":"m"}"#,
        "err mode=payload: missing field field",
    ),
    (
        "side_chat",
        "chat",
        "llm_config_inspect",
        "{}",
        r#"ok {"name":"introspect","arguments":{"target":"llm"}}"#,
    ),
    (
        "side_chat",
        "chat",
        "list_models",
        "",
        r#"ok {"name":"introspect","arguments":{"target":"models"}}"#,
    ),
    // Retired names and unknown tools.
    (
        "side_chat",
        "chat",
        "get_current_time",
        "{}",
        "err^ get_current_time was retired: ",
    ),
    (
        "side_chat",
        "chat",
        "list_dir",
        r#"{"path":"."}"#,
        "err^ list_dir was retired: ",
    ),
    (
        "side_chat",
        "chat",
        "get_facts",
        "{}",
        "err^ get_facts was retired: ",
    ),
    (
        "side_chat",
        "chat",
        "shel",
        "{}",
        "err unknown tool shel (did you mean shell?)",
    ),
    (
        "side_chat",
        "chat",
        "totally_unknown",
        "{}",
        "err unknown tool totally_unknown",
    ),
    ("side_chat", "chat", "", "{}", "err unknown tool "),
    // Family restrictions: shell vs exec_command.
    (
        "side_chat",
        "chat",
        "exec_command",
        r#"{"cmd":"ls"}"#,
        "err tool exec_command is not offered to role side_chat on family chat",
    ),
    (
        "side_chat",
        "chat",
        "write_stdin",
        r#"{"session_id":1}"#,
        "err tool write_stdin is not offered to role side_chat on family chat",
    ),
    (
        "side_chat",
        "responses",
        "shell",
        r#"{"command":"ls"}"#,
        "err tool shell is not offered to role side_chat on family responses",
    ),
    (
        "side_chat",
        "responses",
        "exec_command",
        r#"{"cmd":"ls"}"#,
        r#"ok {"name":"exec_command","arguments":{"cmd":"ls"}}"#,
    ),
    (
        "side_chat",
        "anthropic",
        "shell",
        r#"{"command":"ls","yield_ms":1000}"#,
        "ok",
    ),
    ("side_chat", "gemini", "shell", r#"{"command":"ls"}"#, "ok"),
    (
        "side_chat",
        "chat_strict",
        "shell",
        r#"{"command":"ls","workdir":null,"tty":null}"#,
        r#"ok {"name":"shell","arguments":{"command":"ls"}}"#,
    ),
    // Roles: steward has no apply_patch / set_workdirs; side_chat has no activate_skill.
    (
        "steward",
        "chat",
        "apply_patch",
        r#"{"patch":"x"}"#,
        "err tool apply_patch is not offered to role steward on family chat",
    ),
    (
        "steward",
        "chat",
        "set_workdirs",
        r#"{"dirs":["/srv"]}"#,
        "err tool set_workdirs is not offered to role steward on family chat",
    ),
    (
        "side_chat",
        "chat",
        "activate_skill",
        r#"{"name":"sqlite"}"#,
        "err tool activate_skill is not offered to role side_chat on family chat",
    ),
    (
        "main",
        "chat",
        "activate_skill",
        r#"{"name":"sqlite"}"#,
        "ok",
    ),
    (
        "main",
        "chat",
        "sql_query",
        r#"{"database":"a.db","sql":"select 1"}"#,
        "err sql_query belongs to skill sqlite; call activate_skill with name sqlite first",
    ),
    (
        "side_chat",
        "chat",
        "sql_query",
        r#"{"database":"a.db","sql":"select 1"}"#,
        "err tool sql_query is not offered to role side_chat on family chat",
    ),
    // introspect targets and set_workdirs.
    (
        "side_chat",
        "chat",
        "introspect",
        r#"{"target":"llm:openai"}"#,
        "ok",
    ),
    (
        "side_chat",
        "chat",
        "introspect",
        r#"{"target":"secrets"}"#,
        r#"err^ introspect: target: expected a string"#,
    ),
    (
        "side_chat",
        "chat",
        "set_workdirs",
        r#"{"dirs":["/srv/app"],"mode":"add"}"#,
        r#"ok {"name":"set_workdirs","arguments":{"dirs":["/srv/app"],"mode":"add"}}"#,
    ),
    (
        "side_chat",
        "chat",
        "set_workdirs",
        r#"{"dirs":"/srv/app"}"#,
        r#"err^ set_workdirs: dirs: expected an array"#,
    ),
];

#[test]
fn table() {
    assert!(CASES.len() >= 60, "{} cases", CASES.len());
    let failures: Vec<String> = CASES
        .iter()
        .filter_map(|(role, family, name, args, expect)| {
            try_check(role, family, name, args, expect).err()
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}

#[test]
fn device_error_names_the_rule() {
    let e = Call::parse(
        Role::SideChat,
        Family::Chat,
        "read_file",
        r#"{"path":"a","device":"-oProxyCommand=x"}"#,
    )
    .unwrap_err();
    assert_eq!(e.kind, CallErrorKind::InvalidValue);
    assert_eq!(
        e.message,
        format!(
            r#"read_file: device: expected a string of 1 to 255 characters matching {DEVICE_RE}, got "-oProxyCommand=x""#
        )
    );
}

#[test]
fn value_arguments_parse_like_text() {
    let v = serde_json::json!({"action": "resize", "session_id": 4242, "cols": 80, "rows": 24});
    let a = Call::parse(Role::SideChat, Family::Chat, "shell_session", &v).unwrap();
    let b = Call::parse(Role::SideChat, Family::Chat, "shell_session", v.to_string()).unwrap();
    assert_eq!(a, b);
    let Call::ShellSession(shell_session::Call::Resize(r)) = &a else {
        panic!("{a:?}");
    };
    assert_eq!(
        (r.session_id, r.cols, r.rows, r.host_id.as_deref()),
        (4242, 80, 24, None)
    );
}

#[test]
fn error_kinds() {
    let kind = |name: &str, args: &str| {
        Call::parse(Role::SideChat, Family::Chat, name, args)
            .unwrap_err()
            .kind
    };
    assert_eq!(kind("shel", "{}"), CallErrorKind::UnknownTool);
    assert_eq!(kind("get_current_time", "{}"), CallErrorKind::Retired);
    assert_eq!(kind("exec_command", "{}"), CallErrorKind::NotOffered);
    assert_eq!(kind("shell_session", "{"), CallErrorKind::InvalidJson);
    assert_eq!(kind("shell_session", "3"), CallErrorKind::NotAnObject);
    assert_eq!(kind("shell_session", "{}"), CallErrorKind::MissingSelector);
    assert_eq!(
        kind("shell_session", r#"{"action":"x"}"#),
        CallErrorKind::UnknownAction
    );
    assert_eq!(
        kind("shell_session", r#"{"action":"list","a":1}"#),
        CallErrorKind::UnexpectedField
    );
    assert_eq!(
        kind("shell_session", r#"{"action":"resize","session_id":1}"#),
        CallErrorKind::MissingField
    );
    assert_eq!(
        kind("shell_session", r#"{"action":"kill","session_id":-1}"#),
        CallErrorKind::InvalidValue
    );
    assert_eq!(
        kind("message_read", r#"{"mode":"history"}"#),
        CallErrorKind::Constraint
    );
    // Display is the message alone.
    let e = Call::parse(Role::SideChat, Family::Chat, "shel", "{}").unwrap_err();
    assert_eq!(e.to_string(), "unknown tool shel (did you mean shell?)");
}

#[test]
fn skills_parse_only_when_active_and_offered() {
    let args = r#"{"database":"a.db","sql":"select 1"}"#;
    let active = [Skill::Sqlite];
    let main = Scope::new(Role::Main, Family::Chat).with_skills(&active);
    assert!(Call::parse_in(&main, "sql_query", args).is_ok());
    // side_chat does not offer the skill: activating it there changes nothing.
    let side = Scope::new(Role::SideChat, Family::Chat).with_skills(&active);
    assert_eq!(
        Call::parse_in(&side, "sql_query", args).unwrap_err().kind,
        CallErrorKind::NotOffered
    );
}

#[test]
fn tables_answer_per_action() {
    let p = |name: &str, args: &str| Call::parse(Role::Main, Family::Chat, name, args).unwrap();
    let list = p("shell_session", r#"{"action":"list"}"#);
    let poll = p(
        "shell_session",
        r#"{"action":"poll","session_id":4242,"host_id":"h2"}"#,
    );
    let wait = p("shell_session", r#"{"action":"wait","session_id":4242}"#);
    let kill = p("shell_session", r#"{"action":"kill","session_id":4242}"#);
    assert!(list.is_parallel_safe() && list.is_read_only() && !list.is_follow_up());
    assert!(poll.is_follow_up() && poll.is_poll() && !poll.is_parallel_safe());
    assert!(wait.is_follow_up() && !wait.is_poll());
    assert!(kill.is_follow_up() && !kill.is_read_only());
    assert!(list.result_on_interrupt() && wait.result_on_interrupt());
    use toolsurface::standard::Cost;
    assert_eq!(
        [list.cost(), poll.cost(), wait.cost(), kill.cost()],
        [Cost::SelfValue, Cost::Follow, Cost::Follow, Cost::Work]
    );
    assert_eq!(wait.display_name(), "shell_session wait");
    assert_eq!(wait.tool_name(), "shell_session");
    assert_eq!(wait.route(), toolsurface::runtime::Route::SessionHost);
    let target = CallInfo::session_target(&poll).unwrap();
    assert_eq!((target.id, target.host), (4242, Some("h2")));
    assert_eq!(CallInfo::session_target(&list), None);
    let shell = p("shell", r#"{"command":"ls"}"#);
    assert_eq!(shell.display_name(), "shell");
    assert_eq!(
        CallInfo::route(&shell),
        toolsurface::runtime::Route::ThreadHost
    );
    assert!(!CallInfo::is_follow_up(&shell));
}

#[test]
fn published_arrays_are_static_and_hashed() {
    use toolsurface::standard::{published, published_mcp, published_sha256};
    for role in Role::ALL {
        for family in Family::ALL {
            let bytes = published(role, family);
            assert!(bytes.starts_with('['), "{role} × {family}");
            assert_eq!(
                published_sha256(role, family),
                toolsurface_compiler::emit::sha256_hex(bytes.as_bytes())
            );
            assert!(published_mcp(role, family).starts_with('['));
        }
    }
    assert!(published(Role::SideChat, Family::Chat).contains("\"shell_session\""));
    assert!(!published(Role::SideChat, Family::Chat).contains("\"exec_command\""));
    assert!(published(Role::SideChat, Family::Responses).contains("\"exec_command\""));
}

#[test]
fn retired_names_answer_with_their_message() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tool-defs");
    let sources = toolsurface_compiler::read_dir(&root).unwrap();
    let ir = toolsurface_compiler::compile(&sources).ir.unwrap();
    assert!(ir.retired.len() >= 6);
    for r in &ir.retired {
        for family in Family::ALL {
            let e = Call::parse(Role::SideChat, family, &r.name, "{}").unwrap_err();
            assert_eq!(e.message, format!("{} was retired: {}", r.name, r.message));
            assert_eq!(e.kind, CallErrorKind::Retired);
        }
    }
}

/// Where the one-pass decoder stops and the walk takes over (an escape, a duplicate, a null,
/// a number the scanner leaves to serde_json, trailing text): the same answers as ever, and the
/// same as for the arguments given as a `serde_json::Value` (which always take the walk).
#[test]
fn decoder_boundaries() {
    let s = "shell_session";
    let cases: &[(&str, &str)] = &[
        // Strict-mode providers send every field, the unused ones null.
        (
            r#"{"action":"wait","session_id":1,"host_id":null,"chars":null,"keys":null,"peek":null,"offset":null,"timeout_s":null,"until_output":"ready","cols":null,"rows":null,"watcher_id":null}"#,
            r#"ok {"name":"shell_session","arguments":{"action":"wait","session_id":1,"until_output":"ready"}}"#,
        ),
        (
            " \n{ \"action\" : \"kill\" ,\t\"session_id\" : 4242 }\r\n ",
            r#"ok {"name":"shell_session","arguments":{"action":"kill","session_id":4242}}"#,
        ),
        (
            r#"{"action":"kill","session_id":null,"session_id":2}"#,
            r#"ok {"name":"shell_session","arguments":{"action":"kill","session_id":2}}"#,
        ),
        (
            r#"{"action":"kill","session_id":2,"session_id":null}"#,
            r#"ok {"name":"shell_session","arguments":{"action":"kill","session_id":2}}"#,
        ),
        (
            r#"{"action":"wait","session_id":1,"until_output":"a\"b\u00e9c\\d"}"#,
            r#"ok {"name":"shell_session","arguments":{"action":"wait","session_id":1,"until_output":"a\"béc\\d"}}"#,
        ),
        (
            r#"{"act\u0069on":"kill","session_id":3}"#,
            r#"ok {"name":"shell_session","arguments":{"action":"kill","session_id":3}}"#,
        ),
        (
            r#"{"action":"poll","session_id":1,"offset":-0,"keys":[ "C-c" , "Enter" ],"peek":false}"#,
            r#"ok {"name":"shell_session","arguments":{"action":"poll","session_id":1,"keys":["C-c","Enter"],"peek":false,"offset":0}}"#,
        ),
        (
            r#"{"action":"wait","session_id":1,"timeout_s":-0}"#,
            r#"ok {"name":"shell_session","arguments":{"action":"wait","session_id":1,"timeout_s":-0.0}}"#,
        ),
        (
            r#"{"action":"wait","session_id":1,"timeout_s":2e2}"#,
            r#"ok {"name":"shell_session","arguments":{"action":"wait","session_id":1,"timeout_s":200.0}}"#,
        ),
        (
            r#"{"action":"wait","session_id":1,"until_output":"ééé"}"#,
            r#"ok {"name":"shell_session","arguments":{"action":"wait","session_id":1,"until_output":"ééé"}}"#,
        ),
        (
            r#"{"action":"resize","session_id":1,"cols":80,"rows":24,"action":"resize"}"#,
            "err action=resize: duplicate field action",
        ),
        (
            r#"{"action":"kill","session_id":1234567890123456789}"#,
            r#"ok {"name":"shell_session","arguments":{"action":"kill","session_id":1234567890123456789}}"#,
        ),
        (
            r#"{"action":"kill","session_id":01}"#,
            "err^ shell_session: arguments are not valid JSON",
        ),
        (
            r#"{"action":"kill","session_id":1} x"#,
            "err^ shell_session: arguments are not valid JSON",
        ),
        (
            r#"{"action":"kill","session_id":1,}"#,
            "err^ shell_session: arguments are not valid JSON",
        ),
        (
            r#"{"action":null,"session_id":1}"#,
            "err missing action: expected one of poll, wait, kill, list, resize, unwatch",
        ),
        (
            r#"{"action":"kill","session_id":1,"chars":null}"#,
            r#"ok {"name":"shell_session","arguments":{"action":"kill","session_id":1}}"#,
        ),
        (
            r#"{"action":"kill","session_id":1,"zzz":null}"#,
            "err action=kill: unexpected field zzz (expected one of session_id, host_id)",
        ),
        (
            r#"{"action":"wait","session_id":1,"until_output":""}"#,
            r#"err action=wait: until_output: expected a string of 1 to 1024 characters, got """#,
        ),
        (
            r#"{"action":"poll","session_id":1,"keys":[]}"#,
            "err action=poll: keys: expected an array of 1 to 32 items, got an array of 0 items",
        ),
        (
            r#"{"action":"poll","session_id":1,"keys":["C-c",null]}"#,
            "err action=poll: keys[1]: expected a string of 1 to 16 characters, got null",
        ),
    ];
    for (args, expect) in cases {
        side(s, args, expect);
        // The same arguments as a value, where they parse as one.
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(args) {
            let dup_key = args.matches("\"session_id\"").count() > 1
                || args.matches("\"action\"").count() > 1;
            if !dup_key {
                let text = Call::parse(Role::SideChat, Family::Chat, s, *args);
                let value = Call::parse(Role::SideChat, Family::Chat, s, &v);
                assert_eq!(text, value, "{args}");
            }
        }
    }
}
