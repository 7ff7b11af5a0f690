//! Wake-ups: a watched session exited or its output matched. The shell family publishes them
//! through a cloneable [`WakeSender`]; the host's conversation loop receives them on the one
//! [`WakeReceiver`] and starts a turn.

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
}

impl WakeUp {
    pub fn exited(session_id: i64, host: impl Into<String>, code: Option<i32>) -> Self {
        WakeUp {
            session_id,
            host: host.into(),
            kind: WakeKind::Exited { code },
            at: SystemTime::now(),
        }
    }

    pub fn matched(session_id: i64, host: impl Into<String>, text: impl Into<String>) -> Self {
        WakeUp {
            session_id,
            host: host.into(),
            kind: WakeKind::Matched { text: text.into() },
            at: SystemTime::now(),
        }
    }
}

/// The model-facing sentence: "session 1001 on alpha exited with code 0".
impl fmt::Display for WakeUp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "session {} on {} ", self.session_id, self.host)?;
        match &self.kind {
            WakeKind::Exited { code: Some(code) } => write!(f, "exited with code {code}"),
            WakeKind::Exited { code: None } => f.write_str("was killed by a signal"),
            WakeKind::Matched { text } => write!(f, "matched: {text}"),
        }
    }
}

/// The receiving side is gone; the event was not delivered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("wake-up for session {} not delivered: nobody is listening", .0.session_id)]
pub struct WakeClosed(pub WakeUp);

/// Publishes wake-ups. Cheap to clone; usable from any thread, sync or async (sending never
/// blocks). Hold one per watcher.
#[derive(Clone, Debug)]
pub struct WakeSender {
    tx: mpsc::UnboundedSender<WakeUp>,
}

impl WakeSender {
    pub fn send(&self, wake: WakeUp) -> Result<(), WakeClosed> {
        self.tx.send(wake).map_err(|e| WakeClosed(e.0))
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
}
