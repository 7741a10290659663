//! Why the issuer's metadata or keys could not be fetched: logged, and
//! the last good key set kept.

use std::fmt;

/// Why a fetch of the issuer's metadata or keys failed.
#[derive(Debug)]
pub(super) enum FetchError {
    /// The request failed (connection, timeout, body).
    Request { url: String, source: reqwest::Error },
    /// The answer is not a success.
    Status {
        url: String,
        status: reqwest::StatusCode,
    },
    /// The body is over the bound.
    TooLarge { url: String, limit: usize },
    /// The body is not JSON.
    NotJson {
        url: String,
        source: serde_json::Error,
    },
    /// The document has no `keys` array.
    NotAKeySet { url: String },
    /// A metadata document names another issuer.
    OtherIssuer { url: String, issuer: String },
    /// A metadata document has no `jwks_uri`.
    NoJwksUri { url: String },
    /// No metadata named the keys: why, at each place tried.
    NoMetadata(Vec<FetchError>),
}

impl fmt::Display for FetchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Request { url, source } => write!(f, "{url}: {source}"),
            Self::Status { url, status } => write!(f, "{url}: HTTP {status}"),
            Self::TooLarge { url, limit } => write!(f, "{url}: over {limit} bytes"),
            Self::NotJson { url, source } => write!(f, "{url}: not JSON: {source}"),
            Self::NotAKeySet { url } => write!(f, "{url}: not a JWK set (no `keys` array)"),
            Self::OtherIssuer { url, issuer } => {
                write!(f, "{url}: its `issuer` is not `{issuer}` (RFC 8414 §3.3)")
            }
            Self::NoJwksUri { url } => write!(f, "{url}: no `jwks_uri`"),
            Self::NoMetadata(misses) => {
                f.write_str("no authorization server metadata (")?;
                for (i, miss) in misses.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    miss.fmt(f)?;
                }
                f.write_str(")")
            }
        }
    }
}

impl std::error::Error for FetchError {}
