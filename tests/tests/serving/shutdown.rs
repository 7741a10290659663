//! Graceful shutdown: on SIGTERM/SIGINT the server stops accepting, lets the
//! calls in flight finish (at most `--drain-secs`), terminates its
//! downstream child processes and exits 0. No child is left behind.
//!
//! Each test points file_utils' `filesystem` server (via `--mcp`) at a
//! command whose arguments carry a temp path unique to the test, and looks
//! for that path in /proc to see whether the child still runs:
//! - `tests/clients/slow_list_server.py DELAY_MS TAG` (Python SDK, a slow
//!   `list_directory`), for a call that is still running at the signal;
//! - the pinned @modelcontextprotocol/server-filesystem on a private copy of
//!   the counting folder.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mcpgraph_tests::*;
use serde_json::{Value, json};

/// Time after the signal within which the process must be gone when the
/// calls in flight are done (or cut off by `--drain-secs`).
const EXIT_LIMIT: Duration = Duration::from_secs(8);
/// Time after the server exited within which its children must be gone.
const CHILD_LIMIT: Duration = Duration::from_secs(2);

/// Writes `{"mcpServers": {"filesystem": {command, args}}}` into `dir`.
pub(crate) fn write_override(dir: &Path, command: &Path, args: &[&Path]) -> PathBuf {
    let file = dir.join("mcp.json");
    let v = json!({
        "mcpServers": { "filesystem": { "command": command, "args": args, "timeoutMs": 120000 } }
    });
    std::fs::write(&file, v.to_string()).expect("write --mcp file");
    file
}

/// `filesystem` = the slow Python server, tagged with `tag`.
pub(crate) fn slow_override(dir: &Path, delay_ms: u64, tag: &Path) -> PathBuf {
    let script = clients_dir().join("slow_list_server.py");
    let delay = PathBuf::from(delay_ms.to_string());
    write_override(dir, &peers_python(), &[&script, &delay, tag])
}

/// A process whose command line has `tag` shows up within the limit.
pub(crate) async fn wait_child(tag: &str) -> Vec<(u32, String)> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let found = processes_with_arg(tag);
        if !found.is_empty() {
            return found;
        }
        assert!(
            Instant::now() < deadline,
            "no downstream process with {tag} in its command line appeared"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn assert_children_gone(tag: &str, what: &str) {
    let left = wait_no_process_with_arg(tag, CHILD_LIMIT).await;
    if !left.is_empty() {
        for (pid, _) in &left {
            let _ = std::process::Command::new("kill")
                .args(["-9", &pid.to_string()])
                .status();
        }
        panic!("{what}: downstream processes left running after the server exited: {left:?}");
    }
}

/// `GET /health` on a kept-alive connection; the status code. Reads the
/// whole answer (headers and `Content-Length` bytes of body), so the next
/// probe on the connection starts clean.
async fn health(stream: &mut tokio::net::TcpStream) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    stream
        .write_all(b"GET /health HTTP/1.1\r\nHost: 10.1.2.3\r\n\r\n")
        .await
        .expect("write the probe");
    let mut response = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        if let Some(end) = response.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&response[..end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or_else(|| panic!("no content-length: {head:?}"));
            if response.len() >= end + 4 + length {
                assert_eq!(response.len(), end + 4 + length, "one answer per probe");
                break;
            }
        }
        let n = timed("health probe", stream.read(&mut buf))
            .await
            .expect("read the probe's answer");
        assert!(
            n > 0,
            "connection closed: {:?}",
            String::from_utf8_lossy(&response)
        );
        response.extend_from_slice(&buf[..n]);
    }
    parse_http_response("GET /health", &response).status
}

pub(crate) fn count_of(r: &Value) -> Option<f64> {
    r["structuredContent"]["count"].as_f64()
}

fn assert_in_flight_call_completed(answer: &Value) {
    assert_eq!(
        count_of(&answer["result"]),
        Some(3.0),
        "the call in flight at SIGTERM must complete: {answer}"
    );
}

/// Raw `tools/call count_files` with JSON-RPC id `id`; returns the whole
/// HTTP response (read to EOF).
async fn raw_count(addr: std::net::SocketAddr, sid: &str, id: u64) -> HttpResponse {
    let body = json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": { "name": "count_files", "arguments": { "directory": "/anywhere" } }
    })
    .to_string();
    post_mcp(addr, &[("Mcp-Session-Id", sid)], &body).await
}

/// The JSON-RPC response with `id` in an HTTP response, if any.
fn response_to(r: &HttpResponse, id: u64) -> Option<Value> {
    r.messages()
        .into_iter()
        .find(|m| m["id"] == id && m.get("method").is_none())
}

/// SIGTERM while a call is in flight over HTTP: the call completes with its
/// result, the server exits 0 and its downstream child is gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_over_http_drains_in_flight_call() {
    let tmp = TempDir::new("shutdown-drain");
    let dir = tmp.path();
    let tag = dir.join("tag");
    let tag_s = tag.to_string_lossy().into_owned();
    let mcp = slow_override(dir, 1500, &tag);
    let mut server = HttpServer::start_with_mcp("file_utils", &mcp, &["--drain-secs", "15"]).await;
    let addr = server.addr;
    let sid = open_session(addr).await;

    // First call: starts the downstream child.
    let first = raw_count(addr, &sid, 2).await;
    let first = response_to(&first, 2).unwrap_or_else(|| panic!("no answer: {first:?}"));
    assert_eq!(count_of(&first["result"]), Some(3.0), "{first}");
    let children = wait_child(&tag_s).await;

    // A load balancer's probe on a kept-alive connection: ready.
    let mut probe = tokio::net::TcpStream::connect(addr).await.expect("connect");
    assert_eq!(health(&mut probe).await, 200);

    // Second call: in flight (1.5 s downstream) when SIGTERM arrives.
    let sid2 = sid.clone();
    let in_flight = tokio::spawn(async move { raw_count(addr, &sid2, 3).await });
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(!in_flight.is_finished(), "the slow call ended too early");
    let signalled = Instant::now();
    server.signal("TERM");

    // While draining, the probe says so (the listener is already closed).
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!in_flight.is_finished(), "the slow call ended too early");
    assert_eq!(health(&mut probe).await, 503);

    // New sessions are no longer served while draining.
    tokio::time::sleep(Duration::from_millis(200)).await;
    if !in_flight.is_finished() {
        let late = tokio::time::timeout(Duration::from_secs(3), async move {
            match tokio::net::TcpStream::connect(addr).await {
                Err(_) => None,
                Ok(_) => Some(post_init(addr, &[]).await),
            }
        })
        .await;
        if let Ok(Some(r)) = late {
            assert!(
                r.status != 200 || !r.body.contains("serverInfo"),
                "a new session was served after SIGTERM: {r:?}"
            );
        }
    }

    let raw = timed("in-flight call", in_flight)
        .await
        .expect("in-flight task");
    let answer = response_to(&raw, 3)
        .unwrap_or_else(|| panic!("the call in flight at SIGTERM got no answer: {raw:?}"));
    assert_in_flight_call_completed(&answer);
    let status = server.wait_exit(EXIT_LIMIT).await;
    let took = signalled.elapsed();
    assert!(
        status.is_some_and(|s| s.success()),
        "file_utils --drain-secs 15 should exit 0 once the call in flight is done; \
         after SIGTERM: {status:?} ({took:?})\nstderr:\n{}",
        server.stderr()
    );
    eprintln!("SIGTERM with a 1.5 s call in flight: exited 0 after {took:.2?}");
    assert_children_gone(&tag_s, &format!("children were {children:?}")).await;
}

/// A connected, idle client (an rmcp client over HTTP, which keeps its
/// standalone GET stream open) must not hold the shutdown: no call is in
/// flight, so SIGTERM ends the process promptly, not after `--drain-secs`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_with_idle_session_exits_promptly() {
    let mut server = HttpServer::start("loop_example", &["--drain-secs", "20"], &[]).await;
    let client = server.rmcp_client(4).await;
    let r = timed(
        "sum_to_n",
        client
            .peer()
            .call_tool(call_params("sum_to_n", json!({ "n": 10 }))),
    )
    .await
    .expect("sum_to_n");
    assert_eq!(r.structured_content, Some(json!({ "sum": 55 })));
    // Let the client open its GET stream.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let signalled = Instant::now();
    server.signal("TERM");
    let status = server.wait_exit(EXIT_LIMIT).await;
    let took = signalled.elapsed();
    assert!(
        status.is_some_and(|s| s.success()),
        "loop_example --drain-secs 20 with one idle session (no call in flight) must exit 0 \
         promptly after SIGTERM; after {took:?}: {status:?}\nstderr:\n{}",
        server.stderr()
    );
    eprintln!("SIGTERM with an idle session: exited 0 after {took:.2?}");
    drop(client);
}

/// A call that would outlast `--drain-secs` does not hold the shutdown: the
/// server exits within the bound, terminates the hung child, and the client
/// gets an answer for the cut-off call (an error), not a silently closed
/// stream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drain_is_bounded_by_drain_secs() {
    let tmp = TempDir::new("shutdown-bound");
    let dir = tmp.path();
    let tag = dir.join("tag");
    let tag_s = tag.to_string_lossy().into_owned();
    let mcp = slow_override(dir, 600_000, &tag);
    let mut server = HttpServer::start_with_mcp("file_utils", &mcp, &["--drain-secs", "1"]).await;
    let addr = server.addr;
    let sid = open_session(addr).await;
    let in_flight = tokio::spawn(async move { raw_count(addr, &sid, 2).await });
    wait_child(&tag_s).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!in_flight.is_finished(), "the hung call ended early");
    let signalled = Instant::now();
    server.signal("TERM");
    let status = server.wait_exit(Duration::from_secs(1) + EXIT_LIMIT).await;
    let took = signalled.elapsed();
    assert!(
        status.is_some(),
        "file_utils --drain-secs 1 still running {took:?} after SIGTERM with a hung call\nstderr:\n{}",
        server.stderr()
    );
    eprintln!("SIGTERM with a hung call, --drain-secs 1: exited {status:?} after {took:.2?}");
    assert_children_gone(&tag_s, "hung downstream").await;
    // The HTTP exchange of the cut-off call has ended (http_request reads to
    // EOF) and carries a JSON-RPC answer for it.
    let raw = tokio::time::timeout(Duration::from_secs(5), in_flight)
        .await
        .expect("the cut-off call's HTTP response never ended")
        .expect("in-flight task");
    let answer = response_to(&raw, 2);
    assert!(
        answer
            .as_ref()
            .is_some_and(|a| a.get("error").is_some() || a["result"]["isError"] == json!(true)),
        "the call cut off by --drain-secs got no error answer before the stream closed \
         (clients then wait to resume it): {raw:?}"
    );
}

/// SIGINT to the stdio server with the real filesystem server as its child
/// (on a private copy of the counting folder): exit 0, child gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigint_over_stdio_stops_filesystem_child() {
    let tmp = TempDir::new("shutdown-stdio");
    let dir = tmp.path();
    let data = dir.join("counting");
    std::fs::create_dir_all(&data).expect("create data copy");
    for entry in std::fs::read_dir(counting_dir()).expect("read counting dir") {
        let entry = entry.expect("dir entry");
        if entry.file_type().expect("file type").is_file() {
            std::fs::copy(entry.path(), data.join(entry.file_name())).expect("copy data file");
        }
    }
    let node = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("node"))
        .find(|p| p.is_file())
        .expect("`node` on PATH (the filesystem peer needs it)");
    let mcp = write_override(dir, &node, &[&filesystem_server_js(), &data]);
    let data_s = data.to_string_lossy().into_owned();

    let mut server = RawServer::spawn_with_mcp("file_utils", &mcp, &[]);
    server.initialize().await;
    let resp = server
        .request(
            1,
            "tools/call",
            Some(json!({ "name": "count_files", "arguments": { "directory": data_s } })),
        )
        .await;
    let want = std::fs::read_dir(&data).unwrap().count() as f64;
    assert_eq!(
        resp["result"]["structuredContent"]["count"].as_f64(),
        Some(want),
        "{resp}"
    );
    let children = wait_child(&data_s).await;

    let signalled = Instant::now();
    send_signal(server.pid().expect("server running"), "INT");
    let status = server.wait_exit(EXIT_LIMIT).await;
    let took = signalled.elapsed();
    assert!(
        status.is_some_and(|s| s.success()),
        "file_utils (stdio) after SIGINT: {status:?} ({took:?})"
    );
    eprintln!("SIGINT over stdio with the filesystem child: exited 0 after {took:.2?}");
    assert_children_gone(&data_s, &format!("children were {children:?}")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_over_stdio_drains_in_flight_call_and_refuses_new_ones() {
    let tmp = TempDir::new("shutdown-stdio-drain");
    let dir = tmp.path();
    let tag = dir.join("tag");
    let tag_s = tag.to_string_lossy().into_owned();
    let mcp = slow_override(dir, 1500, &tag);
    let mut server =
        RawServer::spawn_with_mcp("file_utils", &mcp, &["serve", "--drain-secs", "15"]);
    server.initialize().await;
    let count = |id: i64| {
        json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": { "name": "count_files", "arguments": { "directory": "/data" } }
        })
    };
    // First call: starts the downstream child.
    server.send(&count(2)).await;
    let first = server.response(&json!(2)).await;
    assert_eq!(count_of(&first["result"]), Some(3.0), "{first}");
    let children = wait_child(&tag_s).await;

    // Second call: in flight (1.5 s downstream) when SIGTERM arrives.
    server.send(&count(3)).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    let signalled = Instant::now();
    send_signal(server.pid().expect("server running"), "TERM");
    // A call sent during the drain is refused at once (issue 27).
    tokio::time::sleep(Duration::from_millis(200)).await;
    let sent = Instant::now();
    server.send(&count(4)).await;
    let refused = server.response(&json!(4)).await;
    let refused_in = sent.elapsed();
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("shutting down"),
        "a call sent over stdio after SIGTERM must be refused: {refused}"
    );
    assert!(
        refused_in < Duration::from_millis(750),
        "refused after {refused_in:?}"
    );
    let answer = server.response(&json!(3)).await;
    assert_in_flight_call_completed(&answer);
    let status = server.wait_exit(EXIT_LIMIT).await;
    let took = signalled.elapsed();
    assert!(
        status.is_some_and(|s| s.success()),
        "file_utils (stdio) after SIGTERM: {status:?} ({took:?})"
    );
    eprintln!(
        "SIGTERM over stdio with a call in flight: a new call refused in {refused_in:?}, \
         the call answered, exited 0 after {took:.2?}"
    );
    assert_children_gone(&tag_s, &format!("children were {children:?}")).await;
}
