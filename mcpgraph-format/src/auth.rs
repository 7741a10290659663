//! A server's `auth` (FORMAT.md, "OAuth"): how the client manager gets
//! OAuth tokens for an `http` or `sse` server. Secrets are `${VAR}`
//! references or file paths (`...File`), never values: the runtime reads
//! them when the server is first called.

use std::fmt;

use serde::{Deserialize, Serialize};

/// `auth` of a server.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Auth {
    /// `grant`: how tokens are got.
    #[serde(default)]
    pub grant: Grant,
    /// `clientId`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// `clientSecret`: a `${VAR}` reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// `clientSecretFile`: a path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret_file: Option<String>,
    /// `privateKey`: a PEM private key for client assertions, as a `${VAR}`
    /// reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_key: Option<String>,
    /// `privateKeyFile`: a path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_key_file: Option<String>,
    /// `assertion`: the `jwt_bearer` grant's workload identity token, as a
    /// `${VAR}` reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assertion: Option<String>,
    /// `assertionFile`: a path, read at each grant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assertion_file: Option<String>,
    /// `signingAlgorithm` of private-key JWT client assertions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signing_algorithm: Option<Algorithm>,
    /// `clientMetadataUrl`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_metadata_url: Option<String>,
    /// `clientName`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_name: Option<String>,
    /// `issuer`: the authorization server the server's tokens come from,
    /// pinned by the graph (else learned at the first discovery).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// `scopes`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
    /// `tokenStore`: where tokens are kept (see [`Auth::token_store`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_store: Option<TokenStore>,
    /// `enterprise`: the identity provider of the `enterprise` grant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enterprise: Option<Enterprise>,
}

/// How tokens are got (`grant`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Grant {
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

/// The algorithm of a private-key JWT client assertion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Algorithm {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    RS256,
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    RS384,
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    RS512,
    /// ECDSA on P-256 with SHA-256.
    ES256,
    /// ECDSA on P-384 with SHA-384.
    ES384,
}

/// Where tokens are kept (`tokenStore`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenStore {
    /// A file only the user can read, in the XDG data directory.
    File,
    /// This process's memory only.
    Memory,
}

/// `auth.enterprise`: the identity provider an ID token is exchanged at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Enterprise {
    /// `idpIssuer`.
    pub idp_issuer: String,
    /// `idpTokenEndpoint`.
    pub idp_token_endpoint: String,
    /// `idpClientId`.
    pub idp_client_id: String,
    /// `idpClientSecret`: a `${VAR}` reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idp_client_secret: Option<String>,
    /// `idpClientSecretFile`: a path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idp_client_secret_file: Option<String>,
    /// `idToken`: a `${VAR}` reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_token: Option<String>,
    /// `idTokenFile`: a path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_token_file: Option<String>,
}

impl Grant {
    /// Every grant, as the graph writes them.
    pub const ALL: [Grant; 5] = [
        Grant::AuthorizationCode,
        Grant::ClientCredentials,
        Grant::Enterprise,
        Grant::JwtBearer,
        Grant::TokenExchange,
    ];

    /// The grant's name as the graph writes it.
    pub fn name(self) -> &'static str {
        match self {
            Grant::AuthorizationCode => "authorization_code",
            Grant::ClientCredentials => "client_credentials",
            Grant::Enterprise => "enterprise",
            Grant::JwtBearer => "jwt_bearer",
            Grant::TokenExchange => "token_exchange",
        }
    }

    /// Whether the grant finds its authorization server with no person at
    /// hand, and so must be told which it is (`issuer`): no server chooses
    /// where the graph's credentials or a caller's token go.
    pub fn needs_issuer(self) -> bool {
        matches!(
            self,
            Grant::ClientCredentials | Grant::JwtBearer | Grant::TokenExchange
        )
    }
}

impl Algorithm {
    /// Every algorithm, as the graph writes them.
    pub const ALL: [Algorithm; 5] = [
        Algorithm::RS256,
        Algorithm::RS384,
        Algorithm::RS512,
        Algorithm::ES256,
        Algorithm::ES384,
    ];

    /// The algorithm's name as the graph writes it.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::RS256 => "RS256",
            Algorithm::RS384 => "RS384",
            Algorithm::RS512 => "RS512",
            Algorithm::ES256 => "ES256",
            Algorithm::ES384 => "ES384",
        }
    }
}

impl TokenStore {
    /// Every store, as the graph writes them.
    pub const ALL: [TokenStore; 2] = [TokenStore::File, TokenStore::Memory];

    /// The store's name as the graph writes it.
    pub fn name(self) -> &'static str {
        match self {
            TokenStore::File => "file",
            TokenStore::Memory => "memory",
        }
    }
}

impl Auth {
    /// `auth` with no key set (a person's login): what generated code
    /// fills the keys it does not give from.
    pub const DEFAULT: Auth = Auth {
        grant: Grant::AuthorizationCode,
        client_id: None,
        client_secret: None,
        client_secret_file: None,
        private_key: None,
        private_key_file: None,
        assertion: None,
        assertion_file: None,
        signing_algorithm: None,
        client_metadata_url: None,
        client_name: None,
        issuer: None,
        scopes: Vec::new(),
        token_store: None,
        enterprise: None,
    };

    /// `auth` as JSON (a `--mcp` file's), checked as [`Auth::check`] does.
    pub fn from_json(json: serde_json::Value) -> Result<Auth, AuthError> {
        let auth = Auth::deserialize(json).map_err(|e| AuthError::Invalid(e.to_string()))?;
        auth.check(false)?;
        Ok(auth)
    }

    /// Checks what the generator checks too: the grants that discover an
    /// authorization server without a person at hand name it (`issuer`), an
    /// `issuer` without `${VAR}` is an http(s) URL, and `token_exchange` is
    /// not for an `sse` server (`sse`).
    pub fn check(&self, sse: bool) -> Result<(), AuthError> {
        if self.issuer.is_none() && self.grant.needs_issuer() {
            return Err(AuthError::NeedsIssuer(self.grant));
        }
        if let Some(issuer) = &self.issuer
            && !issuer.contains("${")
            && !(issuer.starts_with("https://") || issuer.starts_with("http://"))
        {
            return Err(AuthError::IssuerNotHttp(issuer.clone()));
        }
        if sse && self.grant == Grant::TokenExchange {
            return Err(AuthError::ExchangeOnSse);
        }
        Ok(())
    }

    /// Where this server's tokens are kept: `tokenStore`, else a file for
    /// a person's login and memory for the graph's own credentials.
    pub fn token_store(&self) -> TokenStore {
        self.token_store.unwrap_or(match self.grant {
            Grant::AuthorizationCode => TokenStore::File,
            Grant::ClientCredentials
            | Grant::Enterprise
            | Grant::JwtBearer
            | Grant::TokenExchange => TokenStore::Memory,
        })
    }
}

/// Why an `auth` is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuthError {
    /// Not the shape of `auth` (an unknown key or grant, a wrong type): the
    /// reader's message.
    Invalid(String),
    /// A grant that needs `issuer` (see [`Grant::needs_issuer`]) has none.
    NeedsIssuer(Grant),
    /// `issuer` is not an http(s) URL.
    IssuerNotHttp(String),
    /// `grant: token_exchange` on an `sse` server.
    ExchangeOnSse,
}

impl fmt::Display for AuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuthError::Invalid(message) => write!(f, "`auth`: {message}"),
            AuthError::NeedsIssuer(grant) => write!(
                f,
                "`auth`: the `{}` grant needs `issuer`, the authorization server its tokens \
                 come from (a server never chooses where the graph's credentials or a \
                 caller's token go)",
                grant.name()
            ),
            AuthError::IssuerNotHttp(issuer) => {
                write!(f, "`auth.issuer` `{issuer}` is not an http(s) URL")
            }
            AuthError::ExchangeOnSse => f.write_str(
                "`grant: token_exchange` is not for `sse` servers (the legacy transport sends \
                 every message with one token, which cannot carry each caller's identity): \
                 use `http`",
            ),
        }
    }
}

impl std::error::Error for AuthError {}
