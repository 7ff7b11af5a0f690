//! Which tool array a thread publishes. The key is (role, family, active skills) and nothing
//! else — in particular not the turn kind — so the array, part of the prompt-cache prefix,
//! is byte-stable across normal, rehearsal, heartbeat and scheduled turns. The arrays
//! themselves come from a [`SurfaceCatalog`] (the facade implements it over the generated
//! statics); the runtime knows no YAML.

use std::borrow::Cow;

use sha2::Digest;
use sha2::Sha256;

/// The key of a published tool array. Deliberately has no field for the turn kind.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Scope {
    pub role: String,
    pub family: String,
    /// Activated skills, in activation order (activation appends).
    pub skills: Vec<String>,
}

/// How a family publishes its skills' tools (the compiler's `skills:` key, mapped by
/// codegen; the runtime knows no YAML). `Defer` and `AllowList` publish every offered skill
/// tool from the start, so the tool array never changes on activation; `Append` adds the
/// skill's tools to the array when it is activated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SkillStrategy {
    /// Skill tools are published with `defer_loading: true` and loaded through the
    /// conversation on activation (Anthropic, OpenAI Responses).
    Defer,
    /// Skill tools are published from the start; each request restricts the callable ones
    /// (OpenAI `allowed_tools`, Gemini `allowedFunctionNames`, MCP: the runtime's gate).
    AllowList,
    /// Activation appends the skill's tools to the array.
    Append,
}

impl SkillStrategy {
    /// The word surface.yaml uses for it (`defer`, `allow_list`, `append`).
    pub const fn as_str(self) -> &'static str {
        match self {
            SkillStrategy::Defer => "defer",
            SkillStrategy::AllowList => "allow_list",
            SkillStrategy::Append => "append",
        }
    }

    /// Whether activation leaves the published tool array byte-identical.
    pub const fn keeps_tools_stable(self) -> bool {
        !matches!(self, SkillStrategy::Append)
    }
}

/// A tool as `introspect tools` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolSummary {
    pub name: String,
    pub description: String,
}

/// A skill as `introspect skills` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkillSummary {
    pub name: String,
    pub description: String,
    /// The tools activation appends, in order.
    pub tools: Vec<String>,
}

/// The catalog cannot answer for a scope (unknown role, family or skill).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CatalogError(pub String);

/// The published surfaces, as the runtime sees them. Implemented by the facade from the
/// generated statics, and by tests with a fake.
pub trait SurfaceCatalog: Send + Sync {
    /// The exact bytes of the tool array published for `scope`.
    fn tool_array(&self, scope: &Scope) -> Result<Cow<'static, str>, CatalogError>;
    /// The tools of `scope`, in published order.
    fn tools(&self, scope: &Scope) -> Result<Vec<ToolSummary>, CatalogError>;
    /// The skills `role` may activate.
    fn skills(&self, role: &str) -> Vec<SkillSummary>;
}

/// A catalog with no tools and no skills, for hosts that publish nothing through the runtime.
#[derive(Clone, Copy, Debug, Default)]
pub struct EmptyCatalog;

impl SurfaceCatalog for EmptyCatalog {
    fn tool_array(&self, _scope: &Scope) -> Result<Cow<'static, str>, CatalogError> {
        Ok(Cow::Borrowed("[]"))
    }

    fn tools(&self, _scope: &Scope) -> Result<Vec<ToolSummary>, CatalogError> {
        Ok(Vec::new())
    }

    fn skills(&self, _role: &str) -> Vec<SkillSummary> {
        Vec::new()
    }
}

/// A published array with its hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Surface {
    pub scope: Scope,
    pub bytes: Cow<'static, str>,
    /// Lowercase hex sha256 of `bytes`.
    pub sha256: String,
}

impl Surface {
    pub(crate) fn new(scope: Scope, bytes: Cow<'static, str>) -> Self {
        let sha256 = sha256_hex(bytes.as_bytes());
        Surface {
            scope,
            bytes,
            sha256,
        }
    }
}

/// What `activate_skill` did to the thread's surface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Activation {
    pub skill: String,
    /// Tools the new array has that the old one did not, in published order.
    pub new_tools: Vec<String>,
    /// sha256 of the new array.
    pub surface_sha256: String,
    /// sha256 of the array before activation.
    pub previous_sha256: String,
    /// First byte offset where old and new arrays differ (= old length when they don't).
    pub diverges_at: usize,
    /// True when everything before the old array's closing bracket is unchanged, so a
    /// provider's prompt cache over the old array still matches.
    pub prefix_intact: bool,
    /// The skill was already active; nothing changed.
    pub already_active: bool,
}

impl Activation {
    /// The `activate_skill` result for the model (text) and the host (structured: hashes
    /// and the divergence offset).
    pub fn to_output(&self) -> crate::call::ToolOutput {
        let text = if self.already_active {
            format!("skill {} is already active; nothing changed", self.skill)
        } else if self.new_tools.is_empty() {
            format!("activated skill {}; it adds no new tools", self.skill)
        } else {
            format!(
                "activated skill {}: {} new tool{} ({}), available from your next step",
                self.skill,
                self.new_tools.len(),
                if self.new_tools.len() == 1 { "" } else { "s" },
                self.new_tools.join(", ")
            )
        };
        crate::call::ToolOutput {
            text,
            structured: Some(serde_json::json!({
                "skill": self.skill,
                "new_tools": self.new_tools,
                "surface_sha256": self.surface_sha256,
                "previous_sha256": self.previous_sha256,
                "diverges_at": self.diverges_at,
                "prefix_intact": self.prefix_intact,
                "already_active": self.already_active,
            })),
        }
    }
}

/// Lowercase hex sha256.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The first byte offset at which `a` and `b` differ; the shorter length if one is a prefix
/// of the other; `a.len()` when they are equal.
pub fn divergence_offset(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

/// Whether `new` keeps `old` up to (not including) its closing bracket — appending tools to
/// a JSON array must not move a single byte before it.
pub fn keeps_prefix(old: &str, new: &str) -> bool {
    let body = old.trim_end().strip_suffix(']').unwrap_or(old);
    new.as_bytes().starts_with(body.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divergence_is_the_first_different_byte() {
        assert_eq!(divergence_offset(b"[a,b]", b"[a,b,c]"), 4);
        assert_eq!(divergence_offset(b"[a]", b"[a]"), 3);
        assert_eq!(divergence_offset(b"[ab", b"[a"), 2);
        assert!(keeps_prefix("[a,b]", "[a,b,c]"));
        assert!(!keeps_prefix("[a,b]", "[b,a,c]"));
    }

    #[test]
    fn sha256_is_lowercase_hex() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
