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

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::NumberOrString;

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
