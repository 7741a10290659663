//! What this build calls downstream servers with: the `http-client` and
//! `tls` features, the error naming one that is missing, and the TLS
//! provider of `tls`. (The facade's `features` module
//! says what the generated binary's command line was built with.)

/// Whether this build speaks HTTPS to downstream servers (the `tls`
/// feature).
pub const TLS: bool = cfg!(feature = "tls");

/// Whether this build calls downstream `http` and `sse` servers (the
/// `http-client` feature).
pub(crate) const HTTP_CLIENT: bool = cfg!(feature = "http-client");

/// Why `what` cannot be done: this build lacks mcpgraph's `feature`.
#[doc(hidden)]
pub fn missing(what: &str, feature: &str) -> String {
    format!(
        "{what} needs mcpgraph's `{feature}` feature, which this server was built without \
         (enable it in the graph crate's Cargo.toml: \
         mcpgraph = {{ ..., features = [\"{feature}\"] }})"
    )
}

/// The refusal of a downstream server of `transport` (`http` or `sse`)
/// in a build without `http-client`.
pub(crate) fn missing_http_client(transport: &str) -> String {
    missing(&format!("a `type: {transport}` server"), "http-client")
}

/// Whether `url` needs TLS: it starts with `https://`, in any case. A
/// `const fn`, so that the build-time check of a graph's URLs (the
/// facade's `require_tls`) is this same test.
pub const fn is_https(url: &str) -> bool {
    let (url, scheme) = (url.as_bytes(), b"https://");
    if url.len() < scheme.len() {
        return false;
    }
    let mut i = 0;
    while i < scheme.len() {
        if url[i].to_ascii_lowercase() != scheme[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Makes ring the process-wide rustls provider unless something else
/// (an embedding application) installed one first. reqwest is built without
/// a default provider here, so an application that builds its own reqwest
/// client (or rmcp's default one) in the same build calls this first.
/// Without the `tls` feature there is no provider, and this does nothing
/// (the core's OTLP exporter installs the same provider itself).
pub fn install_crypto_provider() {
    #[cfg(feature = "tls")]
    static ONCE: std::sync::Once = std::sync::Once::new();
    #[cfg(feature = "tls")]
    ONCE.call_once(|| {
        if rustls::crypto::CryptoProvider::get_default().is_none() {
            // Losing a race with another installer is fine: either provider works.
            let _ = rustls::crypto::ring::default_provider().install_default();
        }
    });
}
