//! Which tool array a thread publishes. The key is (role, family, active skills) and nothing
//! else — in particular not the turn kind — so the array, part of the prompt-cache prefix,
//! is byte-stable across normal, rehearsal, heartbeat and scheduled turns; under the `defer`
//! and `allow_list` skill strategies the catalog answers the same bytes whatever skills are
//! active, so activation does not touch it either. The arrays themselves come from a
//! [`SurfaceCatalog`] (the facade implements it over the generated statics); the runtime
//! knows no YAML.

use std::borrow::Cow;

use sha2::Digest;
use sha2::Sha256;

use super::activation::SkillDelivery;
use super::activation::SkillTool;

/// The key of a published tool array. Deliberately has no field for the turn kind.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Scope {
    pub role: String,
    pub family: String,
    /// Activated skills, in activation order.
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
    /// The exact bytes of the tool array published for `scope`. Under a delivery that keeps
    /// the tools stable ([`SkillDelivery::keeps_tools_stable`]) the bytes must not depend on
    /// `scope.skills`; [`crate::core::Runtime::activate`] refuses a catalog that breaks this.
    fn tool_array(&self, scope: &Scope) -> Result<Cow<'static, str>, CatalogError>;
    /// The tools of `scope`, in published order.
    fn tools(&self, scope: &Scope) -> Result<Vec<ToolSummary>, CatalogError>;
    /// The skills `role` may activate.
    fn skills(&self, role: &str) -> Vec<SkillSummary>;
    /// How an activated skill's tools reach the model on `scope`'s family.
    fn skill_delivery(&self, scope: &Scope) -> Result<SkillDelivery, CatalogError>;
    /// The tools `skill` makes callable in `scope` (its role and family), in published
    /// order, each with its published definition in the family's dialect.
    fn skill_tools(&self, scope: &Scope, skill: &str) -> Result<Vec<SkillTool>, CatalogError>;
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

    fn skill_delivery(&self, _scope: &Scope) -> Result<SkillDelivery, CatalogError> {
        Ok(SkillDelivery::AllowList)
    }

    fn skill_tools(&self, _scope: &Scope, skill: &str) -> Result<Vec<SkillTool>, CatalogError> {
        Err(CatalogError(format!("unknown skill {skill}")))
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
