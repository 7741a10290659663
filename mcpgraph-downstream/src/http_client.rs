//! The HTTP client for downstream streamable HTTP and SSE servers.
//!
//! TLS (the `tls` feature, on by default) is rustls with the ring provider.
//! Server certificates are checked by rustls-platform-verifier, which on
//! Linux reads the system roots, or the PEM bundle in `SSL_CERT_FILE` / the
//! directories in `SSL_CERT_DIR` when either is set: the usual way to trust
//! a private CA. Without the feature, only `http://` URLs connect. All of
//! it is the `http-client` feature's.

use std::time::Duration;

use reqwest::Client;

pub(crate) use crate::features::install_crypto_provider;
use crate::features::{TLS, is_https};

/// How long the TCP and TLS connect may take; the server's `timeoutMs`
/// bounds the whole handshake on top of this.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Redirects followed within one origin.
const MAX_REDIRECTS: usize = 10;

/// A client for one downstream server (one per connection, so a restart
/// starts from fresh sockets).
///
/// Redirects are followed only within the origin (scheme, host and port)
/// of the first request: the configured `headers` (API keys, tokens) are
/// meant for that server alone, and reqwest would carry all but
/// `Authorization` and cookies to any other.
pub(crate) fn http_client() -> Result<Client, HttpClientError> {
    http_client_builder()
        .build()
        .map_err(HttpClientError::Build)
}

/// Why a downstream server cannot be called over HTTP at all.
#[derive(Debug)]
pub(crate) enum HttpClientError {
    /// reqwest could not build a client (its TLS setup, say).
    Build(reqwest::Error),
    /// `url` is `https://`, and this build has no `tls` feature.
    NoTls { url: String },
}

impl std::fmt::Display for HttpClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Build(e) => write!(f, "cannot create an HTTP client: {}", error_chain(e)),
            Self::NoTls { url } => write!(
                f,
                "{url}: this server was built without mcpgraph's `tls` feature, so it cannot \
                 call https:// URLs (enable the feature, or use http://)"
            ),
        }
    }
}

impl std::error::Error for HttpClientError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Build(e) => Some(e),
            Self::NoTls { .. } => None,
        }
    }
}

/// [`http_client`]'s settings, for a client that adds its own.
pub(crate) fn http_client_builder() -> reqwest::ClientBuilder {
    install_crypto_provider();
    Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .redirect(reqwest::redirect::Policy::custom(|attempt| {
            let first = attempt.previous().first().map(reqwest::Url::origin);
            if first.as_ref() != Some(&attempt.url().origin()) {
                let to = attempt.url().origin().ascii_serialization();
                attempt.error(format!(
                    "refused a redirect to another origin ({to}): the server's headers are not sent there"
                ))
            } else if attempt.previous().len() > MAX_REDIRECTS {
                attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
            } else {
                attempt.follow()
            }
        }))
}

/// Refuses an `https://` URL in a build without the `tls` feature, with
/// that reason rather than reqwest's "URL scheme is not allowed".
pub(crate) fn check_scheme(url: &str) -> Result<(), HttpClientError> {
    if is_https(url) && !TLS {
        return Err(HttpClientError::NoTls {
            url: url.to_owned(),
        });
    }
    Ok(())
}

/// An error and its sources: reqwest's own message alone ("error sending
/// request") does not say what went wrong (refused, certificate, DNS).
/// rmcp's `StreamableHttpError::Client` does not expose the reqwest error
/// it wraps as a source; the chain continues into it here.
pub(crate) fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    let mut text = error.to_string();
    let mut next = error.source();
    if let Some(StreamableHttpError::Client(inner)) =
        error.downcast_ref::<StreamableHttpError<reqwest::Error>>()
    {
        next = Some(inner);
    }
    while let Some(e) = next {
        let more = e.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        next = e.source();
        if let Some(StreamableHttpError::Client(inner)) =
            e.downcast_ref::<StreamableHttpError<reqwest::Error>>()
        {
            next = Some(inner);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `cargo test -p mcpgraph-runtime --no-default-features` runs the
    /// other half (scripts/starter-check.sh runs it end to end).
    #[test]
    fn https_connects_only_with_tls() {
        assert!(check_scheme("http://127.0.0.1:9/mcp").is_ok());
        assert!(check_scheme("http:").is_ok());
        assert!(check_scheme("${URL}").is_ok());
        assert!(!is_https("https:/a") && !is_https("xhttps://a") && is_https("HttPS://a"));
        for url in ["https://a.example/mcp", "HTTPS://a.example/mcp"] {
            let checked = check_scheme(url);
            assert_eq!(checked.is_ok(), TLS, "{url}: {checked:?}");
            if let Err(e) = checked {
                assert!(
                    e.to_string()
                        .contains("built without mcpgraph's `tls` feature"),
                    "{e}"
                );
            }
        }
    }
}
