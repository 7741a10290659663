//! OAuth for downstream `http` and `sse` servers (a server's `auth`,
//! FORMAT.md "OAuth"): the client manager gets tokens and sends them, with
//! rmcp doing the protocol (protected resource and authorization server
//! discovery, PKCE, registration, refresh, client credentials,
//! enterprise-managed authorization).
//!
//! - `settings`: `auth` as read, and its secrets resolved;
//! - `tokens`: one server's tokens, shared by its connections, and what is
//!   done when the server refuses one;
//! - `grants`: client credentials and the enterprise grant;
//! - `issuer`: the authorization server a server's tokens come from,
//!   pinned (named by the graph, or learned once), and the gate that keeps
//!   discovery from reaching any other;
//! - `login`: a person's login (authorization code, loopback redirect);
//! - `store`: the file a person's tokens are kept in;
//! - `token_endpoint`: the token requests made without rmcp.
//!
//! Without the `http-client` feature only `settings` is here: a `--mcp`
//! file's `auth` is still checked, and `auth login` says what is missing.

#[cfg(feature = "http-client")]
mod exchange;
#[cfg(feature = "http-client")]
mod grants;
#[cfg(feature = "http-client")]
mod issuer;
#[cfg(feature = "http-client")]
mod login;
// Without `http-client`, only its parsing (`ServerAuth::from_json`) is used.
#[cfg_attr(not(feature = "http-client"), allow(dead_code))]
mod settings;
#[cfg(feature = "http-client")]
mod store;
#[cfg(feature = "http-client")]
mod token_endpoint;
#[cfg(feature = "http-client")]
mod tokens;

#[cfg(feature = "http-client")]
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

#[cfg(feature = "http-client")]
use rmcp::transport::auth::AuthError;
#[cfg(feature = "http-client")]
use rmcp::transport::streamable_http_client::StreamableHttpError;

#[cfg(feature = "http-client")]
use crate::caller_token::CallerToken;

pub(crate) use settings::AuthSettings;
#[cfg(feature = "http-client")]
pub(crate) use tokens::{Authorizer, Refusal};

/// Whether a person is at hand to log in when a server asks (set by
/// `call`, `lock` and `auth`; a served graph never opens a browser).
static INTERACTIVE: AtomicBool = AtomicBool::new(false);

/// Lets servers whose `auth` is a person's login open a login when they
/// refuse a token (the authorization URL goes to `$BROWSER`, or stderr).
pub fn allow_interactive_login(allow: bool) {
    INTERACTIVE.store(allow, Ordering::SeqCst);
}

#[cfg(feature = "http-client")]
pub(crate) fn interactive() -> bool {
    INTERACTIVE.load(Ordering::SeqCst)
}

/// A server's `auth` (JSON, as compiled in or read from `--mcp`), and the
/// one authorizer all its connections share, made on first use.
#[derive(Clone)]
pub struct ServerAuth {
    json: Arc<serde_json::Value>,
    #[cfg(feature = "http-client")]
    authorizer: Arc<tokio::sync::OnceCell<Arc<Authorizer>>>,
}

/// On whose behalf a request goes to a server.
#[cfg(feature = "http-client")]
#[derive(Clone, Copy, Debug)]
pub(crate) enum Behalf<'a> {
    /// A caller's `tools/call`, with the access token inbound OAuth
    /// accepted, if any.
    Call(Option<&'a CallerToken>),
    /// What no caller asked: the handshake, listings, notifications.
    Graph,
}

impl ServerAuth {
    /// `auth` as JSON; checked now (a `--mcp` file's mistakes are start-up
    /// errors), its secrets read at first use.
    pub fn from_json(json: serde_json::Value) -> Result<ServerAuth, String> {
        AuthSettings::parse(&json)?;
        Ok(ServerAuth {
            json: Arc::new(json),
            #[cfg(feature = "http-client")]
            authorizer: Arc::default(),
        })
    }

    /// Refuses `token_exchange` on an `sse` server (`sse`): every message
    /// of that transport goes with one token, which cannot carry each
    /// caller's identity.
    pub(crate) fn check_transport(&self, sse: bool) -> Result<(), String> {
        let settings = AuthSettings::parse(&self.json)?;
        if sse && settings.grant == settings::Grant::TokenExchange {
            return Err(SSE_EXCHANGE.to_owned());
        }
        Ok(())
    }

    /// `auth` as the generator wrote it (checked there: were it ever not
    /// to parse, the server's connections fail with the reason).
    pub(crate) fn compiled(text: &str) -> ServerAuth {
        let json = serde_json::from_str(text).unwrap_or(serde_json::Value::String(text.into()));
        ServerAuth {
            json: Arc::new(json),
            #[cfg(feature = "http-client")]
            authorizer: Arc::default(),
        }
    }

    /// The authorizer of server `server` at `url` (expanded).
    #[cfg(feature = "http-client")]
    pub(crate) async fn authorizer(
        &self,
        server: &str,
        url: &str,
    ) -> Result<Arc<Authorizer>, String> {
        self.authorizer
            .get_or_try_init(|| async {
                // rmcp's OAuth client is reqwest's, with our TLS provider.
                super::http_client::install_crypto_provider();
                let settings = AuthSettings::parse(&self.json)?;
                Authorizer::new(server, url, settings).map(Arc::new)
            })
            .await
            .cloned()
    }
}

/// Why `token_exchange` is refused for an `sse` server.
const SSE_EXCHANGE: &str = "`grant: token_exchange` is not for `sse` servers (the legacy \
     transport sends every message with one token, which cannot carry each caller's identity): \
     use `http`";

impl std::fmt::Debug for ServerAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Secrets in it are `${VAR}` references or paths, never values.
        write!(f, "ServerAuth({})", self.json)
    }
}

impl PartialEq for ServerAuth {
    fn eq(&self, other: &Self) -> bool {
        self.json == other.json
    }
}

/// Requests one refusal may lead to at most (a refresh, then logins up to
/// the authorizer's limit).
#[cfg(feature = "http-client")]
const MAX_TRIES: usize = 5;

/// Runs `call` (one HTTP request to a server) with `auth`'s token, and
/// again with a better one when the server refuses it; without `auth`,
/// with `given` (the transport's own header). A refusal that cannot be
/// recovered from is an error naming the server and what it wants.
///
/// `call` takes the request's parts (`parts`) and the token: without
/// `auth` they are moved into the one request; with it, each try gets a
/// copy, as a refused token means sending them again.
#[cfg(feature = "http-client")]
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
        |message: String| StreamableHttpError::Auth(AuthError::AuthorizationFailed(message));
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
    Err(failed(format!(
        "the server refused every token given ({MAX_TRIES} tries)"
    )))
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

/// Runs `action` for `spec`'s server; the text says what was done.
#[cfg(feature = "http-client")]
pub async fn run_auth(spec: &super::ServerSpec, action: AuthAction) -> Result<String, String> {
    let name = &spec.name;
    let url = match &spec.transport {
        super::TransportSpec::StreamableHttp { url, .. }
        | super::TransportSpec::Sse { url, .. } => super::env_expand::expand(url)?,
        super::TransportSpec::Stdio { .. } => {
            return Err(format!(
                "`{name}` is a stdio server: OAuth is for `http` and `sse` servers"
            ));
        }
    };
    let auth = spec
        .auth
        .as_ref()
        .ok_or_else(|| format!("`{name}` has no `auth`: it takes no OAuth login"))?;
    let authorizer = auth.authorizer(name, &url).await?;
    match action {
        AuthAction::Login => {
            let settings = AuthSettings::parse(&auth.json)?;
            if settings.grant == settings::Grant::AuthorizationCode {
                authorizer.log_in(None).await?;
                Ok(format!(
                    "logged in to `{name}`; {}",
                    authorizer.status().await?
                ))
            } else {
                authorizer.token(Behalf::Graph).await?;
                Ok(format!(
                    "`{name}`: the graph's credentials got a token (each run gets its own)"
                ))
            }
        }
        AuthAction::Logout => {
            authorizer.forget().await?;
            Ok(format!("`{name}`: tokens forgotten"))
        }
        AuthAction::Status => authorizer.status().await,
    }
}

/// Runs `action` for `spec`'s server: without the `http-client` feature
/// there is no server to log in to.
#[cfg(not(feature = "http-client"))]
#[allow(clippy::unused_async)]
pub async fn run_auth(spec: &super::ServerSpec, action: AuthAction) -> Result<String, String> {
    let _ = action;
    Err(match &spec.transport {
        super::TransportSpec::Stdio { .. } => format!(
            "`{}` is a stdio server: OAuth is for `http` and `sse` servers",
            spec.name
        ),
        super::TransportSpec::StreamableHttp { .. } => {
            crate::downstream::features::missing_http_client("http")
        }
        super::TransportSpec::Sse { .. } => crate::downstream::features::missing_http_client("sse"),
    })
}
