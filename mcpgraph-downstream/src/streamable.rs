//! The HTTP client under rmcp's streamable HTTP transport: reqwest's, with
//! the replies to each POST checked on the way in so that a malformed or
//! oversized reply fails only the request it answers. Left to rmcp, an
//! event over the size bound ends the whole connection (every call in
//! flight fails with "Transport closed"), and a reply that does not decode
//! leaves its call waiting for the timeout.

use std::collections::HashMap;
use std::sync::Arc;

use futures::StreamExt as _;
use futures::stream::BoxStream;
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, RequestId};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use sse_stream::Sse;

use super::wire::{self, MAX_REPLY_BYTES};
use crate::oauth::authorizer::authorized;
use mcpgraph_oauth::client::{Authorizer, Behalf};
use mcpgraph_runtime::host::CallerToken;
use rmcp::model::GetExtensions as _;

/// reqwest's client for one downstream server, named for log lines, with
/// the server's OAuth tokens when it has `auth` (each request carries the
/// token, and a refused one is replaced once: see `oauth::authorizer::authorized`).
#[derive(Clone)]
pub(crate) struct GuardedClient {
    inner: reqwest::Client,
    server: Arc<str>,
    auth: Option<Arc<Authorizer>>,
}

impl GuardedClient {
    pub(crate) fn new(
        inner: reqwest::Client,
        server: &str,
        auth: Option<Arc<Authorizer>>,
    ) -> GuardedClient {
        GuardedClient {
            inner,
            server: server.into(),
            auth,
        }
    }
}

type Error = StreamableHttpError<reqwest::Error>;

impl StreamableHttpClient for GuardedClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let limits = reply_limits(MAX_REPLY_BYTES);
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        )
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let limits = reply_limits(max_sse_event_size);
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        )
        .await
    }

    /// What rmcp's transport calls (since 3.11): every reply is read within
    /// `limits` (never more than [`MAX_REPLY_BYTES`] per JSON body or SSE
    /// event) and checked on the way in.
    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let request_id = match &message {
            ClientJsonRpcMessage::Request(request) => Some(request.id.clone()),
            _ => None,
        };
        let mut limits = limits;
        limits.max_sse_event_size = limits.max_sse_event_size.min(MAX_REPLY_BYTES);
        limits.max_json_response_size = limits.max_json_response_size.min(MAX_REPLY_BYTES);
        // A caller's `tools/call` (or a request about the task it
        // became) and its access token, for a server that passes it on.
        let (call, caller) = match (&self.auth, &message) {
            (Some(_), ClientJsonRpcMessage::Request(r)) => (
                matches!(
                    r.request,
                    ClientRequest::CallToolRequest(_)
                        | ClientRequest::GetTaskRequest(_)
                        | ClientRequest::UpdateTaskRequest(_)
                        | ClientRequest::CancelTaskRequest(_)
                ),
                r.request.extensions().get::<CallerToken>().cloned(),
            ),
            _ => (false, None),
        };
        let behalf = match call {
            true => Behalf::Call(caller.as_ref()),
            false => Behalf::Graph,
        };
        let parts = (uri, message, session_id.clone(), custom_headers);
        let response = authorized(
            self.auth.as_deref(),
            behalf,
            auth_header,
            parts,
            |(uri, message, session_id, headers), token| {
                self.inner.post_message_with_response_limits(
                    uri, message, session_id, token, headers, limits,
                )
            },
        )
        .await;
        let Some(id) = request_id else {
            return response;
        };
        match response {
            Ok(StreamableHttpPostResponse::Sse(events, sid)) => Ok(
                StreamableHttpPostResponse::Sse(guard(events, id, Arc::clone(&self.server)), sid),
            ),
            // A plain JSON reply that is too large or does not decode.
            Err(error @ (Error::ResponseBodyTooLarge { .. } | Error::Deserialize(_))) => {
                let reply = match error {
                    Error::ResponseBodyTooLarge { max_size } => {
                        format!("reply larger than the limit of {max_size} bytes")
                    }
                    other => format!("malformed reply: {other}"),
                };
                Ok(StreamableHttpPostResponse::Json(
                    wire::error_reply(id, reply),
                    session_id.map(|s| s.to_string()),
                ))
            }
            // HTTP 429 or 5xx: the call fails as refused, with the
            // server's `Retry-After`, instead of as a broken transport.
            Err(Error::HttpStatus(status)) => Ok(StreamableHttpPostResponse::Json(
                super::unavailable::reply(id, &status),
                session_id.map(|s| s.to_string()),
            )),
            other => other,
        }
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), Error> {
        let parts = (uri, session_id, custom_headers);
        authorized(
            self.auth.as_deref(),
            Behalf::Graph,
            auth_header,
            parts,
            |(uri, session_id, headers), token| {
                self.inner.delete_session(uri, session_id, token, headers)
            },
        )
        .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Error> {
        let limit = MAX_REPLY_BYTES;
        let (uri, id, last, auth) = (uri, session_id, last_event_id, auth_header);
        self.get_stream_with_max_sse_event_size(uri, id, last, auth, custom_headers, limit)
            .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Error> {
        let parts = (uri, session_id, last_event_id, custom_headers);
        authorized(
            self.auth.as_deref(),
            Behalf::Graph,
            auth_header,
            parts,
            |(uri, session_id, last, headers), token| {
                self.inner.get_stream_with_max_sse_event_size(
                    uri,
                    session_id,
                    last,
                    token,
                    headers,
                    max_sse_event_size,
                )
            },
        )
        .await
    }
}

/// rmcp's limits on replies, with SSE events bounded by `max_sse_event_size`
/// and whole JSON bodies by [`MAX_REPLY_BYTES`].
fn reply_limits(max_sse_event_size: usize) -> StreamableHttpResponseLimits {
    let mut limits = StreamableHttpResponseLimits::default();
    limits.max_sse_event_size = max_sse_event_size;
    limits.max_json_response_size = MAX_REPLY_BYTES;
    limits
}

/// The events answering request `id`: each message that does not decode
/// is replaced by what [`wire::decode`] makes of it (an error reply to the
/// request it answers, or nothing), and an event over the size bound ends
/// the stream with an error reply to `id` instead of ending the connection.
fn guard(
    events: BoxStream<'static, Result<Sse, SseError>>,
    id: RequestId,
    server: Arc<str>,
) -> BoxStream<'static, Result<Sse, SseError>> {
    let mut done = false;
    events
        .filter_map(move |item| {
            let out = if done {
                None
            } else {
                match item {
                    Ok(event) => check_event(event, &server),
                    Err(error) if is_size_error(&error) => {
                        done = true;
                        let reply = wire::error_reply(
                            id.clone(),
                            format!("reply larger than the limit of {MAX_REPLY_BYTES} bytes"),
                        );
                        Some(Ok(message_event(&reply)))
                    }
                    Err(error) => Some(Err(error)),
                }
            };
            std::future::ready(out)
        })
        .boxed()
}

/// An event whose data does not decode as a server message is replaced
/// (or dropped); events without data (priming, retry hints) pass.
fn check_event(event: Sse, server: &str) -> Option<Result<Sse, SseError>> {
    let Some(data) = event.data.as_deref() else {
        return Some(Ok(event));
    };
    if data.trim().is_empty()
        || serde_json::from_str::<rmcp::model::ServerJsonRpcMessage>(data).is_ok()
    {
        return Some(Ok(event));
    }
    let replacement = wire::decode(server, data.as_bytes())?;
    Some(Ok(Sse {
        data: Some(serde_json::to_string(&replacement).ok()?),
        ..event
    }))
}

fn message_event(message: &rmcp::model::ServerJsonRpcMessage) -> Sse {
    Sse {
        event: Some("message".to_owned()),
        data: serde_json::to_string(message).ok(),
        id: None,
        retry: None,
    }
}

/// rmcp's bound on one event surfaces as a body error with this wording
/// (its error type is private).
fn is_size_error(error: &SseError) -> bool {
    matches!(error, SseError::Body(_)) && error.to_string().contains("exceeded the maximum size")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(data: &str) -> Sse {
        Sse {
            event: Some("message".into()),
            data: Some(data.into()),
            id: Some("e1".into()),
            retry: None,
        }
    }

    #[test]
    fn a_malformed_reply_becomes_an_error_reply_to_its_request() {
        let bad = r#"{"jsonrpc":"2.0","id":7,"result":{"content":7},"error":"both"}"#;
        let Some(Ok(out)) = check_event(event(bad), "s") else {
            panic!("replaced, not dropped");
        };
        let reply: serde_json::Value = serde_json::from_str(out.data.as_deref().unwrap()).unwrap();
        assert_eq!(reply["id"], 7);
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(message.starts_with("malformed reply: "), "{message}");
        assert_eq!(out.id.as_deref(), Some("e1"), "the event id is kept");
    }

    #[test]
    fn valid_messages_and_events_without_data_pass_unchanged() {
        let ok = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#;
        let Some(Ok(out)) = check_event(event(ok), "s") else {
            panic!("kept");
        };
        assert_eq!(out.data.as_deref(), Some(ok));
        let priming = Sse {
            event: None,
            data: None,
            id: Some("0".into()),
            retry: Some(1000),
        };
        let Some(Ok(out)) = check_event(priming, "s") else {
            panic!("kept");
        };
        assert_eq!((out.id.as_deref(), out.retry), (Some("0"), Some(1000)));
        // Not JSON at all: dropped (logged), as on stdio.
        assert!(check_event(event("not json"), "s").is_none());
    }
}
