//! Test harness for the mcpgraph end-to-end tests.
//!
//! The tests in `tests/tests/*.rs` drive the compiled example servers
//! (`target/<profile>/{file_utils,loop_example,switch_example,test_minimal}`)
//! over stdio with a real MCP client (rmcp), with the raw JSON-RPC wire, and
//! through their command line. The binaries are NOT built by this crate: run
//! `cargo build --workspace` (or `scripts/test.sh`) first.
//!
//! `file_utils` calls `@modelcontextprotocol/server-filesystem`; the harness
//! always passes `--mcp FILE` pointing its `filesystem` server at the pinned
//! copy in `peers/node_modules` (install with `scripts/install-peers.sh`),
//! allowed on `examples/file_utils/counting`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::TokioChildProcess;
use serde_json::{Map, Value, json};
use tokio::io::AsyncReadExt;

pub use rmcp;

pub mod sse_server;

/// The example binaries, each compiled from `examples/<name>/<name>.yaml`.
pub const EXAMPLES: [&str; 4] = [
    "file_utils",
    "loop_example",
    "switch_example",
    "test_minimal",
];

/// Version of `@modelcontextprotocol/server-filesystem` pinned in `peers/`.
pub const FILESYSTEM_SERVER_VERSION: &str = "2026.8.31";

/// Upper bound for one step (spawn + initialize, one call, one list, one
/// process run). Generous for a loaded 2-core CI machine; its only job is to
/// turn a hang into a failure.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// The MCP client type used by the tests.
pub type Client = RunningService<RoleClient, ()>;

// ---------------------------------------------------------------------------
// Paths
// ---------------------------------------------------------------------------

/// The workspace root (the parent of this crate's directory), canonicalized.
pub fn repo_root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        let root = manifest.parent().expect("tests/ has a parent directory");
        root.canonicalize()
            .unwrap_or_else(|e| panic!("cannot canonicalize repo root {}: {e}", root.display()))
    })
}

/// mcpGraph's example graphs, data and expected results, copied into the
/// repository: `testdata/mcpgraph` (provenance in `testdata/README.md`).
pub fn compat_dir() -> PathBuf {
    repo_root().join("testdata/mcpgraph")
}

/// `examples/<name>` in the repo.
pub fn example_dir(name: &str) -> PathBuf {
    repo_root().join("examples").join(name)
}

/// `examples/<name>/<name>.yaml`: the graph the binary `<name>` compiles.
pub fn example_yaml(name: &str) -> PathBuf {
    example_dir(name).join(format!("{name}.yaml"))
}

/// The data folder of the file_utils example (a copy of `testdata/mcpgraph/counting/`).
pub fn counting_dir() -> PathBuf {
    let dir = example_dir("file_utils").join("counting");
    dir.canonicalize()
        .unwrap_or_else(|e| panic!("missing example data folder {}: {e}", dir.display()))
}

/// The binary name for a compat file name (`loop_example.yaml` → `loop_example`).
pub fn bin_for_file(file: &str) -> &str {
    file.strip_suffix(".yaml")
        .unwrap_or_else(|| panic!("compat file {file} does not end in .yaml"))
}

/// Directories where cargo puts the final binaries of the profile this test
/// was built with, best first.
fn candidate_bin_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let mut profile = String::from("debug");
    if let Ok(exe) = std::env::current_exe() {
        // Integration tests live in <target>/<profile>/deps/<name>-<hash>;
        // the binaries are in <target>/<profile>/.
        if let Some(parent) = exe.parent() {
            if parent.file_name().is_some_and(|n| n == "deps")
                && let Some(profile_dir) = parent.parent()
            {
                if let Some(p) = profile_dir.file_name().and_then(|p| p.to_str()) {
                    profile = p.to_string();
                }
                dirs.push(profile_dir.to_path_buf());
            }
            dirs.push(parent.to_path_buf());
        }
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        let target = PathBuf::from(target);
        let target = if target.is_absolute() {
            target
        } else {
            repo_root().join(target)
        };
        dirs.push(target.join(&profile));
        dirs.push(target.join("debug"));
    }
    dirs.push(repo_root().join("target").join(&profile));
    dirs.push(repo_root().join("target").join("debug"));
    let mut unique: Vec<PathBuf> = Vec::new();
    for d in dirs {
        if !unique.contains(&d) {
            unique.push(d);
        }
    }
    unique
}

/// Absolute path of the example binary `name`; panics with a clear message
/// when it has not been built.
pub fn bin_path(name: &str) -> PathBuf {
    let file = format!("{name}{}", std::env::consts::EXE_SUFFIX);
    let dirs = candidate_bin_dirs();
    for dir in &dirs {
        let p = dir.join(&file);
        if p.is_file() {
            return p;
        }
    }
    panic!(
        "example binary `{file}` not found (looked in: {}). \
         The tests drive the compiled example servers: run `cargo build --workspace` \
         (or scripts/test.sh) before `cargo test`.",
        dirs.iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
}

fn which(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

/// `peers/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js`
/// (its package `bin` entry), checking that the pinned version is installed.
pub fn filesystem_server_js() -> PathBuf {
    let pkg = repo_root().join("peers/node_modules/@modelcontextprotocol/server-filesystem");
    let manifest = pkg.join("package.json");
    let text = std::fs::read_to_string(&manifest).unwrap_or_else(|e| {
        panic!(
            "{} not readable ({e}): install the pinned test peers with \
             `scripts/install-peers.sh` (or `npm ci --prefix peers`)",
            manifest.display()
        )
    });
    let v: Value = serde_json::from_str(&text).expect("server-filesystem package.json is JSON");
    assert_eq!(
        v["version"], FILESYSTEM_SERVER_VERSION,
        "peers/ has the wrong server-filesystem version; run scripts/install-peers.sh"
    );
    let bin = match &v["bin"] {
        Value::String(s) => s.clone(),
        Value::Object(m) => m
            .get("mcp-server-filesystem")
            .or_else(|| m.values().next())
            .and_then(Value::as_str)
            .expect("server-filesystem bin entry")
            .to_string(),
        other => panic!("unexpected bin entry in server-filesystem package.json: {other}"),
    };
    let js = pkg.join(bin);
    assert!(
        js.is_file(),
        "{} missing: run scripts/install-peers.sh",
        js.display()
    );
    js
}

/// The `--mcp` override JSON for file_utils: the compiled-in `filesystem`
/// server replaced by the pinned local one, allowed on [`counting_dir`].
pub fn mcp_override_json() -> Value {
    let node = which("node").expect("`node` not found on PATH (needed by the filesystem peer)");
    json!({
        "mcpServers": {
            "filesystem": {
                "command": node,
                "args": [filesystem_server_js(), counting_dir()],
            }
        }
    })
}

/// Path of a file holding [`mcp_override_json`]: `mcpgraph-tests/mcp-override.json`
/// beside the example binaries (written once per process, atomically; every
/// process writes the same content).
pub fn mcp_override_file() -> &'static Path {
    static FILE: OnceLock<PathBuf> = OnceLock::new();
    FILE.get_or_init(|| {
        let bin = bin_path("file_utils");
        let dir = bin
            .parent()
            .expect("binary has a parent dir")
            .join("mcpgraph-tests");
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        let path = dir.join("mcp-override.json");
        let tmp = dir.join(format!("mcp-override.json.{}.tmp", std::process::id()));
        let text = serde_json::to_string_pretty(&mcp_override_json()).unwrap();
        std::fs::write(&tmp, text).expect("write --mcp override file");
        std::fs::rename(&tmp, &path).expect("rename --mcp override file");
        path
    })
}

/// Global options to pass to the example `name` before any subcommand:
/// `--mcp FILE` for file_utils, nothing for the others.
pub fn global_args(name: &str) -> Vec<OsString> {
    if name == "file_utils" {
        vec!["--mcp".into(), mcp_override_file().as_os_str().to_owned()]
    } else {
        Vec::new()
    }
}

/// A command running the example `name` with its global options; the caller
/// appends a subcommand (or none for the stdio server). The working
/// directory is the example's folder.
pub fn command(name: &str) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(bin_path(name));
    cmd.args(global_args(name));
    cmd.current_dir(example_dir(name));
    cmd.kill_on_drop(true);
    cmd
}

// ---------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------

/// Parses a YAML file into JSON.
pub fn load_yaml(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    // YAML 1.2 core schema, as mcpGraph's `yaml` package reads it: `n`,
    // `yes`, `off` are strings, not booleans.
    let mut options = serde_saphyr::Options::default();
    options.strict_booleans = true;
    serde_saphyr::from_str_with_options::<Value>(&text, options)
        .unwrap_or_else(|e| panic!("cannot parse {} as YAML: {e}", path.display()))
}

/// The parsed `testdata/mcpgraph/expected.json`.
pub fn expected() -> Value {
    let path = compat_dir().join("expected.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("bad JSON in {}: {e}", path.display()))
}

/// Replaces `<this folder>` in every string of `v` with `folder`.
pub fn substitute_this_folder(v: &Value, folder: &Path) -> Value {
    match v {
        Value::String(s) => Value::String(s.replace("<this folder>", &folder.to_string_lossy())),
        Value::Array(a) => Value::Array(
            a.iter()
                .map(|x| substitute_this_folder(x, folder))
                .collect(),
        ),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| (k.clone(), substitute_this_folder(x, folder)))
                .collect(),
        ),
        other => other.clone(),
    }
}

// ---------------------------------------------------------------------------
// Running a server under a real MCP client
// ---------------------------------------------------------------------------

/// Awaits `fut`, failing with `what` if it takes longer than [`TIMEOUT`].
pub async fn timed<F: std::future::Future>(what: &str, fut: F) -> F::Output {
    match tokio::time::timeout(TIMEOUT, fut).await {
        Ok(v) => v,
        Err(_) => panic!("timed out after {TIMEOUT:?}: {what}"),
    }
}

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

// ---------------------------------------------------------------------------
// Running the CLI
// ---------------------------------------------------------------------------

/// Outcome of one CLI run.
#[derive(Debug)]
pub struct CliOutput {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `<bin> [global options] <args...>` with stdin closed, under [`TIMEOUT`].
pub async fn run_cli(name: &str, args: &[&str]) -> CliOutput {
    run_cli_with_env(name, args, &[]).await
}

/// [`run_cli`] with environment changes: `(name, Some(value))` sets a
/// variable, `(name, None)` removes it.
pub async fn run_cli_with_env(
    name: &str,
    args: &[&str],
    env: &[(&str, Option<&str>)],
) -> CliOutput {
    let mut cmd = command(name);
    for (var, value) in env {
        match value {
            Some(value) => cmd.env(var, value),
            None => cmd.env_remove(var),
        };
    }
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = timed(&format!("{name} {args:?}"), cmd.output())
        .await
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", bin_path(name).display()));
    CliOutput {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

// ---------------------------------------------------------------------------
// Raw JSON-RPC over the child's stdio
// ---------------------------------------------------------------------------

/// Limit for one raw JSON-RPC response.
pub const RAW_TIMEOUT: Duration = Duration::from_secs(20);

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
        use tokio::io::AsyncBufReadExt;
        let mut cmd = command(name);
        cmd.args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot spawn {}: {e}", bin_path(name).display()));
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

// ---------------------------------------------------------------------------
// Serving over streamable HTTP (`<bin> serve --http 127.0.0.1:0 ...`)
// ---------------------------------------------------------------------------

/// The line a server prints on stderr once it listens:
/// `mcpgraph: serving MCP on http://ADDR/mcp`.
const SERVING_PREFIX: &str = "mcpgraph: serving MCP on http://";

/// An example binary serving streamable HTTP on a free loopback port. Its
/// stderr is captured (and printed if the test panics); the process is
/// killed when this is dropped (use [`HttpServer::stop`] for a graceful end).
pub struct HttpServer {
    pub name: String,
    /// The bound address, as the server printed it.
    pub addr: std::net::SocketAddr,
    child: tokio::process::Child,
    stderr: Arc<Mutex<Vec<u8>>>,
}

impl HttpServer {
    /// Starts `<bin> [global options] serve --http 127.0.0.1:0 <extra...>`
    /// with `envs` added to the environment, and waits for its address line.
    pub async fn start(name: &str, extra: &[&str], envs: &[(&str, &str)]) -> HttpServer {
        let mut cmd = command(name);
        cmd.args(["serve", "--http", "127.0.0.1:0"])
            .args(extra)
            .envs(envs.iter().copied());
        Self::spawn(name, cmd, extra).await
    }

    /// Like [`HttpServer::start`], with `--mcp mcp_file` as the only global
    /// option (instead of the harness's).
    pub async fn start_with_mcp(name: &str, mcp_file: &Path, extra: &[&str]) -> HttpServer {
        Self::start_with_mcp_env(name, mcp_file, extra, &[]).await
    }

    /// [`HttpServer::start_with_mcp`] with `envs` added to the environment.
    pub async fn start_with_mcp_env(
        name: &str,
        mcp_file: &Path,
        extra: &[&str],
        envs: &[(&str, &str)],
    ) -> HttpServer {
        let mut cmd = tokio::process::Command::new(bin_path(name));
        cmd.envs(envs.iter().copied());
        cmd.arg("--mcp")
            .arg(mcp_file)
            .args(["serve", "--http", "127.0.0.1:0"])
            .args(extra)
            .current_dir(example_dir(name))
            .kill_on_drop(true);
        Self::spawn(name, cmd, extra).await
    }

    async fn spawn(name: &str, mut cmd: tokio::process::Command, extra: &[&str]) -> HttpServer {
        use tokio::io::AsyncBufReadExt;
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot spawn {}: {e}", bin_path(name).display()));
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = tokio::sync::oneshot::channel::<String>();
        let mut lines =
            tokio::io::BufReader::new(child.stderr.take().expect("stderr piped")).lines();
        let sink = stderr.clone();
        tokio::spawn(async move {
            let mut tx = Some(tx);
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(rest) = line.strip_prefix(SERVING_PREFIX)
                    && let Some(tx) = tx.take()
                {
                    let _ = tx.send(rest.trim_end_matches("/mcp").to_string());
                }
                let mut buf = sink.lock().unwrap();
                buf.extend_from_slice(line.as_bytes());
                buf.push(b'\n');
            }
        });
        let addr = match tokio::time::timeout(TIMEOUT, rx).await {
            Ok(Ok(addr)) => addr,
            other => {
                let _ = child.start_kill();
                let status = child.wait().await;
                panic!(
                    "{name} serve --http {extra:?}: no `{SERVING_PREFIX}...` line on stderr \
                     ({other:?}, exit: {status:?})\nstderr:\n{}",
                    String::from_utf8_lossy(&stderr.lock().unwrap())
                );
            }
        };
        let addr = addr
            .parse()
            .unwrap_or_else(|e| panic!("{name}: bad address {addr:?} in its serving line: {e}"));
        HttpServer {
            name: name.to_string(),
            addr,
            child,
            stderr,
        }
    }

    /// `http://ADDR/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id().expect("server still running")
    }

    /// What the server wrote on stderr so far.
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }

    /// Sends a signal (`TERM`, `INT`, ...) with the `kill` command.
    pub fn signal(&self, sig: &str) {
        send_signal(self.pid(), sig);
    }

    /// Waits for the process to exit; `None` if it is still running after `limit`.
    pub async fn wait_exit(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        match tokio::time::timeout(limit, self.child.wait()).await {
            Ok(status) => Some(status.expect("wait for server")),
            Err(_) => None,
        }
    }

    /// SIGTERM, then waits (at most [`TIMEOUT`]) for a clean exit; fails the
    /// test if the server does not exit with status 0.
    pub async fn stop(mut self) {
        self.signal("TERM");
        let status = self.wait_exit(TIMEOUT).await;
        assert!(
            status.is_some_and(|s| s.success()),
            "{}: did not exit cleanly after SIGTERM: {status:?}\nstderr:\n{}",
            self.name,
            self.stderr()
        );
    }

    /// An rmcp client over streamable HTTP to this server, initialized, with
    /// up to `max_concurrent` POSTs in flight.
    pub async fn rmcp_client(&self, max_concurrent: usize) -> Client {
        use rmcp::transport::StreamableHttpClientTransport;
        use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
        let config = StreamableHttpClientTransportConfig::with_uri(self.url())
            .max_concurrent_requests(max_concurrent);
        // reqwest has no default TLS provider in this build: rmcp's default
        // client would panic without one.
        mcpgraph::runtime::client_manager::install_crypto_provider();
        let transport = StreamableHttpClientTransport::from_config(config);
        timed(
            &format!("{}: rmcp initialize over HTTP", self.name),
            ().serve(transport),
        )
        .await
        .unwrap_or_else(|e| {
            panic!(
                "{}: initialize over HTTP failed: {e}\nstderr:\n{}",
                self.name,
                self.stderr()
            )
        })
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!(
                "---- stderr of {} (HTTP) ----\n{}",
                self.name,
                self.stderr()
            );
        }
        // Still running (a test failed before `stop`): SIGTERM first, so its
        // downstream children are not orphaned; SIGKILL (kill_on_drop) after.
        terminate_then_kill(&mut self.child, Duration::from_secs(3));
    }
}

/// Ends a child that may still run: SIGTERM, up to `grace` for it to exit,
/// then SIGKILL. For `Drop` impls (blocking, no runtime needed).
pub fn terminate_then_kill(child: &mut tokio::process::Child, grace: Duration) {
    if !matches!(child.try_wait(), Ok(None)) {
        return;
    }
    if let Some(pid) = child.id() {
        let _ = std::process::Command::new("kill")
            .args(["-s", "TERM", &pid.to_string()])
            .status();
        let deadline = std::time::Instant::now() + grace;
        while std::time::Instant::now() < deadline {
            if !matches!(child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    let _ = child.start_kill();
}

/// `kill -s SIG PID`; fails the test if `kill` fails.
pub fn send_signal(pid: u32, sig: &str) {
    let status = std::process::Command::new("kill")
        .args(["-s", sig, &pid.to_string()])
        .status()
        .unwrap_or_else(|e| panic!("cannot run `kill -s {sig} {pid}`: {e}"));
    assert!(status.success(), "`kill -s {sig} {pid}` failed: {status}");
}

/// A loopback port that was free a moment ago (bind to port 0, then release).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("bind 127.0.0.1:0")
        .port()
}

/// Processes (pid, command line with NULs as spaces) whose command line
/// contains `needle`, from /proc (the current process excluded).
pub fn processes_with_arg(needle: &str) -> Vec<(u32, String)> {
    let me = std::process::id();
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(raw) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&raw).replace('\0', " ");
        if cmdline.contains(needle) {
            found.push((pid, cmdline.trim_end().to_string()));
        }
    }
    found
}

// ---------------------------------------------------------------------------
// Raw HTTP/1.1 (one request per connection)
// ---------------------------------------------------------------------------

/// One HTTP response.
#[derive(Debug, Clone)]
pub struct HttpResponse {
    pub status: u16,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl HttpResponse {
    /// The first header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The JSON-RPC messages of the body: the body itself when it is JSON,
    /// or the `data:` lines of an SSE body that parse as JSON.
    pub fn messages(&self) -> Vec<Value> {
        if let Ok(v) = serde_json::from_str::<Value>(&self.body) {
            return match v {
                Value::Array(a) => a,
                v => vec![v],
            };
        }
        self.body
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .collect()
    }
}

/// Sends one HTTP/1.1 request (`Connection: close`) to `addr` and reads the
/// whole response. `Host: ADDR` is sent unless `headers` has a `Host`. Fails
/// the test on I/O errors or after [`RAW_TIMEOUT`].
pub async fn http_request(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> HttpResponse {
    use tokio::io::AsyncWriteExt;
    let what = format!("{method} http://{addr}{path}");
    let fut = async {
        let mut stream = tokio::net::TcpStream::connect(addr)
            .await
            .unwrap_or_else(|e| panic!("{what}: connect: {e}"));
        let mut req = format!("{method} {path} HTTP/1.1\r\n");
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            req.push_str(&format!("Host: {addr}\r\n"));
        }
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("Connection: close\r\n");
        let body = body.unwrap_or("");
        if !body.is_empty() || method == "POST" {
            req.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        req.push_str("\r\n");
        req.push_str(body);
        stream
            .write_all(req.as_bytes())
            .await
            .unwrap_or_else(|e| panic!("{what}: write: {e}"));
        let mut raw = Vec::new();
        stream
            .read_to_end(&mut raw)
            .await
            .unwrap_or_else(|e| panic!("{what}: read: {e}"));
        parse_http_response(&what, &raw)
    };
    match tokio::time::timeout(RAW_TIMEOUT, fut).await {
        Ok(r) => r,
        Err(_) => panic!("{what}: no complete response within {RAW_TIMEOUT:?}"),
    }
}

/// Parses one whole raw HTTP/1.1 response (`what` names it in failures).
pub fn parse_http_response(what: &str, raw: &[u8]) -> HttpResponse {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| {
            panic!(
                "{what}: response has no header end: {:?}",
                String::from_utf8_lossy(raw)
            )
        });
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut body = raw[split + 4..].to_vec();
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{what}: bad status line {status_line:?}"));
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"));
    if chunked {
        let mut out = Vec::new();
        let mut rest = &body[..];
        while let Some(eol) = rest.windows(2).position(|w| w == b"\r\n") {
            let size_text = String::from_utf8_lossy(&rest[..eol]).into_owned();
            let size = usize::from_str_radix(size_text.split(';').next().unwrap().trim(), 16)
                .unwrap_or_else(|e| panic!("{what}: bad chunk size {size_text:?}: {e}"));
            rest = &rest[eol + 2..];
            if size == 0 || rest.len() < size {
                out.extend_from_slice(&rest[..size.min(rest.len())]);
                break;
            }
            out.extend_from_slice(&rest[..size]);
            rest = rest.get(size + 2..).unwrap_or_default();
        }
        body = out;
    }
    HttpResponse {
        status,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    }
}

/// The headers of an MCP POST (`Content-Type` and `Accept`), plus `extra`.
pub fn mcp_post_headers<'a>(extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut h = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    h.extend_from_slice(extra);
    h
}

/// A JSON-RPC `initialize` request body (id 1).
pub fn initialize_body() -> String {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": { "name": "mcpgraph-tests-raw-http", "version": "0.0.0" }
        }
    })
    .to_string()
}

// ---------------------------------------------------------------------------
// The official SDK clients (tests/clients/*)
// ---------------------------------------------------------------------------

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
}

/// `tests/clients`.
pub fn clients_dir() -> PathBuf {
    repo_root().join("tests/clients")
}

/// The Python of peers/.venv, which has the pinned `mcp` SDK.
pub fn peers_python() -> PathBuf {
    let py = repo_root().join("peers/.venv/bin/python");
    assert!(
        py.is_file(),
        "{} missing: install the pinned Python MCP SDK with `scripts/install-peers.sh`",
        py.display()
    );
    py
}

/// `node`, with the pinned TypeScript SDK present in peers/node_modules.
pub fn peers_node() -> PathBuf {
    let sdk = repo_root().join("peers/node_modules/@modelcontextprotocol/sdk/package.json");
    assert!(
        sdk.is_file(),
        "{} missing: install the pinned TypeScript MCP SDK with `scripts/install-peers.sh`",
        sdk.display()
    );
    which("node").expect("`node` not found on PATH (needed by the TypeScript SDK client)")
}

/// Runs one SDK client against `target` with `calls` (a JSON array of
/// `{"name", "arguments"}`), bounded by [`TIMEOUT`].
pub async fn run_sdk_client(sdk: Sdk, target: &Target, calls: &Value) -> SdkRun {
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
    cmd.arg("--calls").arg(calls.to_string());
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

/// `nginx` (PATH, else /usr/sbin/nginx); fails naming the install step.
pub fn nginx_exe() -> PathBuf {
    which("nginx")
        .or_else(|| {
            let p = PathBuf::from("/usr/sbin/nginx");
            p.is_file().then_some(p)
        })
        .unwrap_or_else(|| {
            panic!(
                "nginx not found (PATH or /usr/sbin/nginx): install it with \
                 `scripts/install-peers.sh` (as root: apt-get install -y nginx)"
            )
        })
}

/// One call through an engine, its result as JSON or its error as text;
/// a call that takes longer than 10 s fails the test instead of hanging it.
pub async fn engine_call<G: mcpgraph::runtime::Graph>(
    engine: &mcpgraph::runtime::Engine<G>,
    tool: &str,
    args: Value,
) -> Result<Value, String> {
    const LIMIT: Duration = Duration::from_secs(10);
    let args = args.as_object().cloned();
    let call = engine.call(tool, args, mcpgraph::runtime::CancellationToken::new());
    match tokio::time::timeout(LIMIT, call).await {
        Ok(result) => result.map_err(|e| e.to_string()),
        Err(_) => panic!("`{tool}` did not return within {LIMIT:?}"),
    }
}

/// The server list that replaces the graph's `name` server by `transport`
/// (per-call `timeoutMs` 5000).
pub fn replace_server(
    name: &str,
    transport: mcpgraph::runtime::client_manager::TransportSpec,
) -> Vec<mcpgraph::runtime::client_manager::ServerSpec> {
    vec![mcpgraph::runtime::client_manager::ServerSpec {
        name: name.into(),
        transport,
        timeout_ms: Some(5000),
        ping_timeout_ms: None,
    }]
}

/// The purpose-built test server (`bin`: pass
/// `env!("CARGO_BIN_EXE_mcpgraph-test-server")`) serving streamable HTTP on
/// `127.0.0.1:port/mcp`; ready once the port accepts connections; killed
/// on drop.
pub async fn test_server_http(bin: &str, port: u16) -> tokio::process::Child {
    const LIMIT: Duration = Duration::from_secs(10);
    let mut child = tokio::process::Command::new(bin)
        .args(["--http", &port.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot spawn {bin}: {e}"));
    let deadline = tokio::time::Instant::now() + LIMIT;
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the test server exited with {status} before listening on {port}");
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the test server did not listen on {port} within {LIMIT:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    child
}

/// `@modelcontextprotocol/server-everything` (pinned in `peers/`) serving
/// `mode` (`sse` or `streamableHttp`) on `127.0.0.1:port`; killed on drop.
pub struct Everything {
    child: tokio::process::Child,
}

impl Everything {
    pub async fn start(mode: &str, port: u16) -> Everything {
        use tokio::io::AsyncBufReadExt;
        const LIMIT: Duration = Duration::from_secs(10);
        let js = repo_root()
            .join("peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
        assert!(
            js.is_file(),
            "{} missing: run scripts/install-peers.sh",
            js.display()
        );
        let mut child = tokio::process::Command::new("node")
            .arg(&js)
            .arg(mode)
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("node runs");
        let mut lines =
            tokio::io::BufReader::new(child.stderr.take().expect("stderr piped")).lines();
        let ready = tokio::time::timeout(LIMIT, async {
            while let Ok(Some(line)) = lines.next_line().await {
                if line.contains("port") {
                    return line;
                }
            }
            panic!("server-everything {mode} exited before listening");
        })
        .await
        .unwrap_or_else(|_| panic!("server-everything {mode} did not start within {LIMIT:?}"));
        assert!(!ready.contains("Failed"), "{ready}");
        // Keep draining its log so it never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Everything { child }
    }

    pub async fn stop(mut self) {
        let _ = self.child.kill().await;
    }
}

/// nginx on a loopback port with its own prefix directory (config, logs,
/// temp files, certificates a test puts there); stopped and its directory
/// removed on drop, its logs printed first if the test is failing.
pub struct Nginx {
    child: tokio::process::Child,
    dir: PathBuf,
    port: u16,
}

impl Nginx {
    /// Starts nginx whose `http` block holds the shared settings (temp
    /// paths, an access log `METHOD URI STATUS upstream=ADDR`) and then
    /// `servers(dir, port)`: upstreams and `server` blocks, one of which
    /// must listen on `127.0.0.1:port`. Ready once that port accepts
    /// connections.
    pub async fn start(label: &str, servers: impl Fn(&Path, u16) -> String) -> Nginx {
        let exe = nginx_exe();
        let dir = std::env::temp_dir().join(format!(
            "mcpgraph-nginx-{label}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        ));
        std::fs::create_dir_all(dir.join("logs")).expect("create nginx prefix dir");
        // A free port can be taken between probing and nginx's bind: retry.
        let mut last_err = String::new();
        for _ in 0..5 {
            let port = free_port();
            let conf = dir.join("nginx.conf");
            let d = dir.display();
            let body = servers(&dir, port);
            std::fs::write(
                &conf,
                format!(
                    r#"worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/logs/error.log warn;
events {{ worker_connections 256; }}
http {{
    client_body_temp_path {d}/client_body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
    log_format upstream '$request_method $uri $status upstream=$upstream_addr';
    access_log {d}/logs/access.log upstream;
{body}}}
"#
                ),
            )
            .expect("write nginx.conf");
            let mut child = tokio::process::Command::new(&exe)
                .arg("-p")
                .arg(&dir)
                .arg("-c")
                .arg(&conf)
                .args(["-g", "daemon off;"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .kill_on_drop(true)
                .spawn()
                .unwrap_or_else(|e| panic!("cannot start {}: {e}", exe.display()));
            // Ready when the port accepts connections; failed when nginx exits.
            let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
            loop {
                if let Ok(Some(status)) = child.try_wait() {
                    let mut err = String::new();
                    if let Some(mut e) = child.stderr.take() {
                        let _ = e.read_to_string(&mut err).await;
                    }
                    last_err = format!("nginx exited with {status}: {err}");
                    break;
                }
                if tokio::net::TcpStream::connect(("127.0.0.1", port))
                    .await
                    .is_ok()
                {
                    return Nginx { child, dir, port };
                }
                if tokio::time::Instant::now() > deadline {
                    terminate_then_kill(&mut child, Duration::from_secs(5));
                    last_err = "nginx did not listen within 10 s".into();
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
        panic!(
            "could not start nginx (prefix {}): {last_err}",
            dir.display()
        );
    }

    /// The port nginx was asked to listen on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The access log so far.
    pub fn access_log(&self) -> String {
        std::fs::read_to_string(self.dir.join("logs/access.log")).unwrap_or_default()
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("---- nginx access log ----\n{}", self.access_log());
            eprintln!(
                "---- nginx error log ----\n{}",
                std::fs::read_to_string(self.dir.join("logs/error.log")).unwrap_or_default()
            );
        }
        // SIGTERM (fast shutdown) lets the master stop its workers; a
        // SIGKILLed master would leave them running.
        terminate_then_kill(&mut self.child, Duration::from_secs(5));
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl RawServer {
    /// Like [`RawServer::spawn`], but with `--mcp mcp_file` as the only
    /// global option (instead of the harness's): `<bin> --mcp FILE [extra...]`.
    pub fn spawn_with_mcp(name: &str, mcp_file: &Path, extra: &[&str]) -> RawServer {
        use tokio::io::AsyncBufReadExt;
        let mut cmd = tokio::process::Command::new(bin_path(name));
        cmd.arg("--mcp")
            .arg(mcp_file)
            .args(extra)
            .current_dir(example_dir(name))
            .kill_on_drop(true)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot spawn {}: {e}", bin_path(name).display()));
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
}

/// A fresh directory under the system temp dir, unique to this process and
/// call (`mcpgraph-<label>-<pid>-<n>-<nanos>`), so that processes started
/// with it in their command line can be found in /proc. Removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(label: &str) -> TempDir {
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let dir = std::env::temp_dir().join(format!(
            "mcpgraph-{label}-{}-{n}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("create {}: {e}", dir.display()));
        TempDir(dir.canonicalize().expect("canonicalize temp dir"))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Waits up to `limit` until no process has `needle` in its command line;
/// returns the ones still there.
pub async fn wait_no_process_with_arg(needle: &str, limit: Duration) -> Vec<(u32, String)> {
    let deadline = std::time::Instant::now() + limit;
    loop {
        let left = processes_with_arg(needle);
        if left.is_empty() || std::time::Instant::now() > deadline {
            return left;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

// ---------------------------------------------------------------------------
// The purpose-built downstream server as a graph's `test` server
// ---------------------------------------------------------------------------

/// `mcpServers.test` pointing at the test server binary `command` (pass
/// `env!("CARGO_BIN_EXE_mcpgraph-test-server")`, which only integration
/// tests can name) with `args` and a per-call `timeout_ms`.
pub fn test_server_spec(
    command: &str,
    timeout_ms: u64,
    args: &[&str],
) -> Vec<mcpgraph::runtime::client_manager::ServerSpec> {
    use mcpgraph::runtime::client_manager::{ServerSpec, TransportSpec};
    vec![ServerSpec {
        name: "test".into(),
        transport: TransportSpec::Stdio {
            command: command.into(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            cwd: None,
            env: vec![],
        },
        timeout_ms: Some(timeout_ms),
        ping_timeout_ms: None,
    }]
}

// ---------------------------------------------------------------------------
// file_utils in front of the purpose-built test server
// ---------------------------------------------------------------------------

/// Writes a `--mcp` file that points `file_utils`' `filesystem` server at
/// the test server binary `test_server` with `timeoutMs`; `tag` keeps the
/// files of different tests apart.
pub fn test_server_override(test_server: &str, timeout_ms: u64, tag: &str) -> PathBuf {
    let config = json!({
        "mcpServers": {
            "filesystem": { "command": test_server, "timeoutMs": timeout_ms }
        }
    });
    let file = std::env::temp_dir().join(format!("mcpgraph-{tag}-{}.json", std::process::id()));
    std::fs::write(&file, config.to_string()).expect("write --mcp file");
    file
}

/// `file_utils --mcp mcp_file`, served over stdio and initialized by an
/// rmcp client; plus everything it writes on stderr, as it arrives.
pub async fn file_utils_over_stdio(mcp_file: &Path) -> (Client, Arc<Mutex<Vec<u8>>>) {
    let mut cmd = tokio::process::Command::new(bin_path("file_utils"));
    cmd.arg("--mcp")
        .arg(mcp_file)
        .current_dir(example_dir("file_utils"));
    stdio_client(cmd).await
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
fn spawn_capturing_stderr(
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
