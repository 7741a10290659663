//! Raw JSON-RPC over an example server's stdio: JSON lines written and
//! read by hand, every stdout line checked to be a JSON-RPC 2.0 message.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};

use crate::{RAW_TIMEOUT, command, command_with_mcp, timed};

/// An example server spawned over stdio, spoken to with raw JSON lines.
/// Every line it writes on stdout must be a JSON-RPC 2.0 message.
pub struct RawServer {
    pub name: String,
    child: tokio::process::Child,
    stdin: Option<tokio::process::ChildStdin>,
    stdout: tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>,
    /// Every message received so far (responses and notifications).
    pub received: Vec<Value>,
}

impl RawServer {
    /// Spawns `<bin> [--mcp FILE] [extra...]` with piped stdin/stdout (stderr
    /// is discarded).
    pub fn spawn(name: &str, extra: &[&str]) -> RawServer {
        Self::spawn_command(name, command(name), extra)
    }

    /// Like [`RawServer::spawn`], but with `--mcp mcp_file` as the only
    /// global option (instead of the harness's): `<bin> --mcp FILE [extra...]`.
    pub fn spawn_with_mcp(name: &str, mcp_file: &Path, extra: &[&str]) -> RawServer {
        Self::spawn_command(name, command_with_mcp(name, mcp_file), extra)
    }

    /// Spawns `program args...` (any MCP server over stdio, not only an
    /// example), named `name` in messages.
    pub fn spawn_program(name: &str, program: &Path, args: &[&str]) -> RawServer {
        let mut cmd = tokio::process::Command::new(program);
        cmd.kill_on_drop(true);
        Self::spawn_command(name, cmd, args)
    }

    fn spawn_command(name: &str, mut cmd: tokio::process::Command, extra: &[&str]) -> RawServer {
        use tokio::io::AsyncBufReadExt;
        cmd.args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot spawn {name}: {e}"));
        let stdin = child.stdin.take();
        let stdout = tokio::io::BufReader::new(child.stdout.take().expect("stdout piped")).lines();
        RawServer {
            name: name.to_string(),
            child,
            stdin,
            stdout,
            received: Vec::new(),
        }
    }

    /// The process id (while it runs).
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// Waits for the process to exit (stdin stays open); `None` if it is
    /// still running after `limit`.
    pub async fn wait_exit(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        match tokio::time::timeout(limit, self.child.wait()).await {
            Ok(status) => Some(status.expect("wait for server")),
            Err(_) => None,
        }
    }

    /// Writes one JSON value as one line.
    pub async fn send(&mut self, msg: &Value) {
        self.send_line(&msg.to_string()).await;
    }

    /// Writes one raw line (a newline is appended).
    pub async fn send_line(&mut self, line: &str) {
        use tokio::io::AsyncWriteExt;
        let stdin = self.stdin.as_mut().expect("stdin still open");
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        let name = self.name.clone();
        timed(&format!("{name}: write to stdin"), async {
            stdin
                .write_all(&bytes)
                .await
                .expect("write to server stdin");
            stdin.flush().await.expect("flush server stdin");
        })
        .await;
    }

    /// Next message on stdout; `None` at EOF. Fails if it is not a JSON-RPC
    /// 2.0 message or takes longer than [`RAW_TIMEOUT`].
    pub async fn recv(&mut self) -> Option<Value> {
        let line = match tokio::time::timeout(RAW_TIMEOUT, self.stdout.next_line()).await {
            Ok(Ok(line)) => line?,
            Ok(Err(e)) => panic!("{}: reading stdout failed: {e}", self.name),
            Err(_) => panic!(
                "{}: no message on stdout within {RAW_TIMEOUT:?} (received so far: {:?})",
                self.name, self.received
            ),
        };
        let v = check_jsonrpc_line(&self.name, &line);
        self.received.push(v.clone());
        Some(v)
    }

    /// Reads until the response with `id` (skipping notifications and
    /// server-to-client requests); fails on EOF or timeout.
    pub async fn response(&mut self, id: &Value) -> Value {
        loop {
            let msg = self.recv().await.unwrap_or_else(|| {
                panic!(
                    "{}: stdout closed before the response to id {id}",
                    self.name
                )
            });
            let is_response = msg.get("method").is_none();
            if is_response && msg.get("id") == Some(id) {
                return msg;
            }
        }
    }

    /// Sends a request and returns its response.
    pub async fn request(&mut self, id: i64, method: &str, params: Option<Value>) -> Value {
        let mut msg = json!({ "jsonrpc": "2.0", "id": id, "method": method });
        if let Some(p) = params {
            msg["params"] = p;
        }
        self.send(&msg).await;
        self.response(&json!(id)).await
    }

    /// The legacy handshake: `initialize` (id 0) + `notifications/initialized`.
    /// Returns the initialize result.
    pub async fn initialize(&mut self) -> Value {
        let resp = self
            .request(
                0,
                "initialize",
                Some(json!({
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": { "name": "mcpgraph-tests-raw", "version": "0.0.0" }
                })),
            )
            .await;
        let result = resp
            .get("result")
            .unwrap_or_else(|| panic!("{}: initialize failed: {resp}", self.name))
            .clone();
        self.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
            .await;
        result
    }

    /// Closes stdin, then reads stdout to EOF (checking every line) and waits
    /// for the process to exit; returns the exit status and how long the exit
    /// took after stdin was closed. Kills it and fails after `limit`.
    pub async fn close_and_wait(mut self, limit: Duration) -> (std::process::ExitStatus, Duration) {
        drop(self.stdin.take());
        let start = std::time::Instant::now();
        let name = self.name.clone();
        let drained = tokio::time::timeout(limit, async {
            while self.recv().await.is_some() {}
            self.child.wait().await.expect("wait for server")
        })
        .await;
        match drained {
            Ok(status) => (status, start.elapsed()),
            Err(_) => {
                let _ = self.child.kill().await;
                panic!("{name}: still running {limit:?} after its stdin was closed");
            }
        }
    }
}

/// Parses one stdout line, failing unless it is a JSON-RPC 2.0 message.
pub fn check_jsonrpc_line(name: &str, line: &str) -> Value {
    let v: Value = serde_json::from_str(line)
        .unwrap_or_else(|e| panic!("{name}: non-JSON line on stdout ({e}): {line:?}"));
    assert_eq!(
        v.get("jsonrpc"),
        Some(&json!("2.0")),
        "{name}: not a JSON-RPC 2.0 message on stdout: {line}"
    );
    assert!(
        v.get("method").is_some() || v.get("result").is_some() || v.get("error").is_some(),
        "{name}: stdout line is neither a request/notification nor a response: {line}"
    );
    v
}
