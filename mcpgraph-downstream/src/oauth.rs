//! OAuth for downstream `http` and `sse` servers (a server's `auth`,
//! FORMAT.md "OAuth"): the tokens come from `mcpgraph-oauth`'s `client`;
//! here the client manager shares one authorizer per server, sends its
//! token with each request and asks for a better one when the server
//! refuses it, and `auth login|logout|status` is run.
//!
//! `authorizer` holds the authorizer each server shares. Without the
//! `http-client` feature only the checks are here: a `--mcp` file's `auth`
//! is still checked ([`check_issuer`]), and `auth login` says what is
//! missing.

// With `http-client`: one authorizer per server, its tokens sent and
// renewed, and `auth` run.
#[cfg(feature = "http-client")]
pub(crate) mod authorizer;
// Without it: no authorizer, and `auth` says what is missing.
#[cfg(not(feature = "http-client"))]
#[path = "oauth/no_authorizer.rs"]
pub(crate) mod authorizer;

use std::sync::atomic::{AtomicBool, Ordering};

pub(crate) use authorizer::SharedAuthorizer;
pub use authorizer::run_auth;

/// Checks what the format leaves to the runtime: an `issuer` without
/// `${VAR}` parses as an http(s) URL.
pub(crate) fn check_issuer(auth: &mcpgraph_format::Auth) -> Result<(), IssuerError> {
    if let Some(issuer) = &auth.issuer
        && !issuer.contains("${")
    {
        let bad = |parse| IssuerError {
            issuer: issuer.clone(),
            parse,
        };
        let parsed = url::Url::parse(issuer).map_err(|e| bad(Some(e)))?;
        if !matches!(parsed.scheme(), "https" | "http") {
            return Err(bad(None));
        }
    }
    Ok(())
}

/// An `auth.issuer` that is not an http(s) URL.
#[derive(Debug)]
pub(crate) struct IssuerError {
    issuer: String,
    /// Why it does not parse; `None`: it parses, with another scheme.
    parse: Option<url::ParseError>,
}

impl std::fmt::Display for IssuerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.parse {
            Some(e) => write!(f, "`auth.issuer` `{}` is not a URL: {e}", self.issuer),
            None => write!(f, "`auth.issuer` `{}` is not an http(s) URL", self.issuer),
        }
    }
}

impl std::error::Error for IssuerError {}

/// Why `auth login`, `logout` or `status` could not run for a server.
#[derive(Debug)]
pub enum AuthRunError {
    /// The server is a stdio server: OAuth is for `http` and `sse` servers.
    Stdio {
        /// The server's name.
        server: String,
    },
    /// The server has no `auth`.
    NoAuth {
        /// The server's name.
        server: String,
    },
    /// This build cannot call such a server: which feature it needs.
    MissingFeature(String),
    /// A `${VAR}` of the server's URL does not expand.
    Expand(mcpgraph_secrets::ExpandError),
    /// The settings, the authorization server or the token store failed
    /// (`mcpgraph-oauth`'s `TokenError`, with the `http-client` feature).
    OAuth(Box<dyn std::error::Error + Send + Sync>),
}

impl std::fmt::Display for AuthRunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Stdio { server } => write!(
                f,
                "`{server}` is a stdio server: OAuth is for `http` and `sse` servers"
            ),
            Self::NoAuth { server } => {
                write!(f, "`{server}` has no `auth`: it takes no OAuth login")
            }
            Self::MissingFeature(why) => f.write_str(why),
            Self::OAuth(e) => e.fmt(f),
            Self::Expand(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for AuthRunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Expand(e) => Some(e),
            Self::OAuth(e) => Some(&**e),
            _ => None,
        }
    }
}

/// Whether a person is at hand to log in when a server asks (set by
/// `call`, `lock` and `auth`; a served graph never opens a browser).
static INTERACTIVE: AtomicBool = AtomicBool::new(false);

/// Lets servers whose `auth` is a person's login open a login when they
/// refuse a token (the authorization URL goes to `$BROWSER`, or stderr).
pub fn allow_interactive_login(allow: bool) {
    INTERACTIVE.store(allow, Ordering::SeqCst);
}

/// What `auth` does for one server (`auth login|logout|status SERVER`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuthAction {
    /// Log a person in now (authorization code, loopback redirect) and keep
    /// the tokens; for the unattended grants, get a token to check the
    /// credentials.
    Login,
    /// Forget the kept tokens.
    Logout,
    /// Say whether there are tokens and where they are kept.
    Status,
}
