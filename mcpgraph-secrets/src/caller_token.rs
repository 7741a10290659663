//! The access token a caller's request carried, once inbound OAuth
//! accepted it (`serve --http --oauth-issuer`): kept with the call, for the
//! downstream servers that pass the caller's identity on (`auth: grant:
//! token_exchange`), and never printed.

use std::sync::Arc;

/// A caller's access token, and the scopes it grants (checked against
/// the `requiredScopes` of every tool the call reaches, nested ones too).
#[derive(Clone)]
pub struct CallerToken {
    token: Arc<str>,
    scopes: Arc<[String]>,
}

// Made by inbound OAuth (`mcpgraph-http`), kept with a call by the core,
// read by the token exchange (`mcpgraph-downstream`'s `http-client`).
impl CallerToken {
    /// The token `token`, granting `scopes`.
    pub fn new(token: &str, scopes: impl IntoIterator<Item = String>) -> CallerToken {
        CallerToken {
            token: token.into(),
            scopes: scopes.into_iter().collect(),
        }
    }

    /// The token itself, to send where it belongs.
    pub fn secret(&self) -> &str {
        &self.token
    }

    /// The scopes it grants.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// The first of `required` the token does not grant, if any.
    pub fn lacks<'a>(&self, required: &[&'a str]) -> Option<&'a str> {
        required
            .iter()
            .find(|s| !self.scopes.iter().any(|g| g == *s))
            .copied()
    }
}

impl std::fmt::Debug for CallerToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CallerToken(..)")
    }
}
