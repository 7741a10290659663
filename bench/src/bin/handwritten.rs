//! The benchmark's four tools (`echo`, `loop`, `count_files`, `wide`)
//! written by hand with rmcp, no graph: the floor the generated server is
//! measured against. Same wire behaviour as a generated server: the value
//! as JSON text content and as `structuredContent`.
//!
//! ```text
//! bench-handwritten [--mcp FILE] [serve [--http ADDR] [--stateless]]
//! ```
//!
//! `--mcp FILE` (`{"mcpServers": {"filesystem": {"command", "args"}}}`) says
//! how to start the filesystem server `count_files` calls; it is started on
//! first use and shared by concurrent calls.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::{TokioExecutor, TokioIo};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, JsonObject,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleClient, RoleServer, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData as McpError, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};
use tokio::sync::OnceCell;

/// How to start the filesystem server.
#[derive(Debug, Default)]
struct FsSpec {
    command: String,
    args: Vec<String>,
}

struct Shared {
    fs_spec: FsSpec,
    fs: OnceCell<RunningService<RoleClient, ()>>,
    tools: Vec<Tool>,
}

#[derive(Clone)]
struct Bench(Arc<Shared>);

fn schema(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

fn tools() -> Vec<Tool> {
    vec![
        Tool::new(
            "echo",
            "Transform only: builds an object from the arguments",
            schema(
                json!({"type": "object", "properties": {"name": {"type": "string"}, "n": {"type": "number"}}, "required": ["name", "n"]}),
            ),
        ),
        Tool::new(
            "loop",
            "Sums 1..n with a loop",
            schema(
                json!({"type": "object", "properties": {"n": {"type": "number"}}, "required": ["n"]}),
            ),
        ),
        Tool::new(
            "count_files",
            "Counts the files in a directory through the filesystem server",
            schema(
                json!({"type": "object", "properties": {"directory": {"type": "string"}}, "required": ["directory"]}),
            ),
        ),
        Tool::new(
            "wide",
            "50 computed fields, then 20 conditions",
            schema(
                json!({"type": "object", "properties": {"a": {"type": "number"}, "s": {"type": "string"}, "items": {"type": "array"}}, "required": ["a", "s", "items"]}),
            ),
        ),
    ]
}

/// A JSON number, integral when it is.
fn num(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        Value::from(x as i64)
    } else {
        Value::from(x)
    }
}

fn bad(message: &str) -> McpError {
    McpError::invalid_params(message.to_owned(), None)
}

fn number(args: &JsonObject, key: &str) -> Result<f64, McpError> {
    args.get(key)
        .and_then(Value::as_f64)
        .ok_or_else(|| bad(&format!("`{key}` must be a number")))
}

fn string<'a>(args: &'a JsonObject, key: &str) -> Result<&'a str, McpError> {
    args.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| bad(&format!("`{key}` must be a string")))
}

fn echo(args: &JsonObject) -> Result<Value, McpError> {
    let name = string(args, "name")?;
    let n = number(args, "n")?;
    Ok(json!({
        "greeting": format!("hello {name}"),
        "n": num(n),
        "twice": num(n * 2.0),
        "tags": ["a", "b"],
    }))
}

fn sum_loop(args: &JsonObject) -> Result<Value, McpError> {
    let n = number(args, "n")?;
    let (mut i, mut sum) = (1.0, 1.0);
    while i < n {
        i += 1.0;
        sum += i;
    }
    Ok(json!({"sum": num(sum), "n": num(n)}))
}

fn wide(args: &JsonObject) -> Result<Value, McpError> {
    let a = number(args, "a")?;
    let s = string(args, "s")?;
    let items = args
        .get("items")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("`items` must be an array"))?;
    let total: f64 = items.iter().filter_map(Value::as_f64).sum();
    let upper = s.to_uppercase();
    let mut fan = Map::with_capacity(50);
    for kind in 0..10u32 {
        for k in 1..=5u32 {
            let kf = f64::from(k);
            let value = match kind {
                0 => num(a + kf),
                1 => num(a * kf),
                2 => Value::from(format!("{upper}-{k}")),
                3 => num(total + kf),
                4 => Value::from(items.len() as f64 > kf),
                5 => Value::from(format!("{s}{k}")),
                6 => items.get(k as usize - 1).cloned().unwrap_or(Value::Null),
                7 => Value::from(s.chars().take(k as usize).collect::<String>()),
                8 => num(a % (kf + 1.0)),
                _ => json!({"k": k, "v": num(a - kf)}),
            };
            fan.insert(format!("f{kind}{k}"), value);
        }
    }
    let f = |kind: usize, k: usize| &fan[&format!("f{kind}{k}")];
    let mut route = "miss";
    let mut matched = false;
    for i in 0..19 {
        let (kind, k) = (i % 4, i / 4 + 1);
        let hit = match kind {
            0 => f(0, k).as_f64() == Some(-1.0),
            1 => f(3, k).as_f64().is_some_and(|x| x > 100_000.0),
            2 => f(2, k).as_str().is_some_and(|x| x.contains("zzz")),
            _ => f(4, k).as_bool() == Some(true) && f(1, k).as_f64().is_some_and(|x| x < 0.0),
        };
        if hit {
            matched = true;
            break;
        }
    }
    if !matched && f(0, 1).as_f64().is_some_and(|x| x >= 0.0) {
        route = "hit";
    }
    Ok(if route == "hit" {
        json!({"route": "hit", "f01": f(0, 1), "f25": f(2, 5), "fields": fan.len()})
    } else {
        json!({"route": "miss"})
    })
}

impl Bench {
    async fn count_files(&self, args: &JsonObject) -> Result<Value, McpError> {
        let directory = string(args, "directory")?;
        let shared = &self.0;
        let client = shared
            .fs
            .get_or_try_init(|| async {
                if shared.fs_spec.command.is_empty() {
                    return Err(McpError::internal_error(
                        "no filesystem server configured (--mcp FILE)".to_owned(),
                        None,
                    ));
                }
                let mut cmd = tokio::process::Command::new(&shared.fs_spec.command);
                cmd.args(&shared.fs_spec.args);
                let transport = TokioChildProcess::new(cmd)
                    .map_err(|e| McpError::internal_error(e.to_string(), None))?;
                ().serve(transport)
                    .await
                    .map_err(|e| McpError::internal_error(e.to_string(), None))
            })
            .await?;
        let mut arguments = JsonObject::new();
        arguments.insert("path".to_owned(), Value::from(directory));
        let params = CallToolRequestParams::new("list_directory").with_arguments(arguments);
        let response = client
            .peer()
            .call_tool_once(params)
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        let CallToolResponse::Complete(result) = response else {
            return Err(McpError::internal_error("unexpected task".to_owned(), None));
        };
        let text = match &result.structured_content {
            Some(Value::Object(map)) => map.get("content").and_then(Value::as_str),
            _ => None,
        }
        .or_else(|| {
            result
                .content
                .first()
                .and_then(|c| c.as_text())
                .map(|t| t.text.as_str())
        })
        .unwrap_or("");
        Ok(json!({"count": text.split('\n').count()}))
    }
}

impl ServerHandler for Bench {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.0.tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let empty = JsonObject::new();
        let args = request.arguments.as_ref().unwrap_or(&empty);
        let value = match request.name.as_ref() {
            "echo" => echo(args)?,
            "loop" => sum_loop(args)?,
            "wide" => wide(args)?,
            "count_files" => self.count_files(args).await?,
            other => return Err(bad(&format!("unknown tool `{other}`"))),
        };
        let mut result = CallToolResult::success(vec![ContentBlock::text(value.to_string())]);
        result.structured_content = Some(value);
        Ok(result.into())
    }
}

fn read_fs_spec(path: &str) -> Result<FsSpec, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let json: Value = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
    let fs = &json["mcpServers"]["filesystem"];
    Ok(FsSpec {
        command: fs["command"].as_str().unwrap_or_default().to_owned(),
        args: fs["args"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default(),
    })
}

async fn serve_http(handler: Bench, addr: SocketAddr, stateless: bool) -> Result<(), String> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    eprintln!("bench-handwritten: serving MCP on http://{local}/mcp");
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(!stateless)
        .with_json_response(stateless);
    let mcp = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        let mut mcp = mcp.clone();
        async move {
            use tower_service::Service;
            std::future::poll_fn(|cx| Service::<Request<Incoming>>::poll_ready(&mut mcp, cx))
                .await?;
            let response: Response<_> =
                Service::<Request<Incoming>>::call(&mut mcp, request).await?;
            Ok::<_, Infallible>(response)
        }
    });
    let builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
    loop {
        let (stream, _) = listener.accept().await.map_err(|e| e.to_string())?;
        let _ = stream.set_nodelay(true);
        let connection = builder
            .serve_connection_with_upgrades(TokioIo::new(stream), service.clone())
            .into_owned();
        tokio::spawn(async move {
            let _ = connection.await;
        });
    }
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let mut args = std::env::args().skip(1);
    let mut fs_spec = FsSpec::default();
    let mut http: Option<SocketAddr> = None;
    let mut stateless = false;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--mcp" => match args.next().map(|p| read_fs_spec(&p)) {
                Some(Ok(spec)) => fs_spec = spec,
                Some(Err(e)) => {
                    eprintln!("bench-handwritten: {e}");
                    return std::process::ExitCode::FAILURE;
                }
                None => {
                    eprintln!("bench-handwritten: --mcp needs a file");
                    return std::process::ExitCode::FAILURE;
                }
            },
            "serve" => {}
            "--http" => http = args.next().and_then(|a| a.parse().ok()),
            "--stateless" => stateless = true,
            other => {
                eprintln!("bench-handwritten: unknown argument `{other}`");
                return std::process::ExitCode::FAILURE;
            }
        }
    }
    let handler = Bench(Arc::new(Shared {
        fs_spec,
        fs: OnceCell::new(),
        tools: tools(),
    }));
    if let Some(addr) = http {
        return match serve_http(handler, addr, stateless).await {
            Ok(()) => std::process::ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("bench-handwritten: {e}");
                std::process::ExitCode::FAILURE
            }
        };
    }
    let Ok(service) = handler.serve(rmcp::transport::stdio()).await else {
        return std::process::ExitCode::FAILURE;
    };
    let _ = service.waiting().await;
    std::process::ExitCode::SUCCESS
}
