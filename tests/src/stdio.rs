//! An example server over stdio under a real MCP client (rmcp): spawning
//! it with its stderr captured, calling tools, reading results.

use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use rmcp::service::ServiceError;
use rmcp::transport::TokioChildProcess;
use serde_json::{Map, Value};
use tokio::io::AsyncReadExt;

use crate::{Client, command, command_with_mcp, timed};

/// One example server spawned over stdio, with an initialized rmcp client.
/// Its stderr is captured and printed if the test panics.
pub struct Server {
    pub name: String,
    client: Option<Client>,
    stderr: Arc<Mutex<Vec<u8>>>,
}

impl Server {
    /// Spawns the example `name` (`<bin> [--mcp FILE]`, i.e. the default
    /// `serve` mode) and completes the MCP initialize handshake.
    pub async fn start(name: &str) -> Server {
        Self::start_with(name, &[]).await
    }

    /// Like [`Server::start`] with extra arguments after the global options
    /// (e.g. `["serve"]`).
    pub async fn start_with(name: &str, extra: &[&str]) -> Server {
        let mut cmd = command(name);
        cmd.args(extra);
        let (transport, stderr) = spawn_capturing_stderr(cmd);
        let mut server = Server {
            name: name.to_string(),
            client: None,
            stderr,
        };
        let client = timed(&format!("{name}: spawn + initialize"), ().serve(transport)).await;
        match client {
            Ok(c) => server.client = Some(c),
            Err(e) => panic!(
                "{name}: MCP initialize failed: {e}\nserver stderr:\n{}",
                server.stderr()
            ),
        }
        server
    }

    /// The initialized client.
    pub fn client(&self) -> &Client {
        self.client.as_ref().expect("client is open")
    }

    /// What the server wrote on stderr so far.
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }

    /// `tools/call`, returning the protocol-level outcome (a JSON-RPC error is
    /// `Err`); fails the test on timeout.
    pub async fn try_call(&self, tool: &str, args: Value) -> Result<CallToolResult, ServiceError> {
        let params = call_params(tool, args);
        timed(
            &format!("{}: tools/call {tool}", self.name),
            self.client().peer().call_tool(params),
        )
        .await
    }

    /// `tools/call` that must succeed at the protocol level (the result may
    /// still carry `isError: true`).
    pub async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        match self.try_call(tool, args.clone()).await {
            Ok(r) => r,
            Err(e) => panic!(
                "{}: tools/call {tool} {args} failed: {e}\nserver stderr:\n{}",
                self.name,
                self.stderr()
            ),
        }
    }

    /// `tools/list` (all pages).
    pub async fn list_tools(&self) -> Vec<Tool> {
        timed(
            &format!("{}: tools/list", self.name),
            self.client().list_all_tools(),
        )
        .await
        .unwrap_or_else(|e| panic!("{}: tools/list failed: {e}", self.name))
    }

    /// Closes the connection (stdin) and waits for the child to be reaped.
    pub async fn close(mut self) {
        if let Some(client) = self.client.take() {
            let _ = timed(&format!("{}: close", self.name), client.cancel()).await;
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("---- stderr of {} ----\n{}", self.name, self.stderr());
        }
    }
}

/// `CallToolRequestParams` for `tool` with `args` (which must be a JSON object).
pub fn call_params(tool: &str, args: Value) -> CallToolRequestParams {
    let args: Map<String, Value> = match args {
        Value::Object(m) => m,
        other => panic!("tool arguments must be an object, got {other}"),
    };
    CallToolRequestParams::new(tool.to_string()).with_arguments(args)
}

/// All text content of a result, joined with newlines.
pub fn result_text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The result as JSON (as it went over the wire), for assertion messages.
pub fn result_json(r: &CallToolResult) -> Value {
    serde_json::to_value(r).unwrap_or(Value::Null)
}

/// `file_utils --mcp mcp_file`, served over stdio and initialized by an
/// rmcp client; plus everything it writes on stderr, as it arrives.
pub async fn file_utils_over_stdio(mcp_file: &Path) -> (Client, Arc<Mutex<Vec<u8>>>) {
    stdio_client(command_with_mcp("file_utils", mcp_file)).await
}

/// `cmd` (a generated server) served over stdio and initialized by an rmcp
/// client; plus everything it writes on stderr, as it arrives.
pub async fn stdio_client(cmd: tokio::process::Command) -> (Client, Arc<Mutex<Vec<u8>>>) {
    let (transport, log) = spawn_capturing_stderr(cmd);
    let client = timed("initialize over stdio", ().serve(transport))
        .await
        .expect("initialize");
    (client, log)
}

/// Spawns `cmd` as an rmcp stdio transport whose stderr is collected into
/// the returned buffer as it arrives.
pub(crate) fn spawn_capturing_stderr(
    cmd: tokio::process::Command,
) -> (TokioChildProcess, Arc<Mutex<Vec<u8>>>) {
    let program = cmd.as_std().get_program().to_string_lossy().into_owned();
    let (transport, stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot spawn {program}: {e}"));
    let log = Arc::new(Mutex::new(Vec::new()));
    if let Some(mut pipe) = stderr {
        let sink = Arc::clone(&log);
        tokio::spawn(async move {
            let mut buf = [0u8; 4096];
            while let Ok(n @ 1..) = pipe.read(&mut buf).await {
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
    }
    (transport, log)
}
