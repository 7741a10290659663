//! Why serving streamable HTTP could not start.

use std::fmt;
use std::net::SocketAddr;

/// Why serving streamable HTTP could not start.
#[derive(Debug)]
#[non_exhaustive]
pub enum HttpError {
    /// An address could not be bound.
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The option that gave it, when not `--http`.
        flag: Option<&'static str>,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The address bound could not be read back.
    LocalAddr(std::io::Error),
    /// `--auth-token-env` names a variable that is not set (or empty).
    AuthTokenUnset {
        /// The variable.
        var: String,
    },
    /// An inbound OAuth setting is not usable.
    OAuth(OAuthError),
}

/// Why inbound OAuth's settings are not usable.
#[derive(Debug)]
#[non_exhaustive]
pub enum OAuthError {
    /// `flag`'s value is not a URL.
    NotAUrl {
        /// The option.
        flag: &'static str,
        /// Its value.
        text: String,
        /// Why it does not parse.
        source: url::ParseError,
    },
    /// `flag`'s value is a URL, but not an `http://` or `https://` one
    /// without a fragment.
    NotHttp {
        /// The option.
        flag: &'static str,
        /// Its value.
        text: String,
    },
    /// The client fetching the issuer's keys could not be made.
    Client(reqwest::Error),
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Bind {
                addr,
                flag: None,
                source,
            } => write!(f, "cannot listen on {addr}: {source}"),
            Self::Bind {
                addr,
                flag: Some(flag),
                source,
            } => write!(f, "cannot listen on {addr} ({flag}): {source}"),
            Self::LocalAddr(e) => write!(f, "cannot read the bound address: {e}"),
            Self::AuthTokenUnset { var } => {
                write!(
                    f,
                    "--auth-token-env: environment variable `{var}` is not set"
                )
            }
            Self::OAuth(e) => e.fmt(f),
        }
    }
}

impl fmt::Display for OAuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotAUrl { flag, text, source } => write!(f, "{flag} `{text}`: {source}"),
            Self::NotHttp { flag, text } => write!(
                f,
                "{flag} `{text}`: not an http:// or https:// URL without a fragment"
            ),
            Self::Client(e) => write!(f, "cannot create an HTTP client: {e}"),
        }
    }
}

impl std::error::Error for HttpError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Bind { source, .. } | Self::LocalAddr(source) => Some(source),
            Self::AuthTokenUnset { .. } => None,
            Self::OAuth(e) => Some(e),
        }
    }
}

impl std::error::Error for OAuthError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::NotAUrl { source, .. } => Some(source),
            Self::NotHttp { .. } => None,
            Self::Client(e) => Some(e),
        }
    }
}

impl From<OAuthError> for HttpError {
    fn from(e: OAuthError) -> Self {
        Self::OAuth(e)
    }
}
