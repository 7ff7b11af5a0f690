//! The `device` rule: which strings may name a remote machine, checked before any process
//! starts, so that nothing a model writes can become an `ssh` option or a shell word.

use std::fmt;

/// Longest accepted device string (a DNS name is at most 253 characters; `user@` on top).
const MAX_DEVICE_LEN: usize = 320;

/// A device string that passed [`validate_device`]: an OpenSSH alias, a hostname,
/// `user@host`, `[ipv6]` or `user@[ipv6]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Device(String);

impl Device {
    /// The string the model gave (used in results and as the memory key).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The destination argument handed to `ssh` (brackets of an IPv6 literal removed, since
    /// `ssh` takes the bare address).
    pub(crate) fn ssh_destination(&self) -> String {
        match self.0.rsplit_once('@') {
            Some((user, host)) => format!("{user}@{}", strip_brackets(host)),
            None => strip_brackets(&self.0).to_string(),
        }
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn strip_brackets(host: &str) -> &str {
    host.strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host)
}

/// Why a device string was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "device {shown} refused: {reason}. A device is an OpenSSH alias, a hostname, user@host or \
     [ipv6] (letters, digits, '.', '_', '-'; not starting with '-'); options, whitespace and \
     shell characters are not accepted, and keys come only from the OpenSSH config"
)]
pub struct DeviceError {
    shown: String,
    reason: &'static str,
}

/// Checks a device string against the strict device grammar:
///
/// ```text
/// device   = [ user "@" ] host
/// user     = word
/// host     = word | "[" ipv6 "]"
/// word     = (ALNUM | "_") (ALNUM | "." | "_" | "-")*
/// ipv6     = (HEX | ":" | ".")+ [ "%" (ALNUM | "_" | "." | "-")+ ]   ; contains at least one ':'
/// ```
pub fn validate_device(device: &str) -> Result<Device, DeviceError> {
    let refuse = |reason| DeviceError {
        shown: format!("{device:?}"),
        reason,
    };
    if device.is_empty() {
        return Err(refuse("it is empty"));
    }
    if device.len() > MAX_DEVICE_LEN {
        return Err(refuse("it is too long"));
    }
    if device.starts_with('-') {
        return Err(refuse("it starts with '-' (that would be an ssh option)"));
    }
    if device.chars().any(char::is_whitespace) {
        return Err(refuse("it contains whitespace"));
    }
    if device.chars().any(|c| c.is_control()) {
        return Err(refuse("it contains control characters"));
    }
    let (user, host) = match device.split_once('@') {
        Some((user, host)) => (Some(user), host),
        None => (None, device),
    };
    if let Some(user) = user
        && !is_word(user)
    {
        return Err(refuse(
            "the user part must be letters, digits, '.', '_' or '-' and not start with '-'",
        ));
    }
    if host.starts_with('[') {
        if !is_bracketed_ipv6(host) {
            return Err(refuse(
                "a bracketed host must be an IPv6 address like [::1]",
            ));
        }
    } else if !is_word(host) {
        return Err(refuse(
            "the host must be letters, digits, '.', '_' or '-' and not start with '-'",
        ));
    }
    Ok(Device(device.to_string()))
}

fn is_word(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphanumeric() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

fn is_bracketed_ipv6(s: &str) -> bool {
    let Some(inner) = s.strip_prefix('[').and_then(|s| s.strip_suffix(']')) else {
        return false;
    };
    let (addr, zone) = match inner.split_once('%') {
        Some((addr, zone)) => (addr, Some(zone)),
        None => (inner, None),
    };
    let addr_ok = !addr.is_empty()
        && addr.contains(':')
        && addr
            .chars()
            .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.');
    let zone_ok = zone.is_none_or(|z| {
        !z.is_empty()
            && z.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    });
    addr_ok && zone_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_four_shapes() {
        for ok in [
            "nas",
            "build-box.example.org",
            "deploy@10.0.0.7",
            "[::1]",
            "root@[fe80::1%eth0]",
            "_alias",
        ] {
            assert!(validate_device(ok).is_ok(), "{ok}");
        }
        assert_eq!(
            validate_device("u@[::1]").map(|d| d.ssh_destination()),
            Ok("u@::1".to_string())
        );
    }

    #[test]
    fn refuses_options_and_shell() {
        for bad in [
            "-oProxyCommand=x",
            "a b",
            "a;b",
            "$(id)",
            "u@-x",
            "[::1",
            "[]",
            "[::1]:22",
            "a@b@c",
        ] {
            assert!(validate_device(bad).is_err(), "{bad}");
        }
    }
}
