//! Raw HTTP/1.1 to a server, one request per connection
//! (`Connection: close`), for what an SDK client would hide: status codes,
//! headers, SSE bodies.

use serde_json::{Value, json};
use tokio::io::AsyncReadExt;

use crate::RAW_TIMEOUT;
use crate::http1;

/// One HTTP response.
#[derive(Debug, Clone)]
pub struct HttpResponse {
    pub status: u16,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl HttpResponse {
    /// The first header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        http1::header(&self.headers, name)
    }

    /// The JSON-RPC messages of the body: the body itself when it is JSON,
    /// or the `data:` lines of an SSE body that parse as JSON.
    pub fn messages(&self) -> Vec<Value> {
        if let Ok(v) = serde_json::from_str::<Value>(&self.body) {
            return match v {
                Value::Array(a) => a,
                v => vec![v],
            };
        }
        self.body
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .collect()
    }
}

/// Sends one HTTP/1.1 request (`Connection: close`) to `addr` and reads the
/// whole response. `Host: ADDR` is sent unless `headers` has a `Host`. Fails
/// the test on I/O errors or after [`RAW_TIMEOUT`].
pub async fn http_request(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> HttpResponse {
    use tokio::io::AsyncWriteExt;
    let what = format!("{method} http://{addr}{path}");
    let fut = async {
        let mut stream = tokio::net::TcpStream::connect(addr)
            .await
            .unwrap_or_else(|e| panic!("{what}: connect: {e}"));
        let mut req = format!("{method} {path} HTTP/1.1\r\n");
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            req.push_str(&format!("Host: {addr}\r\n"));
        }
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("Connection: close\r\n");
        let body = body.unwrap_or("");
        if !body.is_empty() || method == "POST" {
            req.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        req.push_str("\r\n");
        req.push_str(body);
        stream
            .write_all(req.as_bytes())
            .await
            .unwrap_or_else(|e| panic!("{what}: write: {e}"));
        let mut raw = Vec::new();
        stream
            .read_to_end(&mut raw)
            .await
            .unwrap_or_else(|e| panic!("{what}: read: {e}"));
        parse_response(&what, method, &raw)
    };
    match tokio::time::timeout(RAW_TIMEOUT, fut).await {
        Ok(r) => r,
        Err(_) => panic!("{what}: no complete response within {RAW_TIMEOUT:?}"),
    }
}

/// Parses one whole raw HTTP/1.1 response to a request other than `HEAD`
/// (`what` names it in failures).
pub fn parse_http_response(what: &str, raw: &[u8]) -> HttpResponse {
    parse_response(what, "GET", raw)
}

/// Parses one whole raw HTTP/1.1 response to a `method` request.
fn parse_response(what: &str, method: &str, raw: &[u8]) -> HttpResponse {
    let message = http1::read_response(&mut &raw[..], method).unwrap_or_else(|e| {
        panic!(
            "{what}: {e} in the response {:?}",
            String::from_utf8_lossy(raw)
        )
    });
    let status = message.status().unwrap_or_else(|e| panic!("{what}: {e}"));
    HttpResponse {
        status,
        headers: message.headers,
        body: String::from_utf8_lossy(&message.body).into_owned(),
    }
}

/// The headers of an MCP POST (`Content-Type` and `Accept`), plus `extra`.
pub fn mcp_post_headers<'a>(extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut h = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    h.extend_from_slice(extra);
    h
}

/// A JSON-RPC `initialize` request body (id 1).
pub fn initialize_body() -> String {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": { "name": "mcpgraph-tests-raw-http", "version": "0.0.0" }
        }
    })
    .to_string()
}

/// An MCP POST to `/mcp` (with [`mcp_post_headers`] plus `extra`) of `body`.
pub async fn post_mcp(
    addr: std::net::SocketAddr,
    extra: &[(&str, &str)],
    body: &str,
) -> HttpResponse {
    http_request(addr, "POST", "/mcp", &mcp_post_headers(extra), Some(body)).await
}

/// The `initialize` POST of [`initialize_body`], with `extra` headers.
pub async fn post_init(addr: std::net::SocketAddr, extra: &[(&str, &str)]) -> HttpResponse {
    post_mcp(addr, extra, &initialize_body()).await
}

/// `initialize` + `notifications/initialized` over raw HTTP; the session id.
/// (No GET stream is opened.)
pub async fn open_session(addr: std::net::SocketAddr) -> String {
    let init = post_init(addr, &[]).await;
    assert_accepted(&init, "initialize");
    let sid = init
        .header("mcp-session-id")
        .unwrap_or_else(|| panic!("stateful initialize gives a session id: {init:?}"))
        .to_string();
    let r = post_mcp(
        addr,
        &[("Mcp-Session-Id", sid.as_str())],
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )
    .await;
    assert_eq!(r.status, 202, "notifications/initialized: {r:?}");
    sid
}

/// `r` answers the `initialize` of [`initialize_body`] (status 200, its result).
pub fn assert_accepted(r: &HttpResponse, what: &str) {
    assert_eq!(r.status, 200, "{what}: should be accepted: {r:?}");
    assert!(
        r.messages()
            .iter()
            .any(|m| m["id"] == 1 && m["result"].is_object()),
        "{what}: no initialize result: {r:?}"
    );
}

/// `r` refuses the request (403, 421 or 400) without serving it.
pub fn assert_rejected(r: &HttpResponse, what: &str) {
    assert!(
        matches!(r.status, 403 | 421 | 400),
        "{what}: should be rejected with 403/421/400, got {r:?}"
    );
    assert!(
        r.header("mcp-session-id").is_none() && !r.body.contains("serverInfo"),
        "{what}: a rejected request must not be served: {r:?}"
    );
}
