//! A downstream server that asks one question per call and writes down
//! everything each call received, for the tests of questions asked from
//! `parallel` and `forEach` nodes (tests/tests/serving/fanout_rounds.rs):
//! a server must only ever see its own `requestState` and the answers to
//! its own questions.
//!
//! Usage: `questioner NAME --log PATH [--session]`.
//!
//! Tools:
//! - `ask {slot}`: asks for a one-time password, the message naming this
//!   server and the slot (`one-time password for NAME/SLOT`), always under
//!   the key `password` (every server and slot uses the same key, as real
//!   servers do). MCP 2026-07-28 (default): the first call returns
//!   `input_required` with the state `NAME/SLOT/state`; a retry carrying
//!   that state and an accepted answer returns structuredContent
//!   `{server, slot, answer}` (`answer`: the answer's `content.name`),
//!   anything else is asked again. With `--session` the server speaks the
//!   session era (it answers `server/discover` -32601, as an older server
//!   does) and asks with an `elicitation/create` request while the call
//!   runs, then returns the same structuredContent.
//! - `plain {slot}`: asks nothing; returns `{server, slot}`.
//!
//! Every call appends one JSON line to the `--log` file (shared by every
//! process of every server, since a graph keeps several connections, each
//! a process, to one stdio server): `{server, tool, slot, requestState,
//! inputResponses}`, and for a session-era `ask` a second line with the
//! `answer` it got.

use std::io::Write as _;
use std::sync::{Arc, OnceLock};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientResult, ContentBlock,
    DiscoverResult, ElicitRequest, ElicitRequestParams, ElicitationSchema, InputRequest,
    InputRequests, InputRequiredResult, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, ServerRequest, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, ServerHandler, ServiceExt};
use serde_json::{Value, json};

/// What the command line said.
struct Options {
    name: String,
    log: std::path::PathBuf,
    session: bool,
}

static OPTIONS: OnceLock<Options> = OnceLock::new();

fn options() -> &'static Options {
    OPTIONS.get().expect("options are read first")
}

/// Appends `line` to the log, in one write.
fn log(line: &Value) {
    let mut text = line.to_string();
    text.push('\n');
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&options().log);
    if let Ok(mut file) = file {
        let _ = file.write_all(text.as_bytes());
    }
}

struct Questioner;

fn slot_of(request: &CallToolRequestParams) -> String {
    match request.arguments.as_ref().and_then(|a| a.get("slot")) {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

fn question(message: String) -> ElicitRequestParams {
    let schema: ElicitationSchema = serde_json::from_value(json!({
        "type": "object",
        "properties": {"name": {"type": "string", "title": "Password"}},
        "required": ["name"]
    }))
    .expect("a flat form schema");
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema: schema,
    }
}

fn answered(slot: &str, answer: &Value) -> CallToolResponse {
    let name = &options().name;
    let mut result = CallToolResult::success(vec![ContentBlock::text(format!(
        "{name}/{slot} got {answer}"
    ))]);
    result.structured_content = Some(json!({"server": name, "slot": slot, "answer": answer}));
    CallToolResponse::Complete(result)
}

/// `ask` the MCP 2026-07-28 way.
fn ask_in_rounds(request: &CallToolRequestParams, slot: &str) -> CallToolResponse {
    let name = &options().name;
    let own = format!("{name}/{slot}/state");
    let answer = request
        .input_responses
        .as_ref()
        .and_then(|r| r.get("password"))
        .filter(|a| a["action"] == "accept")
        .map(|a| a["content"]["name"].clone());
    if request.request_state.as_deref() == Some(own.as_str())
        && let Some(answer) = answer
    {
        return answered(slot, &answer);
    }
    let mut requests = InputRequests::new();
    requests.insert(
        "password".to_owned(),
        InputRequest::Elicitation(ElicitRequest::new(question(format!(
            "one-time password for {name}/{slot}"
        )))),
    );
    CallToolResponse::InputRequired(InputRequiredResult::new(Some(requests), Some(own)))
}

/// `ask` the session-era way: a request to the client while the call runs.
async fn ask_in_session(
    context: &RequestContext<RoleServer>,
    slot: &str,
) -> Result<CallToolResponse, McpError> {
    let name = &options().name;
    let request = ServerRequest::ElicitRequest(ElicitRequest::new(question(format!(
        "one-time password for {name}/{slot}"
    ))));
    let reply = context
        .peer
        .send_request(request)
        .await
        .map_err(|e| McpError::internal_error(format!("asking failed: {e}"), None))?;
    let ClientResult::ElicitResult(result) = reply else {
        return Err(McpError::internal_error("not an elicitation result", None));
    };
    let answer = result
        .content
        .as_ref()
        .and_then(|c| c.get("name"))
        .cloned()
        .unwrap_or(Value::Null);
    log(&json!({"server": name, "tool": "ask", "slot": slot, "answer": answer}));
    Ok(answered(slot, &answer))
}

impl ServerHandler for Questioner {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn discover(
        &self,
        _context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, McpError> {
        if options().session {
            let code = rmcp::model::ErrorCode::METHOD_NOT_FOUND;
            return Err(McpError::new(
                code,
                "Method not found: server/discover",
                None,
            ));
        }
        let versions = self.supported_protocol_versions().into_owned();
        Ok(DiscoverResult::from_server_info(versions, self.get_info()))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let schema = Arc::new(
            json!({"type": "object"})
                .as_object()
                .cloned()
                .unwrap_or_default(),
        );
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new("ask", "Asks for a one-time password", Arc::clone(&schema)),
            Tool::new("plain", "Asks nothing", schema),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = &options().name;
        let slot = slot_of(&request);
        log(&json!({
            "server": name,
            "tool": request.name,
            "slot": slot,
            "requestState": request.request_state,
            "inputResponses": request.input_responses,
        }));
        match request.name.as_ref() {
            "ask" if options().session => ask_in_session(&context, &slot).await,
            "ask" => Ok(ask_in_rounds(&request, &slot)),
            "plain" => {
                let mut result = CallToolResult::success(vec![ContentBlock::text(slot.clone())]);
                result.structured_content = Some(json!({"server": name, "slot": slot}));
                Ok(CallToolResponse::Complete(result))
            }
            other => Err(McpError::invalid_params(
                format!("unknown tool `{other}`"),
                None,
            )),
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut args = std::env::args().skip(1);
    let mut name = None;
    let mut log = None;
    let mut session = false;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--log" => log = args.next().map(std::path::PathBuf::from),
            "--session" => session = true,
            _ if name.is_none() => name = Some(arg),
            other => {
                eprintln!("questioner: unexpected argument {other}");
                std::process::exit(2);
            }
        }
    }
    let (Some(name), Some(log)) = (name, log) else {
        eprintln!("questioner: usage: questioner NAME --log PATH [--session]");
        std::process::exit(2);
    };
    let _ = OPTIONS.set(Options { name, log, session });
    let Ok(service) = Questioner.serve(rmcp::transport::stdio()).await else {
        std::process::exit(2);
    };
    let _ = service.waiting().await;
}
