//! Sandbox-policy changes per role (the lock's `sandbox` section): each of profile, network
//! and devices that changed is one finding. Loosening — a higher profile (`read-only` <
//! `workspace-write` < `full`), the network switched on, more device rights — is
//! **breaking**: a host that approved the role's old policy never approved this one.
//! Tightening is **compatible** (old calls still parse; some may now be refused). A lock
//! written before policies were recorded has nothing to compare and yields no finding.

use super::{Finding, Findings, LockPair, Verdict};
use crate::ir::Sandbox;

impl LockPair<'_> {
    /// One finding per changed key of each role's policy present on both sides.
    pub(super) fn sandbox_changes(&self, out: &mut Findings) {
        for sb in self.b.sandboxes.iter().filter(|s| self.keep_role(&s.role)) {
            let Some(sa) = self.a.sandbox(&sb.role) else {
                continue;
            };
            let families: Vec<&str> = self
                .b
                .surfaces
                .iter()
                .filter(|s| s.role == sb.role && self.keep_family(&s.family))
                .map(|s| s.family.as_str())
                .collect();
            for (key, before, after, looser) in changes(&sa.policy, &sb.policy) {
                let verdict = if looser {
                    Verdict::Breaking
                } else {
                    Verdict::Compatible
                };
                let how = if looser { "loosened" } else { "tightened" };
                let f = Finding::new(
                    "sandbox-changed",
                    vec![sb.role.clone(), key.to_owned()],
                    verdict,
                    &sb.role,
                    format!(
                        "role {} sandbox {key}: {before} -> {after} ({how})",
                        sb.role
                    ),
                )
                .at(self.loc, &format!("role:{}", sb.role));
                if families.is_empty() {
                    out.push(f, None);
                } else {
                    for fam in &families {
                        out.push(f.clone(), Some(fam));
                    }
                }
            }
        }
    }
}

/// (key, before, after, loosened) for each key that differs.
fn changes(a: &Sandbox, b: &Sandbox) -> Vec<(&'static str, &'static str, &'static str, bool)> {
    let on = |n: bool| if n { "on" } else { "off" };
    let mut out = Vec::new();
    if a.profile != b.profile {
        out.push((
            "profile",
            a.profile.as_str(),
            b.profile.as_str(),
            b.profile > a.profile,
        ));
    }
    if a.network != b.network {
        out.push(("network", on(a.network), on(b.network), b.network));
    }
    if a.devices != b.devices {
        out.push((
            "devices",
            a.devices.as_str(),
            b.devices.as_str(),
            b.devices > a.devices,
        ));
    }
    out
}
