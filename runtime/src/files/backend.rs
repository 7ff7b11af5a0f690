//! The small interface both file backends (local and OpenSSH) implement; every rule about
//! *when* a write may happen lives in `precondition`, never here.

use std::future::Future;

use sha2::{Digest, Sha256};

/// Hex sha256 of some bytes.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// A file as read: its bytes and their sha256.
#[derive(Clone, Debug)]
pub(crate) struct Snapshot {
    pub bytes: Vec<u8>,
    pub sha256: String,
}

impl Snapshot {
    pub fn new(bytes: Vec<u8>) -> Self {
        let sha256 = sha256_hex(&bytes);
        Snapshot { bytes, sha256 }
    }
}

/// What reading one path found.
#[derive(Clone, Debug)]
pub(crate) enum Probe {
    File(Snapshot),
    Missing,
    /// A directory, device, socket…
    NotAFile,
    /// Reading is not allowed.
    Denied,
    /// Larger than the configured read limit.
    TooLarge,
}

/// What the file must look like at commit time (checked under the lock).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Expect {
    /// Must not exist.
    Absent,
    /// Must exist with a sha256 starting with this lowercase hex (8–64 digits).
    Sha(String),
    /// Anything (an explicit overwrite).
    Any,
}

impl Expect {
    pub fn matches(&self, current: Option<&str>) -> bool {
        match (self, current) {
            (Expect::Any, _) => true,
            (Expect::Absent, None) => true,
            (Expect::Absent, Some(_)) => false,
            (Expect::Sha(_), None) => false,
            (Expect::Sha(prefix), Some(sha)) => sha.starts_with(prefix.as_str()),
        }
    }

    /// The token the remote script understands.
    pub fn wire(&self) -> &str {
        match self {
            Expect::Absent => "absent",
            Expect::Any => "any",
            Expect::Sha(prefix) => prefix,
        }
    }
}

/// One change of a commit.
#[derive(Clone, Debug)]
pub(crate) enum Change {
    Write {
        path: String,
        content: Vec<u8>,
        expect: Expect,
    },
    Delete {
        path: String,
        expect: Expect,
    },
}

impl Change {
    pub fn path(&self) -> &str {
        match self {
            Change::Write { path, .. } | Change::Delete { path, .. } => path,
        }
    }
    pub fn expect(&self) -> &Expect {
        match self {
            Change::Write { expect, .. } | Change::Delete { expect, .. } => expect,
        }
    }
}

/// A staged copy of content that was not written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Staged {
    /// Index of the change in the commit.
    pub index: usize,
    /// Where the content now lives (on the backend's machine).
    pub staged_path: String,
}

/// How a commit ended. Only `Done` changed anything.
#[derive(Clone, Debug)]
pub(crate) enum Commit {
    /// Every change applied; the sha256 each path had before (None: it did not exist).
    Done { before: Vec<Option<String>> },
    /// A file did not meet its expectation; nothing was written. When the commit asked for
    /// it, the write contents were staged.
    Conflict {
        index: usize,
        current: Option<String>,
        staged: Vec<Staged>,
    },
    /// Writing was not permitted; nothing was written and the write contents were staged.
    Denied {
        index: usize,
        detail: String,
        staged: Vec<Staged>,
    },
    /// A path is a directory or another non-regular file; nothing was written.
    NotAFile { index: usize },
}

/// A failure of the backend itself (I/O, ssh, protocol), as text for the model.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct BackendError(pub String);

/// Read bytes+sha, compare-and-swap write (all or nothing), stage. Each method is one
/// round trip (one `ssh` exec remotely).
pub(crate) trait FileBackend: Send + Sync {
    /// Reads one path.
    fn read(&self, path: &str) -> impl Future<Output = Result<Probe, BackendError>> + Send;

    /// Reads several paths in one round trip.
    fn read_many(
        &self,
        paths: &[String],
    ) -> impl Future<Output = Result<Vec<Probe>, BackendError>> + Send;

    /// Applies all changes or none: contents are written to temporary files next to their
    /// targets, every target's lock is taken, every expectation and permission is checked,
    /// then the temporary files are renamed over the targets (mode kept).
    /// `stage_on_conflict` stages the write contents when an expectation fails; a
    /// permission failure always stages them.
    fn commit(
        &self,
        changes: &[Change],
        stage_on_conflict: bool,
    ) -> impl Future<Output = Result<Commit, BackendError>> + Send;
}
