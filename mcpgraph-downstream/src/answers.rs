//! The caller's answers to the questions an `input_required` result holds
//! (MCP 2026-07-28): each request asked of the caller, the answers sent back
//! with the server's state.

use rmcp::model::{InputRequest, InputRequiredResult, InputResponses, ServerRequest};

use super::DownstreamError;
use mcpgraph_runtime::Downstream as Kind;
use mcpgraph_runtime::{Caller, host::Declared};

/// The server-to-client request an input request is.
pub(super) fn server_request(request: InputRequest) -> Option<ServerRequest> {
    match request {
        InputRequest::Elicitation(r) => Some(ServerRequest::ElicitRequest(r)),
        InputRequest::CreateMessage(r) => Some(ServerRequest::CreateMessageRequest(r)),
        InputRequest::ListRoots(r) => Some(ServerRequest::ListRootsRequest(r)),
        _ => None,
    }
}

/// The caller's answers to an `input_required` result's requests, and the
/// state to send back with them.
pub(super) async fn answer(
    input: InputRequiredResult,
    caller: Option<&Caller>,
    what: &str,
) -> Result<(InputResponses, Option<String>), DownstreamError> {
    let mut responses = InputResponses::new();
    let requests = input.input_requests.unwrap_or_default();
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
            mcpgraph_runtime::host::Unanswered::Stopped(stop) => super::waiting::stopped(what, stop),
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
    Ok((responses, input.request_state))
}
