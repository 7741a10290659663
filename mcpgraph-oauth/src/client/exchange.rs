//! Passing the caller's identity on (`grant: token_exchange`): the access
//! token a caller's request carried (inbound OAuth) is exchanged at the
//! server's authorization server (the pinned issuer, see `issuer`: never
//! one the server names) for one meant for the server (RFC 8693:
//! `subject_token` the caller's, `resource` the server's URL, the graph
//! authenticating as its client with `client_secret_post`). One token per
//! caller token, kept until it runs out or is refused; at most
//! [`MAX_KEPT`] kept, the stale ones dropped first.

use super::error::TokenError;
use std::collections::HashMap;

use sha2::Digest as _;
use tokio::sync::{Mutex, OnceCell};

use super::grants::Token;
use super::issuer::Pin;
use super::settings::{AuthSettings, Secrets};
use super::token_endpoint::token_request;
use mcpgraph_runtime::host::CallerToken;

/// Tokens kept at most (one per caller token).
const MAX_KEPT: usize = 1024;

/// The exchanged tokens of one server.
#[derive(Default)]
pub(crate) struct Exchanges {
    /// The pinned authorization server's token endpoint, found once.
    endpoint: OnceCell<String>,
    /// By the digest of the caller's token.
    kept: Mutex<HashMap<[u8; 32], Token>>,
}

impl Exchanges {
    /// A token for the server at `url` on behalf of `caller`; with
    /// `refused` (a token the server refused), a new one.
    pub(crate) async fn token(
        &self,
        url: &str,
        settings: &AuthSettings,
        secrets: &Secrets,
        pin: &Pin,
        caller: &CallerToken,
        refused: Option<&str>,
    ) -> Result<String, TokenError> {
        let key: [u8; 32] = sha2::Sha256::digest(caller.secret().as_bytes()).into();
        {
            let mut kept = self.kept.lock().await;
            match kept.get(&key) {
                Some(token) if token.is_fresh() && Some(token.access.as_str()) != refused => {
                    return Ok(token.access.clone());
                }
                Some(_) => {
                    kept.remove(&key);
                }
                None => {}
            }
        }
        let endpoint = self
            .endpoint
            .get_or_try_init(|| async {
                let (_, resolution) = pin.discover(url, None).await?;
                Ok::<_, TokenError>(resolution.metadata.token_endpoint)
            })
            .await?;
        let client_id = settings.client_id()?.ok_or_else(|| {
            TokenError::Settings("the `token_exchange` grant needs `clientId`".to_owned())
        })?;
        let secret = secrets.client_secret.clone().ok_or_else(|| {
            TokenError::Settings("the `token_exchange` grant needs a client secret".to_owned())
        })?;
        let mut form = vec![
            (
                "grant_type",
                "urn:ietf:params:oauth:grant-type:token-exchange".to_owned(),
            ),
            ("subject_token", caller.secret().to_owned()),
            (
                "subject_token_type",
                "urn:ietf:params:oauth:token-type:access_token".to_owned(),
            ),
            (
                "requested_token_type",
                "urn:ietf:params:oauth:token-type:access_token".to_owned(),
            ),
            ("resource", url.to_owned()),
            ("client_id", client_id),
            ("client_secret", secret),
        ];
        if !settings.scopes.is_empty() {
            form.push(("scope", settings.scopes.join(" ")));
        }
        let response = token_request((settings.host().http_client)(), url, endpoint, &form).await?;
        let token = super::grants::from_response(&response);
        let mut kept = self.kept.lock().await;
        if kept.len() >= MAX_KEPT {
            kept.retain(|_, t| t.is_fresh());
            if kept.len() >= MAX_KEPT
                && let Some(oldest) = kept.iter().min_by_key(|(_, t)| t.renew_at).map(|(k, _)| *k)
            {
                kept.remove(&oldest);
            }
        }
        kept.insert(key, token.clone());
        Ok(token.access)
    }
}
