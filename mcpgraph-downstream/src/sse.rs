//! The legacy HTTP+SSE client transport (MCP 2024-11-05), which rmcp 3.9
//! does not have: `GET url` opens an event stream whose first `endpoint`
//! event names the URL to POST JSON-RPC messages to; every message from
//! the server (replies included) arrives as a `message` event on the
//! stream. Events are bounded (`wire::MAX_REPLY_BYTES`); an oversized or
//! malformed reply fails the one call it answers. With `auth`, the GET and
//! every POST carry the server's token, and a 401 gets one better token
//! and one retry (see `oauth`).

use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap};
use reqwest::{Client, StatusCode, Url};
use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::mpsc;

use super::http_client::{HttpClientError, error_chain, http_client};
use super::wire::{decode, oversized};
use mcpgraph_oauth::client::{Authorizer, Behalf, Refusal};
use mcpgraph_runtime::host::redact;

pub(crate) mod parser;

use parser::{Event, SseParser};

/// Limit for one POST of a message (the reply comes on the stream).
const POST_TIMEOUT: Duration = Duration::from_secs(30);

/// An open SSE connection.
pub(crate) struct SseTransport {
    client: Client,
    endpoint: Url,
    headers: HeaderMap,
    auth: Option<Arc<Authorizer>>,
    messages: mpsc::Receiver<ServerJsonRpcMessage>,
    reader: tokio::task::JoinHandle<()>,
}

/// Opens the event stream at `url` and waits for its `endpoint` event.
/// The caller bounds the time this takes.
pub(crate) async fn connect(
    name: &str,
    url: &str,
    headers: HeaderMap,
    auth: Option<Arc<Authorizer>>,
) -> Result<SseTransport, SseError> {
    let url = Url::parse(url).map_err(|source| SseError::InvalidUrl {
        url: url.to_owned(),
        source,
    })?;
    let client = http_client().map_err(SseError::Client)?;
    let get = |token: Option<String>| {
        let mut request = client
            .get(url.clone())
            .header(ACCEPT, "text/event-stream")
            .headers(headers.clone());
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send()
    };
    let mut response = with_token(auth.as_deref(), get)
        .await?
        .map_err(|source| SseError::Get {
            url: url.to_string(),
            source,
        })?;
    if !response.status().is_success() {
        let status = response.status();
        let url = url.to_string();
        return Err(SseError::Status { url, status });
    }
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !content_type.starts_with("text/event-stream") {
        let content_type = content_type.to_owned();
        let url = url.to_string();
        return Err(SseError::NotEventStream { url, content_type });
    }
    let mut parser = SseParser::default();
    let mut events = Vec::new();
    let endpoint = 'found: loop {
        let chunk = match response.chunk().await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => return Err(SseError::Ended { url: url.into() }),
            Err(source) => {
                return Err(SseError::Read {
                    url: url.into(),
                    source,
                });
            }
        };
        parser.feed(&chunk, &mut events);
        while !events.is_empty() {
            if let Event::Message { kind, data } = events.remove(0)
                && kind == "endpoint"
            {
                let text = String::from_utf8_lossy(&data).into_owned();
                let endpoint = match url.join(text.trim()) {
                    Ok(endpoint) => endpoint,
                    Err(source) => {
                        let url = url.into();
                        return Err(SseError::InvalidEndpoint { text, url, source });
                    }
                };
                if endpoint.origin() != url.origin() {
                    let (endpoint, url) = (endpoint.into(), url.into());
                    return Err(SseError::CrossOrigin { endpoint, url });
                }
                break 'found endpoint;
            }
        }
    };
    let (tx, messages) = mpsc::channel(64);
    let reader = tokio::spawn(read_stream(name.to_owned(), response, parser, events, tx));
    Ok(SseTransport {
        client,
        endpoint,
        headers,
        auth,
        messages,
        reader,
    })
}

/// Why an SSE server's event stream could not be opened.
#[derive(Debug)]
pub(crate) enum SseError {
    /// The server's `url` does not parse.
    InvalidUrl {
        url: String,
        source: url::ParseError,
    },
    /// No HTTP client, or no TLS for an `https://` URL.
    Client(HttpClientError),
    /// The server's OAuth tokens: the OAuth layer's reason.
    Auth(mcpgraph_oauth::client::TokenError),
    /// The `GET` of the stream failed (refused, certificate, DNS...).
    Get { url: String, source: reqwest::Error },
    /// The `GET` of the stream was answered with `status`.
    Status { url: String, status: StatusCode },
    /// The answer to the `GET` is not an event stream.
    NotEventStream { url: String, content_type: String },
    /// The stream failed before its `endpoint` event.
    Read { url: String, source: reqwest::Error },
    /// The stream ended before its `endpoint` event.
    Ended { url: String },
    /// The `endpoint` event's `text` is not a URL.
    InvalidEndpoint {
        text: String,
        url: String,
        source: url::ParseError,
    },
    /// The `endpoint` is on another origin than the stream's `url`.
    CrossOrigin { endpoint: String, url: String },
}

impl std::fmt::Display for SseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::InvalidUrl { url, source } => write!(f, "invalid url `{url}`: {source}"),
            Self::Client(e) => e.fmt(f),
            Self::Auth(e) => e.fmt(f),
            Self::Get { url, source } => write!(f, "GET {url}: {}", error_chain(source)),
            Self::Status { url, status } => write!(f, "GET {url}: HTTP {status}"),
            Self::NotEventStream { url, content_type } => write!(
                f,
                "GET {url}: expected an event stream, got content type `{content_type}`"
            ),
            Self::Read { url, source } => write!(
                f,
                "reading the event stream of {url}: {}",
                error_chain(source)
            ),
            Self::Ended { url } => write!(
                f,
                "the event stream of {url} ended before its `endpoint` event"
            ),
            Self::InvalidEndpoint { text, url, source } => {
                write!(f, "invalid endpoint `{text}` from {url}: {source}")
            }
            Self::CrossOrigin { endpoint, url } => write!(
                f,
                "the endpoint `{endpoint}` from {url} is not on the same origin"
            ),
        }
    }
}

impl std::error::Error for SseError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::InvalidUrl { source, .. } | Self::InvalidEndpoint { source, .. } => Some(source),
            Self::Client(e) => Some(e),
            Self::Auth(e) => Some(e),
            Self::Get { source, .. } | Self::Read { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Sends a request (`send`, given the token) with `auth`'s token; a 401 or
/// 403 answer gets one better token and one retry.
async fn with_token<F, Fut>(
    auth: Option<&Authorizer>,
    send: F,
) -> Result<Result<reqwest::Response, reqwest::Error>, SseError>
where
    F: Fn(Option<String>) -> Fut,
    Fut: Future<Output = Result<reqwest::Response, reqwest::Error>>,
{
    let Some(auth) = auth else {
        return Ok(send(None).await);
    };
    // Refused when the server is declared (build, `--mcp`): were it to
    // come here, no request would go as the graph in the caller's place.
    if auth.passes_caller_on() {
        return Err(SseError::Auth(auth.no_caller()));
    }
    let token = auth.token(Behalf::Graph).await.map_err(SseError::Auth)?;
    let response = send(token.clone()).await;
    let refusal = match &response {
        Ok(r) if r.status() == reqwest::StatusCode::UNAUTHORIZED => Refusal::Unauthorized,
        Ok(r) if r.status() == reqwest::StatusCode::FORBIDDEN => Refusal::InsufficientScope,
        _ => return Ok(response),
    };
    let Ok(refused) = &response else {
        return Ok(response);
    };
    let Some(challenge) = refused
        .headers()
        .get(reqwest::header::WWW_AUTHENTICATE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
    else {
        return Ok(response);
    };
    let better = auth
        .recover(Behalf::Graph, token.as_deref(), &challenge, refusal)
        .await
        .map_err(SseError::Auth)?;
    Ok(send(Some(better)).await)
}

/// Reads the rest of the stream, passing each message on.
async fn read_stream(
    name: String,
    mut response: reqwest::Response,
    mut parser: SseParser,
    mut events: Vec<Event>,
    tx: mpsc::Sender<ServerJsonRpcMessage>,
) {
    loop {
        for event in events.drain(..) {
            let message = match event {
                Event::Message { kind, data } if kind == "message" || kind.is_empty() => {
                    decode(&name, &data)
                }
                Event::Message { kind, .. } => {
                    tracing::debug!(server = name, "ignoring SSE event `{}`", redact(&kind));
                    None
                }
                Event::Oversized(scanner) => oversized(&name, &scanner),
            };
            if let Some(message) = message
                && tx.send(message).await.is_err()
            {
                return;
            }
        }
        match response.chunk().await {
            Ok(Some(chunk)) => parser.feed(&chunk, &mut events),
            Ok(None) => {
                tracing::warn!(server = name, "the event stream of `{name}` ended");
                return;
            }
            Err(e) => {
                warn_redacted!(
                    name.as_str(),
                    "the event stream of `{name}` failed: {}",
                    error_chain(&e)
                );
                return;
            }
        }
    }
}

impl Transport<RoleClient> for SseTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let (client, headers) = (self.client.clone(), self.headers.clone());
        let endpoint = self.endpoint.clone();
        let auth = self.auth.clone();
        async move {
            let body = serde_json::to_vec(&item).map_err(std::io::Error::other)?;
            let post = |token: Option<String>| {
                let mut request = client
                    .post(endpoint.clone())
                    .headers(headers.clone())
                    .header(CONTENT_TYPE, "application/json")
                    .timeout(POST_TIMEOUT);
                if let Some(token) = token {
                    request = request.bearer_auth(token);
                }
                request.body(body.clone()).send()
            };
            let response = with_token(auth.as_deref(), post)
                .await
                .map_err(std::io::Error::other)?
                .map_err(|e| {
                    std::io::Error::other(format!("POST {endpoint}: {}", error_chain(&e)))
                })?;
            if response.status().is_success() {
                Ok(())
            } else {
                Err(std::io::Error::other(format!(
                    "POST {endpoint}: HTTP {}",
                    response.status()
                )))
            }
        }
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        self.messages.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.reader.abort();
        Ok(())
    }
}

impl Drop for SseTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}
