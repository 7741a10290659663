//! Connecting to a downstream `http` (streamable HTTP) or `sse` server:
//! its URL and headers `${VAR}` expanded, its OAuth tokens, the handshake
//! within its `timeoutMs` (the `http-client` feature).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use rmcp::ServiceExt;
use rmcp::model::ProtocolVersion;
use rmcp::service::{
    ClientInitializeError, ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::{ConnectFailure, HandshakeCut, era, within};
use crate::asking::Questions;
use crate::http_client::HttpClientError;
use crate::spec::ServerSpec;
use crate::sse::SseError;
use crate::{http_client, sse, streamable, wire};
use mcpgraph_secrets::{ExpandError, expand_env};

/// A connection's rmcp service.
type Service = RunningService<RoleClient, Questions>;

/// A connection being made to an HTTP or SSE server: the server, its URL
/// (`${VAR}` expanded), its headers, its OAuth tokens, its handshake's time
/// limit and the token that ends the wait.
pub(super) struct Dial<'a> {
    spec: &'a ServerSpec,
    url: String,
    headers: HeaderMap,
    auth: Option<Arc<mcpgraph_oauth::client::Authorizer>>,
    timeout: std::time::Duration,
    closing: &'a CancellationToken,
}

impl<'a> Dial<'a> {
    /// Expands `url` and checks its scheme, reads `headers` and gets the
    /// server's OAuth tokens, if it has any.
    pub(super) async fn new(
        spec: &'a ServerSpec,
        auth: &crate::oauth::SharedAuthorizer,
        url: &str,
        headers: &[(String, String)],
        timeout: std::time::Duration,
        closing: &'a CancellationToken,
    ) -> Result<Self, DialError> {
        let url = expand_env(url)?;
        http_client::check_scheme(&url)?;
        let headers = header_map(headers)?;
        let auth = match &spec.auth {
            None => None,
            Some(settings) => Some(
                auth.get(settings, &spec.name, &url)
                    .await
                    .map_err(DialError::Auth)?,
            ),
        };
        Ok(Dial {
            spec,
            url,
            headers,
            auth,
            timeout,
            closing,
        })
    }

    /// Opens the session: legacy SSE when `sse`, streamable HTTP otherwise.
    pub(super) async fn connect(
        self,
        sse: bool,
        handler: impl Fn() -> Questions,
    ) -> Result<Service, DialError> {
        if sse {
            self::sse(self, handler).await
        } else {
            streamable(self, handler).await
        }
    }
}

/// The session with a streamable HTTP server.
async fn streamable(dial: Dial<'_>, handler: impl Fn() -> Questions) -> Result<Service, DialError> {
    let (spec, url) = (dial.spec, &dial.url);
    let custom: HashMap<_, _> = dial
        .headers
        .into_iter()
        .filter_map(|(name, value)| Some((name?, value)))
        .collect();
    let open = |lifecycle| {
        let config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
            .custom_headers(custom.clone())
            .max_sse_event_size(wire::MAX_REPLY_BYTES)
            .max_json_response_size(wire::MAX_REPLY_BYTES)
            .reinit_on_expired_session(true);
        let client = http_client::http_client()?;
        let transport = StreamableHttpClientTransport::with_client(
            streamable::GuardedClient::new(client, &spec.name, dial.auth.clone()),
            config,
        );
        Ok::<_, HttpClientError>(handler().serve_with_lifecycle(transport, lifecycle))
    };
    let handshake = async {
        let first = match &dial.auth {
            None => open(era())?.await,
            Some(auth) => {
                // rmcp's probe gives `server/discover` 10 s, a login within
                // it included: a person logging in takes longer. The probe
                // here waits while a token is being got.
                let discover = ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::LATEST],
                };
                tokio::select! {
                    opened = open(discover)? => match opened {
                        Err(ClientInitializeError::JsonRpcError(e)) if legacy(&e) => {
                            open(ClientLifecycleMode::Initialize)?.await
                        }
                        other => other,
                    },
                    () = unanswered(PROBE, auth.recovering()) => {
                        open(ClientLifecycleMode::Initialize)?.await
                    }
                }
            }
        };
        match first {
            // A server that answers `server/discover` with something
            // else than a discovery result (an empty one, say) is
            // not of 2026-07-28: it gets `initialize`.
            Err(ClientInitializeError::ExpectedInitResult(_)) => {
                Ok::<_, HttpClientError>(open(ClientLifecycleMode::Initialize)?.await)
            }
            other => Ok(other),
        }
    };
    match within(dial.timeout, dial.closing, handshake).await {
        Ok(Ok(Ok(service))) => {
            learn_header_params(&service, &spec.name, dial.timeout).await;
            Ok(service)
        }
        Ok(Ok(Err(error))) => Err(DialError::Handshake {
            url: url.clone(),
            error: Box::new(error),
        }),
        Ok(Err(e)) => Err(e.into()),
        Err(why) => Err(DialError::Cut {
            url: url.clone(),
            why,
        }),
    }
}

/// How long a streamable HTTP server with `auth` has to answer
/// `server/discover`, the time its tokens take aside, before it gets
/// `initialize` (rmcp's probe for the others).
const PROBE: Duration = Duration::from_secs(10);

/// Whether `error`, a server's answer to `server/discover`, says it is of
/// an era before 2026-07-28 (rmcp's rule: any error but the two that
/// only a server of 2026-07-28 sends).
fn legacy(error: &rmcp::model::ErrorData) -> bool {
    use rmcp::model::ErrorCode;
    error.code != ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
        && error.code != ErrorCode::HEADER_MISMATCH
}

/// Ends once `limit` has passed with no token being got (`recovering` at
/// zero): the server's silence, not the person's login, is what counts.
async fn unanswered(limit: Duration, mut recovering: watch::Receiver<usize>) {
    let mut left = limit;
    loop {
        let gone = recovering.wait_for(|n| *n == 0).await.is_err();
        if gone {
            // The authorizer is gone: only the time is left to count.
            tokio::time::sleep(left).await;
            return;
        }
        let started = tokio::time::Instant::now();
        tokio::select! {
            () = tokio::time::sleep(left) => return,
            gone = async { recovering.wait_for(|n| *n > 0).await.is_err() } => {
                left = left.saturating_sub(started.elapsed());
                if gone {
                    tokio::time::sleep(left).await;
                    return;
                }
            }
        }
    }
}

/// The session with a legacy SSE server.
async fn sse(dial: Dial<'_>, handler: impl Fn() -> Questions) -> Result<Service, DialError> {
    let url = &dial.url;
    let connected = within(dial.timeout, dial.closing, async {
        let transport = sse::connect(&dial.spec.name, url, dial.headers, dial.auth).await?;
        handler()
            .serve(transport)
            .await
            .map_err(|error| DialError::SseHandshake {
                url: url.clone(),
                error: Box::new(error),
            })
    })
    .await;
    match connected {
        Ok(connected) => connected,
        Err(why) => Err(DialError::Cut {
            url: url.clone(),
            why,
        }),
    }
}

/// A streamable HTTP server of MCP 2026-07-28 wants the arguments its tools
/// mark `x-mcp-header` repeated as `Mcp-Param-*` headers; rmcp's client
/// adds them for the tools it has seen listed on the connection, so the
/// tools are listed once now (within `limit`; a failure is logged, and the
/// calls go without those headers).
async fn learn_header_params(
    service: &rmcp::service::RunningService<rmcp::service::RoleClient, Questions>,
    server: &str,
    limit: std::time::Duration,
) {
    let modern = service
        .peer()
        .peer_info()
        .is_some_and(|info| info.protocol_version >= ProtocolVersion::STANDARD_HEADERS);
    if !modern {
        return;
    }
    if let Err(e) = crate::listing::all_tools(service.peer(), limit).await {
        crate::warn_redacted!(
            server,
            "could not list the tools of `{server}` ({e}); calls to it go without Mcp-Param-* headers"
        );
    }
}

/// Why the handshake with an HTTP server failed, down to the root cause
/// ("invalid peer certificate: UnknownIssuer", "Connection refused"),
/// without rmcp's internal type names.
fn initialize_error(error: &rmcp::service::ClientInitializeError) -> String {
    match error {
        rmcp::service::ClientInitializeError::TransportError { error, context } => {
            format!("{} ({context})", http_client::error_chain(&*error.error))
        }
        other => http_client::error_chain(other),
    }
}

/// The `headers` of an HTTP server, `${VAR}` expanded.
fn header_map(headers: &[(String, String)]) -> Result<HeaderMap, DialError> {
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        let value = expand_env(value)?;
        let header =
            HeaderName::from_bytes(name.as_bytes()).map_err(|source| DialError::HeaderName {
                name: name.clone(),
                source,
            })?;
        let value = HeaderValue::from_str(&value).map_err(|source| DialError::HeaderValue {
            name: name.clone(),
            source,
        })?;
        map.append(header, value);
    }
    Ok(map)
}

/// Why connecting to an `http` or `sse` server failed.
#[derive(Debug)]
pub(super) enum DialError {
    /// A `${VAR}` of its URL or headers could not be expanded.
    Expand(ExpandError),
    /// No HTTP client, or no TLS for an `https://` URL.
    Client(HttpClientError),
    /// A configured header's name is not one.
    HeaderName {
        name: String,
        source: reqwest::header::InvalidHeaderName,
    },
    /// A configured header's value (expanded) cannot be sent.
    HeaderValue {
        name: String,
        source: reqwest::header::InvalidHeaderValue,
    },
    /// Its OAuth settings or tokens: the OAuth layer's reason.
    Auth(mcpgraph_oauth::client::TokenError),
    /// The SSE server's event stream could not be opened.
    Sse(SseError),
    /// The streamable HTTP server at `url` failed the handshake.
    Handshake {
        url: String,
        error: Box<ClientInitializeError>,
    },
    /// The SSE server at `url` failed the handshake.
    SseHandshake {
        url: String,
        error: Box<ClientInitializeError>,
    },
    /// The server at `url` did not end its handshake.
    Cut { url: String, why: HandshakeCut },
}

impl std::fmt::Display for DialError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Expand(e) => e.fmt(f),
            Self::Client(e) => e.fmt(f),
            Self::HeaderName { name, source } => {
                write!(f, "invalid header name `{name}`: {source}")
            }
            Self::HeaderValue { name, source } => {
                write!(f, "invalid value for header `{name}`: {source}")
            }
            Self::Auth(e) => e.fmt(f),
            Self::Sse(e) => e.fmt(f),
            Self::Handshake { url, error } => write!(f, "{url}: {}", initialize_error(error)),
            Self::SseHandshake { url, error } => write!(f, "{url}: {error}"),
            Self::Cut { url, why } => write!(f, "{url} {why}"),
        }
    }
}

impl std::error::Error for DialError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Expand(e) => Some(e),
            Self::Client(e) => Some(e),
            Self::HeaderName { source, .. } => Some(source),
            Self::HeaderValue { source, .. } => Some(source),
            Self::Sse(e) => Some(e),
            Self::Auth(e) => Some(e),
            Self::Handshake { error, .. } | Self::SseHandshake { error, .. } => Some(&**error),
            Self::Cut { .. } => None,
        }
    }
}

impl From<ExpandError> for DialError {
    fn from(e: ExpandError) -> Self {
        Self::Expand(e)
    }
}

impl From<HttpClientError> for DialError {
    fn from(e: HttpClientError) -> Self {
        Self::Client(e)
    }
}

impl From<SseError> for DialError {
    fn from(e: SseError) -> Self {
        Self::Sse(e)
    }
}

impl From<DialError> for ConnectFailure {
    fn from(e: DialError) -> Self {
        Self::Http(Box::new(e))
    }
}
