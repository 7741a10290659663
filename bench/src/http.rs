//! A raw HTTP/1.1 client for streamable-HTTP MCP servers: one keep-alive
//! connection, JSON-RPC POSTs to the server's path (`/mcp` for ours),
//! JSON or one-event SSE replies; stateless, or in a session it opens
//! with `initialize`. The replies are read with the test harness's
//! HTTP/1.1 reader (`mcpgraph_tests::http1`).

use std::io::{BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use mcpgraph_tests::http1;
use serde_json::Value;

/// One keep-alive connection.
pub struct Connection {
    writer: TcpStream,
    reader: BufReader<TcpStream>,
    host: String,
    path: String,
    /// The session's `Mcp-Session-Id` header line, once one is open.
    session: String,
    next_id: u64,
}

impl Connection {
    pub fn open(addr: SocketAddr) -> Result<Self, String> {
        let stream = TcpStream::connect(addr).map_err(|e| format!("connect {addr}: {e}"))?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        stream
            .set_read_timeout(Some(crate::rpc::REPLY_TIMEOUT))
            .map_err(|e| e.to_string())?;
        let reader = BufReader::new(stream.try_clone().map_err(|e| e.to_string())?);
        Ok(Self {
            writer: stream,
            reader,
            host: addr.to_string(),
            path: "/mcp".to_owned(),
            session: String::new(),
            next_id: 1,
        })
    }

    /// A connection to the server at `path` on `addr`, in a session of
    /// its own: `initialize`, then `notifications/initialized`.
    pub fn open_session(addr: SocketAddr, path: &str) -> Result<Self, String> {
        let mut connection = Self::open(addr)?;
        connection.path = path.to_owned();
        // `initialize` is request 1: the calls go on from 2, no id used
        // twice in the session.
        let reply = connection.send(&mcpgraph_tests::initialize_body(), "")?;
        connection.next_id = 2;
        let status = reply.status()?;
        if status != 200 {
            return Err(format!("initialize: HTTP {status}"));
        }
        let session = reply
            .header("mcp-session-id")
            .ok_or("initialize: no Mcp-Session-Id in the reply")?;
        connection.session = format!("Mcp-Session-Id: {session}\r\n");
        let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let headers = "MCP-Protocol-Version: 2025-06-18\r\n";
        let status = connection.send(initialized, headers)?.status()?;
        if !(200..300).contains(&status) {
            return Err(format!("notifications/initialized: HTTP {status}"));
        }
        Ok(connection)
    }

    /// POSTs a `tools/call` and returns the JSON-RPC reply.
    pub fn call(&mut self, tool: &str, args_json: &str) -> Result<Value, String> {
        let id = self.next_id;
        self.next_id += 1;
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{args_json}}}}}"#
        );
        self.post(id, &body, "MCP-Protocol-Version: 2025-06-18\r\n")
    }

    /// POSTs a request of MCP 2026-07-28 (`method`, `params` with the
    /// client's `_meta` added, about `name`), from a client that declares
    /// the tasks extension if `tasks`; the JSON-RPC reply.
    pub fn request_2026(
        &mut self,
        method: &str,
        mut params: Value,
        name: &str,
        tasks: bool,
    ) -> Result<Value, String> {
        let id = self.next_id;
        self.next_id += 1;
        let capabilities = match tasks {
            true => serde_json::json!({ "extensions": { "io.modelcontextprotocol/tasks": {} } }),
            false => serde_json::json!({}),
        };
        params["_meta"] = serde_json::json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
            "io.modelcontextprotocol/clientInfo": { "name": "mcpgraph-bench", "version": "0.0.0" }
        });
        let body =
            serde_json::json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        let headers = format!(
            "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\nMcp-Name: {name}\r\n"
        );
        self.post(id, &body.to_string(), &headers)
    }

    /// POSTs `body` with `headers` (each ending in CRLF) and the session's;
    /// the HTTP response.
    fn send(&mut self, body: &str, headers: &str) -> Result<http1::Message, String> {
        let request = format!(
            "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{headers}{}Content-Length: {}\r\n\r\n{body}",
            self.path,
            self.host,
            self.session,
            body.len()
        );
        self.writer
            .write_all(request.as_bytes())
            .map_err(|e| format!("write: {e}"))?;
        http1::read_response(&mut self.reader, "POST")
    }

    /// POSTs `body` (request `id`) with `headers` (each ending in CRLF).
    fn post(&mut self, id: u64, body: &str, headers: &str) -> Result<Value, String> {
        let reply = self.send(body, headers)?;
        let status = reply.status()?;
        let content_type = reply
            .header("content-type")
            .unwrap_or_default()
            .to_ascii_lowercase();
        let body = reply.body;
        if status != 200 {
            return Err(format!("HTTP {status}: {}", String::from_utf8_lossy(&body)));
        }
        let text = String::from_utf8(body).map_err(|e| e.to_string())?;
        let json = if content_type.contains("text/event-stream") {
            // One event carrying the reply.
            text.lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim)
                .find(|d| d.contains("\"id\""))
                .ok_or_else(|| format!("no reply in the event stream: {text}"))?
                .to_owned()
        } else {
            text
        };
        let value: Value = serde_json::from_str(&json).map_err(|e| format!("{e}: {json}"))?;
        if value.get("id").and_then(Value::as_u64) != Some(id) {
            return Err(format!("reply for another id: {value}"));
        }
        Ok(value)
    }
}

/// `n` calls spread over `connections`, one in flight on each, `call`
/// making one on a connection; calls per second.
pub fn spread(
    connections: &mut [Connection],
    n: usize,
    call: impl Fn(&mut Connection) -> Result<(), String> + Sync,
) -> Result<f64, String> {
    let next = AtomicUsize::new(0);
    let started = Instant::now();
    std::thread::scope(|scope| {
        let handles: Vec<_> = connections
            .iter_mut()
            .map(|connection| {
                let (next, call) = (&next, &call);
                scope.spawn(move || -> Result<(), String> {
                    while next.fetch_add(1, Ordering::Relaxed) < n {
                        call(connection)?;
                    }
                    Ok(())
                })
            })
            .collect();
        handles
            .into_iter()
            .try_for_each(|h| h.join().map_err(|_| "client thread panicked".to_owned())?)
    })?;
    Ok(n as f64 / started.elapsed().as_secs_f64())
}
