//! An HTTP 429 or 5xx answer to a request, carried to the call it fails as
//! a JSON-RPC error reply that says so, with the server's `Retry-After`:
//! the call fails as [`Downstream::Refused`](mcpgraph_runtime::Downstream),
//! which a node's `retry` retries, waiting at least as long as the server
//! asked (capped by the node's `maxBackoffMs`).
//!
//! rmcp's HTTP client reports such an answer as an error of the whole POST;
//! left to its transport, the call would fail as a broken connection.

use std::time::Duration;

use rmcp::model::{ErrorCode, ErrorData, RequestId, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::HttpStatusError;

/// The error code of the reply (in JSON-RPC's range for implementations);
/// the `data` marker tells it from a server's own use of the code.
const CODE: ErrorCode = ErrorCode(-32_098);
const MARKER: &str = "mcpgraph.http_unavailable";

/// The error reply to request `id` for `status`.
pub(crate) fn reply(id: RequestId, status: &HttpStatusError) -> ServerJsonRpcMessage {
    let data = serde_json::json!({
        "marker": MARKER,
        "httpStatus": status.status,
        "retryAfter": status.retry_after,
    });
    let error = ErrorData::new(
        CODE,
        format!("the server answered HTTP {}", status.status),
        Some(data),
    );
    ServerJsonRpcMessage::error(error, Some(id))
}

/// What [`reply`] made, read back from an error reply: the HTTP status and
/// how long the server asked to wait (`Retry-After`: seconds, or an HTTP
/// date; a date past is no wait).
pub(crate) fn read(error: &ErrorData) -> Option<(u16, Option<Duration>)> {
    let data = error.data.as_ref().filter(|_| error.code == CODE)?;
    if data.get("marker")?.as_str()? != MARKER {
        return None;
    }
    let status = u16::try_from(data.get("httpStatus")?.as_u64()?).ok()?;
    let retry_after = data
        .get("retryAfter")
        .and_then(serde_json::Value::as_str)
        .and_then(|s| wait_of(s, std::time::SystemTime::now()));
    Some((status, retry_after))
}

/// The wait a `Retry-After` value asks for at `now`.
fn wait_of(value: &str, now: std::time::SystemTime) -> Option<Duration> {
    let value = value.trim();
    match value.parse::<u64>() {
        Ok(seconds) => Some(Duration::from_secs(seconds)),
        Err(_) => httpdate::parse_http_date(value)
            .ok()
            .map(|at| at.duration_since(now).unwrap_or_default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_is_seconds_or_an_http_date() {
        let now = std::time::UNIX_EPOCH + Duration::from_secs(1_784_000_000);
        assert_eq!(wait_of(" 7 ", now), Some(Duration::from_secs(7)));
        let later = httpdate::fmt_http_date(now + Duration::from_secs(30));
        assert_eq!(wait_of(&later, now), Some(Duration::from_secs(30)));
        let earlier = httpdate::fmt_http_date(now - Duration::from_secs(30));
        assert_eq!(wait_of(&earlier, now), Some(Duration::ZERO));
        assert_eq!(wait_of("soon", now), None);
    }

    #[test]
    fn a_reply_reads_back() {
        let status = HttpStatusError::new(503, Some(" 2 ".to_owned()));
        let ServerJsonRpcMessage::Error(error) = reply(RequestId::Number(7), &status) else {
            panic!("not an error reply");
        };
        assert_eq!(
            read(&error.error),
            Some((503, Some(Duration::from_secs(2))))
        );
        let date = HttpStatusError::new(429, Some("Wed, 21 Oct 2015 07:28:00 GMT".to_owned()));
        let ServerJsonRpcMessage::Error(error) = reply(RequestId::Number(7), &date) else {
            panic!("not an error reply");
        };
        // A date past: no wait.
        assert_eq!(read(&error.error), Some((429, Some(Duration::ZERO))));
        let theirs = ErrorData::new(CODE, "their own", None);
        assert_eq!(read(&theirs), None);
    }
}
