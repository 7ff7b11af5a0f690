//! "Did you mean …?" for names a model misspells (introspect targets, hosts, skills).

pub use toolsurface_text::did_you_mean;

/// " (did you mean x?)" or "".
pub fn hint<'a, I>(input: &str, candidates: I) -> String
where
    I: IntoIterator<Item = &'a str>,
{
    match did_you_mean(input, candidates) {
        Some(name) => format!(" (did you mean {name}?)"),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hint_is_a_parenthesised_suggestion_or_nothing() {
        let names = ["tools", "skills", "hosts", "workdirs"];
        assert_eq!(hint("skils", names), " (did you mean skills?)");
        assert_eq!(hint("zzzzzz", names), "");
    }
}
