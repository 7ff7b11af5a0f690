//! MCP `tools/list`: title, icons, `inputSchema` shaped for the client behind the family,
//! `outputSchema`, trait-derived annotations, `_meta` with the family's hash and a skill
//! tool's skill; no request (the runtime gates skills), and the reader of those keys.

use serde_json::Value;

use super::{DialectRules, ToolContext};
use crate::emit::extras::{self, META_PREFIX};
use crate::emit::json::Json;
use crate::emit::schema::{self, Style};
use crate::emit::skills::Placement;
use crate::emit::{EmitError, ToolKind};
use crate::import::Note;
use crate::ir::{Family, Route, SkillStrategy, Tool, TraitValue};

pub(super) struct Mcp;

impl DialectRules for Mcp {
    fn tool(&self, cx: &ToolContext<'_>) -> Result<(Json, ToolKind), EmitError> {
        let t = cx.texts.tool;
        // `title: false` (an empty title): none published.
        let title = t.title.clone().unwrap_or_else(|| title(&t.name));
        let (top, in_annotations) = t.title_at;
        let shown = (top && !title.is_empty()).then(|| Json::str(title.clone()));
        let annotated_title = if in_annotations { title.as_str() } else { "" };
        let json = Json::obj()
            .with("name", Json::str(t.name.clone()))
            .with_opt("title", shown)
            .with("description", Json::str(cx.description))
            .with_opt(
                "icons",
                (!t.icons.is_empty()).then(|| extras::icons(&t.icons)),
            )
            .with(
                "inputSchema",
                schema::parameters(cx.texts, self.schema_style(cx.family))?,
            )
            .with_opt("outputSchema", extras::mcp_output_schema(t))
            .with("annotations", annotations(t).to_json(annotated_title))
            .with_opt("_meta", extras::mcp_meta(t, cx.family_sha256));
        Ok((json, ToolKind::Function))
    }

    /// The style the family's own dialect wants behind MCP ([`DialectRules::style_behind_mcp`]).
    fn schema_style(&self, family: &Family) -> Style {
        super::rules(family.dialect).style_behind_mcp(family)
    }

    fn placed(&self, json: Json, _family: &Family, placement: Placement<'_>) -> Json {
        match placement {
            Placement::Skill(skill) => with_meta_skill(json, skill),
            Placement::Resident { .. } => json,
        }
    }

    fn names_family_hash(&self) -> bool {
        true
    }

    fn default_skills(&self) -> SkillStrategy {
        SkillStrategy::AllowList
    }

    fn supported_skills(&self) -> &'static [SkillStrategy] {
        &[SkillStrategy::AllowList, SkillStrategy::Append]
    }

    fn why_unsupported(&self, strategy: SkillStrategy) -> &'static str {
        match strategy {
            SkillStrategy::Defer => "MCP lists tools; deferral is the client's business",
            SkillStrategy::AllowList | SkillStrategy::Append => "not supported",
        }
    }

    fn family_name(&self) -> &'static str {
        "mcp"
    }

    fn recognises(&self, first: &Value) -> bool {
        first.get("inputSchema").is_some()
    }

    fn recognised_by(&self) -> &'static str {
        "an `inputSchema` (MCP)"
    }

    fn schema_key(&self, _: &str, _: &Value, _: &str, _: &mut Vec<Note>) -> &'static str {
        "inputSchema"
    }

    fn tool_keys(&self) -> &'static [&'static str] {
        &["name", "title", "description", "inputSchema", "annotations"]
    }

    fn extras_keys(&self) -> &'static [&'static str] {
        &["outputSchema", "icons", "_meta"]
    }

    fn output_key(&self) -> Option<&'static str> {
        Some("outputSchema")
    }

    /// The annotations as traits, and the title where it is not the one `emit` derives from
    /// the name anyway.
    fn read_traits_and_title(&self, t: &Value, name: &str) -> super::ImportedTitle {
        let top = t.get("title").and_then(Value::as_str);
        let annotated = t.pointer("/annotations/title").and_then(Value::as_str);
        // A title in one of its two places is published there only; no title at all is an
        // empty one (`title: false`), so none is derived.
        let (title, at) = match (top, annotated) {
            (None, None) => (Some(String::new()), (true, true)),
            (Some(x), None) => (Some(x.to_owned()), (true, false)),
            (None, Some(x)) => (Some(x.to_owned()), (false, true)),
            (Some(x), Some(_)) => ((x != self::title(name)).then(|| x.to_owned()), (true, true)),
        };
        (traits_from_annotations(t), title, at)
    }

    fn definition_keys(&self) -> &'static [&'static str] {
        &["inputSchema"]
    }

    fn equivalences(&self) -> &'static [&'static str] {
        &[
            "an MCP annotation hint published with MCP's default where the input has none",
            "MCP `destructiveHint` / `idempotentHint` published for a tool the input marks \
             `readOnlyHint: true` (MCP: meaningful only when not read-only)",
            "toolsurface's own MCP `_meta` keys (`io.toolsurface/…`) on either side: `import` \
             drops them, `emit` derives them again for the imported surface",
            "an MCP tool `title` published equal to the input's `annotations.title` (MCP's \
             display name reads `title`, then `annotations.title`: the same display)",
        ]
    }

    fn same_as_absent(&self, input: &Value, parent: &str, key: &str, value: &Value) -> bool {
        match (key, value) {
            ("_meta", Value::Object(m)) => m.keys().all(|k| self.own_key(key, k)),
            ("title", v) if parent == super::TOOL_OBJECT => {
                input.pointer("/annotations/title") == Some(v)
            }
            (hint, Value::Bool(x)) if parent == "annotations" => {
                let read_only =
                    input.pointer("/annotations/readOnlyHint") == Some(&Value::Bool(true));
                (read_only && matches!(hint, "destructiveHint" | "idempotentHint"))
                    || HINT_DEFAULTS.contains(&(hint, *x))
            }
            _ => false,
        }
    }

    fn own_key(&self, parent: &str, key: &str) -> bool {
        parent == "_meta" && key.starts_with(META_PREFIX)
    }
}

/// MCP: a skill tool's `_meta` names its skill (`io.toolsurface/skill`), so a client that
/// lists every tool from the start can tell which ones wait for `activate_skill`.
fn with_meta_skill(json: Json, skill: &str) -> Json {
    let key = format!("{META_PREFIX}skill");
    match json {
        Json::Obj(mut entries) => {
            match entries.iter_mut().find(|(k, _)| k == "_meta") {
                Some((_, meta)) => {
                    let taken = std::mem::replace(meta, Json::Null);
                    *meta = taken.with(&key, Json::str(skill));
                }
                None => {
                    entries.push(("_meta".to_owned(), Json::obj().with(&key, Json::str(skill))))
                }
            }
            Json::Obj(entries)
        }
        other => other,
    }
}

/// An MCP tool's annotations as traits: the hints it gives, MCP's defaults for those it leaves
/// out, except that a read-only tool left without `destructiveHint` / `idempotentHint` is
/// neither (MCP: those are meaningful only when not read-only), so `emit` of the import gives
/// the same hints back.
fn traits_from_annotations(t: &Value) -> Vec<(&'static str, bool)> {
    let given = |k: &str| {
        t.pointer(&format!("/annotations/{k}"))
            .and_then(Value::as_bool)
    };
    let hint = |k: &str| {
        given(k).unwrap_or_else(|| {
            HINT_DEFAULTS
                .iter()
                .find(|(h, _)| *h == k)
                .is_some_and(|(_, d)| *d)
        })
    };
    let read_only = hint("readOnlyHint");
    // Left out on a read-only tool: not destructive, not declared idempotent (emit's own
    // derivation for a read-only tool), whatever MCP's default for a writing one.
    let unless_read_only = |k: &str| given(k).unwrap_or(!read_only && hint(k));
    vec![
        (READ_ONLY, read_only),
        (DESTRUCTIVE, unless_read_only("destructiveHint")),
        (IDEMPOTENT, unless_read_only("idempotentHint")),
        (OPEN_WORLD, hint("openWorldHint")),
    ]
}

/// MCP's defaults for the annotation hints a tool leaves out.
const HINT_DEFAULTS: [(&str, bool); 4] = [
    ("readOnlyHint", false),
    ("destructiveHint", true),
    ("idempotentHint", false),
    ("openWorldHint", true),
];

/// `shell_session` -> `Shell session`: the MCP display title.
pub fn title(name: &str) -> String {
    let spaced = name.replace('_', " ");
    let mut chars = spaced.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// MCP tool annotations, derived from traits (see `docs/published-bytes.md`, "MCP
/// annotations"). All four hints are always written, so no client default applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Annotations {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
}

impl Annotations {
    fn to_json(self, title: &str) -> Json {
        Json::obj()
            .with_opt("title", (!title.is_empty()).then(|| Json::str(title)))
            .with("readOnlyHint", Json::Bool(self.read_only))
            .with("destructiveHint", Json::Bool(self.destructive))
            .with("idempotentHint", Json::Bool(self.idempotent))
            .with("openWorldHint", Json::Bool(self.open_world))
    }
}

/// The trait names the annotations read. `read_only` is standard; `destructive`,
/// `idempotent` and `open_world` are optional vocabulary a definitions folder may declare.
pub const READ_ONLY: &str = "read_only";
pub const DESTRUCTIVE: &str = "destructive";
pub const IDEMPOTENT: &str = "idempotent";
pub const OPEN_WORLD: &str = "open_world";

/// - readOnlyHint: every action is `read_only`.
/// - destructiveHint: false when read-only; else, if the vocabulary declares `destructive`,
///   whether any action is; else true (MCP's own conservative default).
/// - idempotentHint: if the vocabulary declares `idempotent`, whether every action is; else
///   the same as readOnlyHint (a read repeated changes nothing).
/// - openWorldHint: if the vocabulary declares `open_world`, whether any action is; else
///   whether the tool runs on a host (route `thread_host` / `session_host`: a machine with
///   its processes, files and network) rather than in the runtime itself (route `local`:
///   introspection, skills, the message and facts stores — a closed domain).
pub fn annotations(tool: &Tool) -> Annotations {
    let all =
        |name: &str| !tool.actions.is_empty() && tool.actions.iter().all(|a| a.bool_trait(name));
    let any = |name: &str| tool.actions.iter().any(|a| a.bool_trait(name));
    let declared = |name: &str| {
        tool.actions
            .iter()
            .any(|a| matches!(a.traits.get(name), Some(TraitValue::Bool(_))))
    };
    let read_only = all(READ_ONLY);
    let destructive = if read_only {
        false
    } else if declared(DESTRUCTIVE) {
        any(DESTRUCTIVE)
    } else {
        true
    };
    let idempotent = if declared(IDEMPOTENT) {
        all(IDEMPOTENT)
    } else {
        read_only
    };
    let open_world = if declared(OPEN_WORLD) {
        any(OPEN_WORLD)
    } else {
        tool.route != Route::Local
    };
    Annotations {
        read_only,
        destructive,
        idempotent,
        open_world,
    }
}
