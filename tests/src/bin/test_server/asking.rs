//! `ask`: asks its client questions the MCP 2026-07-28 way, with an
//! `input_required` result, over two rounds: first the user's name
//! (elicitation, key `user_name`), then, with its state carrying the name,
//! the model's opinion (sampling, key `opinion`); the third call returns
//! both answers as structuredContent. `requestState` must come back as it
//! was sent, and each round's answer under its key; otherwise it asks again.
//! With the argument `first: "sampling"` it asks the model first.
//!
//! `ask_each`: asks, in one `input_required` round, each question of its
//! argument `ask` (a list of `elicitation`, `sampling` and `roots`; default
//! all three) that the client declared it can answer: the user's name
//! (key `user_name`), a greeting from the model (`greeting`), the client's
//! roots (`roots/list`, `client_roots`). A client that declared none of them
//! gets error -32021 naming what was wanted; with `always: true` it asks
//! them whatever the client declared (for the asking side's own checks).
//! The retry with the echoed state
//! and an answer under each key returns the answers as structuredContent
//! `{answers}`; a key left unanswered is asked again.

#![allow(deprecated)] // sampling is deprecated by SEP-2577, and still asked

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CreateMessageRequest,
    CreateMessageRequestParams, ElicitRequest, ElicitRequestParams, ElicitationSchema, ErrorCode,
    InputRequest, InputRequests, InputRequiredResult, ListRootsRequest, SamplingMessage,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value, json};

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
    let mut requests = InputRequests::new();
    requests.insert("user_name".to_owned(), name_request());
    CallToolResponse::InputRequired(InputRequiredResult::new(
        Some(requests),
        Some(STATE_ONE.to_owned()),
    ))
}

fn name_request() -> InputRequest {
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
    InputRequest::Elicitation(ElicitRequest::new(params))
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

/// `ask_each`'s questions: (the argument's word, the capability, the key).
const EACH: [(&str, &str, &str); 3] = [
    ("elicitation", "elicitation", "user_name"),
    ("sampling", "sampling", "greeting"),
    ("roots", "roots", "client_roots"),
];
/// How `ask_each`'s `requestState` starts.
const EACH_STATE: &str = "each:";

pub fn ask_each(
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, rmcp::ErrorData> {
    let wanted: Vec<&str> = match request.arguments.as_ref().and_then(|a| a.get("ask")) {
        Some(Value::Array(words)) => words.iter().filter_map(Value::as_str).collect(),
        _ => EACH.iter().map(|(word, ..)| *word).collect(),
    };
    let declared = context.client_capabilities().unwrap_or_default();
    let always =
        request.arguments.as_ref().and_then(|a| a.get("always")) == Some(&Value::Bool(true));
    let declares = |capability: &str| {
        always
            || match capability {
                "elicitation" => declared.elicitation.is_some(),
                "sampling" => declared.sampling.is_some(),
                _ => declared.roots.is_some(),
            }
    };
    let asked: Vec<_> = EACH
        .iter()
        .filter(|(word, capability, _)| wanted.contains(word) && declares(capability))
        .collect();
    if asked.is_empty() {
        let required: Map<String, Value> = EACH
            .iter()
            .filter(|(word, ..)| wanted.contains(word))
            .map(|(_, capability, _)| ((*capability).to_owned(), json!({})))
            .collect();
        return Err(rmcp::ErrorData::new(
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
            "ask_each: the client declared none of the capabilities its questions need",
            Some(json!({ "requiredCapabilities": required })),
        ));
    }
    let keys: Vec<&str> = asked.iter().map(|(.., key)| *key).collect();
    let state = format!("{EACH_STATE}{}", keys.join(","));
    let responses = match request.request_state.as_deref() {
        Some(s) if s == state => request.input_responses.clone().unwrap_or_default(),
        _ => Default::default(),
    };
    let mut requests = InputRequests::new();
    for key in keys.iter().filter(|k| !responses.contains_key(**k)) {
        let question = match *key {
            "user_name" => name_request(),
            "greeting" => InputRequest::CreateMessage(CreateMessageRequest::new(
                CreateMessageRequestParams::new(
                    vec![SamplingMessage::user_text("Generate a greeting")],
                    50,
                ),
            )),
            _ => InputRequest::ListRoots(ListRootsRequest::default()),
        };
        requests.insert((*key).to_owned(), question);
    }
    if !requests.is_empty() {
        return Ok(CallToolResponse::InputRequired(InputRequiredResult::new(
            Some(requests),
            Some(state),
        )));
    }
    let answers: Map<String, Value> = keys
        .iter()
        .map(|k| ((*k).to_owned(), responses[*k].clone()))
        .collect();
    let mut result = CallToolResult::success(vec![ContentBlock::text(format!(
        "answered: {}",
        keys.join(", ")
    ))]);
    result.structured_content = Some(json!({ "answers": answers }));
    Ok(CallToolResponse::Complete(result))
}
