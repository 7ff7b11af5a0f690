//! An input's `$defs` as the tool file's `shapes:`. The entries a parameters schema's
//! properties reach by `$ref`s of the form `#/$defs/<name>` — a JSON Pointer in a URI
//! fragment, percent-decoded and `~1`/`~0` unescaped to find the entry — with no cycle among
//! them and nothing beside a `$ref` but its `description`, are imported as shapes: each a
//! shape of the same name, each `$ref` a `{ shape: name }` use, so `Call::parse` checks them
//! and `emit` writes the same `$defs` and `$ref`s back. An entry nothing reaches is kept
//! verbatim (`parameters: json_schema: { $defs: … }`, published beside the shapes). Anything
//! else (a pointer into an entry, `definitions`, a recursive entry, keywords beside a `$ref`)
//! keeps the whole `$defs` verbatim as before, with a note saying why.

use serde_json::{Map, Value};

use crate::emit::def_ref;
use crate::load::shapes::MAX_INLINED_NODES;

/// What a root's `$defs` import as: the entries its properties use (directly or through one
/// another), as shapes in declaration order, and the others, kept verbatim.
#[derive(Debug)]
pub(super) struct Defs {
    pub(super) shapes: Vec<(String, Value)>,
    pub(super) unused: Map<String, Value>,
}

/// The `$defs` of a root as shapes (and the entries nothing uses, kept as written), or why
/// the used ones do not import.
pub(super) fn shapes_of(root: &Map<String, Value>) -> Result<Defs, String> {
    let none = || Defs {
        shapes: Vec::new(),
        unused: Map::new(),
    };
    let Some(defs) = root.get("$defs") else {
        return Ok(none());
    };
    let Value::Object(defs) = defs else {
        return Err("`$defs` is no object".into());
    };
    let mut rest = root.clone();
    rest.remove("$defs");
    let from_root = references(&Value::Object(rest), defs)?;
    // The entries the root reaches, each with its references (only theirs must import).
    let mut uses: Vec<Option<Vec<usize>>> = vec![None; defs.len()];
    let mut stack = from_root.clone();
    while let Some(i) = stack.pop() {
        if uses[i].is_some() {
            continue;
        }
        let (name, def) = defs.iter().nth(i).ok_or("a `$defs` entry vanished")?;
        if !crate::load::read::is_shape_name(name) {
            return Err(format!(
                "the `$defs` entry {name:?} has no shape name (1 to 128 characters without control characters)"
            ));
        }
        let r = references(def, defs)?;
        stack.extend(&r);
        uses[i] = Some(r);
    }
    let graph: Vec<Vec<usize>> = uses.iter().map(|u| u.clone().unwrap_or_default()).collect();
    if let Some(path) = cycle(&graph) {
        let names: Vec<&str> = path
            .iter()
            .filter_map(|&i| defs.keys().nth(i).map(String::as_str))
            .collect();
        return Err(format!(
            "its entries refer to themselves ({}): a shape is finite",
            names.join(" → ")
        ));
    }
    let inlined = inlined_nodes(&from_root, &graph, defs);
    if inlined > MAX_INLINED_NODES {
        return Err(format!(
            "inlined, its uses hold {inlined} schema nodes (a shape holds at most {MAX_INLINED_NODES})"
        ));
    }
    let mut out = none();
    for ((name, def), used) in defs.iter().zip(&uses) {
        if used.is_some() {
            out.shapes.push((name.clone(), def.clone()));
        } else {
            out.unused.insert(name.clone(), def.clone());
        }
    }
    Ok(out)
}

/// The name a `$ref` names, when it is `#/$defs/<name>` exactly as [`def_ref`] writes it.
pub(super) fn referenced_name(reference: &str) -> Option<String> {
    let escaped = reference.strip_prefix("#/$defs/")?;
    let decoded = percent_decode(escaped)?;
    if decoded.contains('/') {
        return None;
    }
    let name = decoded.replace("~1", "/").replace("~0", "~");
    (def_ref(&name) == reference).then_some(name)
}

/// `%XX` decoded (as UTF-8), or `None` for a malformed escape.
fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The indices of the entries `v` refers to, one per `$ref` beneath it, each resolved (or why
/// one does not import: a pointer elsewhere, or keywords beside it other than a description).
fn references(v: &Value, defs: &Map<String, Value>) -> Result<Vec<usize>, String> {
    let mut out = Vec::new();
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                if let Some(r) = o.get("$ref") {
                    let target = r
                        .as_str()
                        .and_then(referenced_name)
                        .and_then(|name| defs.keys().position(|k| *k == name));
                    let Some(ix) = target else {
                        return Err(format!(
                            "its `$ref` {r} names no `$defs` entry as `#/$defs/<name>`"
                        ));
                    };
                    if let Some(k) = o.keys().find(|k| *k != "$ref" && *k != "description") {
                        return Err(format!(
                            "`{k}` stands beside a `$ref` (a shape's use holds only a description)"
                        ));
                    }
                    // Every use counted (the inlined size counts each).
                    out.push(ix);
                    continue;
                }
                stack.extend(o.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    Ok(out)
}

/// A cycle among the entries (their indices, the first repeated at the end), if any.
fn cycle(uses: &[Vec<usize>]) -> Option<Vec<usize>> {
    // 0: unvisited, 1: on the path, 2: done.
    fn visit(
        i: usize,
        uses: &[Vec<usize>],
        state: &mut [u8],
        path: &mut Vec<usize>,
    ) -> Option<Vec<usize>> {
        state[i] = 1;
        path.push(i);
        for &j in &uses[i] {
            match state[j] {
                1 => {
                    let from = path.iter().position(|&p| p == j).unwrap_or(0);
                    let mut c = path[from..].to_vec();
                    c.push(j);
                    return Some(c);
                }
                0 => {
                    if let Some(c) = visit(j, uses, state, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state[i] = 2;
        None
    }
    let mut state = vec![0u8; uses.len()];
    for i in 0..uses.len() {
        if state[i] == 0
            && let Some(c) = visit(i, uses, &mut state, &mut Vec::new())
        {
            return Some(c);
        }
    }
    None
}

/// A bound on the schema nodes of the root's uses with every entry inlined (each entry's own
/// nodes plus its uses', counted once per use: what the guard of the language counts).
fn inlined_nodes(from_root: &[usize], uses: &[Vec<usize>], defs: &Map<String, Value>) -> usize {
    fn nodes(v: &Value) -> usize {
        match v {
            Value::Object(o) => 1 + o.values().map(nodes).sum::<usize>(),
            Value::Array(items) => items.iter().map(nodes).sum(),
            _ => 0,
        }
    }
    // No cycle (checked first): an entry's size is its own plus its uses' (memoized).
    fn size(i: usize, uses: &[Vec<usize>], own: &[usize], memo: &mut [Option<usize>]) -> usize {
        if let Some(n) = memo[i] {
            return n;
        }
        let n = uses[i].iter().fold(own[i], |acc, &j| {
            acc.saturating_add(size(j, uses, own, memo))
        });
        memo[i] = Some(n);
        n
    }
    let own: Vec<usize> = defs.values().map(nodes).collect();
    let mut memo = vec![None; uses.len()];
    from_root.iter().fold(0usize, |acc, &i| {
        acc.saturating_add(size(i, uses, &own, &mut memo))
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::json;

    fn root(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn a_reference_is_decoded_and_must_be_written_as_emit_writes_it() {
        assert_eq!(
            referenced_name("#/$defs/Page%20Ref").as_deref(),
            Some("Page Ref")
        );
        assert_eq!(referenced_name("#/$defs/a~1b").as_deref(), Some("a/b"));
        assert_eq!(referenced_name("#/$defs/Page Ref"), None);
        assert_eq!(referenced_name("#/$defs/Message/properties/id"), None);
        assert_eq!(referenced_name("#/definitions/X"), None);
    }

    #[test]
    fn entries_import_as_shapes_only_when_every_one_is_used_finite_and_plainly_referred_to() {
        let chain: Map<String, Value> = (0..10)
            .map(|i| {
                let next = if i < 9 {
                    json!({"type": "object", "properties": {"n": {"$ref": format!("#/$defs/l{}", i + 1)}}})
                } else {
                    json!({"type": "string"})
                };
                (format!("l{i}"), next)
            })
            .collect();
        let ok = root(json!({"properties": {"a": {"$ref": "#/$defs/l0"}}, "$defs": chain}));
        assert_eq!(
            shapes_of(&ok).unwrap().shapes.len(),
            10,
            "a chain of 10 is no cycle"
        );
        let cyclic = root(
            json!({"properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {
            "a": {"type": "object", "properties": {"b": {"$ref": "#/$defs/b"}}},
            "b": {"type": "array", "items": {"$ref": "#/$defs/a"}}}}),
        );
        assert!(shapes_of(&cyclic).unwrap_err().contains("a → b → a"));
        // An entry nothing reaches is kept as written (its own references unread).
        let unused = root(
            json!({"properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {
            "a": {"type": "string"},
            "b": {"type": "object", "properties": {"x": {"$ref": "#/nowhere"}}}}}),
        );
        let defs = shapes_of(&unused).unwrap();
        assert_eq!(defs.shapes.len(), 1);
        assert_eq!(defs.unused.keys().collect::<Vec<_>>(), ["b"]);
        let beside = root(
            json!({"properties": {"a": {"$ref": "#/$defs/a", "title": "A"}},
            "$defs": {"a": {"type": "string"}}}),
        );
        assert!(
            shapes_of(&beside)
                .unwrap_err()
                .contains("`title` stands beside a `$ref`")
        );
        let deep = root(
            json!({"properties": {"a": {"$ref": "#/$defs/a/properties/x"}},
            "$defs": {"a": {"type": "object", "properties": {"x": {"type": "string"}}}}}),
        );
        assert!(
            shapes_of(&deep)
                .unwrap_err()
                .contains("names no `$defs` entry")
        );
        let spaced = root(json!({"properties": {"p": {"$ref": "#/$defs/Page%20Ref"}},
            "$defs": {"Page Ref": {"type": "string"}}}));
        assert_eq!(shapes_of(&spaced).unwrap().shapes[0].0, "Page Ref");
    }

    #[test]
    fn a_doubling_past_the_guard_is_refused() {
        // Each level uses the next twice: 2^20 leaves inlined.
        let mut defs = Map::new();
        for i in 0..20 {
            let next = format!("#/$defs/d{}", i + 1);
            defs.insert(
                format!("d{i}"),
                json!({"type": "object", "properties": {"x": {"$ref": next}, "y": {"$ref": next}}}),
            );
        }
        defs.insert("d20".into(), json!({"type": "string"}));
        let r = root(json!({"properties": {"a": {"$ref": "#/$defs/d0"}}, "$defs": defs}));
        assert!(shapes_of(&r).unwrap_err().contains("schema nodes"));
    }
}
