//! What the downstream transports share: the bound on one reply, and how a
//! complete message from a server is decoded so that a malformed or
//! oversized reply fails only the call it answers.

use rmcp::model::{ErrorData, RequestId, ServerJsonRpcMessage};
use serde_json::Value;

use mcpgraph_runtime::host::redact;

mod id_scanner;

pub(crate) use id_scanner::IdScanner;

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
        warn_redacted!(
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
            "ignoring an unreadable message from `{server}`: {}",
            redact(&error.to_string())
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
            warn_redacted!(
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
            warn_redacted!(
                server,
                "downstream server `{server}` sent a message larger than {MAX_REPLY_BYTES} bytes (dropped)"
            );
            None
        }
    }
}

/// The first characters of a message, for errors and the log, redacted
/// before it is cut (so no part of a secret is left at the cut).
pub(crate) fn preview(bytes: &[u8]) -> String {
    const MAX: usize = 120;
    let text = String::from_utf8_lossy(bytes);
    let text = redact(&text);
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use rmcp::model::NumberOrString;

    #[test]
    fn scanner_and_decode_survive_random_bytes() {
        let mut rng = fastrand::Rng::with_seed(42);
        const ALPHABET: &[u8] = b"{}[]\":,\\ idmethod0123456789\n\xff";
        for _ in 0..20_000 {
            let bytes: Vec<u8> = (0..rng.usize(..64))
                .map(|_| ALPHABET[rng.usize(..ALPHABET.len())])
                .collect();
            let mut scanner = IdScanner::default();
            for piece in crate::pieces::pieces(&mut rng, &bytes) {
                scanner.feed(piece);
            }
            let _ = scanner.reply_id();
            let _ = decode("s", &bytes);
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
