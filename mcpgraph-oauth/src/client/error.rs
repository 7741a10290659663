//! Why a server's tokens could not be got: [`TokenError`], by where it
//! went wrong. Its text names the server or the setting and the cause, and
//! holds no secret.

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
