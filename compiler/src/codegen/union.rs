//! A tool's strict per-action union as JSON Schema (draft 2020-12): one closed object per
//! action in a `oneOf`. Never published (providers get the flat object); it is what the
//! generated `parse` must agree with, so the benchmark and the differential tests validate
//! against it with the `jsonschema` crate.

use serde_json::{Map, Value, json};

use crate::ir::{Action, Tool, Type};

/// The union for `tool` (a single closed object for a plain tool).
pub fn strict_union(tool: &Tool) -> Value {
    let selector = tool.selector.as_ref().map(|s| s.name.as_str());
    let branches: Vec<Value> = tool
        .actions
        .iter()
        .map(|a| action_schema(tool, a, selector))
        .collect();
    match (selector, branches.as_slice()) {
        (None, [one]) => one.clone(),
        _ => json!({ "oneOf": branches }),
    }
}

fn action_schema(tool: &Tool, action: &Action, selector: Option<&str>) -> Value {
    let mut props = Map::new();
    let mut required = Vec::new();
    if let (Some(sel), Some(name)) = (selector, &action.name) {
        props.insert(sel.to_owned(), json!({ "enum": [name] }));
        required.push(Value::from(sel));
    }
    for f in &tool.fields {
        if action.uses(&f.name) {
            props.insert(f.name.clone(), type_schema(&f.ty));
        }
    }
    required.extend(action.required.iter().map(|r| Value::from(r.as_str())));
    let mut obj = Map::new();
    obj.insert("type".into(), "object".into());
    obj.insert("properties".into(), Value::Object(props));
    obj.insert("required".into(), Value::Array(required));
    let other = match &tool.parameters.additional {
        None => false.into(),
        Some(Type::Any) => true.into(),
        Some(t) => type_schema(t),
    };
    obj.insert("additionalProperties".into(), other);
    let mut all = Vec::new();
    for group in &action.exactly_one_of {
        let one: Vec<Value> = group.iter().map(|f| json!({ "required": [f] })).collect();
        all.push(json!({ "oneOf": one }));
    }
    for fw in &action.forbidden_with {
        all.push(json!({ "not": { "required": [fw.field, fw.with] } }));
    }
    if !all.is_empty() {
        obj.insert("allOf".into(), Value::Array(all));
    }
    Value::Object(obj)
}

/// The published schemas' own type schema (bounds, enums, closed nested objects), without
/// descriptions; a non-finite bound (refused by `emit` before this is reached) becomes `{}`.
fn type_schema(ty: &Type) -> Value {
    crate::emit::bare_type_schema(ty, "")
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_else(|| json!({}))
}
