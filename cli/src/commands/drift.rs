//! Surface drift, shared by `check`, `lock`, `diff` and `stats`: loading a surface from a
//! definitions folder, a lock file or `git:<rev>[:<path>]`, building the lock of compiled
//! definitions, enforcing role token budgets, and reading / atomically writing
//! `surface.lock`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};
use toolsurface_compiler::diag::render_all;
use toolsurface_compiler::diff::{self, Diff, Locator, Verdict};
use toolsurface_compiler::emit;
use toolsurface_compiler::ir::Ir;
use toolsurface_compiler::lock::Lock;
use toolsurface_compiler::{SourceFile, Sources, compile};

use super::Status;

/// The lock file's name inside a definitions folder.
pub const LOCK_FILE: &str = "surface.lock";

/// One side of a diff.
pub struct Loaded {
    pub name: String,
    pub lock: Lock,
    /// Where things are written, when the side is definitions.
    pub locator: Option<Locator>,
}

/// The lock of compiled definitions (token counts reused from `prior` where the bytes match).
pub fn lock_of(ir: &Ir, prior: Option<&Lock>) -> anyhow::Result<Lock> {
    let emitted = emit::surfaces(ir).context("emitting the published surfaces")?;
    Ok(Lock::build(ir, &emitted, prior))
}

/// `DIR/surface.lock`, if present. A lock that cannot be read is an error.
pub fn read_lock(path: &Path) -> anyhow::Result<Option<Lock>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    Lock::parse(&text)
        .map(Some)
        .with_context(|| format!("{} is not a valid lock", path.display()))
}

/// Write `text` to `path` atomically: a temporary file in the same folder, then rename.
pub fn write_atomic(path: &Path, text: &str) -> anyhow::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| LOCK_FILE.to_owned());
    let tmp = dir.join(format!(".{name}.tmp.{}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.with_context(|| format!("writing {}", path.display()))
}

/// Roles whose largest family array costs more tokens than their `token_budget`.
pub fn over_budget(ir: &Ir, lock: &Lock) -> Vec<String> {
    let mut out = Vec::new();
    for role in &ir.roles {
        let Some(budget) = role.token_budget else {
            continue;
        };
        let largest = lock
            .surfaces
            .iter()
            .filter(|s| s.role == role.name)
            .max_by_key(|s| s.tokens);
        if let Some(s) = largest
            && s.tokens as u64 > budget
        {
            out.push(format!(
                "role {}: the {} array costs {} tokens ({}), over its token_budget of {} by {}",
                role.name,
                s.family,
                s.tokens,
                lock.encoding,
                budget,
                s.tokens as u64 - budget
            ));
        }
    }
    out
}

/// Exit status of a diff: 0 none, 3 compatible, 4 breaking or unknown.
pub fn status_of(d: &Diff) -> Status {
    match d.worst() {
        None => Status::Clean,
        Some(Verdict::Compatible) => Status::CompatibleDrift,
        Some(_) => Status::BreakingDrift,
    }
}

/// `check`'s lock step, after the definitions compiled: budgets, then the lock comparison.
/// Prints its report; never writes.
pub fn check_lock(dir: &Path, sources: &Sources, ir: &Ir) -> anyhow::Result<Status> {
    let lock_path = dir.join(LOCK_FILE);
    let prior = match read_lock(&lock_path) {
        Ok(p) => p,
        Err(e) => {
            eprintln!(
                "error: {e:#}\n  = hint: regenerate it with `toolsurface lock {}`",
                dir.display()
            );
            return Ok(Status::Invalid);
        }
    };
    let current = lock_of(ir, prior.as_ref())?;
    let budget = over_budget(ir, &current);
    if !budget.is_empty() {
        for b in &budget {
            eprintln!("error[token-budget]: {b}");
        }
        return Ok(Status::Invalid);
    }
    let mut out = std::io::stdout().lock();
    let Some(prior) = prior else {
        writeln!(
            out,
            "drift: no {} in {}: the surface is not locked; run `toolsurface lock {}`",
            LOCK_FILE,
            dir.display(),
            dir.display()
        )?;
        return Ok(Status::CompatibleDrift);
    };
    let locator = Locator::new(ir, sources);
    let d = diff::diff(
        &prior,
        &current,
        Some(&locator),
        &diff::Options::default(),
        &lock_path.display().to_string(),
        &dir.display().to_string(),
    );
    let status = status_of(&d);
    if status == Status::Clean {
        if !prior.same_surface(&current) {
            writeln!(
                out,
                "drift: {} does not match the definitions; run `toolsurface lock {}`",
                lock_path.display(),
                dir.display()
            )?;
            return Ok(Status::CompatibleDrift);
        }
        writeln!(out, "lock: {} matches", lock_path.display())?;
        return Ok(Status::Clean);
    }
    let color = std::io::IsTerminal::is_terminal(&std::io::stdout())
        && std::env::var_os("NO_COLOR").is_none();
    writeln!(out)?;
    out.write_all(diff::render::text(&d, color).as_bytes())?;
    writeln!(
        out,
        "\ndrift: the definitions no longer match {} ({}); review with `toolsurface diff`, accept with `toolsurface lock {}{}`",
        lock_path.display(),
        if status == Status::BreakingDrift {
            "breaking"
        } else {
            "compatible"
        },
        dir.display(),
        if status == Status::BreakingDrift {
            " --accept-breaking --reason TEXT"
        } else {
            ""
        }
    )?;
    Ok(status)
}

/// Compile definitions already read, printing diagnostics. `Err(Status::Invalid)` on errors.
fn compile_sources(sources: &Sources) -> anyhow::Result<Result<Ir, Status>> {
    let compiled = compile(sources);
    if !compiled.diagnostics.is_empty() {
        eprint!("{}", render_all(&compiled.diagnostics, sources));
    }
    if compiled.has_errors() {
        return Ok(Err(Status::Invalid));
    }
    match compiled.ir {
        Some(ir) => Ok(Ok(ir)),
        None => bail!("{}: the compiler produced no IR and no error", sources.root),
    }
}

/// A definitions folder, a lock file, or `git:<rev>[:<path>]` (`path` defaults to
/// `default_dir`: a folder of definitions or a lock file at that revision).
pub fn load(spec: &str, default_dir: &Path) -> anyhow::Result<Result<Loaded, Status>> {
    if let Some(rest) = spec.strip_prefix("git:") {
        let (rev, path) = match rest.split_once(':') {
            Some((rev, path)) => (rev, PathBuf::from(path)),
            None => (rest, default_dir.to_path_buf()),
        };
        if rev.is_empty() {
            bail!("`{spec}`: expected git:<rev> or git:<rev>:<path>");
        }
        return load_git(spec, rev, &path);
    }
    let path = Path::new(spec);
    if path.is_dir() {
        let (sources, ir) = match super::check::compile_dir(path)? {
            Ok(x) => x,
            Err(status) => return Ok(Err(status)),
        };
        let prior = read_lock(&path.join(LOCK_FILE)).ok().flatten();
        let lock = lock_of(&ir, prior.as_ref())?;
        return Ok(Ok(Loaded {
            name: spec.to_owned(),
            lock,
            locator: Some(Locator::new(&ir, &sources)),
        }));
    }
    match read_lock(path)? {
        Some(lock) => Ok(Ok(Loaded {
            name: spec.to_owned(),
            lock,
            locator: None,
        })),
        None => bail!(
            "{spec}: no such definitions folder or lock file (a missing lock is created with `toolsurface lock`)"
        ),
    }
}

fn git(args: &[&str]) -> anyhow::Result<Vec<u8>> {
    let out = Command::new("git")
        .args(args)
        .output()
        .context("running git")?;
    if !out.status.success() {
        bail!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(out.stdout)
}

fn load_git(spec: &str, rev: &str, path: &Path) -> anyhow::Result<Result<Loaded, Status>> {
    let rel = path.to_string_lossy();
    let rel = rel.trim_end_matches('/');
    let object = format!("{rev}:./{rel}");
    let kind = git(&["cat-file", "-t", &object])?;
    match String::from_utf8_lossy(&kind).trim() {
        "blob" => {
            let text = String::from_utf8(git(&["show", &object])?)
                .with_context(|| format!("{spec}: not UTF-8"))?;
            let lock = Lock::parse(&text).with_context(|| format!("{spec} is not a valid lock"))?;
            Ok(Ok(Loaded {
                name: spec.to_owned(),
                lock,
                locator: None,
            }))
        }
        "tree" => {
            let list = git(&["ls-tree", "-r", "-z", "--name-only", &object])?;
            let mut files = Vec::new();
            let is_yaml = |n: &str| n.ends_with(".yaml") || n.ends_with(".yml");
            for name in list.split(|b| *b == 0).filter(|n| !n.is_empty()) {
                let name = String::from_utf8_lossy(name).into_owned();
                let keep = match name.split_once('/') {
                    None => is_yaml(&name),
                    Some((dir, file)) => {
                        !file.contains('/')
                            && !file.starts_with('.')
                            && match dir {
                                "tools" | "skills" => is_yaml(file),
                                "grammars" => true,
                                _ => false,
                            }
                    }
                };
                if !keep {
                    continue;
                }
                let bytes = git(&["show", &format!("{object}/{name}")])?;
                // Not UTF-8 is an invalid definition (compile reports it), as on disk.
                files.push(SourceFile::from_bytes(name, bytes));
            }
            files.sort_by(|a, b| a.path.cmp(&b.path));
            let sources = Sources {
                root: rel.to_owned(),
                files,
            };
            let ir = match compile_sources(&sources)? {
                Ok(ir) => ir,
                Err(status) => return Ok(Err(status)),
            };
            let lock = lock_of(&ir, None)?;
            Ok(Ok(Loaded {
                name: spec.to_owned(),
                lock,
                locator: Some(Locator::new(&ir, &sources)),
            }))
        }
        other => bail!("{spec}: {object} is a git {other}, not a folder or a lock file"),
    }
}

/// Today's date, UTC, `YYYY-MM-DD` (for accepted records).
pub fn today() -> String {
    let mut now = toolsurface_runtime::messages::time::now_rfc3339();
    now.truncate("YYYY-MM-DD".len());
    now
}
