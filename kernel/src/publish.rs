//! Joining published arrays with activated skills' tools, for the generated
//! `published_with_skills` / `published_mcp_with_skills`, and request fragments with the
//! active skills' allowed-tools entries, for the generated `request_fragment`.
//!
//! The inputs are the generated statics: the resident array (`[` + tools joined by `,` + `]`)
//! and each skill's tools as the emitter's canonical JSON, one string per tool. The output is
//! exactly what `compiler::emit::Emitted::with_skills` returns for the same skills: the
//! resident array minus its closing `]`, then `,` + each skill tool (once), then `]`. Nothing is
//! parsed or re-serialised; with no skill tool to append the resident array is borrowed.

use std::borrow::Cow;

/// `resident` with the tools of `skills` appended, in the order given. Borrowed (no work) when
/// `skills` add no tool.
pub fn append_tools<'s, I>(resident: &'static str, skills: I) -> Cow<'static, str>
where
    I: IntoIterator<Item = &'s [&'static str]>,
    I::IntoIter: Clone,
{
    let tools = skills.into_iter().flat_map(|tools| tools.iter());
    let extra: usize = tools.clone().map(|t| t.len() + 1).sum();
    if extra == 0 {
        return Cow::Borrowed(resident);
    }
    // The resident array always ends in `]`; `[]` has no tool to separate from.
    let body = resident.strip_suffix(']').unwrap_or(resident);
    let mut first = body.len() <= 1;
    let mut out = String::with_capacity(body.len() + extra + 1);
    out.push_str(body);
    let mut appended: Vec<&str> = Vec::new();
    for tool in tools {
        // A tool two active skills share is published once (the same canonical JSON).
        if appended.contains(tool) {
            continue;
        }
        appended.push(tool);
        if !first {
            out.push(',');
        }
        first = false;
        out.push_str(tool);
    }
    out.push(']');
    Cow::Owned(out)
}

/// The pieces of one (role, family, turn kind) request fragment: statics in generated code,
/// a borrowed view of the compiler's `emit::request::RequestParts` — one join for both.
#[derive(Clone, Copy, Debug)]
pub struct RequestParts<'a> {
    /// `{"tools":` (Gemini `{"tools":[{"functionDeclarations":`).
    pub open: &'a str,
    /// What closes the tools member: empty (Gemini `}]`).
    pub close_tools: &'a str,
    pub restriction: Option<Restriction<'a>>,
    /// `,"parallel_tool_calls":true}` (Chat, Responses) or `}`.
    pub tail: &'a str,
}

/// The allowed-tools member of a fragment: entries of the resident tools, then of each
/// active skill (role order), each once; `none` when no entry is left.
#[derive(Clone, Copy, Debug)]
pub struct Restriction<'a> {
    /// Up to the first entry, leading comma included.
    pub open: &'a str,
    /// After the last entry.
    pub close: &'a str,
    /// The member when nothing at all is allowed (leading comma included).
    pub none: &'a str,
    pub resident: &'a [&'a str],
    pub skills: &'a [(&'a str, &'a [&'a str])],
}

impl Restriction<'_> {
    /// The member for the active skills: resident entries, then each active skill's in role
    /// order (whatever the activation order, so the bytes depend on the set only), each once.
    pub fn member(&self, active: &[&str]) -> String {
        let mut entries: Vec<&str> = self.resident.to_vec();
        for (skill, tools) in self.skills {
            if active.contains(skill) {
                for e in *tools {
                    if !entries.contains(e) {
                        entries.push(e);
                    }
                }
            }
        }
        if entries.is_empty() {
            return self.none.to_owned();
        }
        format!("{}{}{}", self.open, entries.join(","), self.close)
    }
}

impl RequestParts<'_> {
    /// The fragment: `open` + `tools` + `close_tools` + the restriction for `active` + `tail`.
    pub fn assemble(&self, tools: &str, active: &[&str]) -> String {
        let restriction = self
            .restriction
            .as_ref()
            .map(|r| r.member(active))
            .unwrap_or_default();
        format!(
            "{}{tools}{}{restriction}{}",
            self.open, self.close_tools, self.tail
        )
    }

    /// Every field but `tools`, as its own JSON object (`{}` when there is none): what the
    /// lock records per turn kind and activation, the part that may vary.
    pub fn controls(&self, active: &[&str]) -> String {
        let restriction = self
            .restriction
            .as_ref()
            .map(|r| r.member(active))
            .unwrap_or_default();
        let rest = format!("{restriction}{}", self.tail);
        match rest.strip_prefix(',') {
            Some(inner) => format!("{{{inner}"),
            None => format!("{{{rest}"),
        }
    }
}

/// The request fragment for the active skills, byte for byte what the compiler's
/// `Emitted::request` returns: `fragment` (the static one for no active skill), borrowed,
/// when the tools are the published array (`tools` borrowed) and no active skill adds an
/// allowed entry; else joined from `parts`.
pub fn request_fragment<'s>(
    fragment: &'static str,
    parts: &RequestParts<'static>,
    tools: Cow<'static, str>,
    active: impl IntoIterator<Item = &'s str>,
) -> Cow<'static, str> {
    let active: Vec<&str> = active.into_iter().collect();
    let adds = parts.restriction.is_some_and(|r| {
        r.skills
            .iter()
            .any(|(skill, entries)| !entries.is_empty() && active.contains(skill))
    });
    if matches!(tools, Cow::Borrowed(_)) && !adds {
        return Cow::Borrowed(fragment);
    }
    Cow::Owned(parts.assemble(&tools, &active))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn nothing_to_append_is_borrowed() {
        let none: [&[&str]; 0] = [];
        assert!(matches!(
            append_tools("[{\"a\":1}]", none),
            Cow::Borrowed(_)
        ));
        let empty: [&[&str]; 2] = [&[], &[]];
        assert!(matches!(append_tools("[]", empty), Cow::Borrowed("[]")));
    }

    #[test]
    fn tools_follow_the_resident_ones_in_order() {
        let a: &[&str] = &["{\"a\":1}", "{\"b\":2}"];
        let c: &[&str] = &["{\"c\":3}"];
        assert_eq!(
            append_tools("[{\"r\":0}]", [a, c]),
            "[{\"r\":0},{\"a\":1},{\"b\":2},{\"c\":3}]"
        );
        assert_eq!(
            append_tools("[{\"r\":0}]", [c, a]),
            "[{\"r\":0},{\"c\":3},{\"a\":1},{\"b\":2}]"
        );
        assert_eq!(
            append_tools("[]", [c, a]),
            "[{\"c\":3},{\"a\":1},{\"b\":2}]"
        );
    }

    #[test]
    fn a_tool_two_skills_share_is_appended_once() {
        let a: &[&str] = &["{\"q\":1}", "{\"e\":2}"];
        let b: &[&str] = &["{\"p\":3}", "{\"q\":1}"];
        assert_eq!(
            append_tools("[{\"r\":0}]", [a, b]),
            "[{\"r\":0},{\"q\":1},{\"e\":2},{\"p\":3}]"
        );
    }

    const PARTS: RequestParts<'static> = RequestParts {
        open: "{\"tools\":",
        close_tools: "",
        restriction: Some(Restriction {
            open: ",\"allow\":[",
            close: "]",
            none: ",\"allow\":\"none\"",
            resident: &["\"r\""],
            skills: &[("a", &["\"q\"", "\"e\""]), ("b", &["\"q\""]), ("c", &[])],
        }),
        tail: "}",
    };

    #[test]
    fn a_fragment_is_borrowed_until_an_active_skill_changes_it() {
        let fragment = "{\"tools\":[]},\"allow\":[\"r\"]}";
        let none: [&str; 0] = [];
        assert!(matches!(
            request_fragment(fragment, &PARTS, Cow::Borrowed("[]"), none),
            Cow::Borrowed(_)
        ));
        // A skill with no allowed entry changes nothing either.
        assert!(matches!(
            request_fragment(fragment, &PARTS, Cow::Borrowed("[]"), ["c"]),
            Cow::Borrowed(_)
        ));
        // Entries in skill order whatever the activation order, a shared one once.
        assert_eq!(
            request_fragment(fragment, &PARTS, Cow::Borrowed("[]"), ["b", "a"]),
            "{\"tools\":[],\"allow\":[\"r\",\"q\",\"e\"]}"
        );
        // Appended tools are joined even when the restriction is unchanged.
        assert_eq!(
            request_fragment(fragment, &PARTS, Cow::Owned("[1]".into()), none),
            "{\"tools\":[1],\"allow\":[\"r\"]}"
        );
        let empty = RequestParts {
            restriction: Some(Restriction {
                resident: &[],
                skills: &[],
                ..PARTS.restriction.unwrap()
            }),
            ..PARTS
        };
        assert_eq!(
            request_fragment("x", &empty, Cow::Owned("[]".into()), ["a"]),
            "{\"tools\":[],\"allow\":\"none\"}"
        );
    }
}
