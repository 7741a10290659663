//! OAuth for downstream `http` and `sse` servers (a server's `auth`,
//! FORMAT.md "OAuth"): the client manager (`mcpgraph-downstream`) gets
//! tokens here and sends them, with rmcp doing the protocol (protected
//! resource and authorization server discovery, PKCE, registration,
//! refresh, client credentials, enterprise-managed authorization).
//!
//! - `error`: why a server's tokens could not be got;
//! - `settings`: `auth` as read, and its secrets resolved;
//! - `tokens`: one server's tokens, shared by its connections, and what is
//!   done when the server refuses one;
//! - `grants`: client credentials and the enterprise grant;
//! - `exchange`: tokens got on a caller's behalf (`token_exchange`);
//! - `issuer`: the authorization server a server's tokens come from,
//!   pinned (named by the graph, or learned once), and the gate that keeps
//!   discovery from reaching any other;
//! - `login`: a person's login (authorization code, loopback redirect);
//! - `store`: the file a person's tokens are kept in;
//! - `token_endpoint`: the token requests made without rmcp.
//!
//! The client manager lends what is its own as a [`Host`]: its HTTP
//! client settings, its `${VAR}` expansion, whether a person is at hand.
//! Its TLS provider, if any, is installed before an [`Authorizer`] is
//! made (rmcp's OAuth client is reqwest's).

mod error;
mod exchange;
mod grants;
mod issuer;
mod login;
mod settings;
mod store;
mod token_endpoint;
mod tokens;

use mcpgraph_runtime::host::CallerToken;

pub use error::TokenError;
pub use settings::AuthSettings;
pub use tokens::{Authorizer, Refusal};

/// What the client grants take from the client manager that uses them.
#[derive(Clone, Copy, Debug)]
pub struct Host {
    /// A client for requests to an authorization server, with the
    /// manager's settings (timeouts, redirects) and TLS provider.
    pub http_client: fn() -> reqwest::ClientBuilder,
    /// Whether a person is at hand to log in when a server asks (a served
    /// graph never opens a browser).
    pub interactive: fn() -> bool,
}

/// On whose behalf a request goes to a server.
#[derive(Clone, Copy, Debug)]
pub enum Behalf<'a> {
    /// A caller's `tools/call`, with the access token inbound OAuth
    /// accepted, if any.
    Call(Option<&'a CallerToken>),
    /// What no caller asked: the handshake, listings, notifications.
    Graph,
}

/// An error and its sources: reqwest's own message alone ("error sending
/// request") does not say what went wrong (refused, certificate, DNS).
fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut next = error.source();
    while let Some(e) = next {
        let more = e.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        next = e.source();
    }
    text
}

/// Installs a TLS provider for the tests' HTTP clients (reqwest has
/// rustls without one when another crate of the build asked for TLS).
#[cfg(test)]
fn install_test_tls() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// An rmcp OAuth error as text (its own words, which hold no secret).
pub(crate) fn describe(error: rmcp::transport::auth::AuthError) -> String {
    match error {
        rmcp::transport::auth::AuthError::HttpError(e) => error_chain(&e),
        other => other.to_string(),
    }
}
