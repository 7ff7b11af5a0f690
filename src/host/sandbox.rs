//! The host's side of the sandbox: the host config's `sandbox:` section (which may only
//! tighten) and resolving it with the role's declared policy (`Role::sandbox()`, generated
//! from `sandbox:` of tool-defs/roles.yaml) into the policy a [`super::StandardHost`] enforces (`--sandbox full` being the one way past it).

use std::path::PathBuf;

use serde::Deserialize;
use toolsurface_runtime::sandbox::{Devices, Enforcement, Policy, Profile};

use crate::standard::Role;

/// The host config's `sandbox:` section. Every key only tightens the role's policy.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SandboxConfig {
    /// No role on this host gets more than this profile.
    #[serde(default)]
    pub ceiling: Option<Profile>,
    /// Switch the network off (`false`); `true` cannot switch on what the role has off.
    #[serde(default)]
    pub network: Option<bool>,
    /// What the `device` argument may do at most.
    #[serde(default)]
    pub devices: Option<Devices>,
    /// When the kernel cannot enforce: `required` refuses to start a confined role, `warn`
    /// serves and every shell result says it ran unconfined. Default: warn (`serve --http`
    /// on a non-loopback address: required).
    #[serde(default)]
    pub enforcement: Option<Enforcement>,
    /// `set_workdirs` may only declare folders inside these (default: the host roots and
    /// the configured workdirs), so a model cannot declare `/` and widen its own sandbox.
    #[serde(default)]
    pub workdir_bounds: Vec<PathBuf>,
    /// More writable roots under `workspace-write` (e.g. `~/.cache`).
    #[serde(default)]
    pub extra_write: Vec<PathBuf>,
    /// Protected paths on top of the role's.
    #[serde(default)]
    pub protect: Vec<PathBuf>,
    /// Set by `serve --sandbox full` only (not a config key): the role runs unconfined
    /// whatever it declares; `serve` logs it.
    #[serde(skip)]
    pub full_override: bool,
}

impl SandboxConfig {
    /// The policy `role` runs under on this host.
    pub fn resolve(&self, role: Role) -> Policy {
        if self.full_override {
            return Policy::full();
        }
        let mut ceiling = Policy::full();
        if let Some(p) = self.ceiling {
            // The profile and what it implies for devices (read-only: read); the network
            // is its own key.
            ceiling.profile = p;
            ceiling.devices = Policy::of(p).devices;
        }
        if let Some(net) = self.network {
            ceiling.network = net;
        }
        if let Some(d) = self.devices {
            ceiling.devices = d;
        }
        ceiling.protect = self.protect.clone();
        // The role's declared policy (`sandbox:` of tool-defs/roles.yaml, generated).
        let mut policy = role.sandbox().within(&ceiling);
        if policy.profile == Profile::Full && ceiling.profile == Profile::Full {
            policy = Policy::full();
        }
        policy.extra_write = self.extra_write.clone();
        policy.enforcement = self.enforcement.unwrap_or(Enforcement::Warn);
        policy
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn the_host_config_only_tightens() {
        let none = SandboxConfig::default();
        assert_eq!(none.resolve(Role::Main).profile, Profile::WorkspaceWrite);
        assert!(none.resolve(Role::Main).network);
        assert!(!none.resolve(Role::SideChat).network);
        assert_eq!(none.resolve(Role::Steward).devices, Devices::None);
        let tight = SandboxConfig {
            ceiling: Some(Profile::ReadOnly),
            network: Some(false),
            enforcement: Some(Enforcement::Required),
            ..SandboxConfig::default()
        };
        let p = tight.resolve(Role::Main);
        assert_eq!(p.profile, Profile::ReadOnly);
        assert!(!p.network);
        assert_eq!(p.devices, Devices::Read);
        assert_eq!(p.enforcement, Enforcement::Required);
        // A ceiling above the role loosens nothing; network: true switches nothing on.
        let loose = SandboxConfig {
            ceiling: Some(Profile::Full),
            network: Some(true),
            ..SandboxConfig::default()
        };
        assert_eq!(
            loose.resolve(Role::SideChat).profile,
            Profile::WorkspaceWrite
        );
        assert!(!loose.resolve(Role::SideChat).network);
        let full = SandboxConfig {
            full_override: true,
            ..tight
        };
        assert_eq!(full.resolve(Role::SideChat), Policy::full());
    }

    #[test]
    fn the_declared_roles_reach_the_generated_code() {
        // The declared roles (tool-defs/roles.yaml) reach the generated code, with the
        // profile's protected paths, and the sentence says the policy.
        assert_eq!(Role::Steward.sandbox().devices, Devices::None);
        assert!(!Role::Steward.sandbox().network);
        assert!(Role::Maintainer.sandbox().network, "inherited from main");
        assert_eq!(
            Role::SideChat.sandbox(),
            Policy::of(Profile::WorkspaceWrite)
        );
        assert_eq!(
            Role::Main.sandbox_sentence(),
            Role::Main.sandbox().sentence()
        );
    }

    #[test]
    fn the_section_parses_and_refuses_unknown_keys() {
        let c: SandboxConfig = serde_json::from_value(serde_json::json!({
            "ceiling": "read-only", "enforcement": "required", "workdir_bounds": ["/srv"]
        }))
        .unwrap();
        assert_eq!(c.ceiling, Some(Profile::ReadOnly));
        let e = serde_json::from_value::<SandboxConfig>(serde_json::json!({"ceilin": "full"}))
            .unwrap_err();
        assert!(e.to_string().contains("ceilin"), "{e}");
        let e = serde_json::from_value::<SandboxConfig>(serde_json::json!({"ceiling": "open"}))
            .unwrap_err();
        assert!(e.to_string().contains("read-only"), "{e}");
    }
}
