//! libFuzzer target `patch`: see fuzz/targets.rs (shared with the suite's smoke test).

#![no_main]

#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::patch(data));
