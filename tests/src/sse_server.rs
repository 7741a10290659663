//! A legacy HTTP+SSE MCP server (protocol 2024-11-05) written for the
//! failure tests of our SSE client: `GET /sse` opens the event stream and
//! names `/messages?session=N` in its `endpoint` event; every POSTed
//! message is answered 202 and its reply, if any, comes as a `message`
//! event. Its tools behave on request:
//!
//! - `echo`: answers with its arguments (text and `structuredContent`);
//! - `huge`: answers with `bytes` bytes of text (an oversized event);
//! - `malformed`: answers with an event that is JSON but not a valid reply;
//! - `garbage`: sends an event that is not JSON, then answers correctly;
//! - `hang`: never answers;
//! - `wedge`: never answers, and neither does its session afterwards
//!   (pings included); a new session is served.
//!
//! Plain HTTP/1.1 on a tokio listener, no framework: just enough for one
//! client, which is what these tests need.
//!
//! [`SseServer::start_protected`] takes OAuth tokens only: a request
//! without `Authorization: Bearer` a JWT whose `aud` is its URL gets 401
//! with a challenge naming its protected resource metadata, which names
//! the given authorization server (the signature is not checked: the
//! inbound OAuth tests do that; these test that our SSE client sends the
//! token on the stream and on every message).

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

/// Event streams by session number: each takes raw SSE event text.
type Sessions = Arc<Mutex<HashMap<u64, mpsc::UnboundedSender<String>>>>;

/// Sessions that `wedge` silenced.
type Wedged = Arc<Mutex<HashSet<u64>>>;

/// A running server; stops when dropped.
pub struct SseServer {
    pub addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
    /// Sessions opened so far (one per `GET /sse`).
    pub streams: Arc<AtomicU64>,
    /// Requests refused for want of a token (protected servers).
    pub refused: Arc<AtomicU64>,
}

/// What a protected server wants: tokens for `resource` from `issuer`.
#[derive(Clone)]
struct Guard {
    resource: String,
    issuer: String,
    refused: Arc<AtomicU64>,
}

impl SseServer {
    /// Starts on a free loopback port.
    pub async fn start() -> SseServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        SseServer::serve(listener, None)
    }

    /// Starts on `port` (0: any), taking tokens of `issuer` only.
    pub async fn start_protected(port: u16, issuer: &str) -> SseServer {
        let listener = TcpListener::bind(("127.0.0.1", port)).await.expect("bind");
        let addr = listener.local_addr().expect("local addr");
        let guard = Guard {
            resource: format!("http://{addr}/sse"),
            issuer: issuer.to_owned(),
            refused: Arc::default(),
        };
        SseServer::serve(listener, Some(guard))
    }

    fn serve(listener: TcpListener, guard: Option<Guard>) -> SseServer {
        let addr = listener.local_addr().expect("local addr");
        let refused = guard
            .as_ref()
            .map(|g| Arc::clone(&g.refused))
            .unwrap_or_default();
        let sessions: Sessions = Arc::default();
        let wedged: Wedged = Arc::default();
        let streams = Arc::new(AtomicU64::new(0));
        let counter = Arc::clone(&streams);
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let _ = stream.set_nodelay(true);
                tokio::spawn(connection(
                    stream,
                    Arc::clone(&sessions),
                    Arc::clone(&wedged),
                    Arc::clone(&counter),
                    guard.clone(),
                ));
            }
        });
        SseServer {
            addr,
            task,
            streams,
            refused,
        }
    }

    /// `http://ADDR/sse`.
    pub fn url(&self) -> String {
        format!("http://{}/sse", self.addr)
    }
}

impl Guard {
    /// The answer to a request this server does not serve (its metadata,
    /// or a 401), `None` for one it serves.
    fn check(&self, method: &str, target: &str, bearer: Option<&str>) -> Option<String> {
        let origin = self.resource.trim_end_matches("/sse");
        if method == "GET" && target.starts_with("/.well-known/oauth-protected-resource") {
            let body = json!({"resource": self.resource, "authorization_servers": [self.issuer],
                              "bearer_methods_supported": ["header"]})
            .to_string();
            return Some(format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            ));
        }
        let audience = bearer
            .and_then(|t| t.split('.').nth(1))
            .and_then(|payload| {
                use base64::Engine as _;
                base64::engine::general_purpose::URL_SAFE_NO_PAD
                    .decode(payload)
                    .ok()
            })
            .and_then(|claims| serde_json::from_slice::<Value>(&claims).ok())
            .and_then(|claims| claims.get("aud").cloned());
        if audience == Some(Value::String(self.resource.clone())) {
            return None;
        }
        self.refused.fetch_add(1, Ordering::SeqCst);
        Some(format!(
            "HTTP/1.1 401 Unauthorized\r\nwww-authenticate: Bearer resource_metadata=\"{origin}/.well-known/oauth-protected-resource/sse\"\r\ncontent-length: 0\r\n\r\n"
        ))
    }
}

impl Drop for SseServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Serves the requests of one connection (keep-alive) until it closes.
async fn connection(
    stream: TcpStream,
    sessions: Sessions,
    wedged: Wedged,
    streams: Arc<AtomicU64>,
    guard: Option<Guard>,
) {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).await.unwrap_or(0) == 0 {
            return;
        }
        let mut length = 0usize;
        let mut bearer = None;
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).await.unwrap_or(0) == 0 {
                return;
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap_or(0);
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("authorization")
            {
                bearer = value.trim().strip_prefix("Bearer ").map(str::to_owned);
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).await.is_err() {
            return;
        }
        let mut parts = request_line.split_whitespace();
        let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        if let Some(guard) = &guard {
            let refusal = guard.check(method, target, bearer.as_deref());
            if let Some(answer) = refusal {
                if write.write_all(answer.as_bytes()).await.is_err() {
                    return;
                }
                continue;
            }
        }
        match (method, target.split_once('?')) {
            ("GET", None) if target == "/sse" => {
                let session = streams.fetch_add(1, Ordering::SeqCst);
                let (tx, mut rx) = mpsc::unbounded_channel::<String>();
                sessions.lock().unwrap().insert(session, tx);
                let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                            cache-control: no-cache\r\nconnection: close\r\n\r\n";
                let endpoint = format!("event: endpoint\ndata: /messages?session={session}\n\n");
                if write.write_all(head.as_bytes()).await.is_err()
                    || write.write_all(endpoint.as_bytes()).await.is_err()
                {
                    return;
                }
                // The stream owns this connection from now on.
                while let Some(event) = rx.recv().await {
                    if write.write_all(event.as_bytes()).await.is_err() {
                        break;
                    }
                }
                sessions.lock().unwrap().remove(&session);
                return;
            }
            ("POST", Some(("/messages", query))) => {
                let session = query
                    .strip_prefix("session=")
                    .and_then(|n| n.parse::<u64>().ok());
                let events = session.and_then(|n| sessions.lock().unwrap().get(&n).cloned());
                let Some(events) = events else {
                    let _ = write
                        .write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")
                        .await;
                    continue;
                };
                if write
                    .write_all(b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n")
                    .await
                    .is_err()
                {
                    return;
                }
                if let Ok(message) = serde_json::from_slice::<Value>(&body) {
                    let session = session.unwrap_or_default();
                    let mut silenced = wedged.lock().unwrap();
                    if message["params"]["name"] == "wedge" {
                        silenced.insert(session);
                    }
                    if silenced.contains(&session) {
                        continue;
                    }
                    drop(silenced);
                    for event in answer(&message) {
                        let _ = events.send(event);
                    }
                }
            }
            _ => {
                let _ = write
                    .write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")
                    .await;
            }
        }
    }
}

/// One `message` event carrying `data` (a single line).
fn event(data: &str) -> String {
    format!("event: message\ndata: {data}\n\n")
}

fn reply(id: &Value, result: Value) -> String {
    event(&json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string())
}

/// The events that answer `message` (none for notifications and `hang`).
fn answer(message: &Value) -> Vec<String> {
    let Some(id) = message.get("id") else {
        return Vec::new();
    };
    let params = &message["params"];
    match message["method"].as_str().unwrap_or("") {
        "initialize" => vec![reply(
            id,
            json!({
                "protocolVersion": "2024-11-05",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "misbehaving-sse", "version": "0.0.0"}
            }),
        )],
        "ping" => vec![reply(id, json!({}))],
        "tools/list" => {
            let tools: Vec<Value> = ["echo", "huge", "malformed", "garbage", "hang", "wedge"]
                .iter()
                .map(|name| json!({"name": name, "inputSchema": {"type": "object"}}))
                .collect();
            vec![reply(id, json!({"tools": tools}))]
        }
        "tools/call" => {
            let arguments = params["arguments"].clone();
            let echo = || {
                reply(
                    id,
                    json!({
                        "content": [{"type": "text", "text": arguments.to_string()}],
                        "structuredContent": arguments
                    }),
                )
            };
            match params["name"].as_str().unwrap_or("") {
                "echo" => vec![echo()],
                "huge" => {
                    let bytes = arguments["bytes"].as_u64().unwrap_or(0) as usize;
                    let text = "x".repeat(bytes);
                    vec![reply(
                        id,
                        json!({"content": [{"type": "text", "text": text}]}),
                    )]
                }
                "malformed" => vec![event(
                    &json!({"jsonrpc": "2.0", "id": id, "result": {"content": 7}, "error": "both"})
                        .to_string(),
                )],
                "garbage" => vec![event("this is not JSON"), echo()],
                "hang" => Vec::new(),
                other => vec![event(
                    &json!({"jsonrpc": "2.0", "id": id,
                            "error": {"code": -32602, "message": format!("unknown tool {other}")}})
                    .to_string(),
                )],
            }
        }
        other => vec![event(
            &json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": -32601, "message": format!("unknown method {other}")}})
            .to_string(),
        )],
    }
}
