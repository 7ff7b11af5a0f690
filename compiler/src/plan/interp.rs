//! The plan interpreter: the rules of the generated `Call::parse` (name resolution, aliases
//! with their fixed arguments and renames, retired names, who offers what, freeform input, the
//! per-action validating walk) for ANY definitions folder, read from its [`Plan`]. It words
//! every refusal with the kernel's functions (`toolsurface-kernel`), the ones the generated
//! walks call, so a model, a replayed transcript, `check`'s example check and the conformance
//! corpus all hear the same text.
//!
//! The arguments are walked by the kernel's one walk (`toolsurface_kernel::walk`), the one the
//! generated `Call::parse` runs over its static copy of each tool's plan; what generated code
//! adds, its one-pass decoder, by its own contract answers only what the walk would answer.
//! `tests/adopt_call_check.rs` and the conformance corpus hold the two together on the standard
//! surface and on folders with nested objects, arrays of objects and every constraint kind:
//! the same accept/refuse, error text and typed value.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use serde_json::{Map, Value};
use toolsurface_kernel::walk::{Build, Patterns, Record, Walker};
use toolsurface_kernel::{self as rt, Arguments, CallError, Obj, Pairs, Val};

use super::{Plan, RolePlan, SurfacePlan, ToolPlan};

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
    /// Every name a call may use (looked up once per call: FNV-1a, see [`Fnv`]).
    names: HashMap<&'p str, Name, BuildHasherDefault<Fnv>>,
    /// Per plan tool (same index): resident in this role × family.
    resident: Vec<bool>,
    /// Per plan skill: offered by the role, and which tools it makes callable here.
    skills: Vec<SkillRules>,
    active_skills: Vec<usize>,
    /// Every string pattern of the plan, compiled once.
    patterns: Patterns,
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
        // A later kind wins a name (an alias over a tool, a retired name over both).
        let mut names = HashMap::default();
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
        let (action, record) = walker.tool(tool, pairs)?;
        Ok(Checked {
            tool: &tool.name,
            action: tool.actions.get(action).and_then(|a| a.name.as_deref()),
            alias: alias.map(|a| a.name.as_str()),
            arguments: arguments(tool, action, record, build),
        })
    }
}

/// FNV-1a over a name's bytes: a call names its tool in a few bytes, where SipHash's setup
/// and finalization cost more than the name (replay looks one up per historical call). The
/// names are the definitions'; a crafted transcript could at worst slow its own replay.
#[derive(Default)]
struct Fnv(u64);

impl Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// The arguments object a check is handed: its own, or members read once and shared by several
/// checkers ([`CallChecker::verdict_shared`]), walked without a copy.
enum Given<'x, 'y> {
    Owned(Obj<'x>),
    Shared(&'y Pairs<'x>),
}

/// Every pattern of the plan's string types, compiled once.
fn compile_patterns(plan: &Plan) -> Patterns {
    let mut patterns = Patterns::default();
    for t in &plan.tools {
        patterns.add_tool(t);
    }
    patterns
}

/// The arguments a checker answers with: with [`Build::Nothing`] `null` for a tool with a
/// selector, `{}` for a plain one; else the typed call as JSON, the selector first.
fn arguments(tool: &ToolPlan, action: usize, record: Record, build: Build) -> Value {
    let Some(action_plan) = tool.actions.get(action) else {
        return Value::Object(Map::new());
    };
    let fields = match build {
        Build::Nothing => Map::new(),
        Build::Typed => record.into_json(&action_plan.object),
    };
    let Some(sel) = tool.selector.as_deref() else {
        return Value::Object(fields);
    };
    if build == Build::Nothing {
        return Value::Null;
    }
    let mut map = Map::with_capacity(fields.len() + 1);
    map.insert(
        sel.to_owned(),
        Value::String(action_plan.name.clone().unwrap_or_default()),
    );
    map.extend(fields);
    Value::Object(map)
}
