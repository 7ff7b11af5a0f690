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
    obj.insert("additionalProperties".into(), false.into());
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

fn type_schema(ty: &Type) -> Value {
    let mut m = Map::new();
    let mut put = |k: &str, v: Value| {
        m.insert(k.to_owned(), v);
    };
    match ty {
        Type::String {
            min_length,
            max_length,
            pattern,
        } => {
            put("type", "string".into());
            if let Some(n) = min_length {
                put("minLength", (*n).into());
            }
            if let Some(n) = max_length {
                put("maxLength", (*n).into());
            }
            if let Some(p) = pattern {
                put("pattern", p.as_str().into());
            }
        }
        Type::Integer { minimum, maximum } => {
            put("type", "integer".into());
            if let Some(n) = minimum {
                put("minimum", (*n).into());
            }
            if let Some(n) = maximum {
                put("maximum", (*n).into());
            }
        }
        Type::Number { minimum, maximum } => {
            put("type", "number".into());
            if let Some(n) = minimum {
                put("minimum", json!(n));
            }
            if let Some(n) = maximum {
                put("maximum", json!(n));
            }
        }
        Type::Boolean => put("type", "boolean".into()),
        Type::Enum { values } => {
            put("type", "string".into());
            put("enum", json!(values));
        }
        Type::Array {
            items,
            min_items,
            max_items,
        } => {
            put("type", "array".into());
            put("items", type_schema(items));
            if let Some(n) = min_items {
                put("minItems", (*n).into());
            }
            if let Some(n) = max_items {
                put("maxItems", (*n).into());
            }
        }
        Type::Object { properties } => {
            put("type", "object".into());
            let props: Map<String, Value> = properties
                .iter()
                .map(|p| (p.name.clone(), type_schema(&p.ty)))
                .collect();
            let req: Vec<&str> = properties
                .iter()
                .filter(|p| p.required)
                .map(|p| p.name.as_str())
                .collect();
            put("properties", Value::Object(props));
            put("required", json!(req));
            put("additionalProperties", false.into());
        }
    }
    Value::Object(m)
}
