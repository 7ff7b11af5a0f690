//! `sandbox:` of a role in roles.yaml: a profile name (`sandbox: read-only`) or a mapping
//! (`sandbox: { profile: workspace-write, network: on, devices: none }`), read into a
//! [`SandboxDef`] and resolved through `extends` into the IR's [`Sandbox`].

use std::collections::BTreeMap;

use crate::diag::Diagnostic;
use crate::ir::{Sandbox, SandboxDevices, SandboxProfile};
use crate::load::model::RoleDef;
use crate::load::read::{self, Diags, Struct};
use crate::load::yaml::{Node, Value};

/// What one role writes under `sandbox:`; unset keys come from the profile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SandboxDef {
    /// `None`: the profile of the role it extends (or `workspace-write`).
    pub profile: Option<SandboxProfile>,
    pub network: Option<bool>,
    pub devices: Option<SandboxDevices>,
}

const KEYS: [&str; 3] = ["profile", "network", "devices"];

/// Reads `sandbox:`; every unknown profile, key or value is an error at its key or value.
pub fn read_sandbox(node: &Node, what: &str, d: &mut Diags) -> Option<SandboxDef> {
    if let Value::Str(_) = node.value {
        let profile = read_word(
            node,
            "sandbox profile",
            &SandboxProfile::ALL.map(|p| p.as_str()),
            d,
        )?;
        return Some(SandboxDef {
            profile: SandboxProfile::ALL.get(profile).copied(),
            ..SandboxDef::default()
        });
    }
    let s = Struct::read(node, &format!("`sandbox` of {what}"), &KEYS, &[], d)?;
    let profile = s
        .get("profile")
        .and_then(|n| {
            read_word(
                n,
                "sandbox profile",
                &SandboxProfile::ALL.map(|p| p.as_str()),
                d,
            )
        })
        .and_then(|i| SandboxProfile::ALL.get(i).copied());
    let devices = s
        .get("devices")
        .and_then(|n| {
            read_word(
                n,
                "devices value",
                &SandboxDevices::ALL.map(|v| v.as_str()),
                d,
            )
        })
        .and_then(|i| SandboxDevices::ALL.get(i).copied());
    let network = s.get("network").and_then(|n| read_network(n, d));
    Some(SandboxDef {
        profile,
        network,
        devices,
    })
}

/// `network: on | off` (YAML booleans accepted too).
fn read_network(n: &Node, d: &mut Diags) -> Option<bool> {
    if let Value::Bool(b) = n.value {
        return Some(b);
    }
    read_word(n, "network value", &["off", "on"], d).map(|i| i == 1)
}

/// The index of `n`'s string among `known`, or an error with did-you-mean.
fn read_word(n: &Node, what: &str, known: &[&str], d: &mut Diags) -> Option<usize> {
    let s = read::string(n, what, d)?;
    let found = known.iter().position(|k| *k == s.v);
    if found.is_none() {
        let hint = crate::diag::did_you_mean(&s.v, known.iter().copied())
            .unwrap_or_else(|| format!("known: {}", known.join(", ")));
        d.push(
            Diagnostic::error(
                "unknown-sandbox",
                Some(s.span),
                format!("unknown {what} `{}`", s.v),
            )
            .with_hint(hint),
        );
    }
    found
}

/// The role's sandbox: its own declaration over its profile's defaults, the profile being
/// inherited when unset; a role without `sandbox:` takes the one it extends whole.
pub fn resolve(r: &RoleDef, by_name: &BTreeMap<&str, &RoleDef>) -> Sandbox {
    resolve_at(r, by_name, 0)
}

fn resolve_at(r: &RoleDef, by_name: &BTreeMap<&str, &RoleDef>, steps: usize) -> Sandbox {
    // extends cycles are reported by check; stop rather than loop.
    let inherited = r
        .extends
        .as_ref()
        .and_then(|e| by_name.get(e.as_str()))
        .filter(|_| steps <= by_name.len())
        .map(|p| resolve_at(p, by_name, steps + 1));
    apply(r.sandbox, inherited)
}

fn apply(own: Option<SandboxDef>, inherited: Option<Sandbox>) -> Sandbox {
    let inherited = inherited.unwrap_or_default();
    let Some(def) = own else {
        return inherited;
    };
    let base = Sandbox::of(def.profile.unwrap_or(inherited.profile));
    Sandbox {
        profile: base.profile,
        network: def.network.unwrap_or(base.network),
        devices: def.devices.unwrap_or(base.devices),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use crate::ir::{Sandbox, SandboxDevices, SandboxProfile};

    fn roles(yaml: &str) -> Vec<(String, Sandbox)> {
        // The corpus base (a valid folder) with these roles.
        let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/bad/_base");
        let mut sources = crate::read_dir(&base).unwrap();
        for f in &mut sources.files {
            if f.path == "roles.yaml" {
                *f = crate::SourceFile::new("roles.yaml", yaml);
            }
        }
        let c = crate::compile(&sources);
        let ir = c.ir.unwrap_or_else(|| panic!("{:?}", c.diagnostics));
        ir.roles.into_iter().map(|r| (r.name, r.sandbox)).collect()
    }

    #[test]
    fn declared_inherited_and_defaulted() {
        let got = roles(
            "a:\n  description: A.\n  tools: [shell, shell_session]\n\
             b:\n  description: B.\n  extends: a\n  tools: []\n  sandbox: { network: on, devices: none }\n\
             c:\n  description: C.\n  extends: b\n  tools: []\n\
             d:\n  description: D.\n  extends: b\n  tools: []\n  sandbox: read-only\n\
             e:\n  description: E.\n  tools: [shell]\n  sandbox: { profile: full, network: off }\n",
        );
        let ww = Sandbox::of(SandboxProfile::WorkspaceWrite);
        let b = Sandbox {
            network: true,
            devices: SandboxDevices::None,
            ..ww
        };
        assert_eq!(
            got,
            vec![
                // Undeclared: workspace-write with its defaults (network off).
                ("a".into(), ww),
                // Overrides on the inherited profile.
                ("b".into(), b),
                // No `sandbox:`: the extended role's policy whole.
                ("c".into(), b),
                // A declared profile takes its own defaults, not the parent's overrides.
                ("d".into(), Sandbox::of(SandboxProfile::ReadOnly)),
                (
                    "e".into(),
                    Sandbox {
                        network: false,
                        ..Sandbox::of(SandboxProfile::Full)
                    }
                ),
            ]
        );
    }
}
