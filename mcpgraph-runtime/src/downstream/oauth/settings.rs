//! A server's `auth` as the client manager reads it (the JSON the generator
//! writes, or an `auth` object of a `--mcp` file), and its secrets resolved:
//! `${VAR}` expanded and files read when the server is first called, each
//! value remembered as a secret so that no error or log line shows it.

use serde::Deserialize;

use crate::downstream::env_expand::expand;

/// `auth` of a server (FORMAT.md, "OAuth").
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct AuthSettings {
    #[serde(default)]
    pub(crate) grant: Grant,
    pub(crate) client_id: Option<String>,
    client_secret: Option<String>,
    client_secret_file: Option<String>,
    private_key: Option<String>,
    private_key_file: Option<String>,
    assertion: Option<String>,
    assertion_file: Option<String>,
    pub(crate) signing_algorithm: Option<Algorithm>,
    pub(crate) client_metadata_url: Option<String>,
    pub(crate) client_name: Option<String>,
    /// `issuer`: the authorization server the server's tokens come from,
    /// pinned by the graph (else learned at the first discovery).
    issuer: Option<String>,
    #[serde(default)]
    pub(crate) scopes: Vec<String>,
    token_store: Option<TokenStore>,
    enterprise: Option<EnterpriseSettings>,
}

/// How tokens are got (`grant`).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Grant {
    /// A person logs in (`auth login SERVER`), PKCE, refresh tokens.
    #[default]
    AuthorizationCode,
    /// The graph's own credentials, for unattended servers.
    ClientCredentials,
    /// An ID token from the enterprise's identity provider, exchanged for
    /// an ID-JAG and then for an access token (enterprise-managed
    /// authorization).
    Enterprise,
    /// A workload's identity token (`assertion`), from the platform it
    /// runs on, presented as an RFC 7523 JWT bearer grant.
    JwtBearer,
    /// The caller's own access token (inbound OAuth) exchanged for one for
    /// the server (RFC 8693); the graph's client credentials for what no
    /// caller asked (the handshake, listing tools).
    TokenExchange,
}

impl Grant {
    /// The grant's name as the graph writes it, when it finds its
    /// authorization server with no person at hand (and so must be told
    /// which it is).
    pub(crate) fn needs_issuer(self) -> Option<&'static str> {
        match self {
            Grant::ClientCredentials => Some("client_credentials"),
            Grant::JwtBearer => Some("jwt_bearer"),
            Grant::TokenExchange => Some("token_exchange"),
            Grant::AuthorizationCode | Grant::Enterprise => None,
        }
    }
}

/// The algorithm of a private-key JWT client assertion.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
pub(crate) enum Algorithm {
    RS256,
    RS384,
    RS512,
    ES256,
    ES384,
}

/// Where tokens are kept (`tokenStore`).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(crate) enum TokenStore {
    /// A file only the user can read, in the XDG data directory.
    File,
    /// This process's memory only.
    Memory,
}

/// `auth.enterprise`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct EnterpriseSettings {
    idp_issuer: String,
    idp_token_endpoint: String,
    idp_client_id: String,
    idp_client_secret: Option<String>,
    idp_client_secret_file: Option<String>,
    id_token: Option<String>,
    id_token_file: Option<String>,
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
    pub(crate) fn read(&self) -> Result<String, String> {
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
    /// Parses `auth` (JSON) and checks what the generator checks: the
    /// grants that discover an authorization server without a person at
    /// hand name it (`issuer`).
    pub(crate) fn parse(json: &serde_json::Value) -> Result<AuthSettings, String> {
        let settings = AuthSettings::deserialize(json).map_err(|e| format!("`auth`: {e}"))?;
        if settings.issuer.is_none()
            && let Some(grant) = settings.grant.needs_issuer()
        {
            return Err(format!(
                "`auth`: the `{grant}` grant needs `issuer`, the authorization server its \
                 tokens come from (a server never chooses where the graph's credentials or a \
                 caller's token go)"
            ));
        }
        if let Some(issuer) = &settings.issuer
            && !issuer.contains("${")
        {
            let parsed = url::Url::parse(issuer)
                .map_err(|e| format!("`auth.issuer` `{issuer}` is not a URL: {e}"))?;
            if !matches!(parsed.scheme(), "https" | "http") {
                return Err(format!("`auth.issuer` `{issuer}` is not an http(s) URL"));
            }
        }
        Ok(settings)
    }

    /// `issuer`, `${VAR}` expanded.
    pub(crate) fn issuer(&self) -> Result<Option<String>, String> {
        self.issuer.as_deref().map(expand).transpose()
    }

    /// Where this server's tokens are kept: a file for a person's login
    /// unless told otherwise, memory for the graph's own credentials.
    pub(crate) fn token_store(&self) -> TokenStore {
        self.token_store.unwrap_or(match self.grant {
            Grant::AuthorizationCode => TokenStore::File,
            Grant::ClientCredentials
            | Grant::Enterprise
            | Grant::JwtBearer
            | Grant::TokenExchange => TokenStore::Memory,
        })
    }

    /// Reads this server's secrets now (`${VAR}` and files).
    pub(crate) fn secrets(&self, server: &str) -> Result<Secrets, String> {
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
                id_token: secret(server, "idToken", &e.id_token, &e.id_token_file)?
                    .ok_or("`auth.enterprise` needs `idToken` or `idTokenFile`")?,
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
    pub(crate) fn client_id(&self) -> Result<Option<String>, String> {
        self.client_id.as_deref().map(expand).transpose()
    }
}

/// A secret given as `${VAR}` (`value`) or as a file path (`file`), read
/// now and remembered as a secret (a file's content under the name
/// `auth.KEY of SERVER`).
fn secret(
    server: &str,
    key: &str,
    value: &Option<String>,
    file: &Option<String>,
) -> Result<Option<String>, String> {
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
fn read_secret(name: &str, key: &str, path: &str) -> Result<String, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("`auth.{key}File` `{path}`: {e}"))?;
    let text = text.trim().to_owned();
    crate::secrets::remember(name, &text);
    Ok(text)
}
