//! The IR: definitions after loading, checking and lowering. Plain data, ordered by
//! construction (declaration order or sorted `Vec`s), so every emitter that walks it produces
//! the same bytes on every run. Nothing here refers back to YAML; spans are kept only so later
//! stages (diff annotations, template errors) can point at the line responsible.

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::diag::Span;

/// A whole, valid definitions folder.
#[derive(Clone, Debug, PartialEq)]
pub struct Ir {
    pub limits: Limits,
    /// Declaration order of `surface.yaml`.
    pub families: Vec<Family>,
    /// The trait vocabulary, declaration order.
    pub traits: Vec<TraitDecl>,
    /// Sorted by name.
    pub tools: Vec<Tool>,
    /// Declaration order of `roles.yaml`; `extends` already resolved.
    pub roles: Vec<Role>,
    /// Sorted by name.
    pub skills: Vec<Skill>,
    /// Sorted by name.
    pub aliases: Vec<Alias>,
    /// Sorted by name.
    pub retired: Vec<Retired>,
    /// Every role × family, roles in order, then families in order. Templates rendered.
    pub surfaces: Vec<SurfaceInstance>,
}

impl Ir {
    /// This IR with every use of a field shape written out (its definition in place, its
    /// use's description kept): what the surfaces would publish without `shapes:` in their
    /// arguments (`stats` shows what the shapes save).
    pub fn with_field_shapes_inlined(&self) -> Ir {
        let mut ir = self.clone();
        for t in &mut ir.tools {
            for f in &mut t.fields {
                f.ty = f.ty.inlined();
            }
            if let Some(a) = &mut t.parameters.additional {
                *a = a.inlined();
            }
            t.field_shapes.clear();
        }
        ir
    }

    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools
            .binary_search_by(|t| t.name.as_str().cmp(name))
            .ok()
            .map(|i| &self.tools[i])
    }
    pub fn family(&self, name: &str) -> Option<&Family> {
        self.families.iter().find(|f| f.name == name)
    }
    pub fn role(&self, name: &str) -> Option<&Role> {
        self.roles.iter().find(|r| r.name == name)
    }
    pub fn skill(&self, name: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.name == name)
    }
    pub fn alias(&self, name: &str) -> Option<&Alias> {
        self.aliases.iter().find(|a| a.name == name)
    }
    pub fn retired(&self, name: &str) -> Option<&Retired> {
        self.retired.iter().find(|r| r.name == name)
    }
    pub fn surface(&self, role: &str, family: &str) -> Option<&SurfaceInstance> {
        self.surfaces
            .iter()
            .find(|s| s.role == role && s.family == family)
    }
}

/// The surface's own limits (`limits:` of surface.yaml): `check` refuses what exceeds them
/// and `emit` never publishes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub max_tools: usize,
    pub max_description_chars: usize,
}

impl Limits {
    /// The lowest limits a provider documents (OpenAI: 128 tools a request, 1024 characters a
    /// function description): the default, and where `check` warns when a surface declares
    /// more (a provider may refuse the array).
    pub const PROVIDER: Limits = Limits {
        max_tools: 128,
        max_description_chars: 1024,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::PROVIDER
    }
}

/// The shared vocabulary (`toolsurface-kernel`): declared once beneath the compiler, the
/// generated code and the runtime.
pub use toolsurface_kernel::vocab::{Dialect, Route, SkillStrategy};

/// The limits the provider of `dialect` documents, where it documents some.
pub fn provider_limits(dialect: Dialect) -> Option<Limits> {
    crate::dialect::rules(dialect).provider_limits()
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Family {
    pub name: String,
    pub dialect: Dialect,
    /// openai-chat strict variant.
    pub strict: bool,
    /// Publishes the tools declared for this other family.
    pub like: Option<String>,
    /// Which optional tool keys this family publishes (examples, output schemas).
    pub publish: Publish,
    /// How the role's skills are published and activated (`skills:`; default by dialect).
    pub skills: SkillStrategy,
    /// Anthropic only (`cache_control: 5m | 1h`): a prompt-cache breakpoint on the last
    /// resident tool. `None`: no breakpoint (the default).
    pub cache_control: Option<CacheTtl>,
    pub span: Span,
}

/// An Anthropic cache breakpoint's lifetime (`{"type":"ephemeral","ttl":…}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CacheTtl {
    FiveMinutes,
    OneHour,
}

impl CacheTtl {
    pub const ALL: [CacheTtl; 2] = [CacheTtl::FiveMinutes, CacheTtl::OneHour];

    /// The word surface.yaml and the Anthropic API use (`5m`, `1h`).
    pub fn as_str(self) -> &'static str {
        match self {
            CacheTtl::FiveMinutes => "5m",
            CacheTtl::OneHour => "1h",
        }
    }

    pub fn parse(s: &str) -> Option<CacheTtl> {
        CacheTtl::ALL.into_iter().find(|x| x.as_str() == s)
    }
}

impl Family {
    /// The skill strategy of this family's tools rendered in `dialect` (the MCP server
    /// renders every family in `mcp`): the family's own when the dialect is its own, else the
    /// default of `dialect`.
    pub fn strategy_in(&self, dialect: Dialect) -> SkillStrategy {
        if dialect == self.dialect {
            self.skills
        } else {
            crate::dialect::default_skills(dialect)
        }
    }
}

/// A family's switches for the optional keys of `docs/published-bytes.md` ("Examples and
/// output schemas"). Defaults: Anthropic publishes `input_examples`; nothing else is on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Publish {
    /// Anthropic `input_examples` (only meaningful for the anthropic dialect).
    pub input_examples: bool,
    /// The examples rendered into the tool description (`Examples:` lines), any dialect.
    pub examples_in_description: bool,
    /// Responses `output_schema` / Gemini `responseJsonSchema` (MCP always publishes
    /// `outputSchema`).
    pub output_schema: bool,
    /// Gemini `parametersJsonSchema` (plain JSON Schema) instead of `parameters` (the OpenAPI
    /// subset).
    pub parameters_json_schema: bool,
}

impl Publish {
    /// The defaults for a family of `dialect`.
    pub fn default_for(dialect: Dialect) -> Publish {
        crate::dialect::rules(dialect).publish_defaults()
    }
}

/// The tool that activates skills. The language fixes its name: `check` warns about a role
/// that offers skills without it (or lists it without skills), and the generated
/// `Call::parse_in` names it (through the generated `Tool`) when it refuses a skill tool
/// whose skill is not active.
pub const ACTIVATE_SKILL_TOOL: &str = "activate_skill";

/// The bool traits the runtime reads through `CallInfo` (`is_parallel_safe`, `is_follow_up`,
/// `is_poll`, `is_read_only`, `result_on_interrupt`). Declared once, here: codegen implements
/// exactly these `CallInfo` methods from the surface's own tables (rustc refuses the generated
/// impl when this list and the runtime's trait disagree), and `check` refuses a definitions
/// folder whose `traits:` lacks one or declares it as an enum, so a misspelled trait is an
/// error instead of a silent `false`.
pub const RUNTIME_TRAITS: [&str; 5] = [
    "parallel_safe",
    "follow_up",
    "poll",
    "read_only",
    "result_on_interrupt",
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraitDecl {
    pub name: String,
    pub kind: TraitKind,
    pub doc: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraitKind {
    Bool {
        default: bool,
    },
    Enum {
        values: Vec<String>,
        default: String,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TraitValue {
    Bool(bool),
    Enum(String),
}

/// A description template (raw minijinja source) with where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    pub source: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Tool {
    pub name: String,
    pub object: String,
    pub description: Template,
    /// Families the tool is published in, in `surface.yaml` order, `like` families expanded.
    pub families: Vec<String>,
    pub route: Route,
    /// Fields naming the session a follow-up call targets.
    pub session: Option<SessionKey>,
    /// Declaration order.
    pub fields: Vec<Field>,
    /// `None` for a plain tool, which then has exactly one action with `name: None`.
    pub selector: Option<Selector>,
    /// Declaration order (= published enum order).
    pub actions: Vec<Action>,
    pub freeform: Option<Freeform>,
    /// MCP `icons` (YAML `icon:`, one or a list).
    pub icons: Vec<Icon>,
    /// MCP `_meta` keys of the tool's own (YAML `meta:`), published before toolsurface's.
    pub meta: Vec<(String, serde_json::Value)>,
    /// MCP display `title` (and `annotations.title`); `None`: derived from the name; empty
    /// (`title: false`): none published.
    pub title: Option<String>,
    /// Where the MCP title is published: `(tool title, annotations.title)`; both by default
    /// (`title: { text, top: false | annotations: false }` for an input that has one of them).
    pub title_at: (bool, bool),
    /// `output_schema:`: an output schema published verbatim (what `output:` cannot say, e.g.
    /// `$schema`, `$ref`); no typed result is generated from it.
    pub output_schema: Option<serde_json::Value>,
    /// `shapes:`: the named output shapes of the tool's file, declaration order, each
    /// resolved (its own uses of other shapes inlined and tagged, see [`OutputType::shape`]).
    /// The published output schema lists the ones it uses under `$defs`.
    pub output_shapes: Vec<(String, OutputType)>,
    /// `shapes:` the fields use (`Type::Shape`), declaration order, each resolved: the
    /// parameters' `$defs` list the ones a published schema refers to in this order.
    pub field_shapes: Vec<(String, Type)>,
    /// `implements:`: the Rust type path the typed call becomes (codegen builds it from the
    /// parsed call; `Handlers` receives it). Not published.
    pub implements: Option<String>,
    /// `parameters:`: what the parameters object itself says beyond its fields (other keys
    /// accepted, root annotations and verbatim keywords).
    pub parameters: Parameters,
    /// `hosted:`: a provider-hosted tool (`{"type":"local_shell"}`, `{"type":"bash_20250124",
    /// "name":"bash"}`): its entry, published verbatim in the dialect of its families and not
    /// at all elsewhere (MCP lists no provider-run tool). It has no fields; any arguments
    /// pass `Call::parse` (the provider defines and runs it).
    pub hosted: Option<serde_json::Value>,
    /// The tool's file.
    pub span: Span,
}

impl Tool {
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }
    pub fn action(&self, name: &str) -> Option<&Action> {
        self.actions
            .iter()
            .find(|a| a.name.as_deref() == Some(name))
    }
    pub fn is_plain(&self) -> bool {
        self.selector.is_none()
    }
    /// Names of the actions using `field` (declaration order). Empty for plain tools.
    pub fn actions_using(&self, field: &str) -> Vec<&str> {
        self.actions
            .iter()
            .filter(|a| a.uses(field))
            .filter_map(|a| a.name.as_deref())
            .collect()
    }
    /// What `field` left out means in `action`: the action's own default (`defaults:`),
    /// else the field's `default:`.
    pub fn default_in<'a>(
        &'a self,
        action: &'a Action,
        field: &str,
    ) -> Option<&'a serde_json::Value> {
        action
            .defaults
            .get(field)
            .or_else(|| self.field(field).and_then(|f| f.ty.default_value()))
    }
    /// `field`'s type as `action` takes it: with the action's default in place of the
    /// field's (`explain`).
    pub fn type_in<'a>(&'a self, action: &'a Action, field: &'a Field) -> Cow<'a, Type> {
        field.ty.with_default(self.default_in(action, &field.name))
    }
    /// `field`'s type as the flat published schema states it: with the default every action
    /// taking it shares, and none when their defaults differ (one property, one `default`).
    pub fn published_type<'a>(&'a self, field: &'a Field) -> Cow<'a, Type> {
        let mut using = self.actions.iter().filter(|a| a.uses(&field.name));
        let first = using.next().and_then(|a| self.default_in(a, &field.name));
        let shared = using
            .all(|a| self.default_in(a, &field.name) == first)
            .then_some(first)
            .flatten();
        field.ty.with_default(shared)
    }
}

/// The parameters object of a tool, beyond its fields.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Parameters {
    /// Keys other than the fields: `None` refused (the default), `Some(Any)` for
    /// `additional_properties: true`, else each checked as this type.
    pub additional: Option<Type>,
    /// As [`Type::Object`]'s `implicit_open`.
    pub implicit_open: bool,
    /// The root's annotations (`title`, a schema `description`, verbatim keywords such as
    /// `$schema`).
    pub ann: SchemaAnnotations,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionKey {
    pub id: String,
    pub host: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selector {
    pub name: String,
    pub description: Template,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Freeform {
    pub families: Vec<String>,
    pub field: String,
    pub syntax: String,
    /// The grammar text itself (loaded from the grammar file).
    pub grammar: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: String,
    pub ty: Type,
    pub description: Template,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    String {
        min_length: Option<u64>,
        max_length: Option<u64>,
        pattern: Option<String>,
    },
    Integer {
        minimum: Option<i64>,
        maximum: Option<i64>,
    },
    Number {
        minimum: Option<f64>,
        maximum: Option<f64>,
    },
    Boolean,
    Enum {
        values: Vec<String>,
    },
    Array {
        items: Box<Type>,
        min_items: Option<u64>,
        max_items: Option<u64>,
    },
    /// A nested object: strict (unknown keys refused) unless `additional` says what other
    /// keys may hold (`additional_properties:`; `Some(Any)` for `true`).
    Object {
        properties: Vec<Property>,
        additional: Option<Box<Type>>,
        /// With `additional: Some(Any)`: open by JSON Schema's default, so no
        /// `additionalProperties` is published (`additional_properties: implicit`).
        implicit_open: bool,
    },
    /// Any JSON value (`type: any`; a schema without `type`).
    Any,
    /// Only `null` (`type: "null"`; a union branch).
    Null,
    /// Exactly this JSON value (`type: const` + `value:`; or a scalar type's `const:`, which
    /// publishes its `type` beside it: `json_type`).
    Const {
        value: serde_json::Value,
        json_type: Option<String>,
    },
    /// Several shapes (`any_of:`, `one_of:`, or a type list `type: [string, "null"]`).
    Union {
        form: UnionForm,
        branches: Vec<Type>,
    },
    /// A type with keywords that change no call's verdict: published as written.
    Annotated {
        ty: Box<Type>,
        ann: Box<SchemaAnnotations>,
    },
    /// A use of one of the tool file's `shapes:` (`{ shape: name }`): the shape's definition,
    /// resolved (its own uses inlined and tagged the same way). Every reader sees the
    /// definition in place; the emitter writes a `$ref` into the root's `$defs` where the
    /// style takes references, and Rust codegen defines one type per shape.
    Shape {
        name: String,
        ty: Box<Type>,
    },
}

impl Type {
    /// The type with every use of a shape replaced by the shape's definition.
    pub fn inlined(&self) -> Type {
        match self {
            Type::Shape { ty, .. } => ty.inlined(),
            Type::Annotated { ty, ann } => Type::Annotated {
                ty: Box::new(ty.inlined()),
                ann: ann.clone(),
            },
            Type::Array {
                items,
                min_items,
                max_items,
            } => Type::Array {
                items: Box::new(items.inlined()),
                min_items: *min_items,
                max_items: *max_items,
            },
            Type::Object {
                properties,
                additional,
                implicit_open,
            } => Type::Object {
                properties: properties
                    .iter()
                    .map(|p| Property {
                        ty: p.ty.inlined(),
                        ..p.clone()
                    })
                    .collect(),
                additional: additional.as_deref().map(|t| Box::new(t.inlined())),
                implicit_open: *implicit_open,
            },
            Type::Union { form, branches } => Type::Union {
                form: *form,
                branches: branches.iter().map(Type::inlined).collect(),
            },
            t => t.clone(),
        }
    }

    /// The type without its annotations, and the annotations (`None` when it has none).
    pub fn peel(&self) -> (&Type, Option<&SchemaAnnotations>) {
        match self {
            Type::Annotated { ty, ann } => (ty.peel().0, Some(ann)),
            Type::Shape { ty, .. } => ty.peel(),
            t => (t, None),
        }
    }
    /// Its `default:` (annotation).
    pub fn default_value(&self) -> Option<&serde_json::Value> {
        self.peel().1.and_then(|a| a.default.as_ref())
    }
    /// This type with `default` as its default (borrowed when it already is).
    pub fn with_default(&self, default: Option<&serde_json::Value>) -> Cow<'_, Type> {
        if self.default_value() == default {
            return Cow::Borrowed(self);
        }
        let (ty, mut ann) = match self {
            Type::Annotated { ty, ann } => (ty.clone(), (**ann).clone()),
            t => (Box::new(t.clone()), SchemaAnnotations::default()),
        };
        ann.default = default.cloned();
        Cow::Owned(if ann.is_empty() {
            *ty
        } else {
            Type::Annotated {
                ty,
                ann: Box::new(ann),
            }
        })
    }
}

/// How a union is spelled (and checked).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnionForm {
    /// `anyOf`: a value any branch accepts.
    AnyOf,
    /// `oneOf`: a value exactly one branch accepts.
    OneOf,
    /// `"type": ["string", "null"]`: a value of any listed type; each branch is a bare type,
    /// its keywords written once beside the list.
    TypeList,
}

impl UnionForm {
    /// The JSON Schema keyword (`type` for a type list).
    pub fn keyword(self) -> &'static str {
        match self {
            UnionForm::AnyOf => "anyOf",
            UnionForm::OneOf => "oneOf",
            UnionForm::TypeList => "type",
        }
    }
}

/// Keywords that change no call's verdict (JSON Schema's annotations, plus keywords kept
/// verbatim): published where written, recorded by the lock, never read by `Call::parse`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SchemaAnnotations {
    /// A description where the language has no template slot (array items, union branches).
    pub description: Option<String>,
    pub title: Option<String>,
    /// `default:`: the value an absent field means (type-checked by `check`).
    pub default: Option<serde_json::Value>,
    /// `format:` (`date-time`, `email`, `uri`, …): an annotation, as in JSON Schema 2020-12.
    pub format: Option<String>,
    /// `examples:` of the schema itself (not example calls).
    pub examples: Option<Vec<serde_json::Value>>,
    /// `json_schema:`: other keywords, published verbatim after the modelled ones and not
    /// checked by `Call::parse` (what `import` keeps of a construct the language lacks).
    pub extra: Vec<(String, serde_json::Value)>,
    /// `publish_type: false`: the JSON type is implied by the keywords (`properties`,
    /// `items`) and not published, as the input wrote it.
    pub type_implied: bool,
    /// `unlisted: true` (fields only): required but not described under `properties`, as
    /// JSON Schema allows (a required key of any value; the input wrote it so).
    pub unlisted: bool,
}

impl SchemaAnnotations {
    pub fn is_empty(&self) -> bool {
        *self == SchemaAnnotations::default()
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Property {
    pub name: String,
    pub ty: Type,
    pub description: Template,
    pub required: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Action {
    /// `None` for the single action of a plain tool.
    pub name: Option<String>,
    /// Empty template when not written.
    pub description: Template,
    /// Declaration order.
    pub required: Vec<String>,
    pub optional: Vec<String>,
    pub exactly_one_of: Vec<Vec<String>>,
    pub forbidden_with: Vec<Forbidden>,
    /// Every trait of the vocabulary, resolved (action value, else tool value, else default).
    pub traits: BTreeMap<String, TraitValue>,
    /// `defaults:`: the action's own default for optional fields it takes, overriding the
    /// field's `default:` for this action (type-checked by `check`). Read through
    /// [`Tool::default_in`].
    pub defaults: BTreeMap<String, serde_json::Value>,
    /// Example argument objects, as a model would send them (the selector first when the
    /// tool has one). Checked by `toolsurface check` with `Call::parse`'s rules.
    pub examples: Vec<Example>,
    /// What the action returns (its own `output:`, else the tool's); `None` when undeclared.
    pub output: Option<OutputType>,
    pub span: Span,
}

/// One example call's arguments, with where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Example {
    /// A JSON object; key order as written, the selector first.
    pub arguments: serde_json::Value,
    pub span: Span,
}

/// A declared result shape: the field language of `fields:` for what a tool returns, plus
/// `nullable` (results carry `null` for "not applicable", arguments never do).
#[derive(Clone, Debug, PartialEq)]
pub struct OutputType {
    pub kind: OutputKind,
    /// Plain text (not a template: the result is the same on every surface). May be empty.
    pub description: String,
    /// `null` is also allowed.
    pub nullable: bool,
    /// This node is a use of the named shape (`{ shape: message }`): the shape's definition,
    /// with the use's own `description` when it gives one. Everything that reads outputs
    /// sees the definition; only the published output schema writes it as
    /// `{"$ref":"#/$defs/<name>"}` (the lock's per-action records stay inlined).
    pub shape: Option<String>,
    /// `json_schema:`: keywords published verbatim after the modelled ones (`$schema`, a
    /// `title`, a `format`…), read by no typed reader of results.
    pub extra: Vec<(String, serde_json::Value)>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum OutputKind {
    String,
    Integer,
    Number,
    Boolean,
    Enum(Vec<String>),
    /// `None`: items of any JSON type (e.g. SQL cells).
    Array(Option<Box<OutputType>>),
    /// Closed (no other keys) when properties are declared; any object when none are.
    Object(Vec<OutputProperty>),
    /// Only at the root of an `output:`: one of these distinct shapes (none a union).
    AnyOf(Vec<OutputType>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct OutputProperty {
    pub name: String,
    pub ty: OutputType,
    pub required: bool,
}

/// An MCP icon (`icons: [{src, mimeType?, sizes?, theme?}]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Icon {
    pub src: String,
    pub mime_type: Option<String>,
    pub sizes: Vec<String>,
    pub theme: Option<String>,
}

impl Action {
    pub fn uses(&self, field: &str) -> bool {
        self.required
            .iter()
            .chain(&self.optional)
            .any(|f| f == field)
    }
    pub fn is_required(&self, field: &str) -> bool {
        self.required.iter().any(|f| f == field)
    }
    pub fn bool_trait(&self, name: &str) -> bool {
        matches!(self.traits.get(name), Some(TraitValue::Bool(true)))
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forbidden {
    pub field: String,
    pub with: String,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Role {
    pub name: String,
    pub description: String,
    pub extends: Option<String>,
    /// Resident tools, inherited first; the published order.
    pub tools: Vec<String>,
    pub skills: Vec<String>,
    pub token_budget: Option<u64>,
    /// `sandbox:`, `extends` resolved (default: `workspace-write` with its defaults).
    pub sandbox: Sandbox,
    pub span: Span,
}

/// A role's declared sandbox policy: what its tools and shell children may touch. The
/// runtime's `sandbox::Policy` is built from it by the generated `Role::sandbox()`; the
/// host config may only tighten it.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct Sandbox {
    pub profile: SandboxProfile,
    /// Network for shell children.
    pub network: bool,
    /// What the `device` argument may do.
    pub devices: SandboxDevices,
}

impl Sandbox {
    /// The profile's defaults (the vocabulary's, as the runtime's `Policy::of`).
    pub fn of(profile: SandboxProfile) -> Sandbox {
        Sandbox {
            profile,
            network: profile.default_network(),
            devices: profile.default_devices(),
        }
    }
}

impl Default for Sandbox {
    fn default() -> Self {
        Sandbox::of(SandboxProfile::WorkspaceWrite)
    }
}

/// The sandbox's words (`toolsurface-kernel`): declared once beneath the compiler, the
/// generated `Role::sandbox()` and the runtime's `sandbox::Profile` / `sandbox::Devices`.
pub use toolsurface_kernel::vocab::{SandboxDevices, SandboxProfile};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skill {
    pub name: String,
    pub description: String,
    pub tools: Vec<String>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Alias {
    pub name: String,
    pub tool: String,
    /// Fixed arguments merged into the call (the selector value among them).
    pub set: BTreeMap<String, serde_json::Value>,
    /// Old field name -> new field name.
    pub rename: BTreeMap<String, String>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Retired {
    pub name: String,
    pub message: String,
    pub replaced_by: Vec<String>,
    pub span: Span,
}

/// One role × family array with its descriptions rendered.
#[derive(Clone, Debug, PartialEq)]
pub struct SurfaceInstance {
    pub role: String,
    pub family: String,
    pub dialect: Dialect,
    /// Resident tools in published order (role order, filtered to the family).
    pub tools: Vec<RenderedTool>,
    /// Skills the role offers, each with its tools rendered for this surface.
    pub skills: Vec<SkillInstance>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SkillInstance {
    pub skill: String,
    pub tools: Vec<RenderedTool>,
}

/// A tool's descriptions rendered for one surface; structure lives in [`Tool`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderedTool {
    pub name: String,
    pub description: String,
    /// Selector description (empty for plain tools).
    pub selector: String,
    /// Per action, declaration order; `None` name for a plain tool.
    pub actions: Vec<(Option<String>, String)>,
    /// Per field, declaration order; nested object properties as `field.prop`.
    pub fields: Vec<(String, String)>,
}
