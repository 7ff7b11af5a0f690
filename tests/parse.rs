//! `Call::parse` on the standard surface (tool-defs, compiled in by build.rs): the case study's
//! accept/refuse list verbatim, then a table of calls through one `check` helper. Every refusal
//! is pinned to the exact text the model gets.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use toolsurface::standard::{Call, Family, Role, Scope, Skill, shell_session};
use toolsurface::{CallErrorKind, runtime::CallInfo};

use crate::parse_support;
use parse_support::{CASES, DECODER_BOUNDARY_CASES, DEVICE_RE};

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
    let cases = DECODER_BOUNDARY_CASES;
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
