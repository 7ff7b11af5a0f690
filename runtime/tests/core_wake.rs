//! Wake-ups: watchers publish through cloneable senders, from tasks or plain threads; the
//! host takes the single receiver once.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::core_support;

use core_support::*;
use toolsurface_runtime::core::WakeKind;
use toolsurface_runtime::core::WakeUp;

#[tokio::test]
async fn wake_ups_from_watchers_reach_the_host_in_order() {
    let rt = runtime();
    let mut rx = rt.take_wake_receiver().unwrap();
    assert!(rt.take_wake_receiver().is_none(), "there is one receiver");
    let id = rt.registry().allocate("alpha");
    let sender = rt.wake_sender();
    // A PTY reader thread is a plain OS thread.
    let from_thread = sender.clone();
    std::thread::spawn(move || {
        from_thread
            .send(WakeUp::matched(id, "alpha", "Listening on :8080"))
            .unwrap();
    })
    .join()
    .unwrap();
    let from_task = sender.clone();
    tokio::spawn(async move {
        from_task
            .send(WakeUp::exited(id, "alpha", Some(3)))
            .unwrap();
    })
    .await
    .unwrap();
    let first = rx.recv().await.unwrap();
    assert_eq!(first.session_id, id);
    assert_eq!(first.host, "alpha");
    assert_eq!(
        first.kind,
        WakeKind::Matched {
            text: "Listening on :8080".into()
        }
    );
    let second = rx.recv().await.unwrap();
    assert_eq!(second.kind, WakeKind::Exited { code: Some(3) });
    assert!(second.at >= first.at);
    assert_eq!(
        second.to_string(),
        format!("session {id} on alpha exited with code 3")
    );
    assert!(rx.try_recv().is_none());
}

#[tokio::test]
async fn sending_after_the_receiver_is_gone_reports_it() {
    let rt = runtime();
    let sender = rt.wake_sender();
    drop(rt.take_wake_receiver());
    assert!(sender.is_closed());
    let err = sender
        .send(WakeUp::exited(1000, "alpha", None))
        .unwrap_err();
    assert_eq!(err.0.session_id, 1000);
    assert_eq!(
        WakeUp::exited(1000, "alpha", None).to_string(),
        "session 1000 on alpha was killed by a signal"
    );
}
