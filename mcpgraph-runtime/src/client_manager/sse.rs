//! The legacy HTTP+SSE client transport (MCP 2024-11-05), which rmcp 3.9
//! does not have: `GET url` opens an event stream whose first `endpoint`
//! event names the URL to POST JSON-RPC messages to; every message from
//! the server (replies included) arrives as a `message` event on the
//! stream. Events are bounded ([`MAX_REPLY_BYTES`]); an oversized or
//! malformed reply fails the one call it answers.

use std::time::Duration;

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap};
use reqwest::{Client, Url};
use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::mpsc;

use super::http_client::{error_chain, http_client};
use super::wire::{IdScanner, MAX_REPLY_BYTES, decode, oversized};

/// Limit for one POST of a message (the reply comes on the stream).
const POST_TIMEOUT: Duration = Duration::from_secs(30);

/// An open SSE connection.
pub(crate) struct SseTransport {
    client: Client,
    endpoint: Url,
    headers: HeaderMap,
    messages: mpsc::Receiver<ServerJsonRpcMessage>,
    reader: tokio::task::JoinHandle<()>,
}

/// Opens the event stream at `url` and waits for its `endpoint` event.
/// The caller bounds the time this takes.
pub(crate) async fn connect(
    name: &str,
    url: &str,
    headers: HeaderMap,
) -> Result<SseTransport, String> {
    let url = Url::parse(url).map_err(|e| format!("invalid url `{url}`: {e}"))?;
    let client = http_client()?;
    let mut response = client
        .get(url.clone())
        .header(ACCEPT, "text/event-stream")
        .headers(headers.clone())
        .send()
        .await
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
        messages,
        reader,
    })
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
                    tracing::debug!(server = name, "ignoring SSE event `{kind}`");
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
                tracing::warn!(
                    server = name,
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
        let request = self
            .client
            .post(self.endpoint.clone())
            .headers(self.headers.clone())
            .header(CONTENT_TYPE, "application/json")
            .timeout(POST_TIMEOUT);
        let endpoint = self.endpoint.clone();
        async move {
            let body = serde_json::to_vec(&item).map_err(std::io::Error::other)?;
            let response = request.body(body).send().await.map_err(|e| {
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

/// One dispatched server-sent event.
enum Event {
    /// An event with its type (`""` when none was given) and data.
    Message { kind: String, data: Vec<u8> },
    /// An event larger than [`MAX_REPLY_BYTES`], discarded.
    Oversized(IdScanner),
}

/// An incremental `text/event-stream` parser that never holds more than
/// [`MAX_REPLY_BYTES`] of one event.
#[derive(Default)]
struct SseParser {
    line: Vec<u8>,
    kind: String,
    data: Vec<u8>,
    /// While discarding an oversized event: what is known of its id, and
    /// whether the last byte ended a line.
    discarding: Option<(IdScanner, bool)>,
}

impl SseParser {
    fn feed(&mut self, mut chunk: &[u8], out: &mut Vec<Event>) {
        while !chunk.is_empty() {
            if let Some((scanner, at_line_start)) = self.discarding.as_mut() {
                // Skip to the blank line that ends the event; the raw bytes
                // (`data: {...}`) are enough for the scanner.
                let mut end = None;
                for (i, &b) in chunk.iter().enumerate() {
                    match b {
                        b'\n' if *at_line_start => {
                            end = Some(i + 1);
                            break;
                        }
                        b'\n' => *at_line_start = true,
                        b'\r' => {}
                        _ => *at_line_start = false,
                    }
                }
                let take = end.unwrap_or(chunk.len());
                scanner.feed(&chunk[..take]);
                chunk = &chunk[take..];
                if end.is_some()
                    && let Some((scanner, _)) = self.discarding.take()
                {
                    out.push(Event::Oversized(scanner));
                }
                continue;
            }
            let newline = chunk.iter().position(|b| *b == b'\n');
            let take = newline.map_or(chunk.len(), |i| i + 1);
            if self.line.len() + self.data.len() + take > MAX_REPLY_BYTES {
                let mut scanner = IdScanner::default();
                scanner.feed(&self.data);
                scanner.feed(&self.line);
                let at_line_start = self.line.is_empty();
                self.line = Vec::new();
                self.data = Vec::new();
                self.kind.clear();
                self.discarding = Some((scanner, at_line_start));
                continue;
            }
            self.line.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
            if newline.is_some() {
                self.end_line(out);
            }
        }
    }

    fn end_line(&mut self, out: &mut Vec<Event>) {
        let mut line = std::mem::take(&mut self.line);
        while matches!(line.last(), Some(b'\n' | b'\r')) {
            line.pop();
        }
        if line.is_empty() {
            if !self.data.is_empty() || !self.kind.is_empty() {
                if self.data.last() == Some(&b'\n') {
                    self.data.pop();
                }
                out.push(Event::Message {
                    kind: std::mem::take(&mut self.kind),
                    data: std::mem::take(&mut self.data),
                });
            }
        } else if line[0] != b':' {
            let (field, value) = match line.iter().position(|b| *b == b':') {
                Some(i) => {
                    let value = &line[i + 1..];
                    (&line[..i], value.strip_prefix(b" ").unwrap_or(value))
                }
                None => (&line[..], &b""[..]),
            };
            match field {
                b"event" => self.kind = String::from_utf8_lossy(value).into_owned(),
                b"data" => {
                    self.data.extend_from_slice(value);
                    self.data.push(b'\n');
                }
                _ => {} // id, retry: not used by the legacy transport
            }
        }
        line.clear();
        self.line = line;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(pieces: &[&[u8]]) -> Vec<(String, String)> {
        let mut parser = SseParser::default();
        let mut out = Vec::new();
        for p in pieces {
            parser.feed(p, &mut out);
        }
        out.into_iter()
            .map(|e| match e {
                Event::Message { kind, data } => (kind, String::from_utf8(data).unwrap()),
                Event::Oversized(s) => ("oversized".into(), format!("{:?}", s.reply_id())),
            })
            .collect()
    }

    #[test]
    fn events_split_anywhere() {
        let text = b"event: endpoint\r\ndata: /message?sessionId=1\r\n\r\n: comment\n\nevent: message\ndata: {\"a\":\ndata: 1}\n\ndata:x\n\n";
        let want = vec![
            ("endpoint".to_owned(), "/message?sessionId=1".to_owned()),
            ("message".to_owned(), "{\"a\":\n1}".to_owned()),
            (String::new(), "x".to_owned()),
        ];
        for cut in 0..text.len() {
            assert_eq!(parse(&[&text[..cut], &text[cut..]]), want, "cut at {cut}");
        }
    }

    #[test]
    fn random_streams_in_random_pieces_give_their_events() {
        use crate::client_manager::wire::TestRng;
        const WORDS: &[&str] = &["", "x", "{\"a\": 1}", "a:b", " lead", "é", "data: inner"];
        let mut rng = TestRng::new(7);
        for round in 0..3000 {
            let mut text = String::new();
            let mut want = Vec::new();
            for _ in 0..rng.below(5) {
                let eol = if rng.below(2) == 0 { "\n" } else { "\r\n" };
                if rng.below(3) == 0 {
                    text.push_str(&format!(": a comment{eol}"));
                }
                let kind = ["", "message", "endpoint"][rng.below(3)];
                if !kind.is_empty() {
                    text.push_str(&format!("event: {kind}{eol}"));
                }
                let lines: Vec<&str> = (0..=rng.below(3))
                    .map(|_| WORDS[rng.below(WORDS.len())])
                    .collect();
                for line in &lines {
                    // `data:x` and `data: x` carry the same value.
                    let space = if rng.below(2) == 0 { " " } else { "" };
                    let line = if space.is_empty() && line.starts_with(' ') {
                        format!(" {line}")
                    } else {
                        (*line).to_owned()
                    };
                    text.push_str(&format!("data:{space}{line}{eol}"));
                }
                if rng.below(4) == 0 {
                    text.push_str(&format!("id: 5{eol}retry: 10{eol}"));
                }
                text.push_str(eol);
                want.push((kind.to_owned(), lines.join("\n")));
            }
            let pieces = rng.pieces(text.as_bytes());
            assert_eq!(parse(&pieces), want, "round {round}: {text:?}");
        }
    }

    #[test]
    fn random_bytes_never_panic() {
        use crate::client_manager::wire::TestRng;
        const ALPHABET: &[u8] = b"data:event \r\n{}\"id:\xff";
        let mut rng = TestRng::new(99);
        for _ in 0..20_000 {
            let bytes: Vec<u8> = (0..rng.below(80))
                .map(|_| ALPHABET[rng.below(ALPHABET.len())])
                .collect();
            let mut parser = SseParser::default();
            let mut out = Vec::new();
            for piece in rng.pieces(&bytes) {
                parser.feed(piece, &mut out);
            }
        }
    }

    #[test]
    fn an_oversized_event_is_dropped_with_its_id() {
        let big = "x".repeat(MAX_REPLY_BYTES);
        let event = format!(
            "event: message\ndata: {{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{{\"t\":\"{big}\"}}}}\n\n"
        );
        let after = b"event: message\ndata: {}\n\n";
        let got = parse(&[event.as_bytes(), after]);
        assert_eq!(
            got,
            vec![
                ("oversized".to_owned(), "Some(Number(9))".to_owned()),
                ("message".to_owned(), "{}".to_owned())
            ]
        );
    }
}
