//! Which tool array a thread publishes. The key is (role, family, active skills) and nothing
//! else — in particular not the turn kind — so the array, part of the prompt-cache prefix,
//! is byte-stable across normal, rehearsal, heartbeat and scheduled turns; under the `defer`
//! and `allow_list` skill strategies the catalog answers the same bytes whatever skills are
//! active, so activation does not touch it either. The arrays themselves come from a
//! [`SurfaceCatalog`] (the facade implements it over the generated statics); the runtime
//! knows no YAML.

use std::borrow::Cow;
use std::fmt::Debug;
use std::fmt::Display;
use std::hash::Hash;

use sha2::Digest;
use sha2::Sha256;

use super::activation::SkillDelivery;
use super::activation::SkillTool;

/// A name of the compiled surface: a role, a family or a skill. Implemented by the generated
/// `Role`, `Family`, `Skill` (and `Tool`) enums, and by tests' own enums; the runtime holds these, never
/// the strings, so a scope is valid by construction and nothing re-parses it per request.
/// Strings exist only at the edges (config files, CLI flags, a model's `activate_skill`), where
/// [`SurfaceName::parse`] turns them into names once, with a did-you-mean.
pub trait SurfaceName: Copy + Eq + Ord + Hash + Debug + Display + Send + Sync + 'static {
    /// What the name is, for errors: `role`, `family` or `skill`.
    const WHAT: &'static str;
    /// Every name, in declaration order.
    fn all() -> &'static [Self];
    /// The name as the definitions spell it.
    fn name(self) -> &'static str;
    /// The name spelled `text`; otherwise an error listing the names, with a did-you-mean.
    fn parse(text: &str) -> Result<Self, UnknownSurfaceName> {
        let all = Self::all();
        all.iter()
            .copied()
            .find(|n| n.name() == text)
            .ok_or_else(|| UnknownSurfaceName {
                what: Self::WHAT,
                name: text.to_owned(),
                suggestion: super::suggest::did_you_mean(text, all.iter().map(|n| n.name()))
                    .map(str::to_owned),
                known: all.iter().map(|n| n.name()).collect(),
            })
    }
}

/// The three name types of one compiled surface. The generated module's `Names` implements
/// it; [`Scope`], [`SurfaceCatalog`] and [`crate::core::Runtime`] are generic over it, so the
/// runtime stays free of YAML and of any particular surface while holding typed names.
pub trait SurfaceNames: Copy + Eq + Ord + Hash + Debug + Default + Send + Sync + 'static {
    type Role: SurfaceName;
    type Family: SurfaceName;
    type Skill: SurfaceName;
}

/// A string that names no role, family or skill of the surface.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown {what} {name:?}{}; known: {}",
    suggestion.as_deref().map(|s| format!(" (did you mean {s}?)")).unwrap_or_default(),
    if known.is_empty() { "none".to_owned() } else { known.join(", ") }
)]
pub struct UnknownSurfaceName {
    pub what: &'static str,
    pub name: String,
    /// The closest known name, if one is close enough.
    pub suggestion: Option<String>,
    pub known: Vec<&'static str>,
}

/// The key of a published tool array. Deliberately has no field for the turn kind.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Scope<N: SurfaceNames> {
    pub role: N::Role,
    pub family: N::Family,
    /// Activated skills, in activation order.
    pub skills: Vec<N::Skill>,
}

impl<N: SurfaceNames> Scope<N> {
    /// `role` × `family` with no skill active.
    pub fn new(role: N::Role, family: N::Family) -> Self {
        Scope {
            role,
            family,
            skills: Vec::new(),
        }
    }
}

/// How a family publishes its skills' tools (the compiler's `skills:` key, mapped by
/// codegen; the runtime knows no YAML): the shared vocabulary.
pub use toolsurface_kernel::vocab::SkillStrategy;

/// A tool as `introspect tools` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolSummary {
    pub name: String,
    pub description: String,
}

/// A skill as `introspect skills` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkillSummary<N: SurfaceNames> {
    pub skill: N::Skill,
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
pub trait SurfaceCatalog<N: SurfaceNames>: Send + Sync {
    /// The exact bytes of the tool array published for `scope`. Under a delivery that keeps
    /// the tools stable ([`SkillDelivery::keeps_tools_stable`]) the bytes must not depend on
    /// `scope.skills`; [`crate::core::Runtime::activate`] refuses a catalog that breaks this.
    fn tool_array(&self, scope: &Scope<N>) -> Result<Cow<'static, str>, CatalogError>;
    /// The tools of `scope`, in published order.
    fn tools(&self, scope: &Scope<N>) -> Result<Vec<ToolSummary>, CatalogError>;
    /// The skills `role` may activate.
    fn skills(&self, role: N::Role) -> Vec<SkillSummary<N>>;
    /// How an activated skill's tools reach the model on `scope`'s family.
    fn skill_delivery(&self, scope: &Scope<N>) -> Result<SkillDelivery, CatalogError>;
    /// The tools `skill` makes callable in `scope` (its role and family), in published
    /// order, each with its published definition in the family's dialect.
    fn skill_tools(
        &self,
        scope: &Scope<N>,
        skill: N::Skill,
    ) -> Result<Vec<SkillTool>, CatalogError>;
}

/// A catalog with no tools and no skills, for hosts that publish nothing through the runtime.
#[derive(Clone, Copy, Debug, Default)]
pub struct EmptyCatalog;

impl<N: SurfaceNames> SurfaceCatalog<N> for EmptyCatalog {
    fn tool_array(&self, _scope: &Scope<N>) -> Result<Cow<'static, str>, CatalogError> {
        Ok(Cow::Borrowed("[]"))
    }

    fn tools(&self, _scope: &Scope<N>) -> Result<Vec<ToolSummary>, CatalogError> {
        Ok(Vec::new())
    }

    fn skills(&self, _role: N::Role) -> Vec<SkillSummary<N>> {
        Vec::new()
    }

    fn skill_delivery(&self, _scope: &Scope<N>) -> Result<SkillDelivery, CatalogError> {
        Ok(SkillDelivery::AllowList)
    }

    fn skill_tools(
        &self,
        _scope: &Scope<N>,
        skill: N::Skill,
    ) -> Result<Vec<SkillTool>, CatalogError> {
        Err(CatalogError(format!("unknown skill {skill}")))
    }
}

/// A published array with its hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Surface<N: SurfaceNames> {
    pub scope: Scope<N>,
    pub bytes: Cow<'static, str>,
    /// Lowercase hex sha256 of `bytes`.
    pub sha256: String,
}

impl<N: SurfaceNames> Surface<N> {
    pub(crate) fn new(scope: Scope<N>, bytes: Cow<'static, str>) -> Self {
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
