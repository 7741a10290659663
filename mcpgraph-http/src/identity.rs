//! Who sent a request over HTTP, as the handler asks it
//! (`RequestIdentity`): read from the request's parts, which rmcp hands
//! the handler, with what the routes put there (the claims of an accepted
//! access token, the peer's address).

use rmcp::model::Extensions;
use sha2::{Digest, Sha256};

use super::PeerAddress;
use super::oauth::Claims;
use mcpgraph_runtime::host::CallerToken;
use mcpgraph_runtime::host::Owner;
use mcpgraph_runtime::host::RequestIdentity;

/// A request's sender, as streamable HTTP knows it.
pub(crate) struct HttpIdentity;

impl RequestIdentity for HttpIdentity {
    /// The access token of the request, as inbound OAuth accepted it
    /// (with `--oauth-issuer` only).
    fn token(&self, extensions: &Extensions) -> Option<CallerToken> {
        let parts = extensions.get::<http::request::Parts>()?;
        let claims = parts.extensions.get::<Claims>()?;
        Some(claims.token.clone())
    }

    /// The principal inbound OAuth accepted, else the request's session,
    /// else its peer address.
    fn owner(&self, extensions: &Extensions) -> Owner {
        let Some(parts) = extensions.get::<http::request::Parts>() else {
            return Owner::new(Owner::STDIO);
        };
        if let Some(claims) = parts.extensions.get::<Claims>()
            && let Some(who) = claims.subject.as_ref().or(claims.client_id.as_ref())
        {
            return Owner::new(&format!("principal:{who}"));
        }
        if let Some(session) = parts
            .headers
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
        {
            return Owner::new(&format!("session:{session}"));
        }
        match parts.extensions.get::<PeerAddress>() {
            Some(peer) => Owner::new(&format!("peer:{}", peer.0)),
            None => Owner::new("unknown"),
        }
    }

    /// Who calls, as a state is bound to it: under inbound OAuth, the
    /// access token's issuer and subject (its `client_id` when it has no
    /// `sub`), so that the same principal's next token opens the state;
    /// else the digest of the `Authorization` header (`--auth-token-env`);
    /// else (no credential) nothing.
    fn principal(&self, extensions: &Extensions) -> Vec<u8> {
        let Some(parts) = extensions.get::<http::request::Parts>() else {
            return Vec::new();
        };
        let claims = parts.extensions.get::<Claims>();
        if let Some((claims, subject)) = claims.and_then(|c| {
            let subject = c.subject.as_deref().map(|s| ("sub", s));
            let client = c.client_id.as_deref().map(|s| ("client_id", s));
            Some((c, subject.or(client)?))
        }) {
            let (claim, value) = subject;
            return [
                b"oauth\0",
                claims.issuer.as_bytes(),
                b"\0",
                claim.as_bytes(),
                b"\0",
                value.as_bytes(),
            ]
            .concat();
        }
        if let Some(credential) = parts.headers.get(http::header::AUTHORIZATION) {
            return [&b"credential\0"[..], &Sha256::digest(credential.as_bytes())].concat();
        }
        Vec::new()
    }
}
