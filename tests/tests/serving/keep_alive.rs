//! A kept-alive HTTP/1.1 connection, spoken to request after request (the
//! raw client in `mcpgraph_tests` closes after one), optionally from a
//! chosen source address (`127.0.0.2`: a second peer on loopback). Blocking
//! I/O: use it from `spawn_blocking` or a thread of its own.

use std::io::{BufReader, Write};
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::time::Duration;

use mcpgraph_tests::http1;

/// How long one response may take to arrive.
const READ_LIMIT: Duration = Duration::from_secs(20);

/// One connection; requests go out one at a time.
pub(crate) struct KeepAlive {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    host: String,
}

/// One response as read.
pub(crate) type Response = http1::Message;

impl KeepAlive {
    /// Connects to `addr` from `from` (any port), or from the default
    /// source address.
    pub(crate) async fn connect(addr: SocketAddr, from: Option<IpAddr>) -> std::io::Result<Self> {
        let socket = tokio::net::TcpSocket::new_v4()?;
        if let Some(ip) = from {
            socket.bind(SocketAddr::new(ip, 0))?;
        }
        let stream = socket.connect(addr).await?.into_std()?;
        stream.set_nonblocking(false)?;
        stream.set_read_timeout(Some(READ_LIMIT))?;
        Ok(Self {
            reader: BufReader::new(stream.try_clone()?),
            writer: stream,
            host: addr.to_string(),
        })
    }

    /// Sends a request (with `Content-Length` when there is a body) and
    /// reads its response; `Err` when the connection is closed or fails.
    pub(crate) fn request(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&str>,
    ) -> Result<Response, String> {
        let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {}\r\n", self.host);
        for (k, v) in headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        let body = body.unwrap_or("");
        if !body.is_empty() || method == "POST" {
            head.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        head.push_str("\r\n");
        head.push_str(body);
        self.writer
            .write_all(head.as_bytes())
            .map_err(|e| format!("write: {e}"))?;
        http1::read_response(&mut self.reader, method)
    }

    /// Whether the server closed the connection (a read sees the end of
    /// the stream, or a reset) within `limit`.
    pub(crate) fn closed_within(&mut self, limit: Duration) -> bool {
        use std::io::Read;
        let _ = self.writer.set_read_timeout(Some(limit));
        let mut byte = [0u8; 1];
        let closed = match self.reader.read(&mut byte) {
            Ok(n) => n == 0,
            Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
        };
        let _ = self.writer.set_read_timeout(Some(READ_LIMIT));
        closed
    }
}

/// Whether a response says `Connection: close`.
pub(crate) fn says_close(response: &Response) -> bool {
    response
        .header("connection")
        .is_some_and(|v| v.eq_ignore_ascii_case("close"))
}
