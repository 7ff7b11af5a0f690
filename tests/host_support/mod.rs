//! Shared set-up for the `host_*` integration tests: a [`StandardHost`] over temp folders,
//! model calls as JSON text, and waiting for a condition without timing assertions.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tempfile::TempDir;
use toolsurface::host::HostConfig;
use toolsurface::host::ModelToolCall;
use toolsurface::host::StandardHost;
use toolsurface::runtime::ToolResult;
use toolsurface::runtime::Turn;
use toolsurface::standard::Family;
use toolsurface::standard::Role;

pub struct Fixture {
    pub dir: TempDir,
    pub host: Arc<StandardHost>,
}

impl Fixture {
    /// A host `alpha` rooted at `<tmp>/alpha`, state under `<tmp>/state`.
    pub fn new(role: Role, family: Family) -> Fixture {
        Fixture::with(role, family, |c| c)
    }

    /// Like [`Fixture::new`], with the config adjusted by `adjust` (roots under the temp dir
    /// are created for every configured host).
    pub fn with(
        role: Role,
        family: Family,
        adjust: impl FnOnce(HostConfig) -> HostConfig,
    ) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let alpha = dir.path().join("alpha");
        std::fs::create_dir_all(&alpha).unwrap();
        let config = HostConfig::single_host("alpha", &alpha, role, family)
            .with_state_dir(dir.path().join("state"));
        let config = adjust(config);
        for host in config.runtime.hosts.values() {
            std::fs::create_dir_all(&host.root).unwrap();
        }
        let host = Arc::new(StandardHost::new(config).unwrap());
        Fixture { dir, host }
    }

    pub fn root(&self) -> PathBuf {
        self.dir.path().join("alpha")
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    /// Run one batch; a turn fault fails the test.
    pub async fn run(&self, turn: &Turn, calls: &[(&str, &str, &str)]) -> Vec<ToolResult> {
        run(&self.host, turn, calls).await
    }

    /// Run a single call in a normal turn.
    pub async fn one(&self, name: &str, arguments: &str) -> ToolResult {
        let mut results = self.run(&Turn::normal(), &[("c1", name, arguments)]).await;
        assert_eq!(results.len(), 1);
        results.remove(0)
    }
}

pub fn calls(calls: &[(&str, &str, &str)]) -> Vec<ModelToolCall> {
    calls
        .iter()
        .map(|(id, name, args)| ModelToolCall::new(*id, *name, *args))
        .collect()
}

pub async fn run(
    host: &StandardHost,
    turn: &Turn,
    batch: &[(&str, &str, &str)],
) -> Vec<ToolResult> {
    let results = host
        .handle_batch(calls(batch), turn)
        .await
        .unwrap_or_else(|fault| panic!("the turn ended: {fault}"));
    assert_eq!(results.len(), batch.len(), "one result per call");
    for (result, (id, _, _)) in results.iter().zip(batch) {
        assert_eq!(result.call_id, *id, "results in call order");
    }
    assert_conforms(host, batch, &results);
    results
}

/// The structured part of a result.
pub fn structured(result: &ToolResult) -> &serde_json::Value {
    result
        .structured
        .as_ref()
        .unwrap_or_else(|| panic!("no structured result: {}", result.text))
}

/// A successful result, or the test fails showing its text.
pub fn ok(result: &ToolResult) -> &ToolResult {
    assert!(!result.is_error, "expected success, got: {}", result.text);
    result
}

/// Wait (polling every 20 ms) until `condition` holds; fail after a minute. Not a timing
/// assertion: the bound only turns a hang into a failure.
pub async fn eventually(what: &str, mut condition: impl FnMut() -> bool) {
    for _ in 0..3000 {
        if condition() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("gave up waiting for {what}");
}

/// Write a file, creating its folder.
pub fn write(path: &Path, content: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, content).unwrap();
}

/// The standard definitions' IR (tool-defs/), compiled once, for the conformance check.
pub fn standard_ir() -> &'static toolsurface_compiler::Ir {
    static IR: std::sync::OnceLock<toolsurface_compiler::Ir> = std::sync::OnceLock::new();
    IR.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tool-defs");
        let sources = toolsurface_compiler::read_dir(&root).unwrap();
        toolsurface_compiler::compile(&sources).ir.unwrap()
    })
}

/// Output-schema conformance: every successful result with structured content must come from
/// a tool action that declares `output:`, and the declared schema must accept it; a declared
/// output with no structured result fails too. Every result the host tests produce through
/// [`run`] passes here, so a tool returning something its schema does not allow (or a
/// structured result nobody declared) fails the test that called it. Returns how many
/// results were validated.
pub fn assert_conforms(
    host: &StandardHost,
    batch: &[(&str, &str, &str)],
    results: &[ToolResult],
) -> usize {
    conforming(host, batch, results).len()
}

/// [`assert_conforms`], naming each validated result's tool action (`display_name` form:
/// `"shell_session wait"`, or the tool name).
pub fn conforming(
    host: &StandardHost,
    batch: &[(&str, &str, &str)],
    results: &[ToolResult],
) -> Vec<String> {
    conforming_to(standard_ir(), host, batch, results)
}

/// [`conforming`] against the declarations of `ir` (a test may hand it altered ones).
pub fn conforming_to(
    ir: &toolsurface_compiler::Ir,
    host: &StandardHost,
    batch: &[(&str, &str, &str)],
    results: &[ToolResult],
) -> Vec<String> {
    let skills: Vec<&str> = host.active_skills().iter().map(|s| s.as_str()).collect();
    let plan = toolsurface_compiler::plan::lower(ir).unwrap();
    let checker = toolsurface_compiler::plan::interp::CallChecker::new(
        &plan,
        host.role().as_str(),
        host.family().as_str(),
    )
    .and_then(|c| c.with_skills(&skills))
    .unwrap();
    let mut validated = Vec::new();
    for (result, (_, name, arguments)) in results.iter().zip(batch) {
        // An error result is checked when it carries structured output (a staged write:
        // an error that still reports its declared shape).
        if result.is_error && result.structured.is_none() {
            continue;
        }
        let Ok(checked) = checker.check(name, *arguments) else {
            continue;
        };
        let tool = ir.tool(checked.tool).unwrap();
        let shown = match checked.action {
            Some(a) => format!("{} {a}", tool.name),
            None => tool.name.clone(),
        };
        let Some(schema) = toolsurface_compiler::emit::action_output_schema(tool, checked.action)
        else {
            assert!(
                result.structured.is_none(),
                "{shown} returned a structured result but declares no `output:`: {:?}",
                result.structured
            );
            continue;
        };
        let schema: serde_json::Value = serde_json::from_str(&schema).unwrap();
        let structured = result.structured.as_ref().unwrap_or_else(|| {
            panic!(
                "{shown} declares an output but returned no structured result: {}",
                result.text
            )
        });
        let validator = jsonschema::validator_for(&schema).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(structured)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{name} {arguments}: structured result does not conform to its declared output:\n{}\nresult: {structured}",
            errors.join("\n")
        );
        validated.push(shown);
    }
    validated
}
