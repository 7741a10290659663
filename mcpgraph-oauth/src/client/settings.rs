//! A server's `auth` as the client manager reads it (`mcpgraph-format`'s
//! value, compiled in or from a `--mcp` file), and its secrets resolved:
//! `${VAR}` expanded and files read when the server is first called, each
//! value remembered as a secret so that no error or log line shows it.

use super::error::TokenError;
use std::ops::Deref;

use mcpgraph_format::Auth;

use super::Host;

/// `auth` of a server (FORMAT.md, "OAuth"; `mcpgraph-format`'s [`Auth`]),
/// checked as the client manager needs it, with the [`Host`] that lends
/// its `${VAR}` expansion and HTTP client.
#[derive(Clone, Debug)]
pub struct AuthSettings {
    auth: Auth,
    host: Host,
}

impl Deref for AuthSettings {
    type Target = Auth;

    fn deref(&self) -> &Auth {
        &self.auth
    }
}

/// The secrets of one server's `auth`, resolved.
pub(crate) struct Secrets {
    pub(crate) client_secret: Option<String>,
    /// A PEM private key for client assertions.
    pub(crate) private_key: Option<String>,
    pub(crate) enterprise: Option<Enterprise>,
    /// The `jwt_bearer` grant's assertion.
    pub(crate) assertion: Option<Assertion>,
}

/// A workload identity token (`assertion` or `assertionFile`). A file is
/// read at each grant: platforms rotate such tokens on disk.
pub(crate) enum Assertion {
    /// `assertion`, expanded.
    Given(String),
    /// `assertionFile`, expanded, with the name its content is remembered
    /// under as a secret.
    File { path: String, name: String },
}

impl Assertion {
    /// The token now.
    pub(crate) fn read(&self) -> Result<String, TokenError> {
        match self {
            Assertion::Given(token) => Ok(token.clone()),
            Assertion::File { path, name } => read_secret(name, "assertion", path),
        }
    }
}

/// `auth.enterprise`, resolved.
pub(crate) struct Enterprise {
    pub(crate) idp_issuer: String,
    pub(crate) idp_token_endpoint: String,
    pub(crate) idp_client_id: String,
    pub(crate) idp_client_secret: Option<String>,
    pub(crate) id_token: String,
}

impl AuthSettings {
    /// `auth` checked now: the checks of the format (the grants that
    /// discover an authorization server without a person at hand name it).
    /// The client manager checks that `issuer` is a URL
    /// (`mcpgraph-downstream`'s `check_issuer`, which `--mcp` files need
    /// without this crate too).
    pub fn new(auth: &Auth, host: Host) -> Result<AuthSettings, TokenError> {
        auth.check(false)
            .map_err(|e| TokenError::Settings(e.to_string()))?;
        Ok(AuthSettings {
            auth: auth.clone(),
            host,
        })
    }

    /// What the client manager lends.
    pub(crate) fn host(&self) -> &Host {
        &self.host
    }

    /// `text`, `${VAR}` expanded.
    pub(crate) fn expand(&self, text: &str) -> Result<String, TokenError> {
        expand(text)
    }

    /// `issuer`, `${VAR}` expanded.
    pub(crate) fn issuer(&self) -> Result<Option<String>, TokenError> {
        self.auth.issuer.as_deref().map(expand).transpose()
    }

    /// Reads this server's secrets now (`${VAR}` and files).
    pub(crate) fn secrets(&self, server: &str) -> Result<Secrets, TokenError> {
        let client_secret = secret(
            server,
            "clientSecret",
            &self.client_secret,
            &self.client_secret_file,
        )?;
        let private_key = secret(
            server,
            "privateKey",
            &self.private_key,
            &self.private_key_file,
        )?;
        let enterprise = match &self.enterprise {
            None => None,
            Some(e) => Some(Enterprise {
                idp_issuer: expand(&e.idp_issuer)?,
                idp_token_endpoint: expand(&e.idp_token_endpoint)?,
                idp_client_id: expand(&e.idp_client_id)?,
                idp_client_secret: secret(
                    server,
                    "idpClientSecret",
                    &e.idp_client_secret,
                    &e.idp_client_secret_file,
                )?,
                id_token: secret(server, "idToken", &e.id_token, &e.id_token_file)?.ok_or_else(
                    || {
                        TokenError::Settings(
                            "`auth.enterprise` needs `idToken` or `idTokenFile`".to_owned(),
                        )
                    },
                )?,
            }),
        };
        let assertion = match (&self.assertion, &self.assertion_file) {
            (Some(value), _) => Some(Assertion::Given(expand(value)?)),
            (None, Some(path)) => Some(Assertion::File {
                path: expand(path)?,
                name: format!("auth.assertion of {server}"),
            }),
            (None, None) => None,
        };
        Ok(Secrets {
            client_secret,
            private_key,
            enterprise,
            assertion,
        })
    }

    /// `clientId`, `${VAR}` expanded.
    pub(crate) fn client_id(&self) -> Result<Option<String>, TokenError> {
        self.auth.client_id.as_deref().map(expand).transpose()
    }
}

/// `text`, `${VAR}` expanded, the values remembered as secrets.
fn expand(text: &str) -> Result<String, TokenError> {
    mcpgraph_secrets::expand_env(text).map_err(|e| TokenError::Settings(e.to_string()))
}

/// A secret given as `${VAR}` (`value`) or as a file path (`file`), read
/// now (`${VAR}` expanded) and remembered as a secret (a
/// file's content under the name `auth.KEY of SERVER`).
fn secret(
    server: &str,
    key: &str,
    value: &Option<String>,
    file: &Option<String>,
) -> Result<Option<String>, TokenError> {
    if let Some(value) = value {
        return expand(value).map(Some);
    }
    let Some(path) = file else {
        return Ok(None);
    };
    let path = expand(path)?;
    read_secret(&format!("auth.{key} of {server}"), key, &path).map(Some)
}

/// The secret in the file `path` (`auth.KEYFile`), remembered as `name`.
fn read_secret(name: &str, key: &str, path: &str) -> Result<String, TokenError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| TokenError::Settings(format!("`auth.{key}File` `{path}`: {e}")))?;
    let text = text.trim().to_owned();
    mcpgraph_runtime::host::remember(name, &text);
    Ok(text)
}
