//! Support for `implements:` conversions (generated `From<Call>` impls building a runtime
//! type from a parsed call): an integer whose definition says `minimum` ≥ 0 becomes whichever
//! integer type the runtime field declares, without a cast the generated code would repeat.

/// An integer `Call::parse` already held to its definition's `minimum` ≥ 0, as the runtime
/// field's type.
pub trait FromNonNegative {
    fn from_non_negative(n: i64) -> Self;
}

impl FromNonNegative for i64 {
    fn from_non_negative(n: i64) -> Self {
        n
    }
}

impl FromNonNegative for u64 {
    fn from_non_negative(n: i64) -> Self {
        // Never negative here (the parse refused it); 0 rather than a panic if it were.
        u64::try_from(n).unwrap_or(0)
    }
}

impl FromNonNegative for usize {
    fn from_non_negative(n: i64) -> Self {
        usize::try_from(n).unwrap_or(0)
    }
}
