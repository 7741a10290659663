//! A raw HTTP/1.1 client for stateless streamable-HTTP MCP servers: one
//! keep-alive connection, JSON-RPC POSTs to `/mcp`, JSON replies.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};

use serde_json::Value;

/// One keep-alive connection.
pub struct Connection {
    writer: TcpStream,
    reader: BufReader<TcpStream>,
    host: String,
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
            next_id: 1,
        })
    }

    /// POSTs a `tools/call` and returns the JSON-RPC reply.
    pub fn call(&mut self, tool: &str, args_json: &str) -> Result<Value, String> {
        let id = self.next_id;
        self.next_id += 1;
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{args_json}}}}}"#
        );
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\nContent-Length: {}\r\n\r\n{body}",
            self.host,
            body.len()
        );
        self.writer
            .write_all(request.as_bytes())
            .map_err(|e| format!("write: {e}"))?;
        let (status, content_type, body) = self.read_response()?;
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

    fn read_line(&mut self) -> Result<String, String> {
        let mut line = String::new();
        let n = self
            .reader
            .read_line(&mut line)
            .map_err(|e| format!("read: {e}"))?;
        if n == 0 {
            return Err("connection closed".to_owned());
        }
        Ok(line.trim_end().to_owned())
    }

    fn read_response(&mut self) -> Result<(u16, String, Vec<u8>), String> {
        let status_line = self.read_line()?;
        let status: u16 = status_line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("bad status line `{status_line}`"))?;
        let mut length = None;
        let mut chunked = false;
        let mut content_type = String::new();
        loop {
            let line = self.read_line()?;
            if line.is_empty() {
                break;
            }
            let Some((name, value)) = line.split_once(':') else {
                continue;
            };
            let value = value.trim();
            match name.to_ascii_lowercase().as_str() {
                "content-length" => length = value.parse::<usize>().ok(),
                "transfer-encoding" => chunked = value.eq_ignore_ascii_case("chunked"),
                "content-type" => content_type = value.to_ascii_lowercase(),
                _ => {}
            }
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                let size_line = self.read_line()?;
                let size = usize::from_str_radix(size_line.split(';').next().unwrap_or("0"), 16)
                    .map_err(|e| format!("bad chunk size `{size_line}`: {e}"))?;
                if size == 0 {
                    // Trailers until an empty line.
                    while !self.read_line()?.is_empty() {}
                    break;
                }
                let start = body.len();
                body.resize(start + size, 0);
                self.reader
                    .read_exact(&mut body[start..])
                    .map_err(|e| format!("read: {e}"))?;
                self.read_line()?;
            }
        } else if let Some(n) = length {
            body.resize(n, 0);
            self.reader
                .read_exact(&mut body)
                .map_err(|e| format!("read: {e}"))?;
        } else {
            return Err("response without a length".to_owned());
        }
        Ok((status, content_type, body))
    }
}
