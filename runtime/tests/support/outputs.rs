//! Output conformance for the runtime's own file tests: every successful result the contract
//! produces, locally and over the test sshd (where an unprivileged login meets the permission
//! failures that stage content), is validated against the tool's declared output schema as
//! `tool-defs/surface.lock` records it (its `output <tool> <schema>` lines, the format
//! `compiler/src/lock/outputs.rs` writes). The runtime knows no YAML, so it reads the locked
//! record, not the definitions; `toolsurface check` keeps the two equal.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use toolsurface_runtime::call::ToolOutput;

/// The locked output schema of each plain tool (its `output` line).
fn locked_schemas() -> &'static BTreeMap<String, serde_json::Value> {
    static SCHEMAS: OnceLock<BTreeMap<String, serde_json::Value>> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        let lock = concat!(env!("CARGO_MANIFEST_DIR"), "/../tool-defs/surface.lock");
        let text = std::fs::read_to_string(lock).unwrap();
        text.lines()
            .filter_map(|l| l.strip_prefix("output "))
            .filter_map(|rest| rest.split_once(' '))
            .filter(|(_, json)| *json != "-")
            .map(|(tool, json)| (tool.to_owned(), serde_json::from_str(json).unwrap()))
            .collect()
    })
}

/// `out`, a successful result of `tool`, carries structured content its locked output schema
/// accepts; panics naming every violation otherwise.
pub fn assert_conforms(tool: &str, out: &ToolOutput) {
    let schema = locked_schemas()
        .get(tool)
        .unwrap_or_else(|| panic!("{tool}: no output recorded in tool-defs/surface.lock"));
    let structured = out
        .structured
        .as_ref()
        .unwrap_or_else(|| panic!("{tool} declares an output but returned none: {}", out.text));
    let validator = jsonschema::validator_for(schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(structured)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{tool}: structured result does not conform to its declared output:\n{}\nresult: {structured}",
        errors.join("\n")
    );
    COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

/// Results validated so far in this test process (a suite can prove it validated some).
pub static COUNT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
