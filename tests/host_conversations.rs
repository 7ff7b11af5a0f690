//! Several conversations over one `StandardHost` (what a Rust host serving many threads
//! does): each has its own background sessions, read memory, confirm tokens, skills and
//! wake-ups and its own schedule; ids stay unique; ending one kills its processes only.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::host_support;

use std::time::Duration;

use host_support::*;
use toolsurface::host::Conversation;
use toolsurface::host::ModelToolCall;
use toolsurface::runtime::ToolResult;
use toolsurface::runtime::TurnKind;
use toolsurface::standard::Family;
use toolsurface::standard::Role;

async fn call(conversation: &Conversation, name: &str, arguments: &str) -> ToolResult {
    let turn = conversation.new_turn(TurnKind::Normal);
    let mut results = conversation
        .handle_batch(vec![ModelToolCall::new("c", name, arguments)], &turn)
        .await
        .unwrap_or_else(|fault| panic!("the turn ended: {fault}"));
    results.remove(0)
}

fn session_id(result: &ToolResult) -> i64 {
    structured(result)["session_id"].as_i64().unwrap()
}

fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map(|s| {
            !s.lines()
                .any(|l| l.starts_with("State:") && l.contains('Z'))
        })
        .unwrap_or(false)
}

#[tokio::test]
async fn conversations_keep_their_sessions_reads_tokens_and_skills_apart() {
    let fx = Fixture::new(Role::Main, Family::Chat);
    write(&fx.path("shared.txt"), "old\n");
    let a = fx.host.open_conversation().unwrap();
    let b = fx.host.open_conversation().unwrap();
    assert_ne!(a.id(), b.id());

    let started = ok(&call(&a, "shell", r#"{"command":"sleep 60","yield_ms":250}"#).await).clone();
    let a_sid = session_id(&started);
    let listed = call(&b, "shell_session", r#"{"action":"list"}"#).await;
    assert!(!listed.text.contains(&a_sid.to_string()), "{}", listed.text);
    let on_a = call(
        &b,
        "shell_session",
        &format!(r#"{{"action":"kill","session_id":{a_sid}}}"#),
    )
    .await;
    let on_missing = call(
        &b,
        "shell_session",
        r#"{"action":"kill","session_id":424242}"#,
    )
    .await;
    assert!(on_a.is_error && on_missing.is_error);
    assert_eq!(
        on_a.text.replace(&a_sid.to_string(), "N"),
        on_missing.text.replace("424242", "N")
    );
    assert_eq!(a.session_count(), 1);
    let b_started =
        ok(&call(&b, "shell", r#"{"command":"sleep 60","yield_ms":250}"#).await).clone();
    assert_ne!(
        session_id(&b_started),
        a_sid,
        "ids are unique across conversations"
    );

    ok(&call(&b, "read_file", r#"{"path":"shared.txt"}"#).await);
    let staged = call(&a, "write_file", r#"{"path":"shared.txt","content":"A\n"}"#).await;
    assert_eq!(
        std::fs::read_to_string(fx.path("shared.txt")).unwrap(),
        "old\n"
    );
    let token = structured(&staged)["confirm_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let stolen = call(
        &b,
        "write_file",
        &format!(r#"{{"path":"shared.txt","content":"A\n","confirm_token":"{token}"}}"#),
    )
    .await;
    assert!(stolen.is_error, "{}", stolen.text);
    ok(&call(
        &a,
        "write_file",
        &format!(r#"{{"path":"shared.txt","content":"A\n","confirm_token":"{token}"}}"#),
    )
    .await);
    assert_eq!(
        std::fs::read_to_string(fx.path("shared.txt")).unwrap(),
        "A\n"
    );

    ok(&call(&a, "activate_skill", r#"{"name":"sqlite"}"#).await);
    assert_eq!(a.active_skills().len(), 1);
    assert!(b.active_skills().is_empty());
    assert!(
        fx.host.active_skills().is_empty(),
        "the default conversation too"
    );
}

#[tokio::test]
async fn wake_ups_reach_only_their_conversation() {
    let fx = Fixture::new(Role::SideChat, Family::Chat);
    let a = fx.host.open_conversation().unwrap();
    let b = fx.host.open_conversation().unwrap();
    let mut a_wakes = a.take_wake_receiver().unwrap();
    let mut b_wakes = b.take_wake_receiver().unwrap();
    let started = ok(&call(
        &a,
        "monitor_start",
        r#"{"command":"echo ready; sleep 30","until_output":"ready"}"#,
    )
    .await)
    .clone();
    let wake = tokio::time::timeout(Duration::from_secs(60), a_wakes.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(wake.session_id, session_id(&started));
    assert!(b_wakes.try_recv().is_none());
}

#[tokio::test]
async fn a_blocking_call_in_one_conversation_does_not_delay_another() {
    let fx = Fixture::new(Role::SideChat, Family::Chat);
    let a = fx.host.open_conversation().unwrap();
    let b = fx.host.open_conversation().unwrap();
    let started = ok(&call(&a, "shell", r#"{"command":"sleep 60","yield_ms":250}"#).await).clone();
    let sid = session_id(&started);
    let wait = format!(r#"{{"action":"wait","session_id":{sid},"timeout_s":20}}"#);
    let blocked = call(&a, "shell_session", &wait);
    tokio::pin!(blocked);
    // Let A's wait start (it holds A's schedule).
    tokio::select! {
        _ = &mut blocked => panic!("the wait ended early"),
        _ = tokio::time::sleep(Duration::from_millis(300)) => {}
    }
    let quick = call(&b, "shell", r#"{"command":"echo fast"}"#);
    tokio::select! {
        _ = &mut blocked => panic!("A's wait finished before B's quick call"),
        quick = quick => assert!(quick.text.contains("fast"), "{}", quick.text),
    }
    // Within A's conversation, an exclusive call does wait for A's wait.
    let a_quick = call(&a, "shell", r#"{"command":"echo later"}"#);
    tokio::pin!(a_quick);
    tokio::select! {
        _ = &mut a_quick => panic!("A's second exclusive call did not wait for A's wait"),
        _ = tokio::time::sleep(Duration::from_millis(300)) => {}
    }
    a.end();
    let (waited, later) = tokio::join!(blocked, a_quick);
    assert!(!waited.text.is_empty());
    // The call that was waiting ran after the end: it starts nothing.
    assert!(later.is_error, "{}", later.text);
    assert!(later.text.contains("has ended"), "{}", later.text);
}

#[tokio::test]
async fn ending_a_conversation_kills_its_processes_only() {
    let fx = Fixture::new(Role::SideChat, Family::Chat);
    let a = fx.host.open_conversation().unwrap();
    let b = fx.host.open_conversation().unwrap();
    let pid = |r: &ToolResult| -> i32 {
        r.text
            .split("(pid ")
            .nth(1)
            .and_then(|t| t.split(')').next())
            .and_then(|p| p.parse().ok())
            .unwrap()
    };
    let in_a = ok(&call(&a, "shell", r#"{"command":"sleep 61","yield_ms":250}"#).await).clone();
    let in_b = ok(&call(&b, "shell", r#"{"command":"sleep 62","yield_ms":250}"#).await).clone();
    let (pa, pb) = (pid(&in_a), pid(&in_b));
    assert!(alive(pa) && alive(pb));
    let ended = a.end();
    assert_eq!(ended, vec![session_id(&in_a)]);
    eventually("A's process gone", || !alive(pa)).await;
    assert!(alive(pb), "B's session is not A's to end");
    assert!(a.end().is_empty(), "ending twice does nothing more");
    drop(b);
    eventually("B's process gone with B", || !alive(pb)).await;
}
