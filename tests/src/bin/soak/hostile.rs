//! The hostile side of the soak: beside the calls, one client does what a
//! hostile or broken one would to the HTTP server, one thing every
//! [`PACE`] in a cycle, and counts what it got back. The server must keep
//! serving the other clients with flat memory and descriptors.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One hostile request every...
const PACE: Duration = Duration::from_millis(10);
/// How long one may take before it counts as unanswered.
const ANSWER: Duration = Duration::from_secs(5);

/// The hostile requests, in their cycle.
const ACTIONS: [&str; 8] = [
    "unknown 64 KiB tool name",
    "headers never finished",
    "foreign Host",
    "abandoned session",
    "oversized body",
    "connect and close",
    "not HTTP",
    "malformed JSON-RPC",
];

/// What the hostile client got back: `hostile: WHAT: OUTCOME` → times.
pub type Outcomes = Arc<Mutex<BTreeMap<String, u64>>>;

/// Runs the cycle against `addr` until `stop`, each request in a task of
/// its own (a slow answer does not slow the cycle), counting outcomes
/// into `outcomes`; returns once the last request has ended.
pub async fn run(addr: SocketAddr, session: String, stop: Arc<AtomicBool>, outcomes: Outcomes) {
    let (session, long_name) = (Arc::new(session), Arc::new("x".repeat(64 * 1024)));
    let mut tasks = tokio::task::JoinSet::new();
    let mut n = 0usize;
    while !stop.load(Ordering::Relaxed) {
        let what = ACTIONS[n % ACTIONS.len()];
        n += 1;
        let (session, long_name, outcomes) = (
            Arc::clone(&session),
            Arc::clone(&long_name),
            Arc::clone(&outcomes),
        );
        tasks.spawn(async move {
            let outcome = tokio::time::timeout(ANSWER, act(addr, what, n, &session, &long_name))
                .await
                .unwrap_or_else(|_| "no answer".to_owned());
            let key = format!("hostile: {what}: {outcome}");
            *outcomes.lock().unwrap().entry(key).or_default() += 1;
        });
        while tasks.try_join_next().is_some() {}
        tokio::time::sleep(PACE).await;
    }
    while tasks.join_next().await.is_some() {}
}

/// Does `what` once; what came back, as a status line or a short word.
/// `n` numbers the request: JSON-RPC ids on the session are unique (a
/// client that reuses an id while the first is in flight may get one
/// answer for the two: rmcp 3.9 keys its replies by id).
async fn act(addr: SocketAddr, what: &str, n: usize, session: &str, long_name: &str) -> String {
    let post = |body: String, extra: String| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\n{extra}Connection: close\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    match what {
        "unknown 64 KiB tool name" => {
            let body = json!({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                "params": {"name": long_name, "arguments": {}}});
            exchange(
                addr,
                post(body.to_string(), format!("Mcp-Session-Id: {session}\r\n")).as_bytes(),
                true,
            )
            .await
        }
        "headers never finished" => {
            let Ok(mut stream) = TcpStream::connect(addr).await else {
                return "refused".to_owned();
            };
            let _ = stream
                .write_all(format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\n").as_bytes())
                .await;
            tokio::time::sleep(Duration::from_millis(200)).await;
            "dropped".to_owned()
        }
        "foreign Host" => {
            let request = "GET /mcp HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n";
            exchange(addr, request.as_bytes(), false).await
        }
        "abandoned session" => {
            let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "soak-hostile", "version": "0"}}});
            exchange(
                addr,
                post(body.to_string(), String::new()).as_bytes(),
                false,
            )
            .await
        }
        "oversized body" => {
            let request = format!(
                "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
                 Accept: application/json, text/event-stream\r\nConnection: close\r\n\
                 Content-Length: 104857600\r\n\r\n{{\"jsonrpc\":"
            );
            exchange(addr, request.as_bytes(), false).await
        }
        "connect and close" => match TcpStream::connect(addr).await {
            Ok(_) => "closed".to_owned(),
            Err(_) => "refused".to_owned(),
        },
        "not HTTP" => {
            exchange(
                addr,
                b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n",
                false,
            )
            .await
        }
        _ => {
            let body = "{\"jsonrpc\":\"2.0\",\"id\":";
            exchange(
                addr,
                post(body.to_owned(), format!("Mcp-Session-Id: {session}\r\n")).as_bytes(),
                false,
            )
            .await
        }
    }
}

/// Sends `request`, reads what comes back until the server closes; the
/// status line (with `ERROR` added when `json_error` and the body holds a
/// JSON-RPC error), `closed` for nothing, `refused` for no connection.
async fn exchange(addr: SocketAddr, request: &[u8], json_error: bool) -> String {
    let Ok(mut stream) = TcpStream::connect(addr).await else {
        return "refused".to_owned();
    };
    if stream.write_all(request).await.is_err() {
        return "reset while sending".to_owned();
    }
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw).await;
    let text = String::from_utf8_lossy(&raw);
    let Some(status) = text.lines().next().filter(|l| !l.is_empty()) else {
        return "closed".to_owned();
    };
    let status = status
        .split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ");
    if json_error && text.contains("\"error\"") {
        format!("{status} + JSON-RPC error")
    } else {
        status
    }
}
