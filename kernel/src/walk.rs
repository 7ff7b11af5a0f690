//! The walk: the rules a tool call's arguments are read by, interpreted from the tool's plan
//! ([`crate::plan`]). There is one walk, and every Rust parser runs it: the compiler's plan
//! interpreter (`check`, `import`, `replay`, `usage`, the conformance corpus) over a plan it
//! lowered, and the generated `Call::parse` over the static copy of each tool's plan its
//! module holds ([`ToolRules`]). So a rule exists once in code (here) and once as data (the
//! plan); what generated code adds is the one-pass decoder (which answers only what this walk
//! would answer, held to it case by case by the conformance corpus) and the builders that move
//! a [`Record`] into the tool's typed structs.
//!
//! The walk of one object: each key in input order — the selector skipped (a second one is a
//! duplicate); a field converted (`null` counts as absent; given twice is a duplicate); a key
//! another action takes with `null` let through; an open object's other key converted; anything
//! else an unexpected field. Then each required field (declaration order), each
//! `exactly_one_of` group, each `forbidden_with` rule. Every refusal is worded by the kernel's
//! functions, the catalogue the TypeScript and Python kernels port.

use serde_json::{Map, Value};

use crate::plan::{MemberPlan, ObjectPlan, Presence, ToolPlan, TypePlan};
use crate::{CallError, CallErrorKind, Obj, Pairs, Val};

/// Every string pattern of some tools' plans, compiled once. A pattern that does not compile
/// is kept as `None`: every value is refused, as a pattern nothing matches would be. Sorted by
/// pattern: a value's lookup is a binary search (a memcmp or two), not a hash of the whole
/// pattern text per value.
#[derive(Debug, Default)]
pub struct Patterns(Vec<(String, Option<regex::Regex>)>);

impl Patterns {
    /// Compile the patterns of `tool`'s actions (each once, whichever tool declares it).
    pub fn add_tool(&mut self, tool: &ToolPlan) {
        for a in &tool.actions {
            self.add_object(&a.object);
        }
    }

    fn add_object(&mut self, object: &ObjectPlan) {
        for f in &object.fields {
            self.add_type(&f.ty);
        }
        if let Some(other) = &object.additional {
            self.add_type(other);
        }
    }

    fn add_type(&mut self, ty: &TypePlan) {
        match ty {
            TypePlan::String {
                pattern: Some(p), ..
            } => {
                if let Err(at) = self.0.binary_search_by(|(k, _)| k.as_str().cmp(p)) {
                    self.0.insert(at, (p.clone(), regex::Regex::new(p).ok()));
                }
            }
            TypePlan::Array { items, .. } | TypePlan::Shape { ty: items, .. } => {
                self.add_type(items)
            }
            TypePlan::Object { object } => self.add_object(object),
            TypePlan::Union { branches, .. } => {
                for b in branches {
                    self.add_type(b);
                }
            }
            _ => {}
        }
    }

    /// Whether `s` matches the pattern `p` (never, for one that was not added or does not
    /// compile).
    fn matches(&self, p: &str, s: &str) -> bool {
        self.0
            .binary_search_by(|(k, _)| k.as_str().cmp(p))
            .is_ok_and(|i| crate::matches(&self.0[i].1, s))
    }
}

/// Whether a walk builds the typed value, or only decides (what `replay` asks of every
/// historical call: the same rules, the same refusals, none of the copies).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Build {
    Typed,
    Nothing,
}

/// A value the walk accepted, as its plan type holds it.
#[derive(Clone, Debug, PartialEq)]
pub enum Typed {
    Int(i64),
    Num(f64),
    Bool(bool),
    Str(String),
    /// The index of the value in the enum's `values`.
    Enum(usize),
    List(Vec<Typed>),
    /// Boxed: a record is large, and every value of a walk moves through this enum.
    Record(Box<Record>),
    /// The kinds whose typed value is JSON: any, null, const, a union (its accepting branch's
    /// value as JSON).
    Json(Value),
    /// Checked and not kept ([`Build::Nothing`]): a string, array, object or JSON value.
    Unbuilt,
}

/// An object the walk accepted.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Record {
    /// Per field of the object's plan (declaration order): its value, `None` when absent.
    pub fields: Vec<Option<Typed>>,
    /// An open object's other keys, in input order, as JSON.
    pub other: Map<String, Value>,
}

/// One call's walk.
pub struct Walker<'c> {
    pub patterns: &'c Patterns,
    pub build: Build,
}

impl Walker<'_> {
    /// A tool's arguments: the selector (a tool with one names the action), then the action's
    /// object. Answers the index of the action in the plan and its fields.
    pub fn tool(&self, tool: &ToolPlan, pairs: &Pairs<'_>) -> Result<(usize, Record), CallError> {
        let Some(sel) = tool.selector.as_deref() else {
            let Some(action) = tool.actions.first() else {
                return Ok((0, Record::default()));
            };
            let record = self.object(&action.object, None, pairs, &|| action.prefix.clone())?;
            return Ok((0, record));
        };
        let expected = &tool.expected_actions;
        let index = match pairs.iter().find(|(k, _)| k == sel) {
            None | Some((_, Val::Null)) => {
                return Err(crate::missing_selector(&format!(
                    "missing {sel}: expected one of {expected}"
                )));
            }
            Some((_, v)) => match crate::as_str(v) {
                Some(s) => match tool
                    .actions
                    .iter()
                    .position(|a| a.name.as_deref() == Some(s))
                {
                    Some(i) => i,
                    None => return Err(crate::unknown_action(sel, s, expected)),
                },
                None => {
                    return Err(crate::invalid(
                        &format!("{sel}: expected one of {expected}"),
                        v,
                    ));
                }
            },
        };
        let action = &tool.actions[index];
        let record = self.object(&action.object, Some(sel), pairs, &|| action.prefix.clone())?;
        Ok((index, record))
    }

    /// The walk of one object (the module docs say its rules); `prefix` starts every refusal.
    pub fn object(
        &self,
        rules: &ObjectPlan,
        selector: Option<&str>,
        pairs: &Pairs<'_>,
        prefix: &dyn Fn() -> String,
    ) -> Result<Record, CallError> {
        let mut values: Vec<Option<Typed>> = vec![None; rules.fields.len()];
        let mut other = Map::new();
        let mut selector_seen = false;
        for (key, v) in pairs {
            let key: &str = key;
            if Some(key) == selector {
                if selector_seen {
                    return Err(crate::duplicate(&prefix(), key));
                }
                selector_seen = true;
                continue;
            }
            if let Some(i) = rules.fields.iter().position(|f| f.name == key) {
                if v.is_null() {
                    continue;
                }
                let f = &rules.fields[i];
                if values[i].is_some() {
                    return Err(crate::duplicate(&prefix(), &f.name));
                }
                let path = || format!("{}{}", prefix(), f.name);
                values[i] = Some(self.convert(&f.ty, v, &path)?);
                continue;
            }
            if v.is_null() && rules.belongs.iter().any(|b| b.field == key) {
                continue;
            }
            if let Some(ty) = rules.additional.as_deref() {
                if v.is_null() {
                    continue;
                }
                if other.contains_key(key) {
                    return Err(crate::duplicate(&prefix(), key));
                }
                let path = || format!("{}{key}", prefix());
                let x = self.convert(ty, v, &path)?;
                other.insert(key.to_owned(), x.into_json(ty));
                continue;
            }
            let accepted: Vec<&str> = rules.fields.iter().map(|f| f.name.as_str()).collect();
            let belongs: Vec<(&str, &str)> = rules
                .belongs
                .iter()
                .map(|b| (b.field.as_str(), b.actions.as_str()))
                .collect();
            return Err(crate::unexpected_field(&prefix(), key, &accepted, &belongs));
        }
        constraints(rules, &values, prefix)?;
        Ok(Record {
            fields: values,
            other,
        })
    }

    /// A value of type `ty`: the typed value, or `<path>: expected <…>, got <value>`. With
    /// [`Build::Nothing`], strings, arrays and JSON values are checked but not copied
    /// (booleans are kept: `forbidden_with` reads them).
    pub fn convert(
        &self,
        ty: &TypePlan,
        v: &Val<'_>,
        path: &dyn Fn() -> String,
    ) -> Result<Typed, CallError> {
        let typed = self.build == Build::Typed;
        let refuse = |expected: &str, v: &Val<'_>| refusal(path, expected, v);
        match ty {
            TypePlan::Integer {
                minimum,
                maximum,
                expected,
            } => match crate::as_int(v) {
                Some(n) if minimum.is_none_or(|a| n >= a) && maximum.is_none_or(|b| n <= b) => {
                    Ok(Typed::Int(n))
                }
                _ => refuse(expected, v),
            },
            TypePlan::Number {
                minimum,
                maximum,
                expected,
            } => match crate::as_num(v) {
                Some(n) if minimum.is_none_or(|a| n >= a) && maximum.is_none_or(|b| n <= b) => {
                    Ok(Typed::Num(n))
                }
                _ => refuse(expected, v),
            },
            TypePlan::Boolean => match crate::as_bool(v) {
                Some(b) => Ok(Typed::Bool(b)),
                None => refuse("true or false", v),
            },
            TypePlan::String {
                min_length,
                max_length,
                pattern,
                expected,
            } => match crate::as_str(v) {
                Some(s)
                    if (min_length.is_none() && max_length.is_none()
                        || crate::chars_within(
                            s,
                            min_length.unwrap_or(0),
                            max_length.unwrap_or(u64::MAX),
                        ))
                        && pattern
                            .as_deref()
                            .is_none_or(|p| self.patterns.matches(p, s)) =>
                {
                    Ok(if typed {
                        Typed::Str(crate::owned(s))
                    } else {
                        Typed::Unbuilt
                    })
                }
                _ => refuse(expected, v),
            },
            TypePlan::Enum { values, expected } => {
                match crate::as_str(v).and_then(|s| values.iter().position(|x| x == s)) {
                    Some(i) => Ok(Typed::Enum(i)),
                    None => refuse(expected, v),
                }
            }
            TypePlan::Array {
                items,
                min_items,
                max_items,
                expected,
            } => match v {
                Val::Arr(list)
                    if (min_items.unwrap_or(0) as usize
                        ..=max_items.map_or(usize::MAX, |m| m as usize))
                        .contains(&list.len()) =>
                {
                    self.items(items, list, path)
                }
                v => refuse(expected, v),
            },
            TypePlan::Object { object } => match v {
                Val::Obj(members) => Ok(Typed::Record(Box::new(self.object(
                    object,
                    None,
                    members,
                    &|| format!("{}: ", path()),
                )?))),
                v => refuse("an object", v),
            },
            TypePlan::Any | TypePlan::Null | TypePlan::Const { .. } | TypePlan::Union { .. } => {
                self.convert_json(ty, v, path)
            }
            // A shape's use is its definition.
            TypePlan::Shape { ty, .. } => self.convert(ty, v, path),
        }
    }

    /// [`Self::convert`] for the kinds whose typed value is the JSON value itself: any, null,
    /// const, unions (the first accepting branch's value; `one`: a second is refused).
    fn convert_json(
        &self,
        ty: &TypePlan,
        v: &Val<'_>,
        path: &dyn Fn() -> String,
    ) -> Result<Typed, CallError> {
        let typed = self.build == Build::Typed;
        let refuse = |expected: &str, v: &Val<'_>| refusal(path, expected, v);
        match ty {
            TypePlan::Any => Ok(if typed {
                Typed::Json(crate::to_json(v.clone()))
            } else {
                Typed::Unbuilt
            }),
            TypePlan::Null => match v {
                Val::Null => Ok(Typed::Json(Value::Null)),
                v => refuse("null", v),
            },
            TypePlan::Const { value, expected } => {
                if crate::json_equal(&crate::to_json(v.clone()), value) {
                    Ok(Typed::Json(value.clone()))
                } else {
                    refuse(expected, v)
                }
            }
            TypePlan::Union {
                branches,
                one,
                expected,
                ambiguous,
            } => {
                // The first accepting branch's value; with `one`, a second is refused.
                let mut accepted = None;
                for b in branches {
                    let Ok(x) = self.convert(b, v, path) else {
                        continue;
                    };
                    if accepted.is_some() {
                        return refuse(ambiguous, v);
                    }
                    accepted = Some(x.into_json(b));
                    if !one {
                        break;
                    }
                }
                match accepted {
                    Some(x) => Ok(if typed {
                        Typed::Json(x)
                    } else {
                        Typed::Unbuilt
                    }),
                    None => refuse(expected, v),
                }
            }
            _ => self.convert(ty, v, path),
        }
    }

    /// An array's items, each converted (item `i` is reported as `<path>[i]`).
    fn items(
        &self,
        items: &TypePlan,
        list: &[Val<'_>],
        path: &dyn Fn() -> String,
    ) -> Result<Typed, CallError> {
        let typed = self.build == Build::Typed;
        let mut out = Vec::with_capacity(if typed { list.len() } else { 0 });
        for (i, item) in list.iter().enumerate() {
            let item = self.convert(items, item, &|| format!("{}[{i}]", path()))?;
            if typed {
                out.push(item);
            }
        }
        Ok(if typed {
            Typed::List(out)
        } else {
            Typed::Unbuilt
        })
    }
}

/// `<path>: expected <expected>, got <value>`.
fn refusal(path: &dyn Fn() -> String, expected: &str, v: &Val<'_>) -> Result<Typed, CallError> {
    Err(crate::invalid(
        &format!("{}: expected {expected}", path()),
        v,
    ))
}

/// After an object's walk: each required field (declaration order), each `exactly_one_of`
/// group, each `forbidden_with` rule, on the values found, by each member's presence rule.
fn constraints(
    rules: &ObjectPlan,
    values: &[Option<Typed>],
    prefix: &dyn Fn() -> String,
) -> Result<(), CallError> {
    for (f, v) in rules.fields.iter().zip(values) {
        if f.required && v.is_none() {
            return Err(crate::missing(&prefix(), &f.name));
        }
    }
    let present = |m: &MemberPlan| -> bool {
        let value = || {
            rules
                .fields
                .iter()
                .zip(values)
                .find(|(f, _)| f.name == m.field)
                .and_then(|(_, v)| v.as_ref())
        };
        match m.presence {
            Presence::Always => true,
            Presence::Never => false,
            Presence::Given => value().is_some(),
            Presence::True => matches!(value(), Some(Typed::Bool(true))),
        }
    };
    for group in &rules.exactly_one_of {
        // Counted first: the lists are built only for the refusal.
        if group.iter().filter(|m| present(m)).count() != 1 {
            let names: Vec<&str> = group.iter().map(|m| m.field.as_str()).collect();
            let given: Vec<&str> = group
                .iter()
                .filter(|m| present(m))
                .map(|m| m.field.as_str())
                .collect();
            return Err(crate::exactly_one(&prefix(), &names, &given));
        }
    }
    for fw in &rules.forbidden_with {
        if present(&fw.field) && present(&fw.with) {
            return Err(crate::constraint(&prefix(), &fw.message));
        }
    }
    Ok(())
}

impl Typed {
    /// The value as JSON, by its plan type `ty`: what the generated `Call` serializes it as
    /// (an enum as its string, an object's fields in declaration order with the absent ones
    /// left out, then its other keys), and what a union keeps of its accepting branch.
    pub fn into_json(self, ty: &TypePlan) -> Value {
        if let TypePlan::Shape { ty, .. } = ty {
            return self.into_json(ty);
        }
        match (self, ty) {
            (Typed::Int(n), _) => Value::from(n),
            (Typed::Num(n), _) => {
                serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)
            }
            (Typed::Bool(b), _) => Value::Bool(b),
            (Typed::Str(s), _) => Value::String(s),
            (Typed::Enum(i), TypePlan::Enum { values, .. }) => values
                .get(i)
                .map_or(Value::Null, |s| Value::String(s.clone())),
            (Typed::List(items), TypePlan::Array { items: ty, .. }) => {
                Value::Array(items.into_iter().map(|t| t.into_json(ty)).collect())
            }
            (Typed::Record(r), TypePlan::Object { object }) => Value::Object(r.into_json(object)),
            (Typed::Json(v), _) => v,
            // Unbuilt, or a value of another plan type: nothing to render.
            _ => Value::Null,
        }
    }

    /// An enum value as the generated enum's variant (`all` is its `ALL`, in the plan's value
    /// order).
    pub fn variant<T: Copy>(self, all: &[T]) -> Result<T, CallError> {
        match self {
            Typed::Enum(i) => all.get(i).copied().ok_or_else(plan_mismatch),
            _ => Err(plan_mismatch()),
        }
    }

    pub fn record(self) -> Result<Record, CallError> {
        match self {
            Typed::Record(r) => Ok(*r),
            _ => Err(plan_mismatch()),
        }
    }

    /// An array, each item built by `item`.
    pub fn list<T>(
        self,
        item: impl FnMut(Typed) -> Result<T, CallError>,
    ) -> Result<Vec<T>, CallError> {
        match self {
            Typed::List(items) => items.into_iter().map(item).collect(),
            _ => Err(plan_mismatch()),
        }
    }
}

/// The builders' accessors, one per kind: the value when it is of that kind. A value of
/// another kind means the generated types and the plan they were generated with disagree, a
/// bug refused as [`plan_mismatch`].
macro_rules! accessors {
    ($($name:ident -> $t:ty = $variant:ident;)*) => {
        impl Typed {
            $(
                pub fn $name(self) -> Result<$t, CallError> {
                    match self {
                        Typed::$variant(v) => Ok(v),
                        _ => Err(plan_mismatch()),
                    }
                }
            )*
        }
    };
}

accessors! {
    int -> i64 = Int;
    num -> f64 = Num;
    boolean -> bool = Bool;
    string -> String = Str;
    json -> Value = Json;
}

impl Record {
    /// The object as JSON by its plan `object` (see [`Typed::into_json`]).
    pub fn into_json(self, object: &ObjectPlan) -> Map<String, Value> {
        let mut map = Map::with_capacity(object.fields.len() + self.other.len());
        for (f, v) in object.fields.iter().zip(self.fields) {
            if let Some(v) = v {
                map.insert(f.name.clone(), v.into_json(&f.ty));
            }
        }
        map.extend(self.other);
        map
    }
}

/// A required field's value as a builder takes it from [`Record::fields`]' iterator, built by
/// `build`.
pub fn required<T>(
    slot: Option<Option<Typed>>,
    build: impl FnOnce(Typed) -> Result<T, CallError>,
) -> Result<T, CallError> {
    slot.flatten().ok_or_else(plan_mismatch).and_then(build)
}

/// An optional field's value as a builder takes it from [`Record::fields`]' iterator, built by
/// `build` when given.
pub fn optional<T>(
    slot: Option<Option<Typed>>,
    build: impl FnOnce(Typed) -> Result<T, CallError>,
) -> Result<Option<T>, CallError> {
    slot.ok_or_else(plan_mismatch)?.map(build).transpose()
}

/// The refusal of a generated parser whose types disagree with the plan it holds (or whose
/// plan does not load): a toolsurface bug, never a model's mistake; said so rather than
/// panicking.
pub fn plan_mismatch() -> CallError {
    CallError::new(
        CallErrorKind::InvalidValue,
        "internal error: the generated parser and its plan disagree (a toolsurface bug; \
         regenerate the surface)",
    )
}

/// One step from an action's object to a type inside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The object's field at this index.
    Field(usize),
    /// The object's other keys' type.
    Other,
    /// The array's items.
    Items,
}

/// The type at `steps` from `object` (`None` where a step does not fit the plan). A shape's
/// use is its definition: the steps go through it.
fn type_at<'p>(object: &'p ObjectPlan, steps: &[Step]) -> Option<&'p TypePlan> {
    let (first, rest) = steps.split_first()?;
    let mut ty = match first {
        Step::Field(i) => &object.fields.get(*i)?.ty,
        Step::Other => object.additional.as_deref()?,
        Step::Items => return None,
    };
    for step in rest {
        while let TypePlan::Shape { ty: def, .. } = ty {
            ty = def;
        }
        ty = match (step, ty) {
            (Step::Field(i), TypePlan::Object { object }) => &object.fields.get(*i)?.ty,
            (Step::Other, TypePlan::Object { object }) => object.additional.as_deref()?,
            (Step::Items, TypePlan::Array { items, .. }) => items,
            _ => return None,
        };
    }
    Some(ty)
}

/// A tool's plan as a generated module holds it (a static, read from the JSON the generator
/// wrote, on first use), with its patterns compiled once: what the generated `Call::parse`
/// walks.
#[derive(Debug)]
pub struct ToolRules {
    plan: Result<ToolPlan, String>,
    patterns: Patterns,
}

impl ToolRules {
    /// The rules of the tool whose plan is the JSON `json` (a plan that does not load refuses
    /// every call with [`plan_mismatch`]).
    pub fn from_json(json: &str) -> ToolRules {
        let plan = serde_json::from_str::<ToolPlan>(json).map_err(|e| e.to_string());
        let mut patterns = Patterns::default();
        if let Ok(p) = &plan {
            patterns.add_tool(p);
        }
        ToolRules { plan, patterns }
    }

    fn walker(&self, build: Build) -> Walker<'_> {
        Walker {
            patterns: &self.patterns,
            build,
        }
    }

    /// The walk of a call's arguments: the index of its action and the action's fields.
    pub fn walk(&self, obj: Obj<'_>) -> Result<(usize, Record), CallError> {
        let pairs = obj.into_pairs()?;
        let plan = self.plan.as_ref().map_err(|_| plan_mismatch())?;
        self.walker(Build::Typed).tool(plan, &pairs)
    }

    /// The decoder's reading of a value at `steps` inside action `action`'s object: its typed
    /// value, or `None` when the walk would refuse it (the walk then words the refusal).
    pub fn decode_at(&self, action: usize, steps: &[Step], v: Val<'_>) -> Option<Typed> {
        let plan = self.plan.as_ref().ok()?;
        let ty = type_at(&plan.actions.get(action)?.object, steps)?;
        self.walker(Build::Typed).convert(ty, &v, &String::new).ok()
    }
}
