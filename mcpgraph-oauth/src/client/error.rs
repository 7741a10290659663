//! Why a server's tokens could not be got: [`TokenError`], by where it
//! went wrong. Its text names the server or the setting and the cause, and
//! holds no secret; the refusals' wording is here too.

use rmcp::transport::auth::WWWAuthenticateParams;

use super::Refusal;

/// Why a downstream server's tokens could not be got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenError {
    /// `auth` as written: a check of the format, a `${VAR}` that cannot be
    /// expanded, a secret's file that cannot be read.
    Settings(String),
    /// A person's login: none at hand (the text names the command to
    /// run), the logins this run may make used up, or the login itself
    /// failed (its redirect, its time limit, the authorization URL).
    Login(String),
    /// The server wants scopes the token was not granted.
    Scope(String),
    /// A call with no caller's token to a server that gets the caller's
    /// own identity (`grant: token_exchange`).
    NoCaller(String),
    /// The authorization server: its metadata and issuer, or a token
    /// request it refused or that did not reach it.
    AuthorizationServer(String),
    /// The file or memory the tokens are kept in.
    Store(String),
}

impl std::fmt::Display for TokenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Settings(why)
            | Self::Login(why)
            | Self::Scope(why)
            | Self::NoCaller(why)
            | Self::AuthorizationServer(why)
            | Self::Store(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for TokenError {}

impl TokenError {
    /// A call with no caller's token to `server`, which gets the
    /// caller's own identity.
    pub(crate) fn no_caller(server: &str) -> TokenError {
        TokenError::NoCaller(format!(
            "`{server}` gets the caller's own identity (`grant: token_exchange`), and this call \
             has no caller's access token (the graph is not served with inbound OAuth, or the \
             call came another way): the graph's own identity is never used in its place"
        ))
    }

    /// `server` (at `url`) refused the token for too few scopes, naming
    /// them in `challenge` (its `WWW-Authenticate`) or not.
    pub(crate) fn scope(server: &str, url: &str, challenge: &str) -> TokenError {
        TokenError::Scope(scope_refusal(server, url, challenge))
    }

    /// `server` refused the token, and no person is at hand to log in:
    /// the command that does.
    pub(crate) fn needs_login(
        server: &str,
        url: &str,
        challenge: &str,
        refusal: Refusal,
    ) -> TokenError {
        let program = program();
        TokenError::Login(match refusal {
            Refusal::Unauthorized => {
                format!("`{server}` needs a login: run `{program} auth login {server}`")
            }
            Refusal::InsufficientScope => format!(
                "{}: run `{program} auth login {server}` to grant them",
                scope_refusal(server, url, challenge)
            ),
        })
    }

    /// `server` refused the token again after the `logins` this run may
    /// make.
    pub(crate) fn logins_used_up(
        server: &str,
        url: &str,
        challenge: &str,
        refusal: Refusal,
        logins: u32,
    ) -> TokenError {
        TokenError::Login(format!(
            "`{server}` refused the token after {logins} logins this run: {}",
            match refusal {
                Refusal::Unauthorized => "401 Unauthorized".to_owned(),
                Refusal::InsufficientScope => scope_refusal(server, url, challenge),
            }
        ))
    }
}

/// Why `server` (at `url`) refused a token for its scopes: the scope its
/// `challenge` names, if it names one.
fn scope_refusal(server: &str, url: &str, challenge: &str) -> String {
    let scope = url::Url::parse(url)
        .ok()
        .map(|base| WWWAuthenticateParams::parse(challenge, &base))
        .and_then(|p| p.scope);
    match scope {
        Some(scope) => format!(
            "`{server}` needs scope `{scope}`, which the token does not have (insufficient_scope)"
        ),
        None => format!("`{server}` refused the token for too few scopes (insufficient_scope)"),
    }
}

/// This program's name, for the commands errors suggest.
fn program() -> String {
    std::env::args_os()
        .next()
        .map(std::path::PathBuf::from)
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "mcpgraph".to_owned())
}
