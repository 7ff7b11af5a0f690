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
    fn suggests_close_names_only() {
        let names = ["tools", "skills", "hosts", "workdirs"];
        assert_eq!(did_you_mean("tols", names), Some("tools"));
        assert_eq!(did_you_mean("HOSTS", names), Some("hosts"));
        assert_eq!(did_you_mean("zzzzzz", names), None);
        assert_eq!(hint("skils", names), " (did you mean skills?)");
    }
}
