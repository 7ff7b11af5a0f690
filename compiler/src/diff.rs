//! The surface diff.
