//! A small MCP server for tests of the downstream side: it answers in every
//! shape FORMAT.md converts (structured, JSON text, plain text, images, no
//! content, `isError`) and misbehaves on request (slow answers, crashes).

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, ServerHandler, ServiceExt};
use serde_json::{Value, json};

struct TestServer;

const TOOLS: &[(&str, &str)] = &[
    (
        "structured",
        "Returns `value` as structuredContent (and as text)",
    ),
    ("json_text", "Returns `value` serialised as JSON text"),
    ("text", "Returns `text` as a plain text item"),
    ("image", "Returns an image item"),
    ("empty", "Returns no content at all"),
    ("fail", "Returns isError with `message`"),
    (
        "echo_args",
        "Returns the arguments it received as structuredContent",
    ),
    ("sleep", "Waits `ms` milliseconds, then returns {slept: ms}"),
    ("crash", "Exits the process without answering"),
];

fn arg<'a>(request: &'a CallToolRequestParams, key: &str) -> Option<&'a Value> {
    request.arguments.as_ref().and_then(|a| a.get(key))
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
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
        Ok(ListToolsResult::with_all_items(
            TOOLS
                .iter()
                .map(|(name, description)| Tool::new(*name, *description, Arc::clone(&schema)))
                .collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let value = arg(&request, "value").cloned().unwrap_or(Value::Null);
        let result = match request.name.as_ref() {
            "structured" => {
                let mut r = CallToolResult::success(vec![ContentBlock::text(value.to_string())]);
                r.structured_content = Some(value);
                r
            }
            "json_text" => CallToolResult::success(vec![ContentBlock::text(value.to_string())]),
            "text" => {
                let text = arg(&request, "text").and_then(Value::as_str).unwrap_or("");
                CallToolResult::success(vec![ContentBlock::text(text)])
            }
            "image" => {
                CallToolResult::success(vec![ContentBlock::image("iVBORw0KGgo=", "image/png")])
            }
            "empty" => CallToolResult::success(vec![]),
            "fail" => {
                let message = arg(&request, "message")
                    .and_then(Value::as_str)
                    .unwrap_or("failed");
                CallToolResult::error(vec![ContentBlock::text(message)])
            }
            "echo_args" => {
                let args = Value::Object(request.arguments.clone().unwrap_or_default());
                let mut r = CallToolResult::success(vec![ContentBlock::text(args.to_string())]);
                r.structured_content = Some(args);
                r
            }
            "sleep" => {
                let ms = arg(&request, "ms").and_then(Value::as_u64).unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                let mut r = CallToolResult::success(vec![]);
                r.structured_content = Some(json!({"slept": ms}));
                r
            }
            "crash" => std::process::exit(3),
            other => {
                return Err(McpError::invalid_params(
                    format!("unknown tool `{other}`"),
                    None,
                ));
            }
        };
        Ok(result.into())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let Ok(service) = TestServer.serve(rmcp::transport::stdio()).await else {
        std::process::exit(2);
    };
    let _ = service.waiting().await;
}
