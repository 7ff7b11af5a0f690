//! What the compiler's integration tests share: a definitions folder built in memory, and the
//! traits block every `surface.yaml` needs (the runtime reads these, `ir::RUNTIME_TRAITS`).

use serde_json::{Map, Value};
use toolsurface_compiler::diag::{Diagnostic, render_all};
use toolsurface_compiler::ir::Ir;
use toolsurface_compiler::{SourceFile, Sources};

/// The traits every surface declares (the ones the runtime reads), as `surface.yaml` lines
/// under `traits:`.
pub const RUNTIME_TRAITS: &str = r#"  parallel_safe: { type: bool, default: false, doc: "may overlap" }
  follow_up: { type: bool, default: false, doc: "targets a session" }
  poll: { type: bool, default: false, doc: "reads a session" }
  read_only: { type: bool, default: false, doc: "allowed in rehearsal turns" }
  result_on_interrupt: { type: bool, default: false, doc: "keeps its result" }
"#;

/// A folder of `(path, text)` files (each text's leading blank lines dropped).
pub fn folder(files: &[(&str, &str)]) -> Sources {
    Sources {
        root: "defs".into(),
        files: files
            .iter()
            .map(|(path, text)| SourceFile::new((*path).to_owned(), text.trim_start().to_owned()))
            .collect(),
    }
}

/// The folder compiled: its diagnostics, its IR when valid, the sources (to render them).
pub fn compile(files: &[(&str, &str)]) -> (Vec<Diagnostic>, Option<Ir>, Sources) {
    let sources = folder(files);
    let compiled = toolsurface_compiler::compile(&sources);
    (compiled.diagnostics, compiled.ir, sources)
}

/// The folder's IR; any diagnostic fails the test, rendered.
pub fn ir(files: &[(&str, &str)]) -> Ir {
    let (diags, ir, sources) = compile(files);
    assert!(
        diags.is_empty(),
        "unexpected diagnostics:\n{}",
        render_all(&diags, &sources)
    );
    ir.expect("a valid folder")
}

/// The schema with every `$ref` replaced by its `$defs` entry (a description beside the
/// `$ref` replacing the entry's) and `$defs` dropped: what a JSON Schema validator reads.
pub fn resolve(v: &Value, defs: &Map<String, Value>) -> Value {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref") {
                let name = r.strip_prefix("#/$defs/").unwrap();
                let mut def = resolve(&defs[name], defs);
                if let Some(d) = m.get("description") {
                    def["description"] = d.clone();
                }
                return def;
            }
            Value::Object(
                m.iter()
                    .filter(|(k, _)| *k != "$defs")
                    .map(|(k, v)| (k.clone(), resolve(v, defs)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(|i| resolve(i, defs)).collect()),
        other => other.clone(),
    }
}
