//! The file tools — read_file, write_file, file_edit, apply_patch — on this machine or, with
//! `device`, on another one over OpenSSH, under one set of preconditions
//! ([`precondition`]) that both backends share.
//!
//! Paths: a relative path is resolved against [`FileHostConfig::root`] locally and against
//! the login folder (home) of the remote account with `device`; `~/` means that home too.
//! Remote operations run as one `ssh` exec each over one multiplexed connection per device
//! (`ControlMaster=auto`, `ControlPersist`, `ControlPath` in a private 0700 folder,
//! `BatchMode=yes`); keys come only from the OpenSSH config (`ssh_config`, passed as `-F`),
//! never `-i`, and nothing ever asks for a password, uses sudo or changes permissions.
//!
//! The remote side needs a POSIX `sh` and GNU coreutils (`head -c`, `mktemp`, `sha256sum`,
//! `mv`, `chmod`/`chown --reference`, `stat -c`, `readlink -f`, `sleep` with fractions); no
//! `flock`. Writes on both sides take the lock `mkdir <dir>/.<name>.toolsurface-lock` from
//! the expectation check to the rename, so the check-to-rename window is closed against
//! every writer that honours it (editors that ignore it can still race the final rename;
//! no POSIX primitive closes that). Staged copies go to [`FileHostConfig::staging_dir`]
//! locally (with a confirm_token) and to `${TMPDIR:-/tmp}/toolsurface-staged.XXXXXX/` on a
//! device (no token: there, expected_sha256 / overwrite are the preconditions).
//!
//! A conversation confined with [`FileHost::confine`] writes only where its sandbox allows.
//! The check runs on the resolved target ([`crate::sandbox::Confinement::check_write`]). The
//! local commit then runs on a Landlock-restricted thread. A refusal is terminal: nothing is
//! staged and no token is issued. `device` calls obey the policy's `devices`.
//!
//! A file_edit is two round trips (read, then compare-and-swap); every other operation is
//! one. The remote command goes through the login shell of the account (`sh -c '<script>'`
//! with single-quoted arguments), so a slow shell rc file on the server slows every
//! operation.

mod backend;
mod device;
mod local;
mod patch;
mod precondition;
mod remote;

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

pub use device::{Device, DeviceError, validate_device};

use crate::call::{CallContext, HandlerResult, ToolError};
use crate::sandbox::Confinement;
use local::LocalBackend;
use precondition::{EditArgs, Memory, Scope, WriteArgs};
use remote::{SshBackend, SshShared};

/// `read_file path, offset?, limit?, device?` (`offset` and `limit` with the definition's
/// defaults, filled in by the generated conversion).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadFile {
    pub path: String,
    /// 1-based line to start at.
    pub offset: u64,
    /// Most lines to return.
    pub limit: u64,
    pub device: Option<String>,
}

/// `write_file path, content, <one precondition>?, device?` (write_file.yaml's
/// `implements:`; its fields are the definition's, `overwrite` and `create_only` filled with
/// their `default: false` by the generated conversion).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteFile {
    pub path: String,
    pub content: String,
    pub expected_sha256: Option<String>,
    pub overwrite: bool,
    pub create_only: bool,
    pub confirm_token: Option<String>,
    pub device: Option<String>,
}

impl WriteFile {
    /// A write of `content` to `path` that gives no precondition and names no device (what a
    /// host builds by hand; the parsed call's conversion sets every field itself).
    pub fn new(path: impl Into<String>, content: impl Into<String>) -> WriteFile {
        WriteFile {
            path: path.into(),
            content: content.into(),
            expected_sha256: None,
            overwrite: false,
            create_only: false,
            confirm_token: None,
            device: None,
        }
    }

    /// The one precondition the request gives. The definition forbids every pair
    /// (write_file.yaml `forbidden_with`), so a parsed call gives one at most; a request a
    /// host built with two is refused here ([`ToolError::Argument`]). A flag set to false
    /// asks for nothing.
    pub fn precondition(&self) -> Result<WritePrecondition, ToolError> {
        let mut given = Vec::new();
        if let Some(sha) = &self.expected_sha256 {
            given.push(("expected_sha256", WritePrecondition::Expected(sha.clone())));
        }
        if let Some(token) = &self.confirm_token {
            given.push(("confirm_token", WritePrecondition::Confirm(token.clone())));
        }
        if self.overwrite {
            given.push(("overwrite", WritePrecondition::Overwrite));
        }
        if self.create_only {
            given.push(("create_only", WritePrecondition::CreateOnly));
        }
        match given.len() {
            0 => Ok(WritePrecondition::None),
            1 => Ok(given.remove(0).1),
            _ => Err(ToolError::Argument(format!(
                "give one precondition at most, not {}",
                given
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(" and ")
            ))),
        }
    }
}

/// What a write may assume about the file it replaces: one at most (see
/// [`WriteFile::precondition`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum WritePrecondition {
    /// None given: a new file is created; an existing one is replaced only if this
    /// conversation read it and it is unchanged, otherwise the content is staged.
    #[default]
    None,
    /// `expected_sha256`: replace exactly this version (a prefix of ≥ 8 hex digits is taken).
    Expected(String),
    /// `overwrite: true`: replace whatever is there.
    Overwrite,
    /// `create_only: true`: the file must not exist.
    CreateOnly,
    /// `confirm_token`: write the content staged under this token.
    Confirm(String),
}

/// `file_edit path, old_text, new_text, replace_all?, expected_sha256?, device?`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileEdit {
    pub path: String,
    pub old_text: String,
    pub new_text: String,
    pub replace_all: bool,
    pub expected_sha256: Option<String>,
    pub device: Option<String>,
}

/// `apply_patch patch, device?` — the `*** Begin Patch` format; an optional
/// `*** Device: <device>` line right after `*** Begin Patch` names the device too.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ApplyPatch {
    pub patch: String,
    pub device: Option<String>,
}

/// How a [`FileHost`] reaches files.
#[derive(Clone, Debug)]
pub struct FileHostConfig {
    /// Relative local paths (and apply_patch paths) resolve against this folder.
    pub root: PathBuf,
    /// An OpenSSH client config, passed as `-F`; `None` uses the user's default config.
    pub ssh_config: Option<PathBuf>,
    /// The `ssh` program.
    pub ssh_program: PathBuf,
    /// A private (0700) folder for control sockets; `None` creates one under
    /// `$XDG_RUNTIME_DIR` (or the temp folder) that lives as long as the host.
    pub control_dir: Option<PathBuf>,
    /// Where local staged copies go (created 0700); `None`: `<temp>/toolsurface-staged-<uid>`.
    pub staging_dir: Option<PathBuf>,
    /// `ControlPersist` seconds for the per-device master connection.
    pub control_persist_secs: u32,
    /// `ConnectTimeout` seconds.
    pub connect_timeout_secs: u32,
    /// Largest file read_file / file_edit / apply_patch will read.
    pub max_read_bytes: u64,
}

impl FileHostConfig {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        FileHostConfig {
            root: root.into(),
            ssh_config: None,
            ssh_program: PathBuf::from("ssh"),
            control_dir: None,
            staging_dir: None,
            control_persist_secs: 300,
            connect_timeout_secs: 15,
            max_read_bytes: 32 * 1024 * 1024,
        }
    }
}

/// A failure to set a [`FileHost`] up.
#[derive(Debug, thiserror::Error)]
#[error("file host setup: {0}")]
pub struct FileHostError(String);

/// The file tools of one host. Remembers, per conversation, which files were read.
#[derive(Debug)]
pub struct FileHost {
    config: FileHostConfig,
    staging_dir: PathBuf,
    memory: Mutex<Memory>,
    ssh: Arc<SshShared>,
    _control_tmp: Option<tempfile::TempDir>,
    /// Per conversation: its sandbox (none: unconfined).
    confinements: Mutex<HashMap<String, Arc<Confinement>>>,
}

fn current_uid() -> u32 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self")
        .map(|m| m.uid())
        .unwrap_or(0)
}

/// A write asked for in a rehearsal turn (the core lets only read-only calls through; this
/// answers a host that dispatches one anyway).
fn rehearsal(what: &str) -> ToolError {
    ToolError::Model(format!("rehearsal: {what} does not run"))
}

fn refuse_remote(field: &str) -> ToolError {
    ToolError::Argument(format!(
        "{field} is not available with device: on a device the preconditions are \
         expected_sha256 (a compare-and-swap against the remote file's sha256) or overwrite: true"
    ))
}

/// Lexically normalises `.` and `..` (without touching the file system).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() && !path.is_absolute() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// What a path string alone may not be (the definition says a 1-4096 character string):
/// [`ToolError::Argument`].
fn check_path_text(path: &str) -> Result<(), ToolError> {
    if path.trim().is_empty() {
        return Err(ToolError::Argument("path is empty".into()));
    }
    if path.contains('\0') {
        return Err(ToolError::Argument("path contains a NUL byte".into()));
    }
    if path.ends_with('/') {
        return Err(ToolError::Argument(format!(
            "path {path:?} names a folder; give a file path"
        )));
    }
    Ok(())
}

impl FileHost {
    pub fn new(config: FileHostConfig) -> Result<Self, FileHostError> {
        let (control_dir, control_tmp) = match &config.control_dir {
            Some(dir) => {
                remote::check_private_dir(dir).map_err(FileHostError)?;
                (dir.clone(), None)
            }
            None => {
                let base = std::env::var_os("XDG_RUNTIME_DIR")
                    .map(PathBuf::from)
                    .filter(|p| p.is_dir())
                    .unwrap_or_else(std::env::temp_dir);
                let tmp = tempfile::Builder::new()
                    .prefix("toolsurface-ssh-")
                    .tempdir_in(base)
                    .map_err(|e| FileHostError(format!("cannot create the control folder: {e}")))?;
                remote::check_private_dir(tmp.path()).map_err(FileHostError)?;
                (tmp.path().to_path_buf(), Some(tmp))
            }
        };
        let staging_dir = config.staging_dir.clone().unwrap_or_else(|| {
            std::env::temp_dir().join(format!("toolsurface-staged-{}", current_uid()))
        });
        let ssh = Arc::new(SshShared::new(
            config.ssh_program.clone(),
            config.ssh_config.clone(),
            control_dir,
            config.control_persist_secs,
            config.connect_timeout_secs,
        ));
        Ok(FileHost {
            config,
            staging_dir,
            memory: Mutex::new(Memory::default()),
            ssh,
            _control_tmp: control_tmp,
            confinements: Mutex::new(HashMap::new()),
        })
    }

    pub fn config(&self) -> &FileHostConfig {
        &self.config
    }

    /// The folder holding this host's ssh control sockets (`ControlPath=<dir>/%C`).
    pub fn control_dir(&self) -> &Path {
        &self.ssh.control_dir
    }

    /// How many `ssh` processes this host has started (one per remote operation).
    pub fn ssh_spawn_count(&self) -> u64 {
        self.ssh.spawns.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Drops what a conversation read, its pending confirm tokens and its sandbox.
    pub fn forget_conversation(&self, conversation: &str) {
        self.memory
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .forget_conversation(conversation);
        self.confinements_lock().remove(conversation);
    }

    /// `conversation`'s file tools write only where `confinement` allows (checked on the
    /// resolved target, with the kernel as backstop), and its `device` calls obey the
    /// policy's `devices`.
    pub fn confine(&self, conversation: &str, confinement: Arc<Confinement>) {
        self.confinements_lock()
            .insert(conversation.to_owned(), confinement);
    }

    fn confinements_lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Confinement>>> {
        self.confinements.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn confinement(&self, conversation: &str) -> Option<Arc<Confinement>> {
        self.confinements_lock().get(conversation).cloned()
    }

    /// The sandbox's verdict on a write of `path` (already resolved by [`Self::resolve`]),
    /// local or on `device`. A refusal is terminal: nothing is staged.
    fn check_write(
        &self,
        conversation: &str,
        device: Option<&Device>,
        path: &str,
    ) -> Result<(), ToolError> {
        let Some(c) = self.confinement(conversation) else {
            return Ok(());
        };
        match device {
            Some(d) => c.check_device(d.as_str(), true),
            None => c.check_write(&local::resolve(Path::new(path))),
        }
        .map_err(ToolError::Model)
    }

    /// Closes the master connections this host opened (they also end after
    /// `control_persist_secs` idle, and when the host is dropped).
    pub fn close(&self) {
        self.ssh.close_all();
    }

    fn local(&self, conversation: &str) -> LocalBackend {
        LocalBackend {
            staging_dir: self.staging_dir.clone(),
            max_read_bytes: self.config.max_read_bytes,
            backstop: self
                .confinement(conversation)
                .and_then(|c| c.backstop(&self.staging_dir)),
        }
    }

    fn remote(&self, device: Device, ctx: &CallContext) -> SshBackend {
        SshBackend {
            shared: self.ssh.clone(),
            device,
            max_read_bytes: self.config.max_read_bytes,
            cancel: ctx.cancel.clone(),
        }
    }

    fn scope<'a>(
        &'a self,
        conversation: &'a str,
        device: Option<&'a Device>,
        ctx: &'a CallContext,
    ) -> Scope<'a> {
        Scope {
            conversation,
            memory: &self.memory,
            device: device.map(Device::as_str),
            tokens: device.is_none(),
            names: ctx.names,
        }
    }

    fn device(device: Option<&str>) -> Result<Option<Device>, ToolError> {
        device
            .map(|d| validate_device(d).map_err(|e| ToolError::Argument(e.to_string())))
            .transpose()
    }

    /// A local path: relative to the root, normalised.
    fn local_path(&self, path: &str) -> Result<String, ToolError> {
        check_path_text(path)?;
        let p = Path::new(path);
        let full = if p.is_absolute() {
            normalize(p)
        } else {
            normalize(&self.config.root.join(p))
        };
        Ok(full.to_string_lossy().into_owned())
    }

    /// A remote path: absolute, or `./`-prefixed relative to the login folder.
    fn remote_path(path: &str) -> Result<String, ToolError> {
        check_path_text(path)?;
        let path = path.strip_prefix("~/").unwrap_or(path);
        let p = Path::new(path);
        let n = normalize(p);
        let s = n.to_string_lossy();
        if p.is_absolute() {
            Ok(s.into_owned())
        } else if s.is_empty() {
            Err(ToolError::Argument(format!("path {path:?} names a folder")))
        } else {
            Ok(format!("./{s}"))
        }
    }

    fn resolve(&self, device: Option<&Device>, path: &str) -> Result<String, ToolError> {
        match device {
            Some(_) => Self::remote_path(path),
            None => self.local_path(path),
        }
    }

    /// read_file: content (numbered lines) and the whole file's sha256; the read is
    /// remembered for `conversation`.
    pub async fn read_file(
        &self,
        conversation: &str,
        ctx: &CallContext,
        req: ReadFile,
    ) -> HandlerResult {
        let device = Self::device(req.device.as_deref())?;
        if let (Some(d), Some(c)) = (&device, self.confinement(conversation)) {
            c.check_device(d.as_str(), false)
                .map_err(ToolError::Model)?;
        }
        let path = self.resolve(device.as_ref(), &req.path)?;
        let scope = self.scope(conversation, device.as_ref(), ctx);
        match &device {
            Some(d) => {
                precondition::read_file(
                    &self.remote(d.clone(), ctx),
                    &scope,
                    &path,
                    req.offset,
                    req.limit,
                )
                .await
            }
            None => {
                precondition::read_file(
                    &self.local(conversation),
                    &scope,
                    &path,
                    req.offset,
                    req.limit,
                )
                .await
            }
        }
    }

    /// write_file: creates a new file; replaces an existing one only if this conversation
    /// read it (and it is unchanged), with `overwrite: true`, or when `expected_sha256`
    /// matches; otherwise stages the content.
    pub async fn write_file(
        &self,
        conversation: &str,
        ctx: &CallContext,
        req: WriteFile,
    ) -> HandlerResult {
        let device = Self::device(req.device.as_deref())?;
        let given = req.precondition()?;
        if device.is_some() {
            // Call::parse refuses these pairs first (forbidden_with); this answers a host
            // that builds the request itself.
            match given {
                WritePrecondition::CreateOnly => return Err(refuse_remote("create_only")),
                WritePrecondition::Confirm(_) => return Err(refuse_remote("confirm_token")),
                _ => {}
            }
        }
        let expected = match &given {
            WritePrecondition::Expected(raw) => precondition::parse_expected(Some(raw), ctx.names)?,
            _ => None,
        };
        let overwrite = given == WritePrecondition::Overwrite;
        let create_only = given == WritePrecondition::CreateOnly;
        let confirm_token = match &given {
            WritePrecondition::Confirm(token) => Some(token.as_str()),
            _ => None,
        };
        if ctx.rehearsal {
            return Err(rehearsal(ctx.names.or::<WriteFile>("this write")));
        }
        let path = self.resolve(device.as_ref(), &req.path)?;
        self.check_write(conversation, device.as_ref(), &path)?;
        let scope = self.scope(conversation, device.as_ref(), ctx);
        let args = WriteArgs {
            content: &req.content,
            expected,
            overwrite,
            create_only,
            confirm_token,
        };
        match &device {
            Some(d) => {
                precondition::write_file(&self.remote(d.clone(), ctx), &scope, &path, args).await
            }
            None => precondition::write_file(&self.local(conversation), &scope, &path, args).await,
        }
    }

    /// file_edit: replaces a unique match of `old_text` (or every match with
    /// `replace_all`); no prior read needed; reports old/new sha256 and a diff.
    pub async fn file_edit(
        &self,
        conversation: &str,
        ctx: &CallContext,
        req: FileEdit,
    ) -> HandlerResult {
        let device = Self::device(req.device.as_deref())?;
        let expected = precondition::parse_expected(req.expected_sha256.as_deref(), ctx.names)?;
        if ctx.rehearsal {
            return Err(rehearsal(ctx.names.or::<FileEdit>("this edit")));
        }
        let path = self.resolve(device.as_ref(), &req.path)?;
        self.check_write(conversation, device.as_ref(), &path)?;
        let scope = self.scope(conversation, device.as_ref(), ctx);
        let args = EditArgs {
            old_text: &req.old_text,
            new_text: &req.new_text,
            replace_all: req.replace_all,
            expected,
        };
        match &device {
            Some(d) => {
                precondition::file_edit(&self.remote(d.clone(), ctx), &scope, &path, args).await
            }
            None => precondition::file_edit(&self.local(conversation), &scope, &path, args).await,
        }
    }

    /// apply_patch: Add / Update (Move to) / Delete; every file is checked before any is
    /// written, and all are written or none.
    pub async fn apply_patch(
        &self,
        conversation: &str,
        ctx: &CallContext,
        req: ApplyPatch,
    ) -> HandlerResult {
        let parsed = patch::parse_patch(&req.patch).map_err(ToolError::Model)?;
        let named = match (req.device.as_deref(), parsed.device.as_deref()) {
            (Some(a), Some(b)) if a != b => {
                return Err(ToolError::Model(format!(
                    "the device parameter ({a:?}) and the patch's `*** Device:` line ({b:?}) disagree"
                )));
            }
            (Some(a), _) => Some(a),
            (None, b) => b,
        };
        let device = Self::device(named)?;
        if ctx.rehearsal {
            return Err(rehearsal(ctx.names.or::<ApplyPatch>("this patch")));
        }
        let mut ops = parsed.ops;
        for op in &mut ops {
            match op {
                patch::PatchOp::Add { path, .. } | patch::PatchOp::Delete { path } => {
                    *path = self.resolve(device.as_ref(), path)?;
                    self.check_write(conversation, device.as_ref(), path)?;
                }
                patch::PatchOp::Update { path, move_to, .. } => {
                    *path = self.resolve(device.as_ref(), path)?;
                    self.check_write(conversation, device.as_ref(), path)?;
                    if let Some(dest) = move_to {
                        // `*** Move to:` writes the destination and removes the source.
                        *dest = self.resolve(device.as_ref(), dest)?;
                        self.check_write(conversation, device.as_ref(), dest)?;
                    }
                }
            }
        }
        let scope = self.scope(conversation, device.as_ref(), ctx);
        match &device {
            Some(d) => precondition::apply_patch(&self.remote(d.clone(), ctx), &scope, &ops).await,
            None => precondition::apply_patch(&self.local(conversation), &scope, &ops).await,
        }
    }
}

impl Drop for FileHost {
    fn drop(&mut self) {
        self.ssh.close_all();
        // A master may still be unlinking its socket while the folder is removed: retry.
        if let Some(tmp) = self._control_tmp.take() {
            let dir = tmp.keep();
            for _ in 0..10 {
                match std::fs::remove_dir_all(&dir) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        std::thread::sleep(std::time::Duration::from_millis(10));
                    }
                    _ => break,
                }
            }
        }
    }
}
