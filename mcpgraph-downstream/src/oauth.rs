//! OAuth for downstream `http` and `sse` servers (a server's `auth`,
//! FORMAT.md "OAuth"): the tokens come from `mcpgraph-oauth`'s `client`;
//! here the client manager shares one authorizer per server, sends its
//! token with each request and asks for a better one when the server
//! refuses it, and `auth login|logout|status` is run.
//!
//! Without the `http-client` feature only the checks are here: a `--mcp`
//! file's `auth` is still checked ([`check_issuer`]), and `auth login`
//! says what is missing.

#[cfg(feature = "http-client")]
use std::future::Future;
#[cfg(feature = "http-client")]
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

#[cfg(feature = "http-client")]
use rmcp::transport::auth::AuthError;
#[cfg(feature = "http-client")]
use rmcp::transport::streamable_http_client::StreamableHttpError;

#[cfg(feature = "http-client")]
use mcpgraph_oauth::client::{AuthSettings, Host};
#[cfg(feature = "http-client")]
pub(crate) use mcpgraph_oauth::client::{Authorizer, Behalf, Refusal};

/// Checks what the format leaves to the runtime: an `issuer` without
/// `${VAR}` parses as a URL.
pub(crate) fn check_issuer(auth: &mcpgraph_format::Auth) -> Result<(), String> {
    if let Some(issuer) = &auth.issuer
        && !issuer.contains("${")
    {
        let parsed = url::Url::parse(issuer)
            .map_err(|e| format!("`auth.issuer` `{issuer}` is not a URL: {e}"))?;
        if !matches!(parsed.scheme(), "https" | "http") {
            return Err(format!("`auth.issuer` `{issuer}` is not an http(s) URL"));
        }
    }
    Ok(())
}

/// Whether a person is at hand to log in when a server asks (set by
/// `call`, `lock` and `auth`; a served graph never opens a browser).
static INTERACTIVE: AtomicBool = AtomicBool::new(false);

/// Lets servers whose `auth` is a person's login open a login when they
/// refuse a token (the authorization URL goes to `$BROWSER`, or stderr).
pub fn allow_interactive_login(allow: bool) {
    INTERACTIVE.store(allow, Ordering::SeqCst);
}

#[cfg(feature = "http-client")]
fn interactive() -> bool {
    INTERACTIVE.load(Ordering::SeqCst)
}

/// What the client manager lends `mcpgraph-oauth`'s grants.
#[cfg(feature = "http-client")]
const HOST: Host = Host {
    http_client: super::http_client::http_client_builder,
    expand: super::env_expand::expand,
    interactive,
};

/// The one authorizer all the connections of a server with `auth` share,
/// made on first use (every `Downstream` of the server holds a clone).
#[derive(Clone, Default)]
pub(crate) struct SharedAuthorizer {
    #[cfg(feature = "http-client")]
    cell: Arc<tokio::sync::OnceCell<Arc<Authorizer>>>,
}

#[cfg(feature = "http-client")]
impl SharedAuthorizer {
    /// The authorizer of server `server` at `url` (expanded), whose `auth`
    /// is `auth`.
    pub(crate) async fn get(
        &self,
        auth: &mcpgraph_format::Auth,
        server: &str,
        url: &str,
    ) -> Result<Arc<Authorizer>, String> {
        self.cell
            .get_or_try_init(|| async {
                // rmcp's OAuth client is reqwest's, with our TLS provider.
                super::http_client::install_crypto_provider();
                check_issuer(auth)?;
                let settings = AuthSettings::new(auth, HOST)?;
                Authorizer::new(server, url, settings).map(Arc::new)
            })
            .await
            .cloned()
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
    let authorizer = SharedAuthorizer::default().get(auth, name, &url).await?;
    match action {
        AuthAction::Login => {
            if auth.grant == mcpgraph_format::Grant::AuthorizationCode {
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
        super::TransportSpec::StreamableHttp { .. } => crate::features::missing_http_client("http"),
        super::TransportSpec::Sse { .. } => crate::features::missing_http_client("sse"),
    })
}
