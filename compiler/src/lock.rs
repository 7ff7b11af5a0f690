//! The surface lock.
