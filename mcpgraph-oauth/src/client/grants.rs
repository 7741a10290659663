//! The grants that need no person: client credentials (a client secret,
//! sent as the authorization server advertises, through rmcp; or a
//! private-key JWT assertion signed with jsonwebtoken) and the
//! enterprise-managed grant (an ID token exchanged at the identity
//! provider, then at the server's authorization server, through rmcp) and
//! the JWT bearer grant of a workload's identity token (RFC 7523 §2.1).
//! Each gives a [`Token`]; none has a refresh token, so an expired token is
//! got again the same way.

use super::error::TokenError;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mcpgraph_format::{Algorithm, Grant};
use oauth2::TokenResponse as _;
use rmcp::transport::auth::enterprise::{
    EmaAuthorizationServer, EmaClientAuthentication, EmaExchangeRequest,
};
use rmcp::transport::auth::{AuthorizationMetadata, ClientCredentialsConfig, OAuthTokenResponse};

use super::describe;
use super::issuer::Pin;
use super::settings::{AuthSettings, Secrets};
use super::token_endpoint::token_request;

/// An access token and when it stops being worth sending.
#[derive(Clone)]
pub(crate) struct Token {
    pub(crate) access: String,
    /// `expires_in` before now, less a margin; `None` when the server gave
    /// no lifetime.
    pub(crate) renew_at: Option<Instant>,
    /// Keeps the token (and its refresh token) among the secrets to
    /// redact until it is dropped or expires.
    remembered: Vec<mcpgraph_runtime::host::Remembered>,
}

impl Token {
    fn new(access: String, expires_in: Option<Duration>) -> Token {
        let remembered = vec![mcpgraph_runtime::host::remember_token(
            "oauth access token",
            &access,
            expires_in,
        )];
        // Renewed ahead of expiry: 30 s before it, or at half its life
        // when it is short.
        let renew_at = expires_in.map(|life| {
            let margin = (life / 2).min(Duration::from_secs(30));
            Instant::now() + life - margin
        });
        Token {
            access,
            renew_at,
            remembered,
        }
    }

    /// Whether it is still worth sending.
    pub(crate) fn is_fresh(&self) -> bool {
        self.renew_at.is_none_or(|at| Instant::now() < at)
    }
}

/// Gets a token for the server at `url` with `settings`' grant (client
/// credentials, enterprise or JWT bearer), finding its authorization server from
/// `challenge` (a 401's `WWW-Authenticate`) or the well-known paths, and
/// using it only when it is the issuer `pin` holds.
pub(crate) async fn unattended(
    url: &str,
    settings: &AuthSettings,
    secrets: &Secrets,
    pin: &Pin,
    challenge: Option<&str>,
) -> Result<Token, TokenError> {
    let (manager, resolution) = pin.discover(url, challenge).await?;
    if settings.grant == Grant::JwtBearer {
        return jwt_bearer(url, settings, secrets, &resolution.metadata).await;
    }
    let client_id = settings
        .client_id()?
        .ok_or_else(|| TokenError::Settings("`auth` needs `clientId`".to_owned()))?;
    match settings.grant {
        Grant::Enterprise => {
            enterprise(url, settings, secrets, client_id, &resolution.metadata).await
        }
        _ => match &secrets.private_key {
            Some(key) => {
                let algorithm = settings.signing_algorithm;
                key_assertion(
                    url,
                    settings,
                    client_id,
                    key,
                    algorithm,
                    &resolution.metadata,
                )
                .await
            }
            None => {
                let client_secret = secrets.client_secret.clone().ok_or_else(|| {
                    TokenError::Settings(
                        "the `client_credentials` grant needs a client secret or a private key"
                            .to_owned(),
                    )
                })?;
                let mut manager = manager;
                manager.set_metadata(resolution.metadata);
                let config = ClientCredentialsConfig::ClientSecret {
                    client_id,
                    client_secret,
                    scopes: settings.scopes.clone(),
                    resource: Some(url.to_owned()),
                };
                manager
                    .configure_client_credentials(&config)
                    .map_err(|e| TokenError::AuthorizationServer(describe(e)))?;
                let response = manager
                    .exchange_client_credentials(&config)
                    .await
                    .map_err(|e| TokenError::AuthorizationServer(describe(e)))?;
                Ok(from_response(&response))
            }
        },
    }
}

/// The token of `response` (remembered as a secret by [`Token::new`], its
/// refresh token, if any, here).
pub(super) fn from_response(response: &OAuthTokenResponse) -> Token {
    let mut token = Token::new(
        response.access_token().secret().clone(),
        response.expires_in(),
    );
    if let Some(refresh) = response.refresh_token() {
        let remembered =
            mcpgraph_runtime::host::remember_token("oauth refresh token", refresh.secret(), None);
        token.remembered.push(remembered);
    }
    token
}

/// Client credentials with a private-key JWT client assertion (RFC 7523
/// §2.2): `iss` and `sub` the client, `aud` the authorization server's
/// issuer, five minutes of life, a unique `jti`.
async fn key_assertion(
    url: &str,
    settings: &AuthSettings,
    client_id: String,
    pem: &str,
    algorithm: Option<Algorithm>,
    metadata: &AuthorizationMetadata,
) -> Result<Token, TokenError> {
    use jsonwebtoken::Header;
    let (key, default) =
        crate::jwt::signing_key(pem).map_err(|e| TokenError::AuthorizationServer(e.to_string()))?;
    let algorithm = match algorithm {
        None => default,
        Some(Algorithm::RS256) => jsonwebtoken::Algorithm::RS256,
        Some(Algorithm::RS384) => jsonwebtoken::Algorithm::RS384,
        Some(Algorithm::RS512) => jsonwebtoken::Algorithm::RS512,
        Some(Algorithm::ES256) => jsonwebtoken::Algorithm::ES256,
        Some(Algorithm::ES384) => jsonwebtoken::Algorithm::ES384,
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_err(|e| TokenError::AuthorizationServer(e.to_string()))?;
    let audience = metadata
        .issuer
        .clone()
        .unwrap_or(metadata.token_endpoint.clone());
    let claims = serde_json::json!({
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": now.as_secs(),
        "exp": now.as_secs() + 300,
        "jti": format!("{:x}-{:x}-{:x}", now.as_nanos(), std::process::id(), next_id()),
    });
    let mut header = Header::new(algorithm);
    header.typ = Some("JWT".into());
    let assertion = jsonwebtoken::encode(&header, &claims, &key).map_err(|e| {
        TokenError::AuthorizationServer(format!("signing the client assertion: {e}"))
    })?;
    let form = vec![
        ("grant_type", "client_credentials".to_owned()),
        (
            "client_assertion_type",
            "urn:ietf:params:oauth:client-assertion-type:jwt-bearer".to_owned(),
        ),
        ("client_assertion", assertion),
        ("resource", url.to_owned()),
    ];
    post_grant(url, settings, metadata, form).await
}

/// The JWT bearer grant (RFC 7523 §2.1): the workload's identity token is
/// the assertion, for the server (`resource`, RFC 8707) and the graph's
/// `scopes`; `client_id` goes along when the graph names one (a public
/// client, `none` at the token endpoint). A refused grant is not tried
/// again another way.
async fn jwt_bearer(
    url: &str,
    settings: &AuthSettings,
    secrets: &Secrets,
    metadata: &AuthorizationMetadata,
) -> Result<Token, TokenError> {
    let assertion = secrets
        .assertion
        .as_ref()
        .ok_or_else(|| {
            TokenError::Settings(
                "the `jwt_bearer` grant needs `assertion` or `assertionFile`".to_owned(),
            )
        })?
        .read()?;
    let mut form = vec![
        (
            "grant_type",
            "urn:ietf:params:oauth:grant-type:jwt-bearer".to_owned(),
        ),
        ("assertion", assertion),
        ("resource", url.to_owned()),
    ];
    if let Some(id) = settings.client_id()? {
        form.push(("client_id", id));
    }
    post_grant(url, settings, metadata, form).await
}

/// Posts the grant `form` (with the graph's `scopes`) to the pinned
/// issuer's token endpoint for the server at `url`.
async fn post_grant(
    url: &str,
    settings: &AuthSettings,
    metadata: &AuthorizationMetadata,
    mut form: Vec<(&str, String)>,
) -> Result<Token, TokenError> {
    if !settings.scopes.is_empty() {
        form.push(("scope", settings.scopes.join(" ")));
    }
    let response = token_request(
        (settings.host().http_client)(),
        url,
        &metadata.token_endpoint,
        &form,
    )
    .await?;
    Ok(from_response(&response))
}

/// A distinct number per assertion of this process.
fn next_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Enterprise-managed authorization: the ID token exchanged for an ID-JAG
/// at the identity provider (RFC 8693), redeemed at the server's
/// authorization server (RFC 7523 `jwt-bearer`).
async fn enterprise(
    url: &str,
    settings: &AuthSettings,
    secrets: &Secrets,
    client_id: String,
    metadata: &AuthorizationMetadata,
) -> Result<Token, TokenError> {
    let idp = secrets.enterprise.as_ref().ok_or_else(|| {
        TokenError::Settings("the `enterprise` grant needs `auth.enterprise`".to_owned())
    })?;
    let authentication = |secret: &Option<String>| match secret {
        Some(s) => EmaClientAuthentication::ClientSecretBasic(oauth2::ClientSecret::new(s.clone())),
        None => EmaClientAuthentication::None,
    };
    let idp_server = EmaAuthorizationServer::new(
        idp.idp_issuer.clone(),
        idp.idp_token_endpoint.clone(),
        idp.idp_client_id.clone(),
    )
    .with_client_authentication(authentication(&idp.idp_client_secret));
    let issuer = metadata.issuer.clone().ok_or_else(|| {
        TokenError::AuthorizationServer(
            "the server's authorization server gives no issuer".to_owned(),
        )
    })?;
    let resource_server =
        EmaAuthorizationServer::new(issuer, metadata.token_endpoint.clone(), client_id)
            .with_client_authentication(authentication(&secrets.client_secret));
    let http = rmcp::transport::auth::default_oauth_http_client()
        .map_err(|e| TokenError::AuthorizationServer(describe(e)))?;
    let token =
        EmaExchangeRequest::new_with_id_token(idp_server, resource_server, url, &idp.id_token)
            .with_scopes(settings.scopes.iter().cloned())
            .exchange(&http, &http)
            .await
            .map_err(|e| TokenError::AuthorizationServer(e.to_string()))?;
    Ok(Token::new(
        token.access_token.secret().clone(),
        token.expires_in,
    ))
}
