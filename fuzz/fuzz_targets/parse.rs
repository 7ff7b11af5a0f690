//! `Call::parse` on arbitrary bytes: the first byte picks role × family, the rest is
//! `name\0arguments`. It must never panic, whatever the model sends.

#![no_main]

use libfuzzer_sys::fuzz_target;
use toolsurface::standard::{Call, Family, Role};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let role = Role::ALL[usize::from(pick) % Role::ALL.len()];
    let family = Family::ALL[usize::from(pick / 16) % Family::ALL.len()];
    let text = String::from_utf8_lossy(rest);
    let (name, args) = text.split_once('\0').unwrap_or((&text, ""));
    let _ = Call::parse(role, family, name, args);
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(args) {
        let _ = Call::parse(role, family, name, &value);
    }
});
