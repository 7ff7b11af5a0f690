//! Host-language generators: a [`crate::plan::Plan`] in, files out (no I/O here; the CLI's
//! `toolsurface gen` writes them). Each reads the plan alone and never the IR, so a rule
//! exists once as data and once per language as a small hand-written kernel and walk, which
//! the generator writes out verbatim beside the plan's data.

pub mod python;
pub mod typescript;

/// One generated file: its path relative to the output folder and its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct File {
    pub path: String,
    pub contents: String,
}

/// Published tool JSON, each distinct text once: the generated data refers to a tool's JSON by
/// its index here, so a tool shared by many surfaces is stored once.
#[derive(Default)]
pub(crate) struct Interned {
    pub(crate) list: Vec<String>,
    index: std::collections::HashMap<String, usize>,
}

impl Interned {
    /// The index of `text`, added when new.
    pub(crate) fn id(&mut self, text: &str) -> usize {
        if let Some(i) = self.index.get(text) {
            return *i;
        }
        let i = self.list.len();
        self.list.push(text.to_owned());
        self.index.insert(text.to_owned(), i);
        i
    }
}

/// The plan's types as a host kernel walks them: each use of a shape (`kind: shape`) replaced
/// by its definition, which is what the walk reads of it (the generated host types name no
/// shape either), so the hand-written kernels need no kind of their own for it.
pub(crate) fn inline_shapes(v: &mut serde_json::Value) {
    use serde_json::Value;
    match v {
        Value::Object(m) => {
            if m.get("kind").and_then(Value::as_str) == Some("shape")
                && let Some(mut def) = m.remove("ty")
            {
                inline_shapes(&mut def);
                *v = def;
                return;
            }
            for x in m.values_mut() {
                inline_shapes(x);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(inline_shapes),
        _ => {}
    }
}
