//! The slow downstream server of the fan-out rows: one tool, `slow`,
//! that waits `ms` milliseconds, then answers `{"value": value}` (its
//! argument back, as JSON text and `structuredContent`), so each reply can
//! be checked. Calls are served concurrently: rmcp runs each request in a
//! task of its own, and the wait is a timer, so a call waiting does not
//! hold up the next one on the same stdio connection.
//!
//! ```text
//! bench-slow
//! ```

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, JsonObject,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, ServerHandler, ServiceExt};
use serde_json::{Value, json};

/// The longest wait a call may ask for.
const MAX_MS: u64 = 60_000;

struct Slow {
    tools: Vec<Tool>,
}

fn tools() -> Vec<Tool> {
    let schema = json!({
        "type": "object",
        "properties": {"ms": {"type": "number"}, "value": {}},
        "required": ["ms"],
    });
    let Value::Object(schema) = schema else {
        unreachable!("an object literal")
    };
    vec![Tool::new(
        "slow",
        "Waits `ms` milliseconds, then returns {value: value}",
        Arc::new(schema),
    )]
}

impl ServerHandler for Slow {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if request.name != "slow" {
            return Err(McpError::invalid_params(
                format!("unknown tool `{}`", request.name),
                None,
            ));
        }
        let empty = JsonObject::new();
        let args = request.arguments.as_ref().unwrap_or(&empty);
        let ms = args
            .get("ms")
            .and_then(Value::as_f64)
            .filter(|ms| (0.0..=MAX_MS as f64).contains(ms))
            .ok_or_else(|| {
                McpError::invalid_params(format!("`ms` must be a number of 0..={MAX_MS}"), None)
            })?;
        tokio::time::sleep(Duration::from_millis(ms as u64)).await;
        let value = json!({"value": args.get("value").cloned().unwrap_or(Value::Null)});
        let mut result = CallToolResult::success(vec![ContentBlock::text(value.to_string())]);
        result.structured_content = Some(value);
        Ok(result.into())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    let Ok(service) = Slow { tools: tools() }
        .serve(rmcp::transport::stdio())
        .await
    else {
        return std::process::ExitCode::FAILURE;
    };
    let _ = service.waiting().await;
    std::process::ExitCode::SUCCESS
}
