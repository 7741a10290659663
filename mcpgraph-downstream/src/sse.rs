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
use reqwest::{Client, Url};
use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::mpsc;

use super::http_client::{error_chain, http_client};
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
) -> Result<SseTransport, String> {
    let url = Url::parse(url).map_err(|e| format!("invalid url `{url}`: {e}"))?;
    let client = http_client()?;
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
        .map_err(|e| format!("GET {url}: {}", error_chain(&e)))?;
    if !response.status().is_success() {
        return Err(format!("GET {url}: HTTP {}", response.status()));
    }
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !content_type.starts_with("text/event-stream") {
        return Err(format!(
            "GET {url}: expected an event stream, got content type `{content_type}`"
        ));
    }
    let mut parser = SseParser::default();
    let mut events = Vec::new();
    let endpoint = 'found: loop {
        let chunk = response
            .chunk()
            .await
            .map_err(|e| format!("reading the event stream of {url}: {}", error_chain(&e)))?
            .ok_or_else(|| {
                format!("the event stream of {url} ended before its `endpoint` event")
            })?;
        parser.feed(&chunk, &mut events);
        while !events.is_empty() {
            if let Event::Message { kind, data } = events.remove(0)
                && kind == "endpoint"
            {
                let text = String::from_utf8_lossy(&data);
                let endpoint = url
                    .join(text.trim())
                    .map_err(|e| format!("invalid endpoint `{text}` from {url}: {e}"))?;
                if endpoint.origin() != url.origin() {
                    return Err(format!(
                        "the endpoint `{endpoint}` from {url} is not on the same origin"
                    ));
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

/// Sends a request (`send`, given the token) with `auth`'s token; a 401 or
/// 403 answer gets one better token and one retry.
async fn with_token<F, Fut>(
    auth: Option<&Authorizer>,
    send: F,
) -> Result<Result<reqwest::Response, reqwest::Error>, String>
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
        return Err(auth.no_caller());
    }
    let token = auth.token(Behalf::Graph).await?;
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
        .await?;
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
