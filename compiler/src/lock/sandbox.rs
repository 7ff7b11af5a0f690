//! The lock's record of each role's declared sandbox policy (`sandbox:` of roles.yaml,
//! `extends` resolved). The policy reaches no published array, so without this record a
//! policy change would pass `check` unseen; with it, `check` fails on an unlocked change
//! and `diff` judges it (loosening is breaking: `crate::diff`'s sandbox findings).
//!
//! ```text
//! sandbox side_chat {"profile":"workspace-write","network":false,"devices":"read-write"}
//! sandbox steward {"profile":"workspace-write","network":false,"devices":"none"}
//! ```

use std::fmt::Write as _;

use crate::ir::{Ir, Sandbox};

use super::{LockError, err, from_json, split, to_json};

/// One role's declared policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockedSandbox {
    pub role: String,
    pub policy: Sandbox,
}

/// Every role's policy, IR (declaration) order.
pub(super) fn sandboxes_of(ir: &Ir) -> Vec<LockedSandbox> {
    ir.roles
        .iter()
        .map(|r| LockedSandbox {
            role: r.name.clone(),
            policy: r.sandbox,
        })
        .collect()
}

/// The `sandbox` section of the lock file.
pub(super) fn render_sandboxes(sandboxes: &[LockedSandbox], out: &mut String) {
    if !sandboxes.is_empty() {
        out.push('\n');
    }
    for s in sandboxes {
        let _ = writeln!(out, "sandbox {} {}", s.role, to_json(&s.policy));
    }
}

/// A `sandbox <role> <json>` line.
pub(super) fn parse_sandbox(raw: &str, line: usize) -> Result<LockedSandbox, LockError> {
    let (w, rest) = split(raw, 2).ok_or_else(|| err(line, "malformed `sandbox` line"))?;
    Ok(LockedSandbox {
        role: w[1].to_owned(),
        policy: from_json(rest, line, "sandbox")?,
    })
}
