//! Usage data as `lint` reads it: the JSON report of `toolsurface usage` (per tool: calls
//! and threads; the thread total; confusion signals), parsed into plain numbers. Parsing
//! the JSON here, not the transcripts, keeps the compiler free of transcript formats.

use std::collections::BTreeMap;

/// One tool's observed use.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ToolUse {
    pub calls: u64,
    pub threads: u64,
}

/// A look-alike follow-up: `from` called, then `to` right after in the same thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Confusion {
    pub kind: String,
    pub from: String,
    pub to: String,
    pub count: u64,
    pub example: String,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct UsageData {
    pub threads: u64,
    pub calls: u64,
    pub tools: BTreeMap<String, ToolUse>,
    pub confusion: Vec<Confusion>,
}

impl UsageData {
    /// Read `usage --format json` output. Errors name the first field that is missing.
    pub fn from_json(v: &serde_json::Value) -> Result<UsageData, String> {
        let num = |v: &serde_json::Value, k: &str, at: &str| {
            v.get(k)
                .and_then(serde_json::Value::as_u64)
                .ok_or_else(|| format!("{at}: `{k}` is missing or not a non-negative integer"))
        };
        let mut out = UsageData {
            threads: num(v, "threads", "the usage report")?,
            calls: num(v, "calls", "the usage report")?,
            ..UsageData::default()
        };
        let tools = v
            .get("tools")
            .and_then(serde_json::Value::as_array)
            .ok_or("the usage report has no `tools` list (is it `toolsurface usage --format json` output?)")?;
        for (i, t) in tools.iter().enumerate() {
            let at = format!("tools[{i}]");
            let name = t
                .get("tool")
                .and_then(serde_json::Value::as_str)
                .ok_or_else(|| format!("{at}: `tool` is missing"))?;
            out.tools.insert(
                name.to_owned(),
                ToolUse {
                    calls: num(t, "calls", &at)?,
                    threads: num(t, "threads", &at)?,
                },
            );
        }
        for (i, c) in v
            .get("confusion")
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let at = format!("confusion[{i}]");
            let s = |k: &str| {
                c.get(k)
                    .and_then(serde_json::Value::as_str)
                    .map(str::to_owned)
                    .ok_or_else(|| format!("{at}: `{k}` is missing"))
            };
            out.confusion.push(Confusion {
                kind: s("kind")?,
                from: s("from")?,
                to: s("to")?,
                count: num(c, "count", &at)?,
                example: s("example").unwrap_or_default(),
            });
        }
        Ok(out)
    }

    pub fn of(&self, tool: &str) -> ToolUse {
        self.tools.get(tool).copied().unwrap_or_default()
    }
}
