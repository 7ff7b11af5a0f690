//! The conformance corpus: calls derived from a plan, each with the verdict and the exact
//! refusal text of the Rust parser (the plan interpreter, held equal to the generated
//! `Call::parse`). Every host-language parser (the generated TypeScript and Python) must give
//! the same verdict and the same message bytes for every case; `toolsurface conformance` writes
//! it, one JSON-lines file per tool plus `_names.jsonl` for name resolution, and the standard
//! surface's is checked in (`tests/conformance/`) with a drift test.
//!
//! What is derived, per tool, in the first role × family that offers it: every example; per
//! action a minimal accepted call, each optional field added, each field of another action
//! sent as a value and as `null`, typos of each field name at edit distance 1 and 2, an
//! unknown key, each field of the wrong type, bounds ±1, a duplicate key, the integer edge
//! texts (`5.0`, `1e2`, `-0`, 2^53+1, 2^63, `"5"`), long and astral strings (the 60-character
//! cut of `got …`, lengths counted in characters), the selector missing, `null`, unknown,
//! mistyped, not a string and duplicated, each `exactly_one_of` group with none and with two,
//! each `forbidden_with` pair together; for `any` values of every JSON type and number
//! spelling, for a `const` the constant respelled (`1` as `1.0`, members reordered) and values
//! near it, for a union each branch's sample and wrong values (a `one_of` value two branches
//! take), for an open object (or a tool's other keys) other keys before and after the fields,
//! `null`, given twice, and of their type right and wrong; arguments that are not JSON or not
//! an object; and,
//! per name, typos of the tool name, each alias, each retired name, a tool a scope does not
//! offer and each skill tool before and after its skill is active.

use serde_json::{Map, Value, json};

use super::interp::CallChecker;
use super::{ActionPlan, ObjectPlan, Plan, Presence, ToolPlan, TypePlan};

/// One call to decide: the scope, the name the model used and the raw arguments text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Call {
    pub role: String,
    pub family: String,
    pub skills: Vec<String>,
    pub name: String,
    pub raw: String,
}

/// The corpus of a plan: per file name (`<tool>.jsonl`, `_names.jsonl`), its JSON lines.
pub fn corpus(plan: &Plan) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for tool in &plan.tools {
        let Some(scope) = Scope::offering(plan, &tool.name) else {
            continue;
        };
        let calls = tool_calls(tool, &scope);
        files.push((format!("{}.jsonl", tool.name), render(plan, &calls)));
    }
    files.push(("_names.jsonl".to_owned(), render(plan, &name_calls(plan))));
    files
}

/// The cases as JSON lines: each call with the interpreter's verdict.
fn render(plan: &Plan, calls: &[Call]) -> String {
    let mut out = String::new();
    let mut seen = std::collections::HashSet::new();
    for c in calls {
        if !seen.insert(c.clone()) {
            continue;
        }
        out.push_str(&case(plan, c).to_string());
        out.push('\n');
    }
    out
}

/// One case: the call and what the Rust parser answers.
pub fn case(plan: &Plan, c: &Call) -> Value {
    let skills: Vec<&str> = c.skills.iter().map(String::as_str).collect();
    let verdict = CallChecker::new(plan, &c.role, &c.family)
        .and_then(|k| k.with_skills(&skills))
        .map(|k| k.check(&c.name, c.raw.as_str()));
    let mut m = Map::new();
    m.insert("role".into(), json!(c.role));
    m.insert("family".into(), json!(c.family));
    m.insert("skills".into(), json!(c.skills));
    m.insert("name".into(), json!(c.name));
    m.insert("raw".into(), json!(c.raw));
    match verdict {
        Ok(Ok(checked)) => {
            m.insert("verdict".into(), json!("accept"));
            m.insert(
                "call".into(),
                json!({ "name": checked.tool, "arguments": checked.arguments }),
            );
        }
        Ok(Err(e)) => {
            m.insert("verdict".into(), json!("refuse"));
            m.insert("kind".into(), json!(format!("{:?}", e.kind)));
            m.insert("message".into(), json!(e.message));
        }
        Err(scope) => {
            m.insert("verdict".into(), json!("refuse"));
            m.insert("kind".into(), json!("Scope"));
            m.insert("message".into(), json!(scope.to_string()));
        }
    }
    Value::Object(m)
}

/// A role × family (× skills) where a tool is callable.
#[derive(Clone, Debug)]
struct Scope {
    role: String,
    family: String,
    skills: Vec<String>,
}

impl Scope {
    /// The first surface (roles, then families) where `tool` is resident, else the first where
    /// a skill the role offers makes it callable (with that skill active).
    fn offering(plan: &Plan, tool: &str) -> Option<Scope> {
        let resident = plan
            .surfaces
            .iter()
            .find(|s| s.resident.iter().any(|t| t == tool))
            .map(|s| Scope {
                role: s.role.clone(),
                family: s.family.clone(),
                skills: Vec::new(),
            });
        resident.or_else(|| {
            plan.surfaces.iter().find_map(|s| {
                let skill = s
                    .skills
                    .iter()
                    .find(|k| k.tools.iter().any(|t| t == tool))?;
                Some(Scope {
                    role: s.role.clone(),
                    family: s.family.clone(),
                    skills: vec![skill.skill.clone()],
                })
            })
        })
    }

    fn call(&self, name: &str, raw: impl Into<String>) -> Call {
        Call {
            role: self.role.clone(),
            family: self.family.clone(),
            skills: self.skills.clone(),
            name: name.to_owned(),
            raw: raw.into(),
        }
    }
}

/// An object being built as raw members (`"key":value` texts, in order), so duplicates and
/// number spellings survive into the raw text.
#[derive(Clone, Debug, Default)]
struct Members(Vec<(String, String)>);

impl Members {
    fn with(&self, key: &str, raw_value: impl Into<String>) -> Members {
        let mut m = self.clone();
        m.0.push((key.to_owned(), raw_value.into()));
        m
    }
    fn without(&self, key: &str) -> Members {
        Members(self.0.iter().filter(|(k, _)| k != key).cloned().collect())
    }
    fn replaced(&self, key: &str, raw_value: impl Into<String>) -> Members {
        self.without(key).with(key, raw_value)
    }
    fn text(&self) -> String {
        let body: Vec<String> = self
            .0
            .iter()
            .map(|(k, v)| format!("{}:{v}", Value::String(k.clone())))
            .collect();
        format!("{{{}}}", body.join(","))
    }
}

/// A value for `field`: the one an example of the tool gives it (so patterns and ranges the
/// sampler cannot solve still get accepted calls), else the type's sample.
fn sample_field(tool: &ToolPlan, field: &str, ty: &TypePlan) -> Value {
    tool.actions
        .iter()
        .flat_map(|a| &a.examples)
        .find_map(|e| e.get(field).cloned())
        .unwrap_or_else(|| sample(ty))
}

fn tool_calls(tool: &ToolPlan, scope: &Scope) -> Vec<Call> {
    let mut calls = Vec::new();
    let name = tool.name.as_str();
    for action in &tool.actions {
        action_calls(tool, action, scope, &mut calls);
    }
    if let Some(sel) = &tool.selector {
        let some_action = tool.actions.first().and_then(|a| a.name.clone());
        calls.push(scope.call(name, "{}"));
        calls.push(scope.call(name, Members::default().with(sel, "null").text()));
        calls.push(scope.call(name, Members::default().with(sel, "5").text()));
        calls.push(scope.call(name, Members::default().with(sel, "\"bogus\"").text()));
        if let Some(a) = some_action {
            for typo in typos(&a) {
                let v = Value::String(typo).to_string();
                calls.push(scope.call(name, Members::default().with(sel, v).text()));
            }
        }
    }
    for raw in [
        "",
        "  ",
        "null",
        "[]",
        "[1,2]",
        "5",
        "\"text\"",
        "true",
        "{",
        "{\"a\":}",
        "{\"a\" 1}",
        "{} x",
        "{\"a\":1,}",
        "{a:1}",
        "{\"\\q\":1}",
        "{\"a\":\"\u{1}\"}",
        "{\"a\":01}",
        "{\"a\":1e999}",
        "{\"a\":\"\\ud800\"}",
        "{\"a\":tru}",
        "\u{feff}{}",
    ] {
        calls.push(scope.call(name, raw));
    }
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    calls.push(scope.call(name, format!("{{\"a\":{deep}}}")));
    calls
}

/// The minimal accepted arguments of an action: the selector, each required field, and the
/// first member of each `exactly_one_of` group that nothing required fills.
fn minimal(tool: &ToolPlan, action: &ActionPlan) -> Members {
    let mut m = Members::default();
    if let (Some(sel), Some(name)) = (&tool.selector, &action.name) {
        m = m.with(sel, Value::String(name.clone()).to_string());
    }
    let obj = &action.object;
    for f in obj.fields.iter().filter(|f| f.required) {
        m = m.with(&f.name, sample_field(tool, &f.name, &f.ty).to_string());
    }
    for group in &obj.exactly_one_of {
        if group.iter().any(|x| x.presence == Presence::Always) {
            continue;
        }
        if let Some(first) = group.first()
            && let Some(f) = obj.fields.iter().find(|f| f.name == first.field)
        {
            m = m.with(&f.name, sample_field(tool, &f.name, &f.ty).to_string());
        }
    }
    m
}

fn action_calls(tool: &ToolPlan, action: &ActionPlan, scope: &Scope, calls: &mut Vec<Call>) {
    let name = tool.name.as_str();
    let base = minimal(tool, action);
    let obj = &action.object;
    calls.push(scope.call(name, base.text()));
    if let Some(sel) = &tool.selector {
        let sel_value = base.0.first().map(|(_, v)| v.clone()).unwrap_or_default();
        calls.push(scope.call(name, base.without(sel).text()));
        calls.push(scope.call(name, base.with(sel, sel_value).text()));
    }
    for f in &obj.fields {
        let value = sample_field(tool, &f.name, &f.ty).to_string();
        let with_f = base.replaced(&f.name, value.clone());
        calls.push(scope.call(name, with_f.text()));
        calls.push(scope.call(name, base.replaced(&f.name, "null").text()));
        calls.push(scope.call(name, with_f.with(&f.name, value).text()));
        if f.required {
            calls.push(scope.call(name, base.without(&f.name).text()));
        }
        for bad in wrong_values(&f.ty) {
            calls.push(scope.call(name, base.replaced(&f.name, bad).text()));
        }
        for typo in typos(&f.name) {
            let raw = base.with(&typo, sample(&f.ty).to_string());
            calls.push(scope.call(name, raw.text()));
        }
    }
    calls.push(scope.call(name, base.with("zzz_unknown", "1").text()));
    if let Some(other) = &obj.additional {
        for m in other_key_objects(&base, other) {
            calls.push(scope.call(name, m.text()));
        }
    }
    for b in &obj.belongs {
        let value = tool
            .actions
            .iter()
            .flat_map(|a| &a.object.fields)
            .find(|f| f.name == b.field)
            .map_or(json!(1), |f| sample_field(tool, &f.name, &f.ty));
        calls.push(scope.call(name, base.with(&b.field, value.to_string()).text()));
        calls.push(scope.call(name, base.with(&b.field, "null").text()));
    }
    constraint_calls(tool, obj, &base, scope, calls);
    for example in &action.examples {
        calls.push(scope.call(name, example.to_string()));
    }
}

fn constraint_calls(
    tool: &ToolPlan,
    obj: &ObjectPlan,
    base: &Members,
    scope: &Scope,
    calls: &mut Vec<Call>,
) {
    let sample_of = |field: &str| {
        obj.fields
            .iter()
            .find(|f| f.name == field)
            .map(|f| match f.ty {
                TypePlan::Boolean => json!(true),
                _ => sample(&f.ty),
            })
    };
    for group in &obj.exactly_one_of {
        let mut none = base.clone();
        for m in group {
            none = none.without(&m.field);
        }
        calls.push(scope.call(&tool.name, none.text()));
        let mut two = base.clone();
        for m in group.iter().take(2) {
            if let Some(v) = sample_of(&m.field) {
                two = two.replaced(&m.field, v.to_string());
            }
        }
        calls.push(scope.call(&tool.name, two.text()));
    }
    for fw in &obj.forbidden_with {
        let mut both = base.clone();
        for field in [&fw.field.field, &fw.with.field] {
            if let Some(v) = sample_of(field) {
                both = both.replaced(field, v.to_string());
            }
        }
        calls.push(scope.call(&tool.name, both.text()));
        if let Some(TypePlan::Boolean) = obj
            .fields
            .iter()
            .find(|f| f.name == fw.field.field)
            .map(|f| &f.ty)
        {
            let off = both.replaced(&fw.field.field, "false");
            calls.push(scope.call(&tool.name, off.text()));
        }
    }
}

/// A value the type accepts when it can be built without search (patterns aside: a value
/// the pattern refuses still makes a case).
fn sample(ty: &TypePlan) -> Value {
    match ty {
        TypePlan::Shape { ty, .. } => sample(ty),
        TypePlan::String {
            min_length,
            max_length,
            ..
        } => {
            let n = min_length.unwrap_or(1).max(1);
            let n = max_length.map_or(n, |m| n.min(m)).min(MAX_EDGE_LENGTH);
            Value::String("x".repeat(n as usize))
        }
        TypePlan::Integer {
            minimum, maximum, ..
        } => {
            let n = minimum.unwrap_or(1).max(minimum.unwrap_or(i64::MIN));
            json!(maximum.map_or(n, |m| n.min(m)))
        }
        TypePlan::Number {
            minimum, maximum, ..
        } => {
            let n = minimum.unwrap_or(1.5);
            serde_json::Number::from_f64(maximum.map_or(n, |m| n.min(m)))
                .map_or(json!(1), Value::Number)
        }
        TypePlan::Boolean => json!(false),
        TypePlan::Enum { values, .. } => values.first().map_or(json!(""), |v| json!(v)),
        TypePlan::Array {
            items, min_items, ..
        } => Value::Array(
            std::iter::repeat_with(|| sample(items))
                .take(min_items.unwrap_or(1).clamp(1, MAX_EDGE_LENGTH) as usize)
                .collect(),
        ),
        TypePlan::Any => json!(1),
        TypePlan::Null => Value::Null,
        TypePlan::Const { value, .. } => value.clone(),
        TypePlan::Union { branches, .. } => branches.first().map_or(Value::Null, sample),
        TypePlan::Object { object } => {
            let mut m = Map::new();
            for f in object.fields.iter().filter(|f| f.required) {
                m.insert(f.name.clone(), sample(&f.ty));
            }
            Value::Object(m)
        }
    }
}

/// Lengths beyond this are not spelled out, in samples or edges (a field of 10^6 characters
/// would make a corpus nobody can read, and a declared minimum of 10^9 must not allocate a
/// gigabyte; the rule is the same at every length).
const MAX_EDGE_LENGTH: u64 = 300;

const LONG_ASTRAL: &str =
    "\u{1F600}abcdefghijklmnopqrstuvwxyz\u{1F600}abcdefghijklmnopqrstuvwxyz\u{1F600}0123456789";

/// Raw texts of values the type refuses (or that sit on its edges).
fn wrong_values(ty: &TypePlan) -> Vec<String> {
    let long = Value::String(LONG_ASTRAL.to_owned()).to_string();
    let mut v: Vec<String> = match ty {
        TypePlan::Shape { ty, .. } => return wrong_values(ty),
        TypePlan::String {
            min_length,
            max_length,
            ..
        } => {
            let mut v = vec!["5".into(), "true".into(), "[]".into(), "{}".into(), long];
            for n in edges_u64(min_length.map(|m| m.saturating_sub(1)), *max_length) {
                v.push(Value::String("\u{1F600}".repeat(n as usize)).to_string());
                v.push(Value::String("y".repeat(n as usize)).to_string());
            }
            v
        }
        TypePlan::Integer {
            minimum, maximum, ..
        } => {
            let mut v = texts(&[
                "\"5\"",
                "5.5",
                "5.0",
                "1e2",
                "-0",
                "-0.0",
                "9007199254740993",
                "9007199254740992.0",
                "9223372036854775808",
                "-9223372036854775809",
                "1e400",
                "true",
                "[]",
            ]);
            v.push(long);
            let edges = [
                minimum.map(|m| m.saturating_sub(1)),
                *minimum,
                *maximum,
                maximum.map(|m| m.saturating_add(1)),
            ];
            v.extend(edges.into_iter().flatten().map(|n| n.to_string()));
            v
        }
        TypePlan::Number {
            minimum, maximum, ..
        } => {
            let mut v = texts(&["\"1\"", "true", "1e2", "-0", "0.1", "1e-7", "123456789.125"]);
            let edges = [
                minimum.map(|m| m - 1.0),
                *minimum,
                *maximum,
                maximum.map(|m| m + 1.0),
            ];
            for n in edges.into_iter().flatten() {
                v.push(serde_json::Number::from_f64(n).map_or("0".into(), |x| x.to_string()));
            }
            v
        }
        TypePlan::Boolean => texts(&["\"true\"", "1", "0"]),
        TypePlan::Enum { values, .. } => {
            let mut v = texts(&["\"bogus\"", "5"]);
            if let Some(first) = values.first() {
                v.push(Value::String(first.to_uppercase()).to_string());
            }
            v
        }
        TypePlan::Array {
            items,
            min_items,
            max_items,
            ..
        } => wrong_arrays(items, *min_items, *max_items),
        TypePlan::Object { object } => wrong_objects(ty, object),
        TypePlan::Any => any_values(long),
        TypePlan::Null => texts(&["0", "\"null\"", "false"]),
        TypePlan::Const { value, .. } => wrong_consts(value),
        TypePlan::Union { branches, .. } => wrong_unions(branches),
    };
    v.dedup();
    v
}

/// Values `any` takes, each kept as serde_json holds it (number kinds, member order, the last
/// of a key given twice).
fn any_values(long: String) -> Vec<String> {
    let mut v = texts(&[
        "5",
        "5.0",
        "1e2",
        "-0",
        "-0.0",
        "9007199254740993",
        "18446744073709551615",
        "\"s\"",
        "true",
        "[]",
        "{}",
        "[1,\"x\",null,2.50]",
        "{\"b\":1,\"a\":{\"c\":[]}}",
        "{\"a\":1,\"b\":2,\"a\":3}",
        "{\"a\":null}",
        "{\"2\":1,\"1\":2}",
        "{\"__proto__\":{\"x\":1},\"constructor\":null}",
    ]);
    v.push(long);
    v
}

/// A constant as written and respelled (`1` as `1.0` and back, members reversed): all accepted;
/// then values near it and of other types: refused.
fn wrong_consts(value: &Value) -> Vec<String> {
    let mut v = vec![value.to_string(), respelled(value)];
    let near = match value {
        Value::Number(n) => {
            let x = n.as_f64().unwrap_or(0.0) + 1.0;
            serde_json::Number::from_f64(x).map_or(json!(0), Value::Number)
        }
        Value::String(s) => json!(format!("{s}x")),
        Value::Bool(b) => json!(!b),
        Value::Array(items) => Value::Array(items.iter().skip(1).cloned().collect()),
        Value::Object(members) => {
            let mut m = members.clone();
            m.insert("zzz_more".into(), json!(1));
            Value::Object(m)
        }
        Value::Null => json!(0),
    };
    v.push(near.to_string());
    v.extend(texts(&["5", "5.5", "true", "\"x\"", "[]", "{}"]));
    v
}

/// `value` written with its integers as floats (`2` → `2.0`), its integral floats as integers,
/// and its objects' members reversed: the same constant to `json_equal`.
fn respelled(value: &Value) -> String {
    match value {
        Value::Number(n) if n.is_f64() => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
            _ => n.to_string(),
        },
        Value::Number(n) => format!("{n}.0"),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(respelled).collect();
            format!("[{}]", items.join(","))
        }
        Value::Object(members) => {
            let members: Vec<String> = members
                .iter()
                .rev()
                .map(|(k, v)| format!("{}:{}", Value::String(k.clone()), respelled(v)))
                .collect();
            format!("{{{}}}", members.join(","))
        }
        other => other.to_string(),
    }
}

/// Each branch's sample (the branch that takes it, or for `one_of` a second one too), a few of
/// each branch's wrong values (another branch may take them), and values of every JSON type.
fn wrong_unions(branches: &[TypePlan]) -> Vec<String> {
    let mut v = Vec::new();
    for b in branches {
        v.push(sample(b).to_string());
        v.extend(wrong_values(b).into_iter().take(4));
    }
    v.extend(texts(&[
        "5", "5.5", "-1", "true", "\"x\"", "[]", "{}", "[null]",
    ]));
    let mut seen = std::collections::HashSet::new();
    v.retain(|x| seen.insert(x.clone()));
    v
}

fn texts(raw: &[&str]) -> Vec<String> {
    raw.iter().map(|s| (*s).to_owned()).collect()
}

/// The lengths just outside (below `below`, above `max`) and at `max`, when short enough to
/// spell out.
fn edges_u64(below: Option<u64>, max: Option<u64>) -> impl Iterator<Item = u64> {
    [below, max, max.map(|m| m.saturating_add(1))]
        .into_iter()
        .flatten()
        .filter(|n| *n <= MAX_EDGE_LENGTH)
}

fn wrong_arrays(items: &TypePlan, min_items: Option<u64>, max_items: Option<u64>) -> Vec<String> {
    let item = sample(items).to_string();
    let mut v = texts(&["\"x\"", "{}", "[null]"]);
    for bad in wrong_values(items).into_iter().take(3) {
        v.push(format!("[{item},{bad}]"));
    }
    let outside = [
        min_items.map(|m| m.saturating_sub(1)),
        max_items.map(|m| m.saturating_add(1)),
    ];
    for n in outside
        .into_iter()
        .flatten()
        .filter(|n| *n <= MAX_EDGE_LENGTH)
    {
        v.push(format!("[{}]", vec![item.as_str(); n as usize].join(",")));
    }
    v
}

/// A nested object: not an object, an unknown member, each member wrong in turn, and an open
/// object's other keys.
fn wrong_objects(ty: &TypePlan, object: &ObjectPlan) -> Vec<String> {
    let mut v = texts(&["[]", "\"x\"", "{\"zzz_unknown\":1}"]);
    let base = sample(ty);
    let mut members = Members::default();
    if let Value::Object(o) = &base {
        for (k, val) in o {
            members = members.with(k, val.to_string());
        }
    }
    for f in &object.fields {
        for bad in wrong_values(&f.ty).into_iter().take(8) {
            v.push(members.without(&f.name).with(&f.name, bad).text());
        }
    }
    if let Some(other) = &object.additional {
        v.extend(other_key_objects(&members, other).iter().map(Members::text));
    }
    v
}

/// An open object's other keys (`base` holds the fields): `null` (absent), one and two of them
/// before and after the fields, one given twice, and values of their type, right and wrong
/// (refused at `<prefix><key>`).
fn other_key_objects(base: &Members, other: &TypePlan) -> Vec<Members> {
    let good = sample(other).to_string();
    let mut v = vec![
        base.with("zzz_other", "null"),
        base.with("zzz_other", good.clone()),
        base.with("zzz_b", good.clone()).with("zzz_a", good.clone()),
        Members(
            std::iter::once(("zzz_first".to_owned(), good.clone()))
                .chain(base.0.iter().cloned())
                .collect(),
        ),
        base.with("zzz_other", good.clone())
            .with("zzz_other", good.clone()),
        base.with("zzz_other", "null").with("zzz_other", good),
    ];
    for bad in wrong_values(other).into_iter().take(8) {
        v.push(base.with("zzz_other", bad));
    }
    v
}

/// Names at edit distance 1 and 2 from `name`: a dropped, a doubled and a swapped character,
/// and a dropped pair.
fn typos(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut out = Vec::new();
    if chars.len() >= 2 {
        out.push(chars[1..].iter().collect());
        let mut doubled = chars.clone();
        doubled.insert(chars.len() / 2, chars[chars.len() / 2]);
        out.push(doubled.iter().collect());
        let mut swapped = chars.clone();
        swapped.swap(0, 1);
        out.push(swapped.iter().collect());
    }
    if chars.len() >= 4 {
        out.push(chars[..chars.len() - 2].iter().collect());
    }
    out.retain(|t: &String| t != name);
    out
}

/// Name resolution across scopes: typos of each tool name, each alias with its target's
/// minimal arguments, each retired name, tools a scope does not offer, skill gates.
fn name_calls(plan: &Plan) -> Vec<Call> {
    let mut calls = Vec::new();
    let Some(first) = plan.surfaces.first() else {
        return calls;
    };
    let at = |role: &str, family: &str, skills: &[String]| Scope {
        role: role.to_owned(),
        family: family.to_owned(),
        skills: skills.to_vec(),
    };
    let scope = at(&first.role, &first.family, &[]);
    calls.push(scope.call("zzz_no_such_tool", "{}"));
    calls.push(scope.call("", "{}"));
    for tool in &plan.tools {
        for typo in typos(&tool.name) {
            calls.push(scope.call(&typo, "{}"));
        }
    }
    for alias in &plan.aliases {
        let Some(target) = plan.tools.iter().find(|t| t.name == alias.tool) else {
            continue;
        };
        let Some(s) = Scope::offering(plan, &target.name) else {
            continue;
        };
        calls.push(s.call(&alias.name, "{}"));
        for action in &target.actions {
            let mut m = minimal(target, action);
            for (from, to) in &alias.rename {
                if let Some((_, v)) = m.0.iter().find(|(k, _)| k == to).cloned() {
                    m = m.without(to).with(from, v);
                }
            }
            calls.push(s.call(&alias.name, m.text()));
        }
    }
    for r in &plan.retired {
        calls.push(scope.call(&r.name, "{}"));
    }
    for s in &plan.surfaces {
        for tool in &plan.tools {
            let resident = s.resident.contains(&tool.name);
            let in_skill = s.skills.iter().find(|k| k.tools.contains(&tool.name));
            if !resident {
                calls.push(at(&s.role, &s.family, &[]).call(&tool.name, "{}"));
            }
            if let Some(k) = in_skill {
                let with = at(&s.role, &s.family, std::slice::from_ref(&k.skill));
                if let Some(action) = tool.actions.first() {
                    calls.push(with.call(&tool.name, minimal(tool, action).text()));
                }
            }
        }
        if let Some(ff_tool) = plan.tools.iter().find(|t| {
            t.freeform
                .as_ref()
                .is_some_and(|f| f.families.contains(&s.family))
                && s.resident.contains(&t.name)
        }) {
            let sc = at(&s.role, &s.family, &[]);
            calls.push(sc.call(&ff_tool.name, "*** Begin Patch\n*** End Patch\n"));
            calls.push(sc.call(&ff_tool.name, "{\"not\":\"freeform\"}"));
        }
    }
    calls.push(at(&first.role, "zzz_family", &[]).call("x", "{}"));
    calls.push(at("zzz_role", &first.family, &[]).call("x", "{}"));
    calls.push(at(&first.role, &first.family, &["zzz_skill".to_owned()]).call("x", "{}"));
    calls
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extreme_bounds_neither_overflow_nor_allocate() {
        let int = TypePlan::Integer {
            minimum: Some(i64::MIN),
            maximum: Some(i64::MAX),
            expected: String::new(),
        };
        assert!(wrong_values(&int).contains(&i64::MAX.to_string()));
        let s = TypePlan::String {
            min_length: Some(1_000_000_000),
            max_length: Some(u64::MAX),
            pattern: None,
            expected: String::new(),
        };
        assert!(sample(&s).as_str().map_or(0, str::len) <= MAX_EDGE_LENGTH as usize);
        assert!(!wrong_values(&s).is_empty());
        let a = TypePlan::Array {
            items: Box::new(TypePlan::Boolean),
            min_items: Some(u64::MAX),
            max_items: Some(u64::MAX),
            expected: String::new(),
        };
        assert!(!wrong_values(&a).is_empty());
        assert!(matches!(sample(&a), Value::Array(v) if v.len() <= MAX_EDGE_LENGTH as usize));
    }
}
