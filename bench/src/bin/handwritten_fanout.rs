//! The fan-out graph's tools (`bench/graphs/fanout.yaml`: `fan_out` and
//! `for_each`) written by hand with rmcp, no graph: the floor the
//! generated `bench-fanout` is measured against. `fan_out` asks the four
//! servers with `tokio::join!`; `for_each` makes one call per item with
//! `buffer_unordered(8)` and puts the values back in item order. Same wire
//! behaviour as a generated server: the value as JSON text content and as
//! `structuredContent`.
//!
//! ```text
//! bench-handwritten-fanout --mcp FILE
//! ```
//!
//! `--mcp FILE` (`{"mcpServers": {"s1": {"command", "args"}, ...}}`) says
//! how to start the servers `s1` to `s4`; each is started on first use and
//! shared by concurrent calls, as a generated server does.

use std::sync::Arc;

use futures::StreamExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, JsonObject,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleClient, RoleServer, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ErrorData as McpError, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};
use tokio::sync::OnceCell;

/// The servers, in branch order.
const SERVERS: [&str; 4] = ["s1", "s2", "s3", "s4"];
/// Calls in flight in `for_each`.
const FOR_EACH_CONCURRENCY: usize = 8;

/// How to start one server.
#[derive(Debug, Default)]
struct Spec {
    command: String,
    args: Vec<String>,
}

struct Server {
    spec: Spec,
    client: OnceCell<RunningService<RoleClient, ()>>,
}

#[derive(Clone)]
struct FanOut(Arc<[Server; 4]>);

fn internal(message: impl ToString) -> McpError {
    McpError::internal_error(message.to_string(), None)
}

fn bad(message: &str) -> McpError {
    McpError::invalid_params(message.to_owned(), None)
}

fn tools() -> Vec<Tool> {
    let schema = |value: Value| match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    };
    vec![
        Tool::new(
            "fan_out",
            "Asks four servers at once (each answers after `ms` milliseconds)",
            schema(
                json!({"type": "object", "properties": {"q": {"type": "string"}, "ms": {"type": "number"}}, "required": ["q", "ms"]}),
            ),
        ),
        Tool::new(
            "for_each",
            "One call of server s1 per item, eight at a time; the values in item order",
            schema(
                json!({"type": "object", "properties": {"items": {"type": "array"}, "ms": {"type": "number"}}, "required": ["items", "ms"]}),
            ),
        ),
    ]
}

impl FanOut {
    /// Calls `slow` on server `k` with `ms` and `value`; its output (the
    /// structured content).
    async fn slow(&self, k: usize, ms: &Value, value: Value) -> Result<Value, McpError> {
        let server = &self.0[k];
        let client = server
            .client
            .get_or_try_init(|| async {
                if server.spec.command.is_empty() {
                    return Err(internal(format!(
                        "no server `{}` configured (--mcp FILE)",
                        SERVERS[k]
                    )));
                }
                let mut cmd = tokio::process::Command::new(&server.spec.command);
                cmd.args(&server.spec.args);
                let transport = TokioChildProcess::new(cmd).map_err(internal)?;
                ().serve(transport).await.map_err(internal)
            })
            .await?;
        let mut arguments = JsonObject::new();
        arguments.insert("ms".to_owned(), ms.clone());
        arguments.insert("value".to_owned(), value);
        let params = CallToolRequestParams::new("slow").with_arguments(arguments);
        let response = client
            .peer()
            .call_tool_once(params)
            .await
            .map_err(internal)?;
        let CallToolResponse::Complete(result) = response else {
            return Err(internal("unexpected task"));
        };
        if result.is_error == Some(true) {
            return Err(internal(format!("`{}` failed", SERVERS[k])));
        }
        result
            .structured_content
            .ok_or_else(|| internal(format!("`{}` gave no structured content", SERVERS[k])))
    }

    async fn fan_out(&self, args: &JsonObject) -> Result<Value, McpError> {
        let q = args
            .get("q")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("`q` must be a string"))?;
        let ms = args.get("ms").ok_or_else(|| bad("`ms` is required"))?;
        let value = |k: usize| Value::from(format!("{q}/{}", SERVERS[k]));
        let (a, b, c, d) = tokio::join!(
            self.slow(0, ms, value(0)),
            self.slow(1, ms, value(1)),
            self.slow(2, ms, value(2)),
            self.slow(3, ms, value(3)),
        );
        let mut out = Map::with_capacity(4);
        for (name, output) in SERVERS.iter().zip([a?, b?, c?, d?]) {
            out.insert((*name).to_owned(), output);
        }
        Ok(Value::Object(out))
    }

    async fn for_each(&self, args: &JsonObject) -> Result<Value, McpError> {
        let items = args
            .get("items")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("`items` must be an array"))?;
        let ms = args.get("ms").ok_or_else(|| bad("`ms` is required"))?;
        let mut outputs = vec![Value::Null; items.len()];
        let mut done = futures::stream::iter(items.iter().cloned().enumerate())
            .map(|(i, item)| async move { (i, self.slow(0, ms, item).await) })
            .buffer_unordered(FOR_EACH_CONCURRENCY);
        while let Some((i, output)) = done.next().await {
            outputs[i] = output?;
        }
        let values: Vec<Value> = outputs
            .into_iter()
            .map(|o| o.get("value").cloned().unwrap_or(Value::Null))
            .collect();
        Ok(json!({ "values": values }))
    }
}

impl ServerHandler for FanOut {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let empty = JsonObject::new();
        let args = request.arguments.as_ref().unwrap_or(&empty);
        let value = match request.name.as_ref() {
            "fan_out" => self.fan_out(args).await?,
            "for_each" => self.for_each(args).await?,
            other => return Err(bad(&format!("unknown tool `{other}`"))),
        };
        let mut result = CallToolResult::success(vec![ContentBlock::text(value.to_string())]);
        result.structured_content = Some(value);
        Ok(result.into())
    }
}

/// The specs of `s1` to `s4` from an `--mcp` file.
fn read_specs(path: &str) -> Result<[Spec; 4], String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let json: Value = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
    Ok(SERVERS.map(|name| {
        let entry = &json["mcpServers"][name];
        Spec {
            command: entry["command"].as_str().unwrap_or_default().to_owned(),
            args: entry["args"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
        }
    }))
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let mut args = std::env::args().skip(1);
    let mut specs: [Spec; 4] = Default::default();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--mcp" => match args.next().map(|p| read_specs(&p)) {
                Some(Ok(read)) => specs = read,
                Some(Err(e)) => {
                    eprintln!("bench-handwritten-fanout: {e}");
                    return std::process::ExitCode::FAILURE;
                }
                None => {
                    eprintln!("bench-handwritten-fanout: --mcp needs a file");
                    return std::process::ExitCode::FAILURE;
                }
            },
            "serve" => {}
            other => {
                eprintln!("bench-handwritten-fanout: unknown argument `{other}`");
                return std::process::ExitCode::FAILURE;
            }
        }
    }
    let handler = FanOut(Arc::new(specs.map(|spec| Server {
        spec,
        client: OnceCell::new(),
    })));
    let Ok(service) = handler.serve(rmcp::transport::stdio()).await else {
        return std::process::ExitCode::FAILURE;
    };
    let _ = service.waiting().await;
    std::process::ExitCode::SUCCESS
}
