//! Graph calls as MCP tasks (the `io.modelcontextprotocol/tasks`
//! extension) over streamable HTTP, driven with raw JSON-RPC by clients of
//! both eras (2026-07-28 requests, and sessions opened with `initialize`):
//! neither the Python nor the TypeScript SDK speaks the extension yet. The conformance
//! fixture (`graphs/conformance.yaml` compiled) serves its tasks tools,
//! the purpose-built test server behind them; with `--task-store redis://`
//! two replicas share a real Redis (the Debian package, which
//! `scripts/install-peers.sh` installs).

use std::time::{Duration, Instant};

use mcpgraph_tests::*;
use serde_json::{Value, json};

const FIXTURE: &str = env!("CARGO_BIN_EXE_conformance_fixture");
const TEST_SERVER: &str = env!("CARGO_BIN_EXE_mcpgraph-test-server");
const MODERN: &str = "2026-07-28";
const SESSION_ERA: &str = "2025-11-25";
pub(super) const EXTENSION: &str = "io.modelcontextprotocol/tasks";
const TOKEN_VAR: &str = "MCPGRAPH_TASKS_TEST_TOKEN";

/// The fixture, its one server the test server, serving stateless HTTP
/// with `extra`.
pub(super) async fn fixture(tag: &str, extra: &[&str], token: Option<&str>) -> HttpServer {
    fixture_serving(tag, extra, token, true).await
}

/// The fixture serving HTTP with `extra`, `stateless` or with sessions.
pub(super) async fn fixture_serving(
    tag: &str,
    extra: &[&str],
    token: Option<&str>,
    stateless: bool,
) -> HttpServer {
    let file =
        std::env::temp_dir().join(format!("mcpgraph-tasks-{tag}-{}.json", std::process::id()));
    let servers = json!({ "mcpServers": { "test": { "command": TEST_SERVER } } });
    std::fs::write(&file, servers.to_string()).expect("write --mcp file");
    let mut cmd = tokio::process::Command::new(FIXTURE);
    cmd.arg("--mcp")
        .arg(&file)
        .args(["serve", "--http", "127.0.0.1:0"])
        .args(stateless.then_some("--stateless"))
        .args(extra)
        .kill_on_drop(true);
    if let Some(token) = token {
        cmd.args(["--auth-token-env", TOKEN_VAR])
            .env(TOKEN_VAR, token);
    }
    HttpServer::spawn("conformance_fixture", cmd, extra).await
}

/// A state key file in `dir`, for replicas that share a task store (its
/// journals and answers are sealed with the keys).
pub(super) fn shared_state_keys(dir: &std::path::Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let keys = dir.join("state.keys");
    std::fs::write(&keys, "k1=MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=\n").unwrap();
    std::fs::set_permissions(&keys, std::fs::Permissions::from_mode(0o600)).unwrap();
    keys
}

/// A client of MCP 2026-07-28, with or without the tasks extension, with
/// or without a bearer token; or of the session era, in its session.
pub(super) struct Client {
    addr: std::net::SocketAddr,
    tasks: bool,
    token: Option<String>,
    next: u64,
    /// The session of a session-era client.
    session: Option<String>,
}

/// What a client declares, with or without the tasks extension.
fn capabilities(tasks: bool) -> Value {
    match tasks {
        true => json!({ "elicitation": {}, "extensions": { EXTENSION: {} } }),
        false => json!({ "elicitation": {} }),
    }
}

impl Client {
    pub(super) fn new(server: &HttpServer, tasks: bool, token: Option<&str>) -> Client {
        Client::at(server.addr, tasks, token)
    }

    /// A client of the server (or load balancer) at `addr`.
    pub(super) fn at(addr: std::net::SocketAddr, tasks: bool, token: Option<&str>) -> Client {
        Client {
            addr,
            tasks,
            token: token.map(|t| format!("Bearer {t}")),
            next: 1,
            session: None,
        }
    }

    /// A client of the session era (`initialize` with 2025-11-25, then
    /// `notifications/initialized`) in a session of its own; checks that
    /// the server declares the extension.
    pub(super) async fn open_session(server: &HttpServer, tasks: bool) -> Client {
        let body = json!({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {
                "protocolVersion": SESSION_ERA,
                "capabilities": capabilities(tasks),
                "clientInfo": { "name": "mcpgraph-tests-tasks", "version": "0.0.0" }
            }
        });
        let init = post_mcp(server.addr, &[], &body.to_string()).await;
        assert_accepted(&init, "initialize");
        let result = &init.messages()[0]["result"];
        assert_eq!(result["protocolVersion"], json!(SESSION_ERA), "{result}");
        assert!(
            result["capabilities"]["extensions"][EXTENSION].is_object(),
            "{result}"
        );
        let session = init.header("mcp-session-id").expect("a session").to_owned();
        let headers = [("Mcp-Session-Id", session.as_str())];
        let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let r = post_mcp(server.addr, &headers, initialized).await;
        assert_eq!(r.status, 202, "notifications/initialized: {r:?}");
        Client {
            addr: server.addr,
            tasks,
            token: None,
            next: 1,
            session: Some(session),
        }
    }

    /// One request; the JSON-RPC response.
    pub(super) async fn send(
        &mut self,
        method: &str,
        mut params: Value,
        name: Option<&str>,
    ) -> Value {
        self.next += 1;
        if let Some(session) = &self.session {
            let body =
                json!({ "jsonrpc": "2.0", "id": self.next, "method": method, "params": params });
            let headers = [
                ("Mcp-Session-Id", session.as_str()),
                ("MCP-Protocol-Version", SESSION_ERA),
            ];
            let response = post_mcp(self.addr, &headers, &body.to_string()).await;
            // The reply, after any notification on the request's stream.
            return response
                .messages()
                .into_iter()
                .find(|m| m["id"] == json!(self.next))
                .unwrap_or_else(|| panic!("{method}: no reply in {response:?}"));
        }
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": capabilities(self.tasks),
            "io.modelcontextprotocol/clientInfo": { "name": "mcpgraph-tests-tasks", "version": "0.0.0" }
        });
        let body = json!({ "jsonrpc": "2.0", "id": self.next, "method": method, "params": params });
        let mut headers = vec![("MCP-Protocol-Version", MODERN), ("Mcp-Method", method)];
        if let Some(name) = name {
            headers.push(("Mcp-Name", name));
        }
        if let Some(token) = &self.token {
            headers.push(("Authorization", token.as_str()));
        }
        let response = post_mcp(self.addr, &headers, &body.to_string()).await;
        let messages = response.messages();
        assert_eq!(messages.len(), 1, "{method}: {response:?}");
        messages.into_iter().next().unwrap()
    }

    pub(super) async fn result(
        &mut self,
        method: &str,
        params: Value,
        name: Option<&str>,
    ) -> Value {
        let reply = self.send(method, params, name).await;
        reply
            .get("result")
            .unwrap_or_else(|| panic!("{method}: {reply}"))
            .clone()
    }

    pub(super) async fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let params = json!({ "name": tool, "arguments": arguments });
        self.result("tools/call", params, Some(tool)).await
    }

    /// Starts `tool` as a task; its id.
    pub(super) async fn start(&mut self, tool: &str, arguments: Value) -> String {
        let created = self.call(tool, arguments).await;
        assert_eq!(created["resultType"], json!("task"), "{tool}: {created}");
        assert!(created.get("result").is_none(), "{created}");
        created["taskId"].as_str().expect("taskId").to_owned()
    }

    pub(super) async fn get(&mut self, id: &str) -> Value {
        self.send("tasks/get", json!({ "taskId": id }), Some(id))
            .await
    }

    /// Polls `tasks/get` until the task's status is `status`, for `within`.
    pub(super) async fn wait_for(&mut self, id: &str, status: &str, within: Duration) -> Value {
        let end = Instant::now() + within;
        loop {
            let reply = self.get(id).await;
            let task = reply.get("result").unwrap_or_else(|| panic!("{reply}"));
            if task["status"] == json!(status) {
                return task.clone();
            }
            assert!(
                Instant::now() < end,
                "not {status} within {within:?}: {task}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub(super) async fn update(&mut self, id: &str, answers: Value) -> Value {
        let params = json!({ "taskId": id, "inputResponses": answers });
        self.send("tasks/update", params, Some(id)).await
    }

    pub(super) async fn cancel(&mut self, id: &str) -> Value {
        self.send("tasks/cancel", json!({ "taskId": id }), Some(id))
            .await
    }
}

/// The text of a finished task's result.
pub(super) fn text(task: &Value) -> &str {
    task["result"]["content"][0]["text"].as_str().unwrap_or("")
}

/// One outstanding question's key, checked to be an elicitation.
pub(super) fn question_key(task: &Value) -> String {
    let requests = task["inputRequests"].as_object().expect("inputRequests");
    assert_eq!(requests.len(), 1, "{task}");
    let (key, request) = requests.iter().next().unwrap();
    assert_eq!(request["method"], json!("elicitation/create"), "{task}");
    key.clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_runs_asks_and_is_cancelled_over_http() {
    let server = fixture("memory", &[], None).await;
    let mut client = Client::new(&server, true, None);
    let discover = client.result("server/discover", json!({}), None).await;
    assert!(
        discover["capabilities"]["extensions"][EXTENSION].is_object(),
        "{discover}"
    );

    // A task that waits on a downstream call: working, naming the node,
    // then completed with the graph's result.
    let id = client
        .start("slow_compute", json!({ "seconds": 1, "label": "a" }))
        .await;
    let working = client
        .wait_for(&id, "working", Duration::from_secs(2))
        .await;
    assert!(working["ttlMs"].as_u64().is_some(), "{working}");
    let end = Instant::now() + Duration::from_secs(2);
    while client.get(&id).await["result"]["statusMessage"] != json!("running node `wait`") {
        assert!(Instant::now() < end, "no status message naming the node");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let done = client
        .wait_for(&id, "completed", Duration::from_secs(10))
        .await;
    assert_eq!(text(&done), "\"computed a in 1 s\"", "{done}");

    // A question inside the task: input_required, answered by tasks/update.
    let id = client
        .start("confirm_delete", json!({ "filename": "x.txt" }))
        .await;
    let asking = client
        .wait_for(&id, "input_required", Duration::from_secs(5))
        .await;
    let key = question_key(&asking);
    let ack = client
        .update(&id, json!({ key: { "action": "accept", "content": { "confirm": true } }, "nobody-asked": {} }))
        .await;
    assert_eq!(ack["result"], json!({ "resultType": "complete" }), "{ack}");
    let done = client
        .wait_for(&id, "completed", Duration::from_secs(10))
        .await;
    assert_eq!(text(&done), "\"deleted x.txt\"", "{done}");

    // Cancelled while its downstream call runs: cancelled within seconds.
    let id = client.start("slow_compute", json!({ "seconds": 60 })).await;
    client
        .wait_for(&id, "working", Duration::from_secs(2))
        .await;
    let ack = client.cancel(&id).await;
    assert_eq!(ack["result"], json!({ "resultType": "complete" }), "{ack}");
    client
        .wait_for(&id, "cancelled", Duration::from_secs(5))
        .await;

    // A tool marked `task: never` is a plain call; one marked `task:
    // required` refuses a client without the extension; an unknown task
    // is -32602.
    let greeting = client.call("greet", json!({ "name": "Ada" })).await;
    assert_eq!(
        greeting["content"][0]["text"],
        json!("Hello, Ada!"),
        "{greeting}"
    );
    let mut plain = Client::new(&server, false, None);
    let refused = plain
        .send(
            "tools/call",
            json!({ "name": "failing_job", "arguments": {} }),
            Some("failing_job"),
        )
        .await;
    assert_eq!(refused["error"]["code"], json!(-32021), "{refused}");
    assert!(
        refused["error"]["data"]["requiredCapabilities"]["extensions"][EXTENSION].is_object(),
        "{refused}"
    );
    let sync = plain
        .call("slow_compute", json!({ "seconds": 0, "label": "now" }))
        .await;
    assert_eq!(sync["resultType"], json!("complete"), "{sync}");
    let unknown = client.get("no-such-task").await;
    assert_eq!(unknown["error"]["code"], json!(-32602), "{unknown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_are_bounded_by_their_cap_and_ttl() {
    let server = fixture(
        "bounds",
        &["--max-tasks", "1", "--task-ttl-secs", "2"],
        None,
    )
    .await;
    let mut client = Client::new(&server, true, None);
    let first = client.start("slow_compute", json!({ "seconds": 60 })).await;
    // The cap: a second task is refused with a tool error naming it.
    let refused = client.call("slow_compute", json!({ "seconds": 1 })).await;
    assert_eq!(refused["isError"], json!(true), "{refused}");
    let why = refused["content"][0]["text"].as_str().unwrap_or("");
    assert!(
        why.contains("slow_compute") && why.contains('1'),
        "{refused}"
    );
    // Past its TTL a task is gone, running or not; the slot is free again.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let gone = client.get(&first).await;
    assert_eq!(gone["error"]["code"], json!(-32602), "{gone}");
    let second = client.start("slow_compute", json!({ "seconds": 0 })).await;
    client
        .wait_for(&second, "completed", Duration::from_secs(5))
        .await;
}

/// Two replicas on one Redis: a task started on one is read, answered and
/// cancelled through the other; a third replica with another credential
/// sees none of it; with Redis gone, task calls fail clearly and plain
/// calls go on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_share_tasks_through_redis() {
    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    let dir = tempfile::tempdir().expect("a temporary directory");
    let keys = shared_state_keys(dir.path());
    let store = redis.url(0);
    let extra = [
        "--task-store",
        store.as_str(),
        "--state-key-file",
        keys.to_str().unwrap(),
    ];
    let a = fixture("redis-a", &extra, Some("token-one")).await;
    let b = fixture("redis-b", &extra, Some("token-one")).await;
    let c = fixture("redis-c", &extra, Some("token-two")).await;
    let mut on_a = Client::new(&a, true, Some("token-one"));
    let mut on_b = Client::new(&b, true, Some("token-one"));
    let mut other = Client::new(&c, true, Some("token-two"));

    // A question asked on A, answered through B.
    let id = on_a
        .start("confirm_delete", json!({ "filename": "shared.txt" }))
        .await;
    let asking = on_b
        .wait_for(&id, "input_required", Duration::from_secs(5))
        .await;
    let key = question_key(&asking);
    let ack = on_b
        .update(
            &id,
            json!({ key: { "action": "accept", "content": { "confirm": true } } }),
        )
        .await;
    assert_eq!(ack["result"], json!({ "resultType": "complete" }), "{ack}");
    let done = on_a
        .wait_for(&id, "completed", Duration::from_secs(10))
        .await;
    assert_eq!(text(&done), "\"deleted shared.txt\"", "{done}");

    // Another principal's replica: no such task, for reading, answering or
    // cancelling.
    for reply in [
        other.get(&id).await,
        other.update(&id, json!({})).await,
        other.cancel(&id).await,
    ] {
        assert_eq!(reply["error"]["code"], json!(-32602), "{reply}");
    }

    // Cancelled through B while A runs its downstream call.
    let id = on_a.start("slow_compute", json!({ "seconds": 60 })).await;
    on_b.wait_for(&id, "working", Duration::from_secs(2)).await;
    on_b.cancel(&id).await;
    on_a.wait_for(&id, "cancelled", Duration::from_secs(5))
        .await;

    // Redis gone: a task cannot start (a tool error naming the store, in
    // seconds, not a hang); a plain call is served.
    redis.kill();
    let began = Instant::now();
    let refused = on_a.call("slow_compute", json!({ "seconds": 1 })).await;
    assert_eq!(refused["isError"], json!(true), "{refused}");
    assert!(
        refused["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("store")),
        "{refused}"
    );
    assert!(
        began.elapsed() < Duration::from_secs(5),
        "{:?}",
        began.elapsed()
    );
    let greeting = on_b.call("greet", json!({ "name": "Bo" })).await;
    assert_eq!(
        greeting["content"][0]["text"],
        json!("Hello, Bo!"),
        "{greeting}"
    );
}
