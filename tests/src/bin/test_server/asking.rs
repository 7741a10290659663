//! `ask`: asks its client questions the MCP 2026-07-28 way, with an
//! `input_required` result, over two rounds: first the user's name
//! (elicitation, key `user_name`), then, with its state carrying the name,
//! the model's opinion (sampling, key `opinion`); the third call returns
//! both answers as structuredContent. `requestState` must come back as it
//! was sent, and each round's answer under its key; otherwise it asks again.
//! With the argument `first: "sampling"` it asks the model first.

#![allow(deprecated)] // sampling is deprecated by SEP-2577, and still asked

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CreateMessageRequest,
    CreateMessageRequestParams, ElicitRequest, ElicitRequestParams, ElicitationSchema,
    InputRequest, InputRequests, InputRequiredResult, SamplingMessage,
};
use serde_json::{Value, json};

const STATE_ONE: &str = "round-1";

pub fn ask(request: &CallToolRequestParams) -> CallToolResponse {
    let responses = request.input_responses.clone().unwrap_or_default();
    let name = |v: &Value| v["content"]["name"].as_str().map(str::to_owned);
    match request.request_state.as_deref() {
        Some(STATE_ONE) => match responses.get("user_name").and_then(name) {
            Some(user) => sampling(&user),
            None => elicitation(),
        },
        Some(state) => match (state.strip_prefix("round-2:"), responses.get("opinion")) {
            (Some(user), Some(opinion)) => {
                let text = opinion["content"]["text"].as_str().unwrap_or_default();
                let mut result = CallToolResult::success(vec![ContentBlock::text(format!(
                    "{user} asked; the model said: {text}"
                ))]);
                result.structured_content = Some(json!({"user": user, "opinion": text}));
                CallToolResponse::Complete(result)
            }
            (Some(user), None) => sampling(user),
            _ => elicitation(),
        },
        // `first: "sampling"` starts with the model's opinion.
        None if request.arguments.as_ref().and_then(|a| a.get("first"))
            == Some(&json!("sampling")) =>
        {
            sampling("nobody")
        }
        None => elicitation(),
    }
}

fn elicitation() -> CallToolResponse {
    let schema: ElicitationSchema = serde_json::from_value(json!({
        "type": "object",
        "properties": {"name": {"type": "string", "title": "Name"}},
        "required": ["name"]
    }))
    .expect("a flat form schema");
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: "What is your name?".to_owned(),
        requested_schema: schema,
    };
    let mut requests = InputRequests::new();
    requests.insert(
        "user_name".to_owned(),
        InputRequest::Elicitation(ElicitRequest::new(params)),
    );
    CallToolResponse::InputRequired(InputRequiredResult::new(
        Some(requests),
        Some(STATE_ONE.to_owned()),
    ))
}

fn sampling(user: &str) -> CallToolResponse {
    let params = CreateMessageRequestParams::new(
        vec![SamplingMessage::user_text(format!(
            "What do you think of {user}?"
        ))],
        50,
    );
    let mut requests = InputRequests::new();
    requests.insert(
        "opinion".to_owned(),
        InputRequest::CreateMessage(CreateMessageRequest::new(params)),
    );
    CallToolResponse::InputRequired(InputRequiredResult::new(
        Some(requests),
        Some(format!("round-2:{user}")),
    ))
}
