//! What this build was compiled with: the facade's cargo features that add
//! transports (`http-server`, `http-client`, `tls`), the error naming one
//! that is missing, the allocator `allocator!()` counts over (`mimalloc`),
//! and the build-time checks of a graph's HTTP servers
//! that generated code calls (`rt::require_tls`, `rt::require_http_client`).

/// The allocator `allocator!()` counts over (a unit struct, so both its
/// type and its value): mimalloc with the `mimalloc` feature, else the
/// system's.
#[cfg(feature = "mimalloc")]
pub use mimalloc::MiMalloc as DefaultAllocator;
#[cfg(not(feature = "mimalloc"))]
pub use std::alloc::System as DefaultAllocator;

/// Whether this build speaks HTTPS to downstream servers (the `tls`
/// feature).
pub(crate) const TLS: bool = cfg!(feature = "tls");

/// Whether this build calls downstream `http` and `sse` servers (the
/// `http-client` feature).
pub(crate) const HTTP_CLIENT: bool = cfg!(feature = "http-client");

/// Why `what` (a command, a flag) cannot be done: this build lacks
/// mcpgraph's `feature`.
#[derive(Debug)]
#[cfg_attr(feature = "http-server", allow(dead_code))]
pub(crate) struct MissingFeature {
    pub(crate) what: &'static str,
    pub(crate) feature: &'static str,
}

impl std::fmt::Display for MissingFeature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = mcpgraph_downstream::features::missing(self.what, self.feature);
        f.write_str(&text)
    }
}

impl std::error::Error for MissingFeature {}

/// Fails the build, with `message`, when an HTTP server's `url` as the
/// graph writes it is `https://` and this build has no TLS
/// (`const _: () = rt::require_tls(url, message);`). A `${VAR}` URL is
/// checked when it connects.
/// Without `http-client`, [`require_http_client`] fails the build first,
/// and this says nothing more.
pub const fn require_tls(url: &str, message: &str) {
    if HTTP_CLIENT && mcpgraph_downstream::is_https(url) && !TLS {
        panic!("{}", message);
    }
}

/// Fails the build, with `message`, when the graph has an HTTP server and
/// this build cannot call one: no `http-client` feature
/// (`const _: () = rt::require_http_client(message);`).
pub const fn require_http_client(message: &str) {
    if !HTTP_CLIENT {
        panic!("{}", message);
    }
}
