//! The official SDK clients (`tests/clients/*`, Python and TypeScript):
//! one run against a server, and what it printed.

use std::path::PathBuf;
use std::process::Stdio;

use serde_json::Value;

use crate::{bin_path, example_dir, global_args, peers_node, peers_python, repo_root, timed};

/// Which official SDK client to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sdk {
    /// `tests/clients/python_client.py` on the Python `mcp` SDK (peers/.venv).
    Python,
    /// `tests/clients/ts_client.mjs` on `@modelcontextprotocol/sdk` (peers/node_modules).
    TypeScript,
}

/// Where an SDK client connects.
#[derive(Debug, Clone)]
pub enum Target {
    /// Streamable HTTP at this URL, with these `Name: value` headers.
    Http { url: String, headers: Vec<String> },
    /// The example binary of this name, spawned by the client over stdio
    /// (with the harness's global options, in the example's folder).
    Stdio(String),
    /// This program with these arguments, spawned by the client over stdio.
    Program(std::path::PathBuf, Vec<String>),
}

/// What one SDK client run printed.
#[derive(Debug)]
pub struct SdkRun {
    pub code: Option<i32>,
    /// The JSON lines of stdout.
    pub lines: Vec<Value>,
    pub stdout: String,
    pub stderr: String,
}

impl SdkRun {
    fn event(&self, name: &str) -> Vec<&Value> {
        self.lines.iter().filter(|l| l["event"] == name).collect()
    }

    /// The `initialize` line; fails the test if there is none.
    pub fn initialize(&self) -> &Value {
        self.event("initialize")
            .first()
            .copied()
            .unwrap_or_else(|| panic!("SDK client printed no initialize line: {self:#?}"))
    }

    /// The tool names from `tools/list`.
    pub fn tools(&self) -> Vec<String> {
        let line = self
            .event("tools")
            .first()
            .copied()
            .unwrap_or_else(|| panic!("SDK client printed no tools line: {self:#?}"));
        line["tools"]
            .as_array()
            .expect("tools[]")
            .iter()
            .map(|t| t.as_str().expect("tool name").to_string())
            .collect()
    }

    /// The `call` lines, in call order.
    pub fn calls(&self) -> Vec<&Value> {
        self.event("call")
    }

    /// The `asked` lines: the questions the client was asked (`--elicit`,
    /// `--sample`), in order.
    pub fn asked(&self) -> Vec<&Value> {
        self.event("asked")
    }
}

/// The text of a `call` line's result (its text items joined by newlines,
/// as [`crate::result_text`] reads them) and whether it is an error
/// (`isError: true`); empty and `false` for a line with no result.
pub fn call_text(call: &Value) -> (String, bool) {
    match serde_json::from_value::<rmcp::model::CallToolResult>(call["result"].clone()) {
        Ok(result) => (crate::result_text(&result), result.is_error == Some(true)),
        Err(_) => (String::new(), false),
    }
}

/// `tests/clients`.
pub fn clients_dir() -> PathBuf {
    repo_root().join("tests/clients")
}

/// Runs one SDK client against `target` with `calls` (a JSON array of
/// `{"name", "arguments"}`), bounded by [`TIMEOUT`].
pub async fn run_sdk_client(sdk: Sdk, target: &Target, calls: &Value) -> SdkRun {
    run_sdk_client_with(sdk, target, calls, &[]).await
}

/// [`run_sdk_client`] with more options for the client (`--elicit accept`,
/// `--sample TEXT`: see the clients' usage).
pub async fn run_sdk_client_with(
    sdk: Sdk,
    target: &Target,
    calls: &Value,
    options: &[&str],
) -> SdkRun {
    let mut cmd = match sdk {
        Sdk::Python => {
            let mut c = tokio::process::Command::new(peers_python());
            c.arg(clients_dir().join("python_client.py"));
            c
        }
        Sdk::TypeScript => {
            let mut c = tokio::process::Command::new(peers_node());
            c.arg(clients_dir().join("ts_client.mjs"));
            c
        }
    };
    cmd.arg("--calls").arg(calls.to_string()).args(options);
    match target {
        Target::Http { url, headers } => {
            for h in headers {
                cmd.arg("--header").arg(h);
            }
            cmd.arg("--http").arg(url);
        }
        Target::Stdio(name) => {
            cmd.arg("--cwd")
                .arg(example_dir(name))
                .arg("--stdio")
                .arg(bin_path(name))
                .args(global_args(name));
        }
        Target::Program(program, args) => {
            cmd.arg("--stdio").arg(program).args(args);
        }
    }
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let out = timed(&format!("{sdk:?} SDK client -> {target:?}"), cmd.output())
        .await
        .unwrap_or_else(|e| panic!("cannot run the {sdk:?} SDK client: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines = stdout
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("{sdk:?} SDK client: non-JSON line ({e}): {l:?}"))
        })
        .collect();
    SdkRun {
        code: out.status.code(),
        lines,
        stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Where an SDK client reaches the compiled server `program` (started with
/// the global options `args`): spawned by the client over stdio, or (with
/// `http`) served over streamable HTTP by a process the returned guard
/// keeps alive.
pub async fn program_target(
    program: &std::path::Path,
    args: &[String],
    http: bool,
) -> (Target, Option<crate::HttpServer>) {
    if !http {
        return (Target::Program(program.to_owned(), args.to_vec()), None);
    }
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args).args(["serve", "--http", "127.0.0.1:0"]);
    let name = program
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let server = crate::HttpServer::spawn(&name, cmd, &[]).await;
    let target = Target::Http {
        url: server.url(),
        headers: vec![],
    };
    (target, Some(server))
}
