//! Token counts with a real BPE (o200k_base, the GPT-4o / o-series encoding), so the
//! per-request tax reported by `stats`, `diff` and the lock is the number a provider bills,
//! not a characters/4 guess. The vocabulary ships inside tiktoken-rs: no network, ever.

/// Tokens `text` costs under o200k_base (special-token text counted as ordinary text).
pub fn count(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton().count_ordinary(text)
}

/// The name of the encoding [`count`] uses, recorded in the lock next to every count.
pub const ENCODING: &str = "o200k_base";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_bpe_not_characters() {
        assert_eq!(count(""), 0);
        // A common English word is one token; a long run of one character is far fewer
        // tokens than characters.
        assert_eq!(count("hello"), 1);
        let run = "a".repeat(400);
        assert!(count(&run) < 100, "got {}", count(&run));
        // JSON punctuation is tokenised too.
        assert!(count(r#"{"type":"object","properties":{}}"#) > 5);
    }
}
