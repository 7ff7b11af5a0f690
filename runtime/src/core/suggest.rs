//! "Did you mean …?" for names a model misspells (introspect targets, hosts, skills).

/// The closest candidate to `input`, if one is close enough to be worth suggesting.
pub fn did_you_mean<'a, I>(input: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let input = input.to_ascii_lowercase();
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(&input, &c.to_ascii_lowercase()), c))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

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
