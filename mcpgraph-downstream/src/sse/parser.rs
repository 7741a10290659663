//! An incremental `text/event-stream` parser for the legacy SSE transport:
//! events are dispatched as their blank line arrives, and one larger than
//! [`MAX_REPLY_BYTES`] is discarded as it streams, keeping only its id.

use crate::wire::{IdScanner, MAX_REPLY_BYTES};

/// One dispatched server-sent event.
pub(crate) enum Event {
    /// An event with its type (`""` when none was given) and data.
    Message { kind: String, data: Vec<u8> },
    /// An event larger than [`MAX_REPLY_BYTES`], discarded.
    Oversized(IdScanner),
}

/// An incremental `text/event-stream` parser that never holds more than
/// [`MAX_REPLY_BYTES`] of one event.
#[derive(Default)]
pub(crate) struct SseParser {
    line: Vec<u8>,
    kind: String,
    data: Vec<u8>,
    /// While discarding an oversized event: what is known of its id, and
    /// whether the last byte ended a line.
    discarding: Option<(IdScanner, bool)>,
}

impl SseParser {
    pub(crate) fn feed(&mut self, mut chunk: &[u8], out: &mut Vec<Event>) {
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
        const WORDS: &[&str] = &["", "x", "{\"a\": 1}", "a:b", " lead", "é", "data: inner"];
        let mut rng = fastrand::Rng::with_seed(7);
        for round in 0..3000 {
            let mut text = String::new();
            let mut want = Vec::new();
            for _ in 0..rng.usize(..5) {
                let eol = if rng.usize(..2) == 0 { "\n" } else { "\r\n" };
                if rng.usize(..3) == 0 {
                    text.push_str(&format!(": a comment{eol}"));
                }
                let kind = ["", "message", "endpoint"][rng.usize(..3)];
                if !kind.is_empty() {
                    text.push_str(&format!("event: {kind}{eol}"));
                }
                let lines: Vec<&str> = (0..=rng.usize(..3))
                    .map(|_| WORDS[rng.usize(..WORDS.len())])
                    .collect();
                for line in &lines {
                    // `data:x` and `data: x` carry the same value.
                    let space = if rng.usize(..2) == 0 { " " } else { "" };
                    let line = if space.is_empty() && line.starts_with(' ') {
                        format!(" {line}")
                    } else {
                        (*line).to_owned()
                    };
                    text.push_str(&format!("data:{space}{line}{eol}"));
                }
                if rng.usize(..4) == 0 {
                    text.push_str(&format!("id: 5{eol}retry: 10{eol}"));
                }
                text.push_str(eol);
                want.push((kind.to_owned(), lines.join("\n")));
            }
            let pieces = crate::pieces::pieces(&mut rng, text.as_bytes());
            assert_eq!(parse(&pieces), want, "round {round}: {text:?}");
        }
    }

    #[test]
    fn random_bytes_never_panic() {
        const ALPHABET: &[u8] = b"data:event \r\n{}\"id:\xff";
        let mut rng = fastrand::Rng::with_seed(99);
        for _ in 0..20_000 {
            let bytes: Vec<u8> = (0..rng.usize(..80))
                .map(|_| ALPHABET[rng.usize(..ALPHABET.len())])
                .collect();
            let mut parser = SseParser::default();
            let mut out = Vec::new();
            for piece in crate::pieces::pieces(&mut rng, &bytes) {
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
