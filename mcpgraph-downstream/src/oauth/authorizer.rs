//! The one authorizer each server with `auth` shares (its tokens from
//! `mcpgraph-oauth`'s `client`), the token sent with each request and a
//! better one asked for when the server refuses it, and `auth` run.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use mcpgraph_oauth::client::{AuthSettings, Authorizer, Behalf, Host, Refusal, TokenError};
use rmcp::transport::auth::AuthError;
use rmcp::transport::streamable_http_client::StreamableHttpError;

/// Whether a person is at hand to log in (`allow_interactive_login`).
fn interactive() -> bool {
    super::INTERACTIVE.load(Ordering::SeqCst)
}

/// What the client manager lends `mcpgraph-oauth`'s grants.
const HOST: Host = Host {
    http_client: crate::http_client::http_client_builder,
    interactive,
};

/// The one authorizer all the connections of a server with `auth` share,
/// made on first use (every `Downstream` of the server holds a clone).
#[derive(Clone, Default)]
pub(crate) struct SharedAuthorizer {
    cell: Arc<tokio::sync::OnceCell<Arc<Authorizer>>>,
}

impl SharedAuthorizer {
    /// The authorizer of server `server` at `url` (expanded), whose `auth`
    /// is `auth`.
    pub(crate) async fn get(
        &self,
        auth: &mcpgraph_format::Auth,
        server: &str,
        url: &str,
    ) -> Result<Arc<Authorizer>, TokenError> {
        self.cell
            .get_or_try_init(|| async {
                // rmcp's OAuth client is reqwest's, with our TLS provider.
                crate::http_client::install_crypto_provider();
                super::check_issuer(auth).map_err(|e| TokenError::Settings(e.to_string()))?;
                let settings = AuthSettings::new(auth, HOST)?;
                Authorizer::new(server, url, settings).map(Arc::new)
            })
            .await
            .cloned()
    }
}

/// Requests one refusal may lead to at most (a refresh, then logins up to
/// the authorizer's limit).
const MAX_TRIES: usize = 5;

/// Runs `call` (one HTTP request to a server) with `auth`'s token, and
/// again with a better one when the server refuses it; without `auth`,
/// with `given` (the transport's own header). A refusal that cannot be
/// recovered from is an error naming the server and what it wants.
///
/// `call` takes the request's parts (`parts`) and the token: without
/// `auth` they are moved into the one request; with it, each try gets a
/// copy, as a refused token means sending them again.
pub(crate) async fn authorized<A, T, E, F, Fut>(
    auth: Option<&Authorizer>,
    behalf: Behalf<'_>,
    given: Option<String>,
    parts: A,
    call: F,
) -> Result<T, StreamableHttpError<E>>
where
    A: Clone,
    E: std::error::Error + Send + Sync + 'static,
    F: Fn(A, Option<String>) -> Fut,
    Fut: Future<Output = Result<T, StreamableHttpError<E>>>,
{
    let Some(auth) = auth else {
        return call(parts, given).await;
    };
    let failed =
        |e: TokenError| StreamableHttpError::Auth(AuthError::AuthorizationFailed(e.to_string()));
    let mut sent = auth.token(behalf).await.map_err(failed)?;
    let mut unauthorized = 0;
    for _ in 0..MAX_TRIES {
        let result = call(parts.clone(), sent.clone()).await;
        let (challenge, refusal) = match &result {
            Err(StreamableHttpError::AuthRequired(e)) => {
                (e.www_authenticate_header.clone(), Refusal::Unauthorized)
            }
            Err(StreamableHttpError::InsufficientScope(e)) => (
                e.www_authenticate_header.clone(),
                Refusal::InsufficientScope,
            ),
            _ => return result,
        };
        if refusal == Refusal::Unauthorized {
            unauthorized += 1;
            if unauthorized > 2 {
                break;
            }
        }
        sent = Some(
            auth.recover(behalf, sent.as_deref(), &challenge, refusal)
                .await
                .map_err(failed)?,
        );
    }
    Err(StreamableHttpError::Auth(AuthError::AuthorizationFailed(
        format!("the server refused every token given ({MAX_TRIES} tries)"),
    )))
}

/// Runs `action` for `spec`'s server; the text says what was done.
pub async fn run_auth(
    spec: &crate::ServerSpec,
    action: super::AuthAction,
) -> Result<String, super::AuthRunError> {
    let name = &spec.name;
    let url = match &spec.transport {
        crate::TransportSpec::StreamableHttp { url, .. }
        | crate::TransportSpec::Sse { url, .. } => {
            mcpgraph_secrets::expand_env(url).map_err(super::AuthRunError::Expand)?
        }
        crate::TransportSpec::Stdio { .. } => {
            return Err(super::AuthRunError::Stdio {
                server: name.clone(),
            });
        }
    };
    let auth = spec
        .auth
        .as_ref()
        .ok_or_else(|| super::AuthRunError::NoAuth {
            server: name.clone(),
        })?;
    let oauth = |e: TokenError| super::AuthRunError::OAuth(Box::new(e));
    let authorizer = SharedAuthorizer::default()
        .get(auth, name, &url)
        .await
        .map_err(oauth)?;
    match action {
        super::AuthAction::Login => {
            if auth.grant == mcpgraph_format::Grant::AuthorizationCode {
                authorizer.log_in(None).await.map_err(oauth)?;
                Ok(format!(
                    "logged in to `{name}`; {}",
                    authorizer.status().await.map_err(oauth)?
                ))
            } else {
                authorizer.token(Behalf::Graph).await.map_err(oauth)?;
                Ok(format!(
                    "`{name}`: the graph's credentials got a token (each run gets its own)"
                ))
            }
        }
        super::AuthAction::Logout => {
            authorizer.forget().await.map_err(oauth)?;
            Ok(format!("`{name}`: tokens forgotten"))
        }
        super::AuthAction::Status => authorizer.status().await.map_err(oauth),
    }
}
