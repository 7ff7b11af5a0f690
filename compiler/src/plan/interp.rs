//! The plan interpreter: the rules of the generated `Call::parse` (name resolution, aliases
//! with their fixed arguments and renames, retired names, who offers what, freeform input, the
//! per-action validating walk) for ANY definitions folder, read from its [`Plan`]. It words
//! every refusal with the kernel's functions (`toolsurface-kernel`), the ones the generated
//! walks call, so a model, a replayed transcript, `check`'s example check and the conformance
//! corpus all hear the same text.
//!
//! The generated code's validating walk follows the same rules (its one-pass decoder, by its
//! own contract, answers only what the walk would answer). `tests/adopt_call_check.rs` holds
//! the two together on the standard surface and on folders with nested objects, arrays of
//! objects and every constraint kind: the same accept/refuse, error text and typed value.

use std::collections::HashMap;

use serde_json::{Map, Value};
use toolsurface_kernel::{self as rt, Arguments, CallError, Obj, Pairs, Val, to_json};

use super::{MemberPlan, ObjectPlan, Plan, Presence, RolePlan, SurfacePlan, ToolPlan, TypePlan};

/// A call the surface accepts: which tool and action it became, through which alias, and its
/// typed arguments as the generated `Call` serializes them (selector first, then the action's
/// fields in declaration order, absent optionals left out).
#[derive(Clone, Debug, PartialEq)]
pub struct Checked<'p> {
    pub tool: &'p str,
    pub action: Option<&'p str>,
    /// The alias name the call used, when it used one.
    pub alias: Option<&'p str>,
    pub arguments: Value,
}

impl Checked<'_> {
    /// `{"name": tool, "arguments": {…}}`, byte for byte what `serde_json::to_string` of the
    /// generated `Call` prints.
    pub fn to_call_json(&self) -> String {
        let mut m = Map::new();
        m.insert("name".to_owned(), Value::String(self.tool.to_owned()));
        m.insert("arguments".to_owned(), self.arguments.clone());
        Value::Object(m).to_string()
    }
}

/// The role or family asked for is not in the definitions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownScope {
    pub what: &'static str,
    pub name: String,
    pub expected: String,
}

impl std::fmt::Display for UnknownScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown {} {} (expected one of {})",
            self.what, self.name, self.expected
        )
    }
}

impl std::error::Error for UnknownScope {}

/// `Call::parse_in` for one role × family (× active skills) of a plan.
pub struct CallChecker<'p> {
    plan: &'p Plan,
    role: &'p RolePlan,
    surface: &'p SurfacePlan,
    names: HashMap<&'p str, Name>,
    /// Per plan tool (same index): resident in this role × family.
    resident: Vec<bool>,
    /// Per plan skill: offered by the role, and which tools it makes callable here.
    skills: Vec<SkillRules>,
    active_skills: Vec<usize>,
    /// Every string pattern of the plan, compiled once (`None`: it does not compile, and every
    /// value is refused, as generated).
    patterns: HashMap<&'p str, Option<regex::Regex>>,
}

#[derive(Clone, Copy)]
enum Name {
    Tool(usize),
    Alias(usize, usize),
    Retired(usize),
}

struct SkillRules {
    offered_by_role: bool,
    tools: Vec<bool>,
}

impl<'p> CallChecker<'p> {
    /// The checker for `role` on `family`, no skill active.
    pub fn new(plan: &'p Plan, role: &str, family: &str) -> Result<Self, UnknownScope> {
        let unknown = |what, name: &str, all: Vec<&str>| UnknownScope {
            what,
            name: name.to_owned(),
            expected: all.join(", "),
        };
        let role_decl = plan.roles.iter().find(|r| r.name == role).ok_or_else(|| {
            unknown(
                "role",
                role,
                plan.roles.iter().map(|r| r.name.as_str()).collect(),
            )
        })?;
        let surface = plan
            .surfaces
            .iter()
            .find(|s| s.role == role && s.family == family)
            .ok_or_else(|| {
                unknown(
                    "family",
                    family,
                    plan.families.iter().map(|f| f.name.as_str()).collect(),
                )
            })?;
        let index_of = |name: &str| plan.tools.iter().position(|t| t.name == name);
        let mut names = HashMap::new();
        for (i, t) in plan.tools.iter().enumerate() {
            names.insert(t.name.as_str(), Name::Tool(i));
        }
        for (i, a) in plan.aliases.iter().enumerate() {
            if let Some(target) = index_of(&a.tool) {
                names.insert(a.name.as_str(), Name::Alias(i, target));
            }
        }
        for (i, r) in plan.retired.iter().enumerate() {
            names.insert(r.name.as_str(), Name::Retired(i));
        }
        let flags = |listed: &mut dyn Iterator<Item = &str>| {
            let mut v = vec![false; plan.tools.len()];
            for name in listed {
                if let Some(i) = index_of(name) {
                    v[i] = true;
                }
            }
            v
        };
        let resident = flags(&mut surface.resident.iter().map(String::as_str));
        let skills = plan
            .skills
            .iter()
            .map(|sk| SkillRules {
                offered_by_role: role_decl.skills.contains(&sk.name),
                tools: flags(
                    &mut surface
                        .skills
                        .iter()
                        .filter(|si| si.skill == sk.name)
                        .flat_map(|si| si.tools.iter().map(String::as_str)),
                ),
            })
            .collect();
        Ok(CallChecker {
            plan,
            role: role_decl,
            surface,
            names,
            resident,
            skills,
            active_skills: Vec::new(),
            patterns: compile_patterns(plan),
        })
    }

    /// Activate skills (names the plan does not define are reported).
    pub fn with_skills(mut self, skills: &[&str]) -> Result<Self, UnknownScope> {
        for s in skills {
            match self.plan.skills.iter().position(|k| k.name == *s) {
                Some(i) => self.active_skills.push(i),
                None => {
                    return Err(UnknownScope {
                        what: "skill",
                        name: (*s).to_owned(),
                        expected: self
                            .plan
                            .skills
                            .iter()
                            .map(|k| k.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                    });
                }
            }
        }
        Ok(self)
    }

    pub fn role(&self) -> &'p str {
        &self.role.name
    }

    pub fn family(&self) -> &'p str {
        &self.surface.family
    }

    /// Whether a call to the plan tool at `tool` is accepted (resident, or made callable by an
    /// active skill the role offers).
    fn offers(&self, tool: usize) -> bool {
        self.resident[tool]
            || self.active_skills.iter().any(|s| {
                let sk = &self.skills[*s];
                sk.offered_by_role && sk.tools[tool]
            })
    }

    /// Parse one call exactly as the generated `Call::parse_in` would for this scope.
    pub fn check<'a>(
        &'a self,
        name: &str,
        arguments: impl Into<Arguments<'a>>,
    ) -> Result<Checked<'p>, CallError> {
        self.check_with(name, arguments.into(), Build::Typed)
    }

    /// [`CallChecker::check`]'s answer without the typed value (`arguments` is `null`): the
    /// same rules, the same refusals, none of the allocations a typed value takes. What replay
    /// asks of every historical call.
    pub fn verdict<'a>(
        &'a self,
        name: &str,
        arguments: impl Into<Arguments<'a>>,
    ) -> Result<Checked<'p>, CallError> {
        self.check_with(name, arguments.into(), Build::Nothing)
    }

    /// [`CallChecker::verdict`] of a JSON arguments `text` that several checkers judge (replay's
    /// `--to` and `--from`): `members` reads its members once (`Obj::into_pairs` of the text,
    /// kept by the caller) and each checker that gets that far takes a copy, instead of each
    /// reading the text again. The same answers as `verdict(name, text)`.
    pub fn verdict_shared<'a>(
        &self,
        name: &str,
        text: &'a str,
        members: &dyn Fn() -> &'a Result<Pairs<'a>, CallError>,
    ) -> Result<Checked<'p>, CallError> {
        let obj = || members().as_ref().map(Given::Shared).map_err(Clone::clone);
        self.check_obj(name, Some(text), &obj, Build::Nothing)
    }

    /// The refusal of a known tool this scope does not offer (a skill gate, or not offered).
    fn not_offered(&self, name: &str, tool_ix: usize) -> CallError {
        let skill = self
            .plan
            .skills
            .iter()
            .zip(&self.skills)
            .find(|(_, sk)| sk.offered_by_role && sk.tools[tool_ix])
            .map(|(s, _)| s.name.as_str());
        let activation_tool = self
            .plan
            .tools
            .iter()
            .position(|t| t.name == self.plan.activation_tool)
            .filter(|ix| self.resident[*ix])
            .map(|ix| self.plan.tools[ix].name.as_str());
        let gate = skill.map(|skill| rt::SkillGate {
            skill,
            activation_tool,
        });
        rt::not_offered(name, &self.role.name, &self.surface.family, gate)
    }

    fn check_with(
        &self,
        name: &str,
        arguments: Arguments<'_>,
        build: Build,
    ) -> Result<Checked<'p>, CallError> {
        self.check_obj(
            name,
            arguments.raw_text(),
            &|| arguments.object(name).map(Given::Owned),
            build,
        )
    }

    /// The check, given the raw text (for a freeform tool) and the arguments object.
    fn check_obj<'x, 'y>(
        &self,
        name: &str,
        raw_text: Option<&'x str>,
        object: &dyn Fn() -> Result<Given<'x, 'y>, CallError>,
        build: Build,
    ) -> Result<Checked<'p>, CallError> {
        let (tool_ix, alias) = match self.names.get(name) {
            Some(Name::Tool(i)) => (*i, None),
            Some(Name::Alias(a, target)) => (*target, Some(&self.plan.aliases[*a])),
            Some(Name::Retired(r)) => {
                let r = &self.plan.retired[*r];
                return Err(rt::retired(&r.name, &r.message));
            }
            None => {
                let offered = self
                    .plan
                    .tools
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| self.offers(*i))
                    .map(|(_, t)| t.name.as_str());
                return Err(rt::unknown_tool(name, offered));
            }
        };
        let tool = &self.plan.tools[tool_ix];
        if !self.offers(tool_ix) {
            return Err(self.not_offered(name, tool_ix));
        }
        let freeform_field = tool
            .freeform
            .as_ref()
            .filter(|ff| ff.families.contains(&self.surface.family))
            .map(|ff| ff.field.as_str());
        let given = match (freeform_field, raw_text) {
            (Some(field), Some(raw)) => Given::Owned(rt::freeform(field, raw)),
            _ => object()?,
        };
        // Members shared with another checker are walked where they are, unless an alias
        // edits them (then on a copy, as before).
        let owned;
        let pairs: &Pairs<'_> = match given {
            Given::Shared(p) if alias.is_none() => p,
            given => {
                let mut obj = match given {
                    Given::Owned(o) => o,
                    Given::Shared(p) => Obj::from(p.clone()),
                };
                if let Some(alias) = alias {
                    for (from, to) in &alias.rename {
                        rt::rename_key(&mut obj, from, to);
                    }
                    for (key, value) in &alias.set {
                        rt::set_key(&mut obj, key, Val::from(value));
                    }
                }
                owned = obj.into_pairs()?;
                &owned
            }
        };
        let walker = Walker {
            patterns: &self.patterns,
            build,
        };
        let (action, arguments) = walker.tool(tool, pairs)?;
        Ok(Checked {
            tool: &tool.name,
            action,
            alias: alias.map(|a| a.name.as_str()),
            arguments,
        })
    }
}

/// The arguments object a check is handed: its own, or members read once and shared by several
/// checkers ([`CallChecker::verdict_shared`]), walked without a copy.
enum Given<'x, 'y> {
    Owned(Obj<'x>),
    Shared(&'y Pairs<'x>),
}

/// Every pattern of the plan's string types, compiled once.
fn compile_patterns(plan: &Plan) -> HashMap<&str, Option<regex::Regex>> {
    fn visit<'p>(ty: &'p TypePlan, out: &mut HashMap<&'p str, Option<regex::Regex>>) {
        match ty {
            TypePlan::String {
                pattern: Some(p), ..
            } => {
                out.entry(p.as_str())
                    .or_insert_with(|| regex::Regex::new(p).ok());
            }
            TypePlan::Array { items, .. } => visit(items, out),
            TypePlan::Object { object } => visit_object(object, out),
            TypePlan::Union { branches, .. } => {
                for b in branches {
                    visit(b, out);
                }
            }
            _ => {}
        }
    }
    // An object's fields and its other keys' type.
    fn visit_object<'p>(object: &'p ObjectPlan, out: &mut HashMap<&'p str, Option<regex::Regex>>) {
        for f in &object.fields {
            visit(&f.ty, out);
        }
        if let Some(other) = &object.additional {
            visit(other, out);
        }
    }
    let mut out = HashMap::new();
    for t in &plan.tools {
        for a in &t.actions {
            visit_object(&a.object, &mut out);
        }
    }
    out
}

/// Whether a check builds the typed value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Build {
    Typed,
    Nothing,
}

/// One call's walk over the plan's rules.
struct Walker<'c, 'p> {
    patterns: &'c HashMap<&'p str, Option<regex::Regex>>,
    build: Build,
}

impl<'p> Walker<'_, 'p> {
    /// The tool's `parse`: the selector, then the chosen action's walk.
    fn tool(
        &self,
        tool: &'p ToolPlan,
        pairs: &Pairs<'_>,
    ) -> Result<(Option<&'p str>, Value), CallError> {
        let Some(sel) = tool.selector.as_deref() else {
            let Some(action) = tool.actions.first() else {
                return Ok((None, Value::Object(Map::new())));
            };
            let map = self.object(&action.object, None, pairs, &|| action.prefix.clone())?;
            return Ok((None, Value::Object(map)));
        };
        let expected = &tool.expected_actions;
        let index = match pairs.iter().find(|(k, _)| k == sel) {
            None | Some((_, Val::Null)) => {
                return Err(rt::missing_selector(&format!(
                    "missing {sel}: expected one of {expected}"
                )));
            }
            Some((_, v)) => match rt::as_str(v) {
                Some(s) => match tool
                    .actions
                    .iter()
                    .position(|a| a.name.as_deref() == Some(s))
                {
                    Some(i) => i,
                    None => return Err(rt::unknown_action(sel, s, expected)),
                },
                None => {
                    return Err(rt::invalid(
                        &format!("{sel}: expected one of {expected}"),
                        v,
                    ));
                }
            },
        };
        let action = &tool.actions[index];
        let name = action.name.as_deref();
        let fields = self.object(&action.object, Some(sel), pairs, &|| action.prefix.clone())?;
        if self.build == Build::Nothing {
            return Ok((name, Value::Null));
        }
        let mut map = Map::with_capacity(fields.len() + 1);
        map.insert(
            sel.to_owned(),
            Value::String(name.unwrap_or_default().to_owned()),
        );
        map.extend(fields);
        Ok((name, Value::Object(map)))
    }

    /// The walk of [`ObjectPlan`]: every key checked against the fields (null = absent; a null
    /// for a field another action takes is let through), values converted, then required
    /// fields (declaration order), `exactly_one_of` groups, `forbidden_with` rules.
    fn object(
        &self,
        rules: &ObjectPlan,
        selector: Option<&str>,
        pairs: &Pairs<'_>,
        prefix: &dyn Fn() -> String,
    ) -> Result<Map<String, Value>, CallError> {
        let mut values: Vec<Option<Value>> = vec![None; rules.fields.len()];
        // An open object's other keys, in input order.
        let mut extra: Vec<(&str, Value)> = Vec::new();
        let mut selector_seen = false;
        for (key, v) in pairs {
            let key: &str = key;
            if Some(key) == selector {
                if selector_seen {
                    return Err(rt::duplicate(&prefix(), key));
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
                    return Err(rt::duplicate(&prefix(), &f.name));
                }
                let path = || format!("{}{}", prefix(), f.name);
                values[i] = Some(self.convert(&f.ty, v, &path)?);
                continue;
            }
            if v.is_null() && rules.belongs.iter().any(|b| b.field == key) {
                continue;
            }
            if let Some(other) = rules.additional.as_deref() {
                if v.is_null() {
                    continue;
                }
                if extra.iter().any(|(k, _)| *k == key) {
                    return Err(rt::duplicate(&prefix(), key));
                }
                let path = || format!("{}{key}", prefix());
                let x = self.convert(other, v, &path)?;
                extra.push((key, x));
                continue;
            }
            let accepted: Vec<&str> = rules.fields.iter().map(|f| f.name.as_str()).collect();
            let belongs: Vec<(&str, &str)> = rules
                .belongs
                .iter()
                .map(|b| (b.field.as_str(), b.actions.as_str()))
                .collect();
            return Err(rt::unexpected_field(&prefix(), key, &accepted, &belongs));
        }
        constraints(rules, &values, prefix)?;
        if self.build == Build::Nothing {
            return Ok(Map::new());
        }
        let mut map = Map::with_capacity(rules.fields.len() + extra.len());
        for (f, v) in rules.fields.iter().zip(values) {
            if let Some(v) = v {
                map.insert(f.name.clone(), v);
            }
        }
        for (k, v) in extra {
            map.insert(k.to_owned(), v);
        }
        Ok(map)
    }

    /// An array's items, each converted (item `i` is reported as `<path>[i]`).
    fn items(
        &self,
        items: &TypePlan,
        list: &[Val<'_>],
        path: &dyn Fn() -> String,
    ) -> Result<Value, CallError> {
        let typed = self.build == Build::Typed;
        let mut out = Vec::with_capacity(if typed { list.len() } else { 0 });
        for (i, item) in list.iter().enumerate() {
            let item = self.convert(items, item, &|| format!("{}[{i}]", path()))?;
            if typed {
                out.push(item);
            }
        }
        Ok(if typed {
            Value::Array(out)
        } else {
            Value::Null
        })
    }

    /// The generated `convert`: the typed value, or `<path>: expected <…>, got <value>`.
    /// With [`Build::Nothing`], strings, arrays and objects are checked but not copied (a
    /// `null` stands for them; booleans are kept, `forbidden_with` reads them).
    fn convert(
        &self,
        ty: &TypePlan,
        v: &Val<'_>,
        path: &dyn Fn() -> String,
    ) -> Result<Value, CallError> {
        let typed = self.build == Build::Typed;
        let refuse = |expected: &str, v: &Val<'_>| refusal(path, expected, v);
        match ty {
            TypePlan::Integer {
                minimum,
                maximum,
                expected,
            } => match rt::as_int(v) {
                Some(n) if minimum.is_none_or(|a| n >= a) && maximum.is_none_or(|b| n <= b) => {
                    Ok(Value::from(n))
                }
                _ => refuse(expected, v),
            },
            TypePlan::Number {
                minimum,
                maximum,
                expected,
            } => match rt::as_num(v) {
                Some(n) if minimum.is_none_or(|a| n >= a) && maximum.is_none_or(|b| n <= b) => {
                    Ok(serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number))
                }
                _ => refuse(expected, v),
            },
            TypePlan::Boolean => match rt::as_bool(v) {
                Some(b) => Ok(Value::Bool(b)),
                None => refuse("true or false", v),
            },
            TypePlan::String {
                min_length,
                max_length,
                pattern,
                expected,
            } => match rt::as_str(v) {
                Some(s)
                    if (min_length.is_none() && max_length.is_none()
                        || rt::chars_within(
                            s,
                            min_length.unwrap_or(0),
                            max_length.unwrap_or(u64::MAX),
                        ))
                        && pattern.as_deref().is_none_or(|p| {
                            rt::matches(self.patterns.get(p).unwrap_or(&None), s)
                        }) =>
                {
                    Ok(if typed {
                        Value::String(s.to_owned())
                    } else {
                        Value::Null
                    })
                }
                _ => refuse(expected, v),
            },
            TypePlan::Enum { values, expected } => match rt::as_str(v) {
                Some(s) if values.iter().any(|x| x == s) => Ok(if typed {
                    Value::String(s.to_owned())
                } else {
                    Value::Null
                }),
                _ => refuse(expected, v),
            },
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
                Val::Obj(members) => Ok(Value::Object(self.object(
                    object,
                    None,
                    members,
                    &|| format!("{}: ", path()),
                )?)),
                v => refuse("an object", v),
            },
            TypePlan::Any | TypePlan::Null | TypePlan::Const { .. } | TypePlan::Union { .. } => {
                self.convert_json(ty, v, path)
            }
        }
    }

    /// [`Self::convert`] for the kinds whose typed value is the JSON value itself: any, null,
    /// const, unions (the first accepting branch's value; `one`: a second is refused).
    fn convert_json(
        &self,
        ty: &TypePlan,
        v: &Val<'_>,
        path: &dyn Fn() -> String,
    ) -> Result<Value, CallError> {
        let typed = self.build == Build::Typed;
        let refuse = |expected: &str, v: &Val<'_>| refusal(path, expected, v);
        match ty {
            TypePlan::Any => Ok(if typed {
                to_json(v.clone())
            } else {
                Value::Null
            }),
            TypePlan::Null => match v {
                Val::Null => Ok(Value::Null),
                v => refuse("null", v),
            },
            TypePlan::Const { value, expected } => {
                if super::json_equal(&to_json(v.clone()), value) {
                    Ok(value.clone())
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
                let mut accepted = None;
                for b in branches {
                    let Ok(x) = self.convert(b, v, path) else {
                        continue;
                    };
                    if accepted.is_some() {
                        return refuse(ambiguous, v);
                    }
                    accepted = Some(x);
                    if !one {
                        break;
                    }
                }
                match accepted {
                    Some(x) => Ok(x),
                    None => refuse(expected, v),
                }
            }
            _ => self.convert(ty, v, path),
        }
    }
}

/// `<path>: expected <expected>, got <value>`.
fn refusal(path: &dyn Fn() -> String, expected: &str, v: &Val<'_>) -> Result<Value, CallError> {
    Err(rt::invalid(&format!("{}: expected {expected}", path()), v))
}

/// After an object's walk: each required field (declaration order), each `exactly_one_of`
/// group, each `forbidden_with` rule, on the values found.
fn constraints(
    rules: &ObjectPlan,
    values: &[Option<Value>],
    prefix: &dyn Fn() -> String,
) -> Result<(), CallError> {
    for (f, v) in rules.fields.iter().zip(values.iter()) {
        if f.required && v.is_none() {
            return Err(rt::missing(&prefix(), &f.name));
        }
    }
    let present = |m: &MemberPlan| -> bool {
        let value = || {
            rules
                .fields
                .iter()
                .zip(values.iter())
                .find(|(f, _)| f.name == m.field)
                .and_then(|(_, v)| v.as_ref())
        };
        match m.presence {
            Presence::Always => true,
            Presence::Never => false,
            Presence::Given => value().is_some(),
            Presence::True => matches!(value(), Some(Value::Bool(true))),
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
            return Err(rt::exactly_one(&prefix(), &names, &given));
        }
    }
    for fw in &rules.forbidden_with {
        if present(&fw.field) && present(&fw.with) {
            return Err(rt::constraint(&prefix(), &fw.message));
        }
    }
    Ok(())
}
