//! The access token a caller's request carried, once inbound OAuth
//! accepted it (`serve --http --oauth-issuer`): kept with the call, for the
//! downstream servers that pass the caller's identity on (`auth: grant:
//! token_exchange`), and never printed.

use std::sync::Arc;

/// A caller's access token.
#[derive(Clone)]
#[cfg_attr(
    not(all(feature = "http-server", feature = "http-client")),
    allow(dead_code)
)]
pub(crate) struct CallerToken(Arc<str>);

// Made by inbound OAuth (`http-server`), read by the token exchange
// (`http-client`): a build with neither only passes `None` around.
#[cfg_attr(
    not(all(feature = "http-server", feature = "http-client")),
    allow(dead_code)
)]
impl CallerToken {
    pub(crate) fn new(token: &str) -> CallerToken {
        CallerToken(token.into())
    }

    /// The token itself, to send where it belongs.
    pub(crate) fn secret(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for CallerToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CallerToken(..)")
    }
}
