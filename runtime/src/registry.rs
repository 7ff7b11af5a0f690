//! Session ids, unique across every host of a runtime, and which host owns each one.
//! Follow-up calls are routed with it; the shell family allocates from it before the first
//! wait, so an interrupted call can never lose a session.
//!
//! One registry per conversation: a conversation knows only its own sessions (another
//! conversation's id is unknown here, exactly like an id that never existed), while
//! [`SessionRegistry::sharing_ids`] makes the registries of one process draw their ids from
//! one counter, so an id is never given out twice process-wide.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, Ordering};

#[derive(Debug)]
pub struct SessionRegistry {
    /// Shared by every registry made with [`SessionRegistry::sharing_ids`].
    next: Arc<AtomicI64>,
    owners: Mutex<BTreeMap<i64, String>>,
}

impl Default for SessionRegistry {
    fn default() -> Self {
        Self::new()
    }
}

impl SessionRegistry {
    /// Ids start at 1000 so they never look like a small count or exit code.
    pub fn new() -> Self {
        SessionRegistry {
            next: Arc::new(AtomicI64::new(1000)),
            owners: Mutex::new(BTreeMap::new()),
        }
    }

    /// An empty registry (another conversation's) that allocates from this one's counter.
    pub fn sharing_ids(&self) -> SessionRegistry {
        SessionRegistry {
            next: Arc::clone(&self.next),
            owners: Mutex::new(BTreeMap::new()),
        }
    }

    /// A fresh id owned by `host`.
    pub fn allocate(&self, host: &str) -> i64 {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.lock().insert(id, host.to_owned());
        id
    }

    /// The host owning `id`, if the session is known.
    pub fn owner(&self, id: i64) -> Option<String> {
        self.lock().get(&id).cloned()
    }

    /// Forget `id` (after eviction).
    pub fn release(&self, id: i64) {
        self.lock().remove(&id);
    }

    /// Every known session and its host, by id.
    pub fn list(&self) -> Vec<(i64, String)> {
        self.lock().iter().map(|(k, v)| (*k, v.clone())).collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<i64, String>> {
        // A poisoned map is still a valid map: every mutation is a single insert/remove.
        self.owners.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_across_hosts_and_owned() {
        let r = SessionRegistry::new();
        let a = r.allocate("alpha");
        let b = r.allocate("beta");
        assert_ne!(a, b);
        assert_eq!(r.owner(a).as_deref(), Some("alpha"));
        assert_eq!(r.owner(b).as_deref(), Some("beta"));
        r.release(a);
        assert_eq!(r.owner(a), None);
        assert_eq!(r.list(), vec![(b, "beta".to_owned())]);
    }

    #[test]
    fn registries_sharing_ids_never_repeat_one_and_know_only_their_own() {
        let a = SessionRegistry::new();
        let b = a.sharing_ids();
        let in_a = a.allocate("alpha");
        let in_b = b.allocate("alpha");
        assert_ne!(in_a, in_b);
        assert_eq!(a.owner(in_b), None);
        assert_eq!(b.owner(in_a), None);
        assert_eq!(b.list(), vec![(in_b, "alpha".to_owned())]);
    }
}
