//! `set_workdirs`: declares the folders a conversation works in. Recognises git, svn and
//! sync-drive folders; a plain folder gets `git init` and a baseline commit (never touching
//! an existing repository's history); returns each folder's root AGENTS.md. The declared
//! set is what `introspect workdirs` shows ([`Workdirs::declared`]).

use std::path::{Component, Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::call::{HandlerResult, Introspect, ToolError, ToolNames, ToolOutput};

/// AGENTS.md beyond this many bytes is cut (with a note).
pub const AGENTS_MD_MAX_BYTES: usize = 64 * 1024;
/// A plain folder with more files than this is not git-inited (a baseline commit of a huge
/// tree is slow and usually a mistake, e.g. a home directory).
pub const INIT_MAX_FILES: usize = 10_000;
/// The author of baseline commits.
pub const BASELINE_AUTHOR_NAME: &str = "toolsurface";
pub const BASELINE_AUTHOR_EMAIL: &str = "toolsurface@localhost";

/// `set_workdirs`'s `mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Replace the declared set (an empty `dirs` clears it).
    Set,
    Add,
    Remove,
}

/// A `set_workdirs` call (set_workdirs.yaml's `implements:` type).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetWorkdirsRequest {
    pub dirs: Vec<String>,
    /// The definition's default included (filled in by the generated conversion).
    pub mode: Mode,
}

/// Which sync client owns a folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SyncDrive {
    Dropbox,
    OneDrive,
    ICloudDrive,
    GoogleDrive,
}

impl SyncDrive {
    pub fn label(self) -> &'static str {
        match self {
            SyncDrive::Dropbox => "Dropbox",
            SyncDrive::OneDrive => "OneDrive",
            SyncDrive::ICloudDrive => "iCloud Drive",
            SyncDrive::GoogleDrive => "Google Drive",
        }
    }
}

/// What kind of folder a workdir is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WorkdirKind {
    /// Inside a git work tree rooted at `root`.
    Git { root: PathBuf },
    /// Inside an svn working copy rooted at `root`.
    Svn { root: PathBuf },
    /// Neither git nor svn (only possible when init was declined, e.g. a sync drive).
    Plain,
}

/// One declared folder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Workdir {
    /// Canonical absolute path.
    pub path: PathBuf,
    #[serde(flatten)]
    pub kind: WorkdirKind,
    /// The sync client owning the folder, if any.
    pub sync_drive: Option<SyncDrive>,
    /// Whether `set_workdirs` ran `git init` + the baseline commit here.
    pub initialized: bool,
    /// Why a plain folder was not git-inited.
    pub not_initialized_because: Option<String>,
}

impl Workdir {
    /// The project root: the repository root, else the folder itself.
    pub fn root(&self) -> &Path {
        match &self.kind {
            WorkdirKind::Git { root } | WorkdirKind::Svn { root } => root,
            WorkdirKind::Plain => &self.path,
        }
    }

    fn describe(&self) -> String {
        let mut s = match &self.kind {
            WorkdirKind::Git { root } if root == &self.path => "git repository".to_string(),
            WorkdirKind::Git { root } => format!("inside git repository {}", root.display()),
            WorkdirKind::Svn { root } if root == &self.path => "svn working copy".to_string(),
            WorkdirKind::Svn { root } => format!("inside svn working copy {}", root.display()),
            WorkdirKind::Plain => "plain folder".to_string(),
        };
        if self.initialized {
            s.push_str(" (new: git init + baseline commit)");
        }
        if let Some(d) = self.sync_drive {
            s.push_str(&format!(", in {}", d.label()));
        }
        if let Some(why) = &self.not_initialized_because {
            s.push_str(&format!("; not git-inited: {why}"));
        }
        s
    }
}

/// The declared working folders of one conversation.
#[derive(Clone, Debug)]
pub struct Workdirs {
    base: PathBuf,
    declared: Vec<Workdir>,
    /// Folders a declared one must lie in (None: anywhere). The sandbox's `workdir_bounds`:
    /// the declared set is writable, so a model must not declare `/`.
    bounds: Option<Vec<PathBuf>>,
}

impl Workdirs {
    /// `base` resolves relative paths (usually the conversation's current directory).
    pub fn new(base: impl Into<PathBuf>) -> Self {
        Workdirs {
            base: base.into(),
            declared: Vec::new(),
            bounds: None,
        }
    }

    /// Only folders inside one of `bounds` may be declared from now on (canonicalized
    /// here; a bound that does not exist bounds nothing). `None`: anywhere.
    pub fn set_bounds(&mut self, bounds: Option<Vec<PathBuf>>) {
        self.bounds = bounds.map(|b| {
            b.into_iter()
                .filter_map(|p| std::fs::canonicalize(self.resolve(&p.to_string_lossy())).ok())
                .collect()
        });
    }

    /// A refusal when `canonical` lies outside the bounds (compared component-wise).
    fn check_bounds(&self, dir: &str, canonical: &Path) -> Result<(), ToolError> {
        let Some(bounds) = &self.bounds else {
            return Ok(());
        };
        if bounds.iter().any(|b| canonical.starts_with(b)) {
            return Ok(());
        }
        let list: Vec<String> = bounds.iter().map(|b| b.display().to_string()).collect();
        Err(ToolError::Model(format!(
            "refused — {dir:?} ({}) is outside the folders this role may declare ({}): \
             declared folders become writable; ask the user to add it to the host config's \
             sandbox.workdir_bounds; nothing was changed",
            canonical.display(),
            if list.is_empty() {
                "none".to_owned()
            } else {
                list.join(", ")
            }
        )))
    }

    pub fn base(&self) -> &Path {
        &self.base
    }

    /// The declared set, in declaration order (what `introspect workdirs` shows).
    pub fn declared(&self) -> &[Workdir] {
        &self.declared
    }

    /// A text rendering of the declared set.
    pub fn describe(&self) -> String {
        if self.declared.is_empty() {
            return "no working folders declared".into();
        }
        let mut s = String::from("declared working folders:");
        for w in &self.declared {
            s.push_str(&format!("\n- {} — {}", w.path.display(), w.describe()));
        }
        s
    }

    fn resolve(&self, dir: &str) -> PathBuf {
        let p = Path::new(dir);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.base.join(p)
        }
    }

    /// Runs a `set_workdirs` call. All dirs are checked before anything is changed; an
    /// unknown or non-directory path fails the whole call.
    pub fn set_workdirs(&mut self, req: &SetWorkdirsRequest, names: &ToolNames) -> HandlerResult {
        let mode = req.mode;
        if req.dirs.is_empty() && mode != Mode::Set {
            return Err(ToolError::Argument(
                "dirs is empty (to clear the set use mode=set with dirs: [])".into(),
            ));
        }
        if mode == Mode::Remove {
            return self.remove(&req.dirs);
        }
        let mut paths: Vec<PathBuf> = Vec::new();
        for dir in &req.dirs {
            let resolved = self.resolve(dir);
            let canonical = match std::fs::canonicalize(&resolved) {
                Ok(c) => c,
                Err(e) => {
                    return Err(ToolError::Model(format!(
                        "{dir:?} (resolved to {}) does not exist or is not \
                         accessible: {e}; nothing was changed",
                        resolved.display()
                    )));
                }
            };
            if !canonical.is_dir() {
                return Err(ToolError::Model(format!(
                    "{dir:?} ({}) is not a directory; nothing was changed",
                    canonical.display()
                )));
            }
            self.check_bounds(dir, &canonical)?;
            if !paths.contains(&canonical) {
                paths.push(canonical);
            }
        }
        let mut prepared = Vec::new();
        let mut notes = Vec::new();
        for p in &paths {
            let existing = self.declared.iter().find(|w| &w.path == p).cloned();
            let w = match existing {
                Some(w) if mode == Mode::Add => {
                    notes.push(format!("{} was already declared", p.display()));
                    w
                }
                _ => prepare(p),
            };
            prepared.push(w);
        }
        match mode {
            Mode::Set => self.declared = prepared.clone(),
            Mode::Add => {
                for w in &prepared {
                    if !self.declared.iter().any(|d| d.path == w.path) {
                        self.declared.push(w.clone());
                    }
                }
            }
            Mode::Remove => {}
        }
        Ok(self.report(&prepared, &notes, names))
    }

    fn remove(&mut self, dirs: &[String]) -> HandlerResult {
        let mut removed = Vec::new();
        let mut missing = Vec::new();
        for dir in dirs {
            let resolved = self.resolve(dir);
            let canonical =
                std::fs::canonicalize(&resolved).unwrap_or_else(|_| normalize(&resolved));
            match self
                .declared
                .iter()
                .position(|w| w.path == canonical || w.path == resolved)
            {
                Some(i) => removed.push(self.declared.remove(i)),
                None => missing.push(dir.clone()),
            }
        }
        if !missing.is_empty() {
            // Undo: a failing call changes nothing.
            self.declared.extend(removed);
            let declared: Vec<String> = self
                .declared
                .iter()
                .map(|w| w.path.display().to_string())
                .collect();
            return Err(ToolError::Model(format!(
                "not declared: {}; declared: {}; nothing was changed",
                missing.join(", "),
                if declared.is_empty() {
                    "(none)".to_string()
                } else {
                    declared.join(", ")
                }
            )));
        }
        let mut text = String::from("removed:");
        for w in &removed {
            text.push_str(&format!("\n- {}", w.path.display()));
        }
        text.push('\n');
        text.push_str(&self.describe());
        Ok(ToolOutput {
            text,
            structured: Some(json!({
                "removed": removed.iter().map(|w| w.path.display().to_string()).collect::<Vec<_>>(),
                "declared": self.declared,
            })),
        })
    }

    fn report(&self, prepared: &[Workdir], notes: &[String], names: &ToolNames) -> ToolOutput {
        let mut text = String::new();
        let mut folders = Vec::new();
        if prepared.is_empty() {
            return ToolOutput {
                text: "cleared: no working folders declared".into(),
                structured: Some(json!({ "folders": [], "declared": self.declared })),
            };
        }
        for w in prepared {
            text.push_str(&format!("## {} — {}\n", w.path.display(), w.describe()));
            let agents = read_agents_md(w);
            match &agents {
                Some((path, body, cut)) => {
                    text.push_str(&format!(
                        "AGENTS.md ({}):\n{}",
                        path.display(),
                        body.trim_end()
                    ));
                    if *cut {
                        text.push_str(&format!("\n[… cut at {AGENTS_MD_MAX_BYTES} bytes]"));
                    }
                    text.push('\n');
                }
                None => text.push_str(&format!("no AGENTS.md at {}\n", w.root().display())),
            }
            text.push('\n');
            folders.push(json!({
                "workdir": w,
                "agents_md_path": agents.as_ref().map(|(p, _, _)| p.display().to_string()),
                "agents_md": agents.as_ref().map(|(_, b, _)| b),
                "agents_md_truncated": agents.as_ref().is_some_and(|(_, _, c)| *c),
            }));
        }
        for n in notes {
            text.push_str(&format!("note: {n}\n"));
        }
        let paths: Vec<String> = self
            .declared
            .iter()
            .map(|w| w.path.display().to_string())
            .collect();
        text.push_str(&format!(
            "declared working folders ({}): {}",
            paths.len(),
            if paths.is_empty() {
                "(none)".to_string()
            } else {
                paths.join(", ")
            }
        ));
        if let Some(tool) = names.of::<Introspect>() {
            text.push_str(&format!(
                "\n(the declared set can be read again with {tool} target=workdirs)"
            ));
        }
        ToolOutput {
            text,
            structured: Some(json!({
                "folders": folders,
                "declared": self.declared,
            })),
        }
    }
}

/// Lexical normalisation (for paths that no longer exist).
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The nearest ancestor (or `dir` itself) holding `marker`.
fn find_up(dir: &Path, marker: &str) -> Option<PathBuf> {
    dir.ancestors()
        .find(|a| a.join(marker).exists())
        .map(Path::to_path_buf)
}

/// Recognises a sync-drive folder by its path components and by client markers.
pub fn detect_sync_drive(path: &Path) -> Option<SyncDrive> {
    let names: Vec<String> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    // Case-sensitive: the clients create these exact names; a lowercase `dropbox` is more
    // likely a source folder than a sync root.
    for (i, n) in names.iter().enumerate() {
        let n = n.as_str();
        // macOS File Provider roots: ~/Library/CloudStorage/{Dropbox[-Team],
        // OneDrive-Personal, GoogleDrive-<account>}.
        let in_cloud_storage = i > 0 && names[i - 1] == "CloudStorage";
        if n == "Dropbox"
            || n.starts_with("Dropbox (")
            || (in_cloud_storage && n.starts_with("Dropbox"))
        {
            return Some(SyncDrive::Dropbox);
        }
        if n == "OneDrive"
            || n.starts_with("OneDrive - ")
            || (in_cloud_storage && n.starts_with("OneDrive"))
        {
            return Some(SyncDrive::OneDrive);
        }
        if n == "Mobile Documents" || n == "iCloud Drive" || n == "iCloudDrive" {
            return Some(SyncDrive::ICloudDrive);
        }
        if n == "Google Drive" || (in_cloud_storage && n.starts_with("GoogleDrive")) {
            return Some(SyncDrive::GoogleDrive);
        }
        // Google Drive for desktop on Windows mounts a drive letter holding "My Drive".
        if (n == "My Drive" || n == "Shared drives") && i == 0 {
            return Some(SyncDrive::GoogleDrive);
        }
    }
    for a in path.ancestors() {
        if a.join(".dropbox").exists() || a.join(".dropbox.cache").exists() {
            return Some(SyncDrive::Dropbox);
        }
        if a.join(".tmp.drivedownload").exists() || a.join(".tmp.driveupload").exists() {
            return Some(SyncDrive::GoogleDrive);
        }
    }
    None
}

fn git(dir: &Path) -> Command {
    let mut c = Command::new("git");
    c.arg("-C").arg(dir);
    for var in [
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_CEILING_DIRECTORIES",
    ] {
        c.env_remove(var);
    }
    c
}

fn run(cmd: &mut Command, what: &str) -> Result<(), String> {
    let out = cmd
        .output()
        .map_err(|e| format!("could not run git ({what}): {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{what} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Counts files under `dir` up to `cap` (stops early); skips `.git`.
fn count_files(dir: &Path, cap: usize) -> usize {
    let mut n = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                if e.file_name() != ".git" {
                    stack.push(e.path());
                }
            } else {
                n += 1;
                if n > cap {
                    return n;
                }
            }
        }
    }
    n
}

/// Why a plain folder must not be git-inited, if it must not.
fn refuse_init(path: &Path, sync: Option<SyncDrive>) -> Option<String> {
    if let Some(d) = sync {
        return Some(format!(
            "it is synced by {}; a .git directory inside a sync drive gets corrupted by \
             concurrent syncing, so it was left as is",
            d.label()
        ));
    }
    if path.parent().is_none() {
        return Some("it is the filesystem root".into());
    }
    let home = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE"));
    if let Some(home) = home
        && std::fs::canonicalize(&home).is_ok_and(|h| h == path)
    {
        return Some("it is the home directory".into());
    }
    if count_files(path, INIT_MAX_FILES) > INIT_MAX_FILES {
        return Some(format!(
            "it holds more than {INIT_MAX_FILES} files; run git init yourself if intended"
        ));
    }
    None
}

/// Classifies `path` (canonical, a directory) and git-inits it if it is a plain folder.
fn prepare(path: &Path) -> Workdir {
    let sync_drive = detect_sync_drive(path);
    let mut w = Workdir {
        path: path.to_path_buf(),
        kind: WorkdirKind::Plain,
        sync_drive,
        initialized: false,
        not_initialized_because: None,
    };
    let git_root = find_up(path, ".git");
    let svn_root = find_up(path, ".svn");
    // The nearer of the two wins (a git checkout inside an svn tree is git, and vice versa).
    match (git_root, svn_root) {
        (Some(g), Some(s)) if s.starts_with(&g) && s != g => w.kind = WorkdirKind::Svn { root: s },
        (Some(g), _) => w.kind = WorkdirKind::Git { root: g },
        (None, Some(s)) => w.kind = WorkdirKind::Svn { root: s },
        (None, None) => {
            if let Some(why) = refuse_init(path, sync_drive) {
                w.not_initialized_because = Some(why);
            } else {
                match init_with_baseline(path) {
                    Ok(()) => {
                        w.kind = WorkdirKind::Git {
                            root: path.to_path_buf(),
                        };
                        w.initialized = true;
                    }
                    Err(why) => {
                        // The folder had no repository before: remove the half-made one so
                        // the folder is as it was, and declare it as a plain folder.
                        let _ = std::fs::remove_dir_all(path.join(".git"));
                        w.not_initialized_because = Some(why);
                    }
                }
            }
        }
    }
    w
}

fn init_with_baseline(path: &Path) -> Result<(), String> {
    run(
        git(path).args(["-c", "init.defaultBranch=main", "init", "--quiet"]),
        "git init",
    )?;
    run(git(path).args(["add", "--all"]), "git add (baseline)")?;
    run(
        git(path).args([
            "-c",
            &format!("user.name={BASELINE_AUTHOR_NAME}"),
            "-c",
            &format!("user.email={BASELINE_AUTHOR_EMAIL}"),
            "-c",
            "commit.gpgsign=false",
            "commit",
            "--quiet",
            "--no-verify",
            "--allow-empty",
            "-m",
            "Baseline (declared workdir)",
        ]),
        "git commit (baseline)",
    )
}

/// The root AGENTS.md of a workdir: (path, text, cut).
fn read_agents_md(w: &Workdir) -> Option<(PathBuf, String, bool)> {
    let p = w.root().join("AGENTS.md");
    let bytes = std::fs::read(&p).ok()?;
    let cut = bytes.len() > AGENTS_MD_MAX_BYTES;
    let slice = &bytes[..bytes.len().min(AGENTS_MD_MAX_BYTES)];
    Some((p, String::from_utf8_lossy(slice).into_owned(), cut))
}
