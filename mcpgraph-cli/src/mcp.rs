//! `mcpgraph mcp`: an MCP server for an agent writing graphs, over stdio
//! or (`--http ADDR`, loopback only) streamable HTTP. Its tools check,
//! explain, lock, evaluate, run, test and draw (see `tools`); its resources
//! are the format's reference, the test files', the schemas, the examples
//! and a guide for agents (see `resources`).
//!
//! Files are read and written only under the directory it was started in
//! (`workdir`). `run_tool` and `test_graph` build the graph's crate and run
//! it: they start and call the servers the graph names, as the graph's own
//! binary would.

mod answers;
mod crates;
mod error;
mod eval;
mod resources;
mod tools;
mod workdir;

use std::net::SocketAddr;

use std::process::ExitCode;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Resource, ResourceContents, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, ServerHandler, ServiceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::CliError;
use answers::{blocking, explain};
use error::ToolError;
use tools::{ExplainArgs, JsonataArgs, LogicArgs};
use workdir::WorkDir;

/// What the server tells a client in `initialize`.
const INSTRUCTIONS: &str = "Tools for writing mcpgraph graph files (YAML graphs of MCP tool calls compiled into an MCP server). Read the resource mcpgraph://docs/AUTHORING.md first. Paths are relative to the directory this server was started in; nothing outside it is read or written. run_tool and test_graph build and run the graph: they start and call the downstream servers it names.";

/// `mcpgraph mcp`'s arguments.
#[derive(clap::Args)]
pub(crate) struct McpArgs {
    /// Serve streamable HTTP on this loopback address (e.g.
    /// 127.0.0.1:8765) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,
}

/// Runs the server until its client goes (stdio) or for ever (HTTP).
pub(crate) fn run(args: McpArgs) -> Result<ExitCode, CliError> {
    let here = std::env::current_dir().map_err(CliError::file("read", "."))?;
    let work = WorkDir::new(&here).map_err(CliError::file("read", &here))?;
    // No person answers a login prompt here: a server that needs one is
    // an error telling to run `mcpgraph auth login`.
    mcpgraph_downstream::allow_interactive_login(false);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(CliError::run("the async runtime"))?;
    let server = Authoring(Arc::new(Shared {
        work,
        tools: tools::definitions(),
        rules: eval::Rules::default(),
    }));
    runtime.block_on(async move {
        match args.http {
            Some(addr) => serve_http(server, addr).await,
            None => {
                let running = server
                    .serve(rmcp::transport::stdio())
                    .await
                    .map_err(|e| CliError::Usage(format!("cannot start the MCP session: {e}")))?;
                let _ = running.waiting().await;
                Ok(ExitCode::SUCCESS)
            }
        }
    })
}

/// Serves streamable HTTP at `/mcp` on a loopback address.
async fn serve_http(server: Authoring, addr: SocketAddr) -> Result<ExitCode, CliError> {
    use hyper_util::rt::{TokioExecutor, TokioIo};
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    if !addr.ip().is_loopback() {
        return Err(CliError::Usage(format!(
            "`--http {addr}`: the authoring server builds and runs graphs, so it listens on loopback addresses only (127.0.0.1, ::1)"
        )));
    }
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(CliError::run(format!("a listener on {addr}")))?;
    let local = listener.local_addr().map_err(CliError::run("a listener"))?;
    eprintln!("mcpgraph: serving MCP on http://{local}/mcp");
    let mcp = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let service =
        hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
            let mut mcp = mcp.clone();
            async move {
                use tower_service::Service;
                std::future::poll_fn(|cx| {
                    Service::<hyper::Request<hyper::body::Incoming>>::poll_ready(&mut mcp, cx)
                })
                .await?;
                Service::<hyper::Request<hyper::body::Incoming>>::call(&mut mcp, request).await
            }
        });
    let builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let connection = builder
            .serve_connection_with_upgrades(TokioIo::new(stream), service.clone())
            .into_owned();
        tokio::spawn(async move {
            let _ = connection.await;
        });
    }
}

/// What every session shares.
struct Shared {
    work: WorkDir,
    tools: Arc<[Tool]>,
    rules: eval::Rules,
}

/// The server.
#[derive(Clone)]
struct Authoring(Arc<Shared>);

impl ServerHandler for Authoring {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.0.tools.to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let name = request.name.as_ref();
        let result = match name {
            "check_graph" => structured(self.check(args(arguments)?)),
            "explain_diagnostic" => structured(explain(&args::<ExplainArgs>(arguments)?.code)),
            "lock_graph" => structured(self.lock(args(arguments)?).await),
            "list_server_tools" => structured(self.list(args(arguments)?).await),
            "eval_jsonata" => {
                let a: JsonataArgs = args(arguments)?;
                structured(blocking(move || eval::jsonata(&a.expression, &a.input)).await)
            }
            "eval_json_logic" => {
                let a: LogicArgs = args(arguments)?;
                let shared = Arc::clone(&self.0);
                structured(blocking(move || shared.rules.json_logic(&a.rule, &a.data)).await)
            }
            "run_tool" => structured(self.run_tool(args(arguments)?).await),
            "test_graph" => structured(self.test_graph(args(arguments)?).await),
            "draw_graph" => self.draw(args(arguments)?).unwrap_or_else(failure),
            other => {
                return Err(McpError::invalid_params(
                    format!(
                        "unknown tool `{other}`; the tools: {}",
                        self.0
                            .tools
                            .iter()
                            .map(|t| t.name.as_ref())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    None,
                ));
            }
        };
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let items = resources::RESOURCES
            .iter()
            .map(|r| {
                Resource::new(r.uri, r.name)
                    .with_description(r.description)
                    .with_mime_type(r.mime)
                    .with_size(r.text.len() as u64)
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(items))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let resource = resources::find(&request.uri).ok_or_else(|| {
            McpError::resource_not_found(
                format!("no resource `{}` (resources/list lists them)", request.uri),
                None,
            )
        })?;
        let contents =
            ResourceContents::text(resource.text, resource.uri).with_mime_type(resource.mime);
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}

/// A tool's arguments, or the protocol error for arguments of another
/// shape.
fn args<T: DeserializeOwned>(arguments: Value) -> Result<T, McpError> {
    serde_json::from_value(arguments)
        .map_err(|e| McpError::invalid_params(format!("invalid arguments: {e}"), None))
}

/// A result with its structured content (and the same JSON as text, for
/// clients that read only text); a [`ToolError`] as a tool error.
fn structured<T: Serialize>(result: Result<T, ToolError>) -> CallToolResult {
    match result
        .and_then(|value| serde_json::to_value(value).map_err(|e| ToolError::Usage(e.to_string())))
    {
        Ok(value) => {
            let mut result = CallToolResult::success(vec![ContentBlock::text(value.to_string())]);
            result.structured_content = Some(value);
            result
        }
        Err(e) => failure(e),
    }
}

/// A tool error: its text is the error's.
fn failure(e: ToolError) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(e.to_string())])
}
