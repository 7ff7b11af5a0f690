//! One IR-driven call checker: the rules of the generated `Call::parse` (name resolution,
//! aliases with their fixed arguments and renames, retired names, who offers what, freeform
//! input, the per-action validating walk) for ANY definitions folder, not only the standard
//! surface build.rs compiles in. It words every refusal with the same functions of
//! `src/private` the generated walks call, so a model, a replayed transcript and `check` all
//! hear the same text.
//!
//! It follows `compiler/src/codegen/tool.rs`'s walk (not its one-pass decoder, which by its own
//! contract answers only what the walk would answer). `tests/adopt_call_check.rs` holds the two
//! together: the parse table of `tests/parse.rs` and proptest-generated calls must get the same
//! accept/refuse, the same error text and the same typed value from both. A change to the
//! generated rules that is not mirrored here fails that test.

use std::collections::HashMap;

use serde_json::{Map, Value};
use toolsurface_compiler::codegen::{and_list, expected_text};
use toolsurface_compiler::ir::{self, Ir, Type};

use crate::private::{self as rt, Arguments, CallError, Pairs, Val};

/// A call the surface accepts: which tool and action it became, through which alias, and its
/// typed arguments as the generated `Call` serializes them (selector first, then the action's
/// fields in declaration order, absent optionals left out).
#[derive(Clone, Debug, PartialEq)]
pub struct Checked<'ir> {
    pub tool: &'ir str,
    pub action: Option<&'ir str>,
    /// The alias name the call used, when it used one.
    pub alias: Option<&'ir str>,
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

/// `Call::parse_in` for one role × family (× active skills) of an IR.
pub struct CallChecker<'ir> {
    ir: &'ir Ir,
    role: &'ir ir::Role,
    family: &'ir ir::Family,
    names: HashMap<&'ir str, Name>,
    /// Per IR tool (same index): its lowered rules.
    tools: Vec<ToolRules<'ir>>,
    /// Per IR tool: resident in this role × family.
    resident: Vec<bool>,
    /// Per IR skill: offered by the role, and which tools it appends here.
    skills: Vec<SkillRules>,
    active_skills: Vec<usize>,
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

impl<'ir> CallChecker<'ir> {
    /// The checker for `role` on `family`, no skill active.
    pub fn new(ir: &'ir Ir, role: &str, family: &str) -> Result<Self, UnknownScope> {
        let unknown = |what, name: &str, all: Vec<&str>| UnknownScope {
            what,
            name: name.to_owned(),
            expected: all.join(", "),
        };
        let role_decl = ir.role(role).ok_or_else(|| {
            unknown(
                "role",
                role,
                ir.roles.iter().map(|r| r.name.as_str()).collect(),
            )
        })?;
        let family_decl = ir.family(family).ok_or_else(|| {
            unknown(
                "family",
                family,
                ir.families.iter().map(|f| f.name.as_str()).collect(),
            )
        })?;
        let index_of = |name: &str| ir.tools.iter().position(|t| t.name == name);
        let mut names = HashMap::new();
        for (i, t) in ir.tools.iter().enumerate() {
            names.insert(t.name.as_str(), Name::Tool(i));
        }
        for (i, a) in ir.aliases.iter().enumerate() {
            if let Some(target) = index_of(&a.tool) {
                names.insert(a.name.as_str(), Name::Alias(i, target));
            }
        }
        for (i, r) in ir.retired.iter().enumerate() {
            names.insert(r.name.as_str(), Name::Retired(i));
        }
        let surface = ir.surface(role, family);
        let flags = |listed: &mut dyn Iterator<Item = &str>| {
            let mut v = vec![false; ir.tools.len()];
            for name in listed {
                if let Some(i) = index_of(name) {
                    v[i] = true;
                }
            }
            v
        };
        let resident = flags(
            &mut surface
                .into_iter()
                .flat_map(|s| s.tools.iter().map(|t| t.name.as_str())),
        );
        let skills = ir
            .skills
            .iter()
            .map(|sk| SkillRules {
                offered_by_role: role_decl.skills.contains(&sk.name),
                tools: flags(
                    &mut surface
                        .into_iter()
                        .flat_map(|s| s.skills.iter())
                        .filter(|si| si.skill == sk.name)
                        .flat_map(|si| si.tools.iter().map(|t| t.name.as_str())),
                ),
            })
            .collect();
        Ok(CallChecker {
            ir,
            role: role_decl,
            family: family_decl,
            names,
            tools: ir.tools.iter().map(ToolRules::new).collect(),
            resident,
            skills,
            active_skills: Vec::new(),
        })
    }

    /// Activate skills (names the IR does not define are reported).
    pub fn with_skills(mut self, skills: &[&str]) -> Result<Self, UnknownScope> {
        for s in skills {
            match self.ir.skills.iter().position(|k| k.name == *s) {
                Some(i) => self.active_skills.push(i),
                None => {
                    return Err(UnknownScope {
                        what: "skill",
                        name: (*s).to_owned(),
                        expected: self
                            .ir
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

    pub fn role(&self) -> &'ir str {
        &self.role.name
    }

    pub fn family(&self) -> &'ir str {
        &self.family.name
    }

    /// Whether a call to the IR tool at `tool` is accepted (resident, or appended by an active
    /// skill the role offers).
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
    ) -> Result<Checked<'ir>, CallError> {
        self.check_with(name, arguments.into(), Build::Typed)
    }

    /// [`CallChecker::check`]'s answer without the typed value (`arguments` is `null`): the
    /// same rules, the same refusals, none of the allocations a typed value takes. What replay
    /// asks of every historical call.
    pub fn verdict<'a>(
        &'a self,
        name: &str,
        arguments: impl Into<Arguments<'a>>,
    ) -> Result<Checked<'ir>, CallError> {
        self.check_with(name, arguments.into(), Build::Nothing)
    }

    fn check_with(
        &self,
        name: &str,
        arguments: Arguments<'_>,
        build: Build,
    ) -> Result<Checked<'ir>, CallError> {
        let (tool_ix, alias) = match self.names.get(name) {
            Some(Name::Tool(i)) => (*i, None),
            Some(Name::Alias(a, target)) => (*target, Some(&self.ir.aliases[*a])),
            Some(Name::Retired(r)) => {
                let r = &self.ir.retired[*r];
                return Err(rt::retired(&r.name, &r.message));
            }
            None => {
                let offered = self
                    .ir
                    .tools
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| self.offers(*i))
                    .map(|(_, t)| t.name.as_str());
                return Err(rt::unknown_tool(name, offered));
            }
        };
        let tool = &self.ir.tools[tool_ix];
        if !self.offers(tool_ix) {
            let skill = self
                .ir
                .skills
                .iter()
                .zip(&self.skills)
                .find(|(_, sk)| sk.offered_by_role && sk.tools[tool_ix])
                .map(|(s, _)| s.name.as_str());
            let activation_tool = self
                .ir
                .tools
                .iter()
                .position(|t| t.name == ir::ACTIVATE_SKILL_TOOL)
                .filter(|ix| self.resident[*ix])
                .map(|ix| self.ir.tools[ix].name.as_str());
            let gate = skill.map(|skill| rt::SkillGate {
                skill,
                activation_tool,
            });
            return Err(rt::not_offered(
                name,
                &self.role.name,
                &self.family.name,
                gate,
            ));
        }
        let freeform_field = tool
            .freeform
            .as_ref()
            .filter(|ff| ff.families.contains(&self.family.name))
            .map(|ff| ff.field.as_str());
        let mut obj = match (freeform_field, arguments.raw_text()) {
            (Some(field), Some(raw)) => rt::freeform(field, raw),
            _ => arguments.object(name)?,
        };
        if let Some(alias) = alias {
            for (from, to) in &alias.rename {
                rt::rename_key(&mut obj, from, to);
            }
            for (key, value) in &alias.set {
                rt::set_key(&mut obj, key, Val::from(value));
            }
        }
        let pairs = obj.into_pairs()?;
        let (action, arguments) = self.tools[tool_ix].parse(pairs, build)?;
        Ok(Checked {
            tool: &tool.name,
            action,
            alias: alias.map(|a| a.name.as_str()),
            arguments,
        })
    }
}

/// A tool lowered for checking: its fields' types (patterns compiled once, expected texts
/// rendered once) and each action's object rules.
struct ToolRules<'ir> {
    selector: Option<&'ir str>,
    /// `poll, wait, kill, …`: what a missing or unknown selector is told.
    expected_actions: String,
    actions: Vec<(Option<&'ir str>, ObjectRules<'ir>)>,
}

impl<'ir> ToolRules<'ir> {
    fn new(tool: &'ir ir::Tool) -> Self {
        let lowered: Vec<(&str, CheckType)> = tool
            .fields
            .iter()
            .map(|f| (f.name.as_str(), CheckType::lower(&f.ty)))
            .collect();
        let selector = tool.selector.as_ref().map(|s| s.name.as_str());
        let actions = tool
            .actions
            .iter()
            .map(|a| {
                let prefix = match (selector, &a.name) {
                    (Some(sel), Some(name)) => format!("{sel}={name}: "),
                    _ => format!("{}: ", tool.name),
                };
                (
                    a.name.as_deref(),
                    ObjectRules::of_action(tool, a, &lowered, prefix, selector),
                )
            })
            .collect();
        ToolRules {
            selector,
            expected_actions: tool
                .actions
                .iter()
                .filter_map(|a| a.name.as_deref())
                .collect::<Vec<_>>()
                .join(", "),
            actions,
        }
    }

    /// The tool's `parse`: the selector, then the chosen action's walk.
    fn parse(
        &self,
        pairs: Pairs<'_>,
        build: Build,
    ) -> Result<(Option<&'ir str>, Value), CallError> {
        let Some(sel) = self.selector else {
            let Some((_, rules)) = self.actions.first() else {
                return Ok((None, Value::Object(Map::new())));
            };
            let map = rules.walk(pairs, &|| rules.prefix.clone(), build)?;
            return Ok((None, Value::Object(map)));
        };
        let expected = &self.expected_actions;
        let index = match pairs.iter().find(|(k, _)| k == sel) {
            None | Some((_, Val::Null)) => {
                return Err(rt::missing_selector(&format!(
                    "missing {sel}: expected one of {expected}"
                )));
            }
            Some((_, v)) => match rt::as_str(v) {
                Some(s) => match self.actions.iter().position(|(n, _)| *n == Some(s)) {
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
        let (name, rules) = &self.actions[index];
        let fields = rules.walk(pairs, &|| rules.prefix.clone(), build)?;
        if build == Build::Nothing {
            return Ok((*name, Value::Null));
        }
        let mut map = Map::with_capacity(fields.len() + 1);
        map.insert(
            sel.to_owned(),
            Value::String(name.unwrap_or_default().to_owned()),
        );
        map.extend(fields);
        Ok((*name, Value::Object(map)))
    }
}

/// What one object walk accepts: an action's arguments or a nested object's members.
struct ObjectRules<'ir> {
    /// `action=wait: ` / `read_file: ` (nested objects get theirs at run time).
    prefix: String,
    selector: Option<&'ir str>,
    /// Declaration order, filtered to what this object takes.
    fields: Vec<WalkField>,
    /// Field names, for `expected one of …` and did-you-mean.
    accepted: Vec<String>,
    /// Fields other actions take: (field, `poll, wait and kill`).
    belongs: Vec<(String, String)>,
    exactly_one_of: Vec<Vec<String>>,
    forbidden_with: Vec<ir::Forbidden>,
}

struct WalkField {
    name: String,
    ty: CheckType,
    required: bool,
}

impl<'ir> ObjectRules<'ir> {
    fn of_action(
        tool: &ir::Tool,
        action: &ir::Action,
        lowered: &[(&str, CheckType)],
        prefix: String,
        selector: Option<&'ir str>,
    ) -> Self {
        let fields: Vec<WalkField> = lowered
            .iter()
            .filter(|(name, _)| action.uses(name))
            .map(|(name, ty)| WalkField {
                name: (*name).to_owned(),
                ty: ty.clone(),
                required: action.is_required(name),
            })
            .collect();
        let belongs = tool
            .fields
            .iter()
            .filter(|f| !action.uses(&f.name))
            .map(|f| (f.name.clone(), and_list(&tool.actions_using(&f.name))))
            .filter(|(_, to)| !to.is_empty())
            .collect();
        ObjectRules {
            prefix,
            selector,
            accepted: fields.iter().map(|f| f.name.clone()).collect(),
            fields,
            belongs,
            exactly_one_of: action.exactly_one_of.clone(),
            forbidden_with: action.forbidden_with.clone(),
        }
    }

    fn of_object(properties: &[ir::Property]) -> Self {
        let fields: Vec<WalkField> = properties
            .iter()
            .map(|p| WalkField {
                name: p.name.clone(),
                ty: CheckType::lower(&p.ty),
                required: p.required,
            })
            .collect();
        ObjectRules {
            prefix: String::new(),
            selector: None,
            accepted: fields.iter().map(|f| f.name.clone()).collect(),
            fields,
            belongs: Vec::new(),
            exactly_one_of: Vec::new(),
            forbidden_with: Vec::new(),
        }
    }

    /// The generated `walk`: every key checked against the accepted fields (null = absent; a
    /// null for a field another action takes is let through), values converted, then required
    /// fields (declaration order), `exactly_one_of` groups, `forbidden_with` rules.
    fn walk(
        &self,
        pairs: Pairs<'_>,
        prefix: &dyn Fn() -> String,
        build: Build,
    ) -> Result<Map<String, Value>, CallError> {
        let mut values: Vec<Option<Value>> = vec![None; self.fields.len()];
        let mut selector_seen = false;
        for (key, v) in pairs {
            if Some(&*key) == self.selector {
                if selector_seen {
                    return Err(rt::duplicate(&prefix(), &key));
                }
                selector_seen = true;
                continue;
            }
            if let Some(i) = self.fields.iter().position(|f| f.name == *key) {
                if v.is_null() {
                    continue;
                }
                let f = &self.fields[i];
                if values[i].is_some() {
                    return Err(rt::duplicate(&prefix(), &f.name));
                }
                let path = || format!("{}{}", prefix(), f.name);
                values[i] = Some(f.ty.convert(v, &path, build)?);
                continue;
            }
            if !self.belongs.is_empty()
                && v.is_null()
                && self.belongs.iter().any(|(f, _)| *f == *key)
            {
                continue;
            }
            let accepted: Vec<&str> = self.accepted.iter().map(String::as_str).collect();
            let belongs: Vec<(&str, &str)> = self
                .belongs
                .iter()
                .map(|(f, to)| (f.as_str(), to.as_str()))
                .collect();
            return Err(rt::unexpected_field(&prefix(), &key, &accepted, &belongs));
        }
        for (f, v) in self.fields.iter().zip(&values) {
            if f.required && v.is_none() {
                return Err(rt::missing(&prefix(), &f.name));
            }
        }
        // As the walk counts a field given: a required one always is; for forbidden_with a
        // boolean set to false asks for nothing.
        let present = |field: &str, bool_false_absent: bool| -> bool {
            match self
                .fields
                .iter()
                .zip(&values)
                .find(|(f, _)| f.name == field)
            {
                Some((f, _)) if f.required => true,
                Some((f, v)) if bool_false_absent && matches!(f.ty, CheckType::Bool) => {
                    matches!(v, Some(Value::Bool(true)))
                }
                Some((_, v)) => v.is_some(),
                None => false,
            }
        };
        for group in &self.exactly_one_of {
            let names: Vec<&str> = group.iter().map(String::as_str).collect();
            let given: Vec<&str> = names
                .iter()
                .copied()
                .filter(|n| present(n, false))
                .collect();
            if given.len() != 1 {
                return Err(rt::exactly_one(&prefix(), &names, &given));
            }
        }
        for fw in &self.forbidden_with {
            if present(&fw.field, true) && present(&fw.with, true) {
                return Err(rt::constraint(&prefix(), &fw.message));
            }
        }
        if build == Build::Nothing {
            return Ok(Map::new());
        }
        let mut map = Map::with_capacity(self.fields.len());
        for (f, v) in self.fields.iter().zip(values) {
            if let Some(v) = v {
                map.insert(f.name.clone(), v);
            }
        }
        Ok(map)
    }
}

/// Whether a check builds the typed value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Build {
    Typed,
    Nothing,
}

/// A field type as the walk checks it.
#[derive(Clone)]
enum CheckType {
    Str {
        min: Option<u64>,
        max: Option<u64>,
        /// `Some(None)`: a pattern that does not compile (every value refused, as generated).
        pattern: Option<Option<regex::Regex>>,
        expected: String,
    },
    Int {
        min: Option<i64>,
        max: Option<i64>,
        expected: String,
    },
    Num {
        min: Option<f64>,
        max: Option<f64>,
        expected: String,
    },
    Bool,
    Enum {
        values: Vec<String>,
        expected: String,
    },
    Array {
        items: Box<CheckType>,
        min: Option<u64>,
        max: Option<u64>,
        expected: String,
    },
    Object(std::sync::Arc<ObjectRules<'static>>),
}

impl CheckType {
    fn lower(ty: &Type) -> CheckType {
        let expected = expected_text(ty);
        match ty {
            Type::String {
                min_length,
                max_length,
                pattern,
            } => CheckType::Str {
                min: *min_length,
                max: *max_length,
                pattern: pattern.as_ref().map(|p| regex::Regex::new(p).ok()),
                expected,
            },
            Type::Integer { minimum, maximum } => CheckType::Int {
                min: *minimum,
                max: *maximum,
                expected,
            },
            Type::Number { minimum, maximum } => CheckType::Num {
                min: *minimum,
                max: *maximum,
                expected,
            },
            Type::Boolean => CheckType::Bool,
            Type::Enum { values } => CheckType::Enum {
                values: values.clone(),
                expected,
            },
            Type::Array {
                items,
                min_items,
                max_items,
            } => CheckType::Array {
                items: Box::new(CheckType::lower(items)),
                min: *min_items,
                max: *max_items,
                expected,
            },
            Type::Object { properties } => {
                CheckType::Object(std::sync::Arc::new(ObjectRules::of_object(properties)))
            }
        }
    }

    /// The generated `convert`: the typed value, or `<path>: expected <…>, got <value>`.
    /// With [`Build::Nothing`], strings, arrays and objects are checked but not copied (a
    /// `null` stands for them; booleans are kept, `forbidden_with` reads them).
    fn convert(
        &self,
        v: Val<'_>,
        path: &dyn Fn() -> String,
        build: Build,
    ) -> Result<Value, CallError> {
        let typed = build == Build::Typed;
        let refuse = |expected: &str, v: &Val<'_>| {
            Err(rt::invalid(&format!("{}: expected {expected}", path()), v))
        };
        match self {
            CheckType::Int { min, max, expected } => match rt::as_int(&v) {
                Some(n) if min.is_none_or(|a| n >= a) && max.is_none_or(|b| n <= b) => {
                    Ok(Value::from(n))
                }
                _ => refuse(expected, &v),
            },
            CheckType::Num { min, max, expected } => match rt::as_num(&v) {
                Some(n) if min.is_none_or(|a| n >= a) && max.is_none_or(|b| n <= b) => {
                    Ok(serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number))
                }
                _ => refuse(expected, &v),
            },
            CheckType::Bool => match rt::as_bool(&v) {
                Some(b) => Ok(Value::Bool(b)),
                None => refuse("true or false", &v),
            },
            CheckType::Str {
                min,
                max,
                pattern,
                expected,
            } => match rt::as_str(&v) {
                Some(s)
                    if (min.is_none() && max.is_none()
                        || rt::chars_within(s, min.unwrap_or(0), max.unwrap_or(u64::MAX)))
                        && pattern.as_ref().is_none_or(|re| rt::matches(re, s)) =>
                {
                    Ok(if typed {
                        Value::String(rt::into_string(v))
                    } else {
                        Value::Null
                    })
                }
                _ => refuse(expected, &v),
            },
            CheckType::Enum { values, expected } => match rt::as_str(&v) {
                Some(s) if values.iter().any(|x| x == s) => Ok(if typed {
                    Value::String(s.to_owned())
                } else {
                    Value::Null
                }),
                _ => refuse(expected, &v),
            },
            CheckType::Array {
                items,
                min,
                max,
                expected,
            } => {
                let lo = min.unwrap_or(0) as usize;
                let hi = max.map_or(usize::MAX, |m| m as usize);
                match v {
                    Val::Arr(list) if (lo..=hi).contains(&list.len()) => {
                        let mut out = Vec::with_capacity(if typed { list.len() } else { 0 });
                        for (i, item) in list.into_iter().enumerate() {
                            let item =
                                items.convert(item, &|| format!("{}[{i}]", path()), build)?;
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
                    v => refuse(expected, &v),
                }
            }
            CheckType::Object(rules) => match v {
                Val::Obj(members) => Ok(Value::Object(rules.walk(
                    members,
                    &|| format!("{}: ", path()),
                    build,
                )?)),
                v => refuse("an object", &v),
            },
        }
    }
}
