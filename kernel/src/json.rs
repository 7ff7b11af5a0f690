//! Values as `serde_json::Value` holds them, for the field kinds whose typed value is JSON
//! (`any`, `null`, `const`, unions, an open object's other keys): the conversion of a walked
//! [`Val`], and `const`'s equality. The plan interpreter and the generated walks both call
//! these, so the typed value and the verdict are one rule.

use crate::Val;
use serde_json::Value;

/// A value as `serde_json::Value` holds it: `5` an integer, `5.0` and `1e2` floats, members in
/// input order, and of a key given twice the last value (at the first one's place).
pub fn to_json(v: Val<'_>) -> Value {
    match v {
        Val::Null => Value::Null,
        Val::Bool(b) => Value::Bool(b),
        Val::Int(n) => Value::from(n),
        Val::UInt(n) => Value::from(n),
        Val::Float(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
        Val::Str(s) => Value::String(s.into_owned()),
        Val::Arr(items) => Value::Array(items.into_iter().map(to_json).collect()),
        Val::Obj(members) => Value::Object(
            members
                .into_iter()
                .map(|(k, v)| (k.into_owned(), to_json(v)))
                .collect(),
        ),
    }
}

/// A typed value (a generated struct, string, number, …) as JSON: what the generated walk
/// keeps of a union branch or an open object's typed other key. Serializing a generated type
/// cannot fail (its map keys are strings, its numbers finite); `null` stands for what would.
pub fn to_value<T: serde::Serialize>(t: T) -> Value {
    serde_json::to_value(t).unwrap_or(Value::Null)
}

/// `const`'s equality: strings, booleans and null by equality, numbers by numeric value
/// (`1` = `1.0`; integers exactly, else as doubles), arrays item by item, objects member by
/// member in any order.
pub fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(i), Some(j), _, _) => i == j,
                (_, _, Some(i), Some(j)) => i == j,
                _ => x.as_f64() == y.as_f64(),
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_keep_their_kind_and_compare_by_value() {
        let v = crate::scan(r#"{"a":5,"b":5.0,"c":1e2,"a":7}"#).unwrap_or(Val::Null);
        assert_eq!(to_json(v).to_string(), r#"{"a":7,"b":5.0,"c":100.0}"#);
        assert!(json_equal(&json!(1), &json!(1.0)));
        assert!(!json_equal(&json!(1), &json!(1.5)));
        assert!(json_equal(
            &json!({"a": [1, "x"], "b": null}),
            &json!({"b": null, "a": [1.0, "x"]})
        ));
        assert!(!json_equal(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
        assert!(!json_equal(&json!("1"), &json!(1)));
    }
}
