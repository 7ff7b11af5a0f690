//! One model turn: its kind, its interrupt token and its read/write lock. The kind decides
//! what may run, never which tools are published.

use std::sync::Arc;

use tokio::sync::RwLock;
use tokio_util::sync::CancellationToken;

/// Why the turn happens (the shared vocabulary). Only [`TurnKind::Rehearsal`] changes what
/// runs; no kind changes the tool array (see [`super::Scope`]).
pub use toolsurface_kernel::vocab::TurnKind;

/// A turn. Clones share the interrupt token and the lock, so a host can keep a clone to
/// interrupt the turn while [`super::Runtime::execute`] runs it.
#[derive(Clone, Debug)]
pub struct Turn {
    kind: TurnKind,
    cancel: CancellationToken,
    lock: Arc<RwLock<()>>,
}

impl Turn {
    pub fn new(kind: TurnKind) -> Self {
        Turn {
            kind,
            cancel: CancellationToken::new(),
            lock: Arc::new(RwLock::new(())),
        }
    }

    /// A new turn of `kind` (its own interrupt token) scheduled with this one: both hold the
    /// same read/write lock, so a call that must run alone waits for the other turn's calls
    /// and the other way round. A conversation that takes several requests at once (an MCP
    /// session) makes each request's turn this way from one schedule.
    pub fn sharing_schedule(&self, kind: TurnKind) -> Self {
        Turn {
            kind,
            cancel: CancellationToken::new(),
            lock: Arc::clone(&self.lock),
        }
    }

    pub fn normal() -> Self {
        Turn::new(TurnKind::Normal)
    }

    pub fn rehearsal() -> Self {
        Turn::new(TurnKind::Rehearsal)
    }

    pub fn kind(&self) -> TurnKind {
        self.kind
    }

    pub fn is_rehearsal(&self) -> bool {
        self.kind == TurnKind::Rehearsal
    }

    /// Interrupt the turn: running calls see `ctx.cancel`; calls not yet started never start.
    pub fn interrupt(&self) {
        self.cancel.cancel();
    }

    pub fn is_interrupted(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// The token handlers see as `CallContext::cancel`.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancel
    }

    /// The per-turn lock: parallel-safe calls hold the read side while they run, every other
    /// call the write side.
    pub fn lock(&self) -> &Arc<RwLock<()>> {
        &self.lock
    }
}
