//! A secret with characters that URLs and JSON encode (a space, `/`, `+`
//! and `"`), and pieces of each form it can take in text, none of which
//! may reach a caller, a log line or an exported span once redacted.

/// The secret's value.
pub const ENCODED_SECRET: &str = "sk live/42+ab\"cd";

/// Pieces of [`ENCODED_SECRET`] as written, JSON-escaped and
/// percent-encoded (path, query and component forms).
pub const ENCODED_SECRET_FORMS: [&str; 7] = [
    "sk live",
    "sk%20live",
    "42+ab",
    "42%2Bab",
    "ab\\\"cd",
    "ab%22cd",
    "live%2F42",
];
