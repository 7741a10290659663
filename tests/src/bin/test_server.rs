//! A small MCP server for tests of the downstream side: it answers in every
//! shape FORMAT.md converts (structured, JSON text, plain text, images, audio, no
//! content, `isError`) and misbehaves on request: slow answers, no answer,
//! a frozen process, garbage or malformed lines on stdout, huge payloads,
//! crashes, a wedged HTTP session.
//!
//! Flags (for misbehaviour before any request):
//! - `--crash-on-start`: write a line on stderr and exit 4 before the handshake;
//! - `--silent`: never answer anything (the handshake hangs);
//! - `--garbage-on-start`: print a non-JSON line on stdout first, then serve;
//! - `--slow-start MS`: wait MS milliseconds before serving;
//! - `--describe TAG`: write `TAG`, the working directory and
//!   `$MCPGRAPH_TEST_GREETING` on stderr, then serve;
//! - `--drift`: list its tools as a newer version of itself would: `image`
//!   gone, and `text` requiring `text` (a number now) and `lang` (for the
//!   schema lock's drift tests);
//! - `--list-error N`: fail the first N `tools/list` requests with an error
//!   (then list as usual), for the lock's fail-closed tests;
//! - `--list-hang`: never answer `tools/list` (other requests are served);
//! - `--endless-cursor again|fresh`: answer every `tools/list` page with a
//!   `nextCursor`, forever: `again` always the same one, `fresh` a new one
//!   each page (for the bounds on pagination);
//! - `--stdout-line TEXT`: print TEXT on stdout (not JSON) first, then serve;
//! - `--env-file PATH`: write its environment (`NAME=value` lines) to PATH,
//!   then serve (for the allow-listed environment of downstream servers);
//! - `--legacy`: answer `server/discover` with -32601, as a server of MCP
//!   2025-11-25 or earlier does, so clients fall back to `initialize`;
//! - `--no-ping`: answer `ping` with -32601 (method not found), as a server
//!   of MCP 2026-07-28 (which has no `ping`) does;
//! - `--stop-reading-and-ping-flood`: answer the first tool call, then stop
//!   reading stdin and flood stdout with `ping` requests, forever;
//! - `--http-busy N:SECS` (before `--http`): answer the first N tool calls
//!   HTTP 429 with `Retry-After: SECS`;
//! - `--http PORT`: serve streamable HTTP on `127.0.0.1:PORT/mcp` instead of
//!   stdio (stateful sessions; `crash` ends the whole process, so the URL
//!   vanishes until a new server binds the port).
//!
//! It also answers `list_directory` (the tool the file_utils example calls),
//! so that example can be pointed at it with `--mcp`: a `path` of `@crash`,
//! `@hang`, `@garbage`, `@malformed` or `@huge:<bytes>` misbehaves, any
//! other path lists three entries.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, DiscoverResult,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, ServerHandler, ServiceExt};
use serde_json::{Value, json};

#[path = "test_server/asking.rs"]
mod asking;
#[path = "test_server/faults.rs"]
mod faults;
#[path = "test_server/http.rs"]
mod http;
#[path = "test_server/media.rs"]
mod media;
#[path = "test_server/meta.rs"]
mod meta;
#[path = "test_server/questioner.rs"]
mod questioner;
#[path = "test_server/tools.rs"]
mod tools;

use faults::{CANCELLED, crash, hang, huge, malformed, raw_stdout};
use tools::TOOLS;

/// One per session over HTTP (one in all over stdio).
#[derive(Default)]
struct TestServer {
    /// Set by `wedge`: this session answers nothing more, pings included.
    wedged: std::sync::atomic::AtomicBool,
}

/// Tool calls received.
static CALLS: AtomicU64 = AtomicU64::new(0);
/// Set by `--drift`.
static DRIFT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
/// `tools/list` requests still to fail (`--list-error`).
static LIST_ERRORS: AtomicU64 = AtomicU64::new(0);
/// Set by `--legacy`.
static LEGACY: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
/// Set by `--no-ping`.
static NO_PING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
/// Set by `--list-hang`.
static LIST_HANG: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
/// `--endless-cursor`: 0 off, 1 `again`, 2 `fresh`.
static ENDLESS: AtomicU64 = AtomicU64::new(0);
/// `tools/list` requests answered.
static LISTED: AtomicU64 = AtomicU64::new(0);

fn arg<'a>(request: &'a CallToolRequestParams, key: &str) -> Option<&'a Value> {
    request.arguments.as_ref().and_then(|a| a.get(key))
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn discover(
        &self,
        _context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, McpError> {
        if LEGACY.load(Ordering::SeqCst) {
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

    async fn ping(&self, _context: RequestContext<RoleServer>) -> Result<(), McpError> {
        if self.wedged.load(Ordering::SeqCst) {
            std::future::pending::<()>().await;
        }
        if NO_PING.load(Ordering::SeqCst) {
            let code = rmcp::model::ErrorCode::METHOD_NOT_FOUND;
            return Err(McpError::new(code, "Method not found: ping", None));
        }
        Ok(())
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
        let failing =
            LIST_ERRORS.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
        if failing.is_ok() {
            return Err(McpError::internal_error(
                "tools/list fails on purpose (--list-error)",
                None,
            ));
        }
        if LIST_HANG.load(Ordering::SeqCst) {
            std::future::pending::<()>().await;
        }
        let page = LISTED.fetch_add(1, Ordering::SeqCst);
        let drift = DRIFT.load(Ordering::SeqCst);
        let text_schema = Arc::new(
            json!({"type": "object", "required": ["text", "lang"],
                   "properties": {"text": {"type": "number"}, "lang": {"type": "string"}}})
            .as_object()
            .cloned()
            .unwrap_or_default(),
        );
        let mut listed = ListToolsResult::with_all_items(
            TOOLS
                .iter()
                .filter(|(name, _)| !(drift && *name == "image"))
                .map(|(name, description)| match *name {
                    "text" if drift => Tool::new(*name, *description, Arc::clone(&text_schema)),
                    "read_slowly" => Tool::new(*name, *description, Arc::clone(&schema))
                        .annotate(ToolAnnotations::new().read_only(true)),
                    _ => Tool::new(*name, *description, Arc::clone(&schema)),
                })
                .collect(),
        );
        listed.next_cursor = match ENDLESS.load(Ordering::SeqCst) {
            1 => Some("again".to_owned()),
            2 => Some(format!("page-{page}")),
            _ => None,
        };
        Ok(listed)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        CALLS.fetch_add(1, Ordering::SeqCst);
        faults::flood_soon();
        if self.wedged.load(Ordering::SeqCst) || request.name.as_ref() == "wedge" {
            self.wedged.store(true, Ordering::SeqCst);
            std::future::pending::<()>().await;
        }
        let value = arg(&request, "value").cloned().unwrap_or(Value::Null);
        let result = match request.name.as_ref() {
            "ask" => return Ok(asking::ask(&request)),
            "ask_each" => return asking::ask_each(&request, &context),
            "ask_forever" => questioner::ask_forever(&context).await,
            "ask_once" => questioner::ask_once(&context).await,
            "big_error" => questioner::big_error(&request),
            "echo_meta" => meta::echo_meta(&context),
            "progress" => meta::progress(&context).await,
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
            "audio" => media::audio(),
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
            "read_slowly" | "write_slowly" => slowly(&request).await,
            "sleep" => {
                let ms = arg(&request, "ms").and_then(Value::as_u64).unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                let mut r = CallToolResult::success(vec![]);
                r.structured_content = Some(json!({"slept": ms}));
                r
            }
            "crash" => crash(
                arg(&request, "stderr_lines")
                    .and_then(Value::as_u64)
                    .unwrap_or(1),
            ),
            "hang" => hang(&context).await,
            "freeze" => {
                let ms = arg(&request, "ms")
                    .and_then(Value::as_u64)
                    .unwrap_or(3_600_000);
                // Blocks the only runtime thread: nothing else is answered.
                std::thread::sleep(Duration::from_millis(ms));
                CallToolResult::success(vec![ContentBlock::text("thawed")])
            }
            "garbage" => {
                raw_stdout("this is not JSON {{{");
                if arg(&request, "answer").and_then(Value::as_bool) == Some(false) {
                    std::future::pending::<()>().await;
                }
                let mut r = CallToolResult::success(vec![]);
                r.structured_content = Some(json!({"ok": true}));
                r
            }
            "malformed" => malformed(&context).await,
            "flaky" => {
                let counter = arg(&request, "counter")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let failures = arg(&request, "failures")
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
                let how = arg(&request, "how")
                    .and_then(Value::as_str)
                    .unwrap_or("crash");
                faults::flaky(counter, failures, how, &context).await
            }
            "huge" => huge(arg(&request, "bytes").and_then(Value::as_u64).unwrap_or(0)),
            "stats" => {
                let mut r = CallToolResult::success(vec![]);
                r.structured_content = Some(json!({
                    "calls": CALLS.load(Ordering::SeqCst),
                    "cancelled": CANCELLED.load(Ordering::SeqCst),
                    "protocol": context.protocol_version(),
                }));
                r
            }
            "list_directory" => {
                let path = arg(&request, "path").and_then(Value::as_str).unwrap_or("");
                match path {
                    "@crash" => crash(1),
                    "@hang" => hang(&context).await,
                    "@garbage" => {
                        raw_stdout("this is not JSON either");
                        std::future::pending::<CallToolResult>().await
                    }
                    "@malformed" => malformed(&context).await,
                    _ => match (path.strip_prefix("@huge:"), path.strip_prefix("@slow:")) {
                        (Some(n), _) => huge(n.parse().unwrap_or(0)),
                        // The listing after `ms` milliseconds.
                        (_, Some(ms)) => {
                            let ms = ms.parse().unwrap_or(0);
                            tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
                            CallToolResult::success(vec![ContentBlock::text("[FILE] a.txt")])
                        }
                        _ => CallToolResult::success(vec![ContentBlock::text(
                            "[FILE] a.txt\n[FILE] b.txt\n[DIR] sub",
                        )]),
                    },
                }
            }
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
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--http" => {
                let port = args.next().and_then(|p| p.parse::<u16>().ok());
                let Some(port) = port else {
                    eprintln!("test server: --http needs a port");
                    std::process::exit(2);
                };
                http::serve_http(port).await;
                return;
            }
            "--http-busy" => {
                let spec = args.next().unwrap_or_default();
                let parsed = spec
                    .split_once(':')
                    .and_then(|(n, s)| Some((n.parse::<u64>().ok()?, s.parse::<u64>().ok()?)));
                let Some((calls, secs)) = parsed else {
                    eprintln!("test server: --http-busy needs N:SECS");
                    std::process::exit(2);
                };
                http::BUSY_CALLS.store(calls, Ordering::SeqCst);
                http::BUSY_RETRY_AFTER.store(secs, Ordering::SeqCst);
            }
            "--crash-on-start" => {
                eprintln!("test server: refusing to start (--crash-on-start)");
                std::process::exit(4);
            }
            "--silent" => {
                // Keep stdin open and never answer.
                std::future::pending::<()>().await;
            }
            "--garbage-on-start" => raw_stdout("test server starting (not JSON)"),
            "--stdout-line" => raw_stdout(&args.next().unwrap_or_default()),
            "--env-file" => faults::write_env(&args.next().unwrap_or_default()),
            "--stop-reading-and-ping-flood" => faults::FLOOD.store(true, Ordering::SeqCst),
            "--drift" => DRIFT.store(true, Ordering::SeqCst),
            "--list-error" => {
                let n = args.next().and_then(|n| n.parse::<u64>().ok());
                let Some(n) = n else {
                    eprintln!("test server: --list-error needs a count");
                    std::process::exit(2);
                };
                LIST_ERRORS.store(n, Ordering::SeqCst);
            }
            "--list-hang" => LIST_HANG.store(true, Ordering::SeqCst),
            "--no-ping" => NO_PING.store(true, Ordering::SeqCst),
            "--legacy" => LEGACY.store(true, Ordering::SeqCst),
            "--endless-cursor" => {
                let mode = match args.next().as_deref() {
                    Some("again") => 1,
                    Some("fresh") => 2,
                    _ => {
                        eprintln!("test server: --endless-cursor needs `again` or `fresh`");
                        std::process::exit(2);
                    }
                };
                ENDLESS.store(mode, Ordering::SeqCst);
            }
            "--slow-start" => {
                // A server that takes its time before it answers anything.
                let ms = args
                    .next()
                    .and_then(|m| m.parse::<u64>().ok())
                    .unwrap_or(1000);
                tokio::time::sleep(Duration::from_millis(ms)).await;
            }
            "--describe" => {
                // How it was started, for tests of `${VAR}` expansion.
                let tag = args.next().unwrap_or_default();
                let cwd = std::env::current_dir().unwrap_or_default();
                let greeting = std::env::var("MCPGRAPH_TEST_GREETING")
                    .unwrap_or_else(|_| "<unset>".to_owned());
                eprintln!(
                    "test server: started: tag={tag} cwd={} greeting={greeting}",
                    cwd.display()
                );
            }
            other => {
                eprintln!("test server: unknown flag {other}");
                std::process::exit(2);
            }
        }
    }
    let Ok(service) = TestServer::default().serve(rmcp::transport::stdio()).await else {
        std::process::exit(2);
    };
    let _ = service.waiting().await;
}

/// `read_slowly` and `write_slowly`: `item` appended to the file `log` (a
/// line each call: a test counts the calls), then `ms` of waiting.
async fn slowly(request: &CallToolRequestParams) -> CallToolResult {
    use std::io::Write;
    let item = arg(request, "item").cloned().unwrap_or(Value::Null);
    if let Some(log) = arg(request, "log").and_then(Value::as_str) {
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .and_then(|mut f| writeln!(f, "{item}"));
        if let Err(e) = written {
            return CallToolResult::error(vec![ContentBlock::text(format!("cannot log: {e}"))]);
        }
    }
    let ms = arg(request, "ms").and_then(Value::as_u64).unwrap_or(0);
    tokio::time::sleep(Duration::from_millis(ms)).await;
    let mut r = CallToolResult::success(vec![ContentBlock::text(item.to_string())]);
    r.structured_content = Some(json!({ "item": item }));
    r
}
