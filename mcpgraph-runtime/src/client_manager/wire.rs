//! What the downstream transports share: the bound on one reply, and how a
//! complete message from a server is decoded so that a malformed or
//! oversized reply fails only the call it answers.

use rmcp::model::{ErrorData, RequestId, ServerJsonRpcMessage};
use serde_json::Value;

/// Largest message accepted from a downstream server (one stdio line or one
/// SSE event), as rmcp bounds its own transports.
pub(crate) const MAX_REPLY_BYTES: usize = 16 * 1024 * 1024;

/// Decodes one complete message from `server`. A line that is not JSON is
/// logged and ignored (as the official SDKs do: servers print stray lines);
/// JSON that is a reply but not a valid one becomes an error reply to the
/// request it answers, so that call fails at once and no other does.
pub(crate) fn decode(server: &str, bytes: &[u8]) -> Option<ServerJsonRpcMessage> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let bytes = bytes.trim_ascii();
    if bytes.is_empty() {
        return None;
    }
    let error = match serde_json::from_slice::<ServerJsonRpcMessage>(bytes) {
        Ok(message) => return Some(message),
        Err(e) => e,
    };
    let Ok(value) = serde_json::from_slice::<Value>(bytes) else {
        tracing::warn!(
            server,
            "downstream server `{server}` sent something that is not JSON (ignored): {}",
            preview(bytes)
        );
        return None;
    };
    if value.get("method").is_some() {
        // A request or notification we cannot read: nothing waits on it.
        tracing::debug!(
            server,
            "ignoring an unreadable message from `{server}`: {error}"
        );
        return None;
    }
    match value
        .get("id")
        .cloned()
        .map(serde_json::from_value::<RequestId>)
    {
        Some(Ok(id)) => Some(error_reply(
            id,
            format!("malformed reply: {error}: {}", preview(bytes)),
        )),
        _ => {
            tracing::warn!(
                server,
                "downstream server `{server}` sent an invalid message without an id (ignored): {error}"
            );
            None
        }
    }
}

/// The reply that fails request `id` with `message`.
pub(crate) fn error_reply(id: RequestId, message: String) -> ServerJsonRpcMessage {
    ServerJsonRpcMessage::error(ErrorData::internal_error(message, None), Some(id))
}

/// What replaces a message longer than [`MAX_REPLY_BYTES`]: an error reply
/// to the request it answered, when its id could be found.
pub(crate) fn oversized(server: &str, scanner: &IdScanner) -> Option<ServerJsonRpcMessage> {
    match scanner.reply_id() {
        Some(id) => Some(error_reply(
            id,
            format!("reply larger than the limit of {MAX_REPLY_BYTES} bytes"),
        )),
        None => {
            tracing::warn!(
                server,
                "downstream server `{server}` sent a message larger than {MAX_REPLY_BYTES} bytes (dropped)"
            );
            None
        }
    }
}

/// The first bytes of a message, for error messages.
pub(crate) fn preview(bytes: &[u8]) -> String {
    const MAX: usize = 120;
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(MAX)]);
    if bytes.len() > MAX {
        format!("{text}…")
    } else {
        text.into_owned()
    }
}

/// Finds the top-level `"id"` of a JSON object fed to it in pieces, without
/// keeping the object: how an oversized reply is matched to its request
/// while it is being discarded.
#[derive(Default)]
pub(crate) struct IdScanner {
    depth: u32,
    in_string: bool,
    escape: bool,
    state: Top,
    key: Vec<u8>,
    recording: Option<Vec<u8>>,
    id: Option<Vec<u8>>,
    has_method: bool,
}

/// What comes next at the top level of the object.
#[derive(Default, PartialEq, Eq, Clone, Copy)]
enum Top {
    #[default]
    Key,
    Colon,
    Value,
}

impl IdScanner {
    /// Feeds the next bytes of the message.
    pub(crate) fn feed(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            // Fast path: the inside of a string that is not being recorded
            // (the bulk of a huge reply) only ends at a quote or backslash.
            if self.in_string && !self.escape && self.recording.is_none() {
                let skip = bytes
                    .iter()
                    .position(|b| matches!(b, b'"' | b'\\'))
                    .unwrap_or(bytes.len());
                let key = self.depth == 1 && self.state == Top::Key;
                if key {
                    let room = 8usize.saturating_sub(self.key.len()).min(skip);
                    self.key.extend_from_slice(&bytes[..room]);
                }
                bytes = &bytes[skip..];
                if bytes.is_empty() {
                    break;
                }
            }
            let b = bytes[0];
            bytes = &bytes[1..];
            if let Some(recording) = self.recording.as_mut()
                && recording.len() < 256
            {
                recording.push(b);
            }
            let top = self.depth == 1;
            if self.in_string {
                if self.escape {
                    self.escape = false;
                } else if b == b'\\' {
                    self.escape = true;
                } else if b == b'"' {
                    self.in_string = false;
                    if top && self.state == Top::Key {
                        self.state = Top::Colon;
                    }
                } else if top && self.state == Top::Key && self.key.len() < 8 {
                    self.key.push(b);
                }
                continue;
            }
            match b {
                b'"' => {
                    self.in_string = true;
                    if top && self.state == Top::Key {
                        self.key.clear();
                    }
                }
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        self.end_value();
                    }
                }
                b':' if top && self.state == Top::Colon => {
                    self.state = Top::Value;
                    match self.key.as_slice() {
                        b"id" => self.recording = Some(Vec::new()),
                        b"method" => self.has_method = true,
                        _ => {}
                    }
                }
                b',' if top => {
                    self.end_value();
                    self.state = Top::Key;
                }
                _ => {}
            }
        }
    }

    fn end_value(&mut self) {
        if let Some(mut recording) = self.recording.take() {
            recording.pop(); // the `,` or `}` that ended it
            self.id = Some(recording);
        }
    }

    /// The id, if the message is a reply (it has an id and no method).
    pub(crate) fn reply_id(&self) -> Option<RequestId> {
        if self.has_method {
            return None;
        }
        serde_json::from_slice(self.id.as_deref()?.trim_ascii()).ok()
    }
}

/// A small deterministic random source for the property tests of the
/// wire-level parsers (here and in `sse`).
#[cfg(test)]
pub(crate) struct TestRng(u64);

#[cfg(test)]
impl TestRng {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed | 1)
    }

    /// xorshift64*.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (`n` > 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// `bytes` cut into pieces at random places (some of them empty).
    pub(crate) fn pieces<'a>(&mut self, bytes: &'a [u8]) -> Vec<&'a [u8]> {
        let mut cuts: Vec<usize> = (0..self.below(6))
            .map(|_| self.below(bytes.len() + 1))
            .collect();
        cuts.sort_unstable();
        let mut pieces = Vec::new();
        let mut from = 0;
        for cut in cuts {
            pieces.push(&bytes[from..cut]);
            from = cut;
        }
        pieces.push(&bytes[from..]);
        pieces
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::NumberOrString;
    use serde_json::{Map, json};

    /// A random JSON value of at most `depth` levels, whose strings and
    /// keys are chosen to confuse a scanner: quotes, escapes, braces,
    /// commas, colons and keys named `id` and `method` below the top.
    fn value(rng: &mut TestRng, depth: u32) -> Value {
        const STRINGS: &[&str] = &[
            "",
            "id",
            "method",
            "\"id\":1,",
            "a\\\"}",
            "{[",
            "]}",
            ",",
            ":",
            "é\u{1F600}",
            "\n\t",
        ];
        match rng.below(if depth == 0 { 4 } else { 6 }) {
            0 => Value::Null,
            1 => json!(rng.below(1000) as i64 - 500),
            2 => json!(STRINGS[rng.below(STRINGS.len())]),
            3 => json!(rng.below(2) == 0),
            4 => Value::Array((0..rng.below(4)).map(|_| value(rng, depth - 1)).collect()),
            _ => {
                let mut map = Map::new();
                for _ in 0..rng.below(4) {
                    let key = STRINGS[rng.below(STRINGS.len())].to_owned();
                    map.insert(key, value(rng, depth - 1));
                }
                Value::Object(map)
            }
        }
    }

    #[test]
    fn scanner_agrees_with_a_json_parser_on_random_messages_in_random_pieces() {
        let mut rng = TestRng::new(0x5eed);
        for round in 0..3000 {
            // A reply (or, sometimes, a request) with nested decoys.
            let mut fields: Vec<(String, Value)> = vec![
                ("jsonrpc".into(), json!("2.0")),
                ("result".into(), value(&mut rng, 4)),
            ];
            let id = match rng.below(3) {
                0 => json!(rng.below(1 << 20)),
                1 => json!(format!("req-{}", rng.below(100))),
                _ => Value::Null, // no id at all
            };
            if !id.is_null() {
                fields.push(("id".into(), id.clone()));
            }
            let request = rng.below(8) == 0;
            if request {
                fields.push(("method".into(), json!("x/y")));
            }
            // Any order of the top-level keys.
            for i in (1..fields.len()).rev() {
                fields.swap(i, rng.below(i + 1));
            }
            let message = Value::Object(fields.into_iter().collect());
            let text = if rng.below(2) == 0 {
                serde_json::to_string(&message).unwrap()
            } else {
                serde_json::to_string_pretty(&message).unwrap()
            };
            let mut scanner = IdScanner::default();
            for piece in rng.pieces(text.as_bytes()) {
                scanner.feed(piece);
            }
            let want = if request || id.is_null() {
                None
            } else {
                serde_json::from_value::<RequestId>(id).ok()
            };
            assert_eq!(scanner.reply_id(), want, "round {round}: {text}");
        }
    }

    #[test]
    fn scanner_and_decode_survive_random_bytes() {
        let mut rng = TestRng::new(42);
        const ALPHABET: &[u8] = b"{}[]\":,\\ idmethod0123456789\n\xff";
        for _ in 0..20_000 {
            let bytes: Vec<u8> = (0..rng.below(64))
                .map(|_| ALPHABET[rng.below(ALPHABET.len())])
                .collect();
            let mut scanner = IdScanner::default();
            for piece in rng.pieces(&bytes) {
                scanner.feed(piece);
            }
            let _ = scanner.reply_id();
            let _ = decode("s", &bytes);
        }
    }

    fn scan(pieces: &[&str]) -> Option<RequestId> {
        let mut s = IdScanner::default();
        for p in pieces {
            s.feed(p.as_bytes());
        }
        s.reply_id()
    }

    #[test]
    fn scanner_finds_the_top_level_id_anywhere() {
        let n = |i| Some(NumberOrString::Number(i));
        assert_eq!(
            scan(&[r#"{"jsonrpc":"2.0","id":7,"result":{"x":1}}"#]),
            n(7)
        );
        assert_eq!(
            scan(&[r#"{"result":{"id":1,"s":"\"id\":2,"},"#, r#" "id" : 42 }"#]),
            n(42)
        );
        assert_eq!(
            scan(&[r#"{"result":{"content":[{"id":3}]},"jsonrpc":"2.0","id":"a"}"#]),
            Some(NumberOrString::String("a".into()))
        );
        assert_eq!(scan(&[r#"{"id":5,"method":"x","params":{}}"#]), None);
        assert_eq!(scan(&[r#"{"result":{"id":5}}"#]), None);
        // In pieces, split anywhere.
        let text = r#"{"jsonrpc":"2.0","result":{"t":"a\\\"}b"},"id":123}"#;
        for cut in 0..text.len() {
            assert_eq!(scan(&[&text[..cut], &text[cut..]]), n(123), "cut at {cut}");
        }
    }

    #[test]
    fn decode_fails_only_the_call_a_malformed_reply_answers() {
        assert!(decode("s", b"not json at all").is_none());
        assert!(decode("s", b"").is_none());
        assert!(
            decode(
                "s",
                br#"{"jsonrpc":"2.0","method":"notifications/bogus","params":3}"#
            )
            .is_none()
        );
        match decode(
            "s",
            br#"{"jsonrpc":"2.0","id":4,"result":{"content":7},"error":1}"#,
        ) {
            Some(ServerJsonRpcMessage::Error(e)) => {
                assert_eq!(e.id, Some(NumberOrString::Number(4)));
                assert!(
                    e.error.message.contains("malformed reply"),
                    "{}",
                    e.error.message
                );
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            decode("s", br#"{"jsonrpc":"2.0","id":4,"result":{}}"#),
            Some(ServerJsonRpcMessage::Response(_))
        ));
    }
}
