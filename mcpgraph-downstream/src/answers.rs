//! The caller's answers to the questions an `input_required` result or a
//! task holds (MCP 2026-07-28): each request asked of the caller, or the
//! questions passed on to a 2026-07-28 caller as its round's.

use rmcp::model::{ClientResult, InputRequest, InputRequests, InputResponses, ServerRequest};

use super::DownstreamError;
use mcpgraph_runtime::{Caller, host::Declared};
use mcpgraph_runtime::{Downstream as Kind, ErrorKind};

/// The server-to-client request an input request is.
pub(super) fn server_request(request: InputRequest) -> Option<ServerRequest> {
    match request {
        InputRequest::Elicitation(r) => Some(ServerRequest::ElicitRequest(r)),
        InputRequest::CreateMessage(r) => Some(ServerRequest::CreateMessageRequest(r)),
        InputRequest::ListRoots(r) => Some(ServerRequest::ListRootsRequest(r)),
        _ => None,
    }
}

/// The caller's answers to `requests` (an `input_required` result's, or a
/// task's).
pub(super) async fn answer(
    requests: InputRequests,
    caller: Option<&Caller>,
    what: &str,
) -> Result<InputResponses, DownstreamError> {
    let mut responses = InputResponses::new();
    if let Some(caller) = caller {
        caller
            .count_questions(requests.len())
            .map_err(|stop| super::waiting::stopped(what, stop))?;
    }
    for (key, request) in requests {
        let Some(request) = server_request(request) else {
            return Err(DownstreamError::new(
                Kind::Protocol,
                format!("{what} asked for input of a kind mcpgraph does not know"),
            ));
        };
        let asked = match caller {
            Some(caller) => caller.ask(request).await,
            None => Err(mcpgraph_runtime::host::Unanswered::NotDeclared {
                capability: Declared::needed_by(&request),
                why: "a call made outside an MCP session cannot declare".to_owned(),
            }),
        };
        let answer = asked.map_err(|why| match why {
            mcpgraph_runtime::host::Unanswered::Stopped(stop) => {
                super::waiting::stopped(what, stop)
            }
            why => DownstreamError::new(
                Kind::Protocol,
                format!("{what} asked the calling client a question, and {why}"),
            ),
        })?;
        let answer = serde_json::to_value(answer).map_err(|e| {
            DownstreamError::new(
                Kind::Protocol,
                format!("{what}: an answer does not encode: {e}"),
            )
        })?;
        responses.insert(key, answer);
    }
    Ok(responses)
}

/// The input request a server-to-client request is.
pub(super) fn input_request(request: ServerRequest) -> Option<InputRequest> {
    match request {
        ServerRequest::ElicitRequest(r) => Some(InputRequest::Elicitation(r)),
        ServerRequest::CreateMessageRequest(r) => Some(InputRequest::CreateMessage(r)),
        ServerRequest::ListRootsRequest(r) => Some(InputRequest::ListRoots(r)),
        _ => None,
    }
}

/// The caller's answer in `responses` to `request`, as the result it must
/// be.
pub(super) fn answer_to(
    request: &ServerRequest,
    responses: &InputResponses,
) -> Result<ClientResult, AnswerError> {
    let key = Declared::needed_by(request);
    let value = responses
        .get(key)
        .cloned()
        .ok_or(AnswerError::Missing { key })?;
    let read = AnswerError::Malformed;
    Ok(match request {
        ServerRequest::ElicitRequest(_) => {
            ClientResult::ElicitResult(serde_json::from_value(value).map_err(read)?)
        }
        ServerRequest::CreateMessageRequest(_) => ClientResult::CreateMessageResult(Box::new(
            serde_json::from_value(value).map_err(read)?,
        )),
        ServerRequest::ListRootsRequest(_) => {
            ClientResult::ListRootsResult(serde_json::from_value(value).map_err(read)?)
        }
        _ => return Err(AnswerError::Unknown),
    })
}

/// Why the calling client's answer to a server's question is not usable.
#[derive(Debug)]
pub(super) enum AnswerError {
    /// The answers have none under `key`.
    Missing { key: &'static str },
    /// The answer is not the result the question asks for.
    Malformed(serde_json::Error),
    /// The question is of a kind graphs do not pass on.
    Unknown,
}

impl std::fmt::Display for AnswerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Missing { key } => write!(f, "no answer under `{key}`"),
            Self::Malformed(e) => e.fmt(f),
            Self::Unknown => f.write_str("an answer to an unknown request"),
        }
    }
}

/// The server's questions, passed on to a client of 2026-07-28 as this
/// call's own `input_required` result (under the server's keys), which ends
/// the round; or why the client cannot be asked them.
pub(super) fn pass_on(
    requests: InputRequests,
    state: Option<String>,
    caller: &Caller,
    round: &mcpgraph_runtime::Rounds,
    what: &str,
) -> DownstreamError {
    if let Err(stop) = caller.count_questions(requests.len()) {
        return super::waiting::stopped(what, stop);
    }
    for request in requests.values() {
        if let Some(request) = server_request(request.clone())
            && let Err(why) = caller.may_ask(&request)
        {
            return DownstreamError::new(
                Kind::Protocol,
                format!("{what} asked the calling client a question, and {why}"),
            );
        }
    }
    round.ask_call(caller.slot(), caller.attempt(), requests, state);
    DownstreamError::of(
        ErrorKind::InputRequired,
        format!("{what} waits for the calling client's answers"),
    )
}
