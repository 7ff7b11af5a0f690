//! Wake-ups: a watched session exited or its output matched. One [`WakeUp`] type from the
//! watcher to the host: the shell family publishes it through a [`WakeSink`] (the runtime's
//! cloneable [`WakeSender`] is one); the host's conversation loop receives it on the one
//! [`WakeReceiver`] and starts a turn. Families depend on this contract; the core depends on
//! no family.

use std::fmt;
use std::time::SystemTime;

use tokio::sync::mpsc;

/// What happened to the watched session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WakeKind {
    /// The session's process exited; `None` when it was killed by a signal.
    Exited { code: Option<i32> },
    /// The watcher's pattern matched this output.
    Matched { text: String },
}

/// One wake-up event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WakeUp {
    pub session_id: i64,
    /// The host that owns the session.
    pub host: String,
    pub kind: WakeKind,
    pub at: SystemTime,
    /// The watcher that fired, when the publisher has watcher ids.
    pub watcher_id: Option<i64>,
    /// The session's command, for the model-facing text.
    pub command: Option<String>,
    /// The publisher's own wording ("killed by SIGTERM"), preferred by `Display`.
    pub detail: Option<String>,
}

impl WakeUp {
    pub fn exited(session_id: i64, host: impl Into<String>, code: Option<i32>) -> Self {
        WakeUp {
            session_id,
            host: host.into(),
            kind: WakeKind::Exited { code },
            at: SystemTime::now(),
            watcher_id: None,
            command: None,
            detail: None,
        }
    }

    pub fn matched(session_id: i64, host: impl Into<String>, text: impl Into<String>) -> Self {
        WakeUp {
            session_id,
            host: host.into(),
            kind: WakeKind::Matched { text: text.into() },
            at: SystemTime::now(),
            watcher_id: None,
            command: None,
            detail: None,
        }
    }
}

/// The model-facing sentence: "session 1001 on alpha exited with code 0".
impl fmt::Display for WakeUp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "session {} on {}", self.session_id, self.host)?;
        if let Some(command) = &self.command {
            write!(f, " ({command})")?;
        }
        f.write_str(" ")?;
        match &self.kind {
            WakeKind::Exited { .. } if self.detail.is_some() => {
                f.write_str(self.detail.as_deref().unwrap_or_default())
            }
            WakeKind::Exited { code: Some(code) } => write!(f, "exited with code {code}"),
            WakeKind::Exited { code: None } => f.write_str("was killed by a signal"),
            WakeKind::Matched { text } => write!(f, "matched: {text}"),
        }
    }
}

/// The receiving side is gone; the event was not delivered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("wake-up for session {} not delivered: nobody is listening", .0.session_id)]
pub struct WakeClosed(pub Box<WakeUp>);

/// Publishes wake-ups. Cheap to clone; usable from any thread, sync or async (sending never
/// blocks). Hold one per watcher.
#[derive(Clone, Debug)]
pub struct WakeSender {
    tx: mpsc::UnboundedSender<WakeUp>,
}

impl WakeSender {
    pub fn send(&self, wake: WakeUp) -> Result<(), WakeClosed> {
        self.tx.send(wake).map_err(|e| WakeClosed(Box::new(e.0)))
    }

    /// Whether anybody can still receive.
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
}

/// Receives wake-ups in publication order.
#[derive(Debug)]
pub struct WakeReceiver {
    rx: mpsc::UnboundedReceiver<WakeUp>,
}

impl WakeReceiver {
    /// The next wake-up; `None` once every sender is gone.
    pub async fn recv(&mut self) -> Option<WakeUp> {
        self.rx.recv().await
    }

    /// A wake-up that has already arrived, if any.
    pub fn try_recv(&mut self) -> Option<WakeUp> {
        self.rx.try_recv().ok()
    }
}

/// Receives wake-ups (a watched session exited or its output matched): what a watcher
/// publishes through. Never blocks; callable from any thread.
pub trait WakeSink: Send + Sync + 'static {
    fn wake(&self, wake: WakeUp);
}

/// A sink that drops every wake-up.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoWake;

impl WakeSink for NoWake {
    fn wake(&self, _: WakeUp) {}
}

impl WakeSink for WakeSender {
    fn wake(&self, wake: WakeUp) {
        // A closed channel means nobody listens any more; the wake-up has no reader.
        let _ = self.send(wake);
    }
}

/// A plain tokio channel is a sink too (tests).
impl WakeSink for mpsc::UnboundedSender<WakeUp> {
    fn wake(&self, wake: WakeUp) {
        // A closed channel means nobody listens any more; the wake-up has no reader.
        let _ = self.send(wake);
    }
}

/// A connected sender/receiver pair.
pub fn wake_channel() -> (WakeSender, WakeReceiver) {
    let (tx, rx) = mpsc::unbounded_channel();
    (WakeSender { tx }, WakeReceiver { rx })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn delivered_in_order_from_clones() {
        let (tx, mut rx) = wake_channel();
        let tx2 = tx.clone();
        assert!(tx.send(WakeUp::matched(1000, "alpha", "ready")).is_ok());
        assert!(tx2.send(WakeUp::exited(1000, "alpha", Some(0))).is_ok());
        assert_eq!(
            rx.recv().await.map(|w| w.to_string()).as_deref(),
            Some("session 1000 on alpha matched: ready")
        );
        assert_eq!(
            rx.recv().await.map(|w| w.kind),
            Some(WakeKind::Exited { code: Some(0) })
        );
        drop(rx);
        assert!(tx.send(WakeUp::exited(1, "alpha", None)).is_err());
    }

    #[tokio::test]
    async fn a_watchers_wake_up_arrives_through_the_sink_with_its_wording() {
        let (tx, mut rx) = wake_channel();
        let sink: std::sync::Arc<dyn WakeSink> = std::sync::Arc::new(tx);
        let mut wake = WakeUp::exited(1001, "beta", Some(2));
        wake.watcher_id = Some(7);
        wake.command = Some("make test".into());
        wake.detail = Some("exited with code 2".into());
        sink.wake(wake);
        let wake = rx.recv().await;
        assert_eq!(
            wake.as_ref().map(|w| w.kind.clone()),
            Some(WakeKind::Exited { code: Some(2) })
        );
        assert_eq!(wake.as_ref().and_then(|w| w.watcher_id), Some(7));
        assert_eq!(
            wake.map(|w| w.to_string()).as_deref(),
            Some("session 1001 on beta (make test) exited with code 2")
        );
    }
}
