//! The bounded front door, each cap through a real client: calls in flight
//! per server (two rmcp HTTP clients) and per session (an rmcp stdio
//! client), sessions (with idle expiry), open connections, the request
//! body deadline and size, `/metrics`, and a server whose file descriptors run out
//! (`ulimit -n 256`). A client over a cap gets a fast, clear refusal; the
//! others go on.

use std::time::{Duration, Instant};

use mcpgraph_tests::{
    HttpServer, TempDir, bin_path, call_params, command_with_mcp, http_request, open_session,
    post_init, stdio_client, test_server_override,
};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const SERVER: &str = env!("CARGO_BIN_EXE_mcpgraph-test-server");

/// `count_files` on `@hang` blocks its call until the test server's
/// `timeoutMs` (here 3 s).
fn hanging(client: &mcpgraph_tests::Client) -> impl std::future::Future<Output = ()> + use<> {
    let peer = client.peer().clone();
    async move {
        let _ = peer
            .call_tool(call_params("count_files", json!({"directory": "@hang"})))
            .await;
    }
}

/// Waits up to `limit` for `GET /health` to answer 200.
async fn until_healthy(server: &HttpServer, limit: Duration, what: &str) {
    let deadline = Instant::now() + limit;
    loop {
        let r = http_request(server.addr, "GET", "/health", &[], None).await;
        if r.status == 200 {
            return;
        }
        assert!(Instant::now() < deadline, "{what}: {r:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn scrape(server: &HttpServer) -> String {
    let r = http_request(server.addr, "GET", "/metrics", &[], None).await;
    assert_eq!(r.status, 200, "{r:?}");
    r.body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_in_flight_per_server_over_http() {
    let mcp = test_server_override(SERVER, 3000, "caps-server");
    let server = HttpServer::start_with_mcp("file_utils", &mcp, &["--max-in-flight", "1"]).await;
    let (a, b) = (server.rmcp_client(4).await, server.rmcp_client(4).await);
    let slow = tokio::spawn(hanging(&a));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = Instant::now();
    let refused = b
        .call_tool(call_params("count_files", json!({"directory": "x"})))
        .await
        .expect_err("over the cap");
    let took = started.elapsed();
    assert!(
        refused
            .to_string()
            .contains("server busy: 1 calls already in flight (--max-in-flight); retry later"),
        "{refused}"
    );
    assert!(took < Duration::from_millis(500), "refused in {took:?}");
    let metrics = scrape(&server).await;
    for line in [
        "mcpgraph_refusals_total{cap=\"in_flight\"} 1",
        "mcpgraph_calls_total{tool=\"count_files\",outcome=\"refused\"} 1",
        "mcpgraph_calls_in_flight 1",
        "mcpgraph_sessions 2",
    ] {
        assert!(metrics.contains(line), "{line} not in:\n{metrics}");
    }
    slow.await.unwrap();
    let ok = b
        .call_tool(call_params("count_files", json!({"directory": "x"})))
        .await
        .expect("a place is free again");
    assert_eq!(ok.is_error, Some(false), "{ok:?}");
    eprintln!("refused in {took:?}");
    let metrics = scrape(&server).await;
    assert!(metrics.contains("mcpgraph_calls_in_flight 0"), "{metrics}");
    // The hanging call failed on the downstream server's timeoutMs: counted
    // by its kind, never by text from the request or the message.
    assert!(
        metrics.contains("mcpgraph_node_errors_total{kind=\"downstream.timeout\"} 1"),
        "{metrics}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_in_flight_per_session_over_stdio() {
    let mcp = test_server_override(SERVER, 3000, "caps-session");
    let mut cmd = command_with_mcp("file_utils", &mcp);
    cmd.args(["serve", "--max-in-flight-per-session", "1"]);
    let (client, _stderr) = stdio_client(cmd).await;
    let slow = tokio::spawn(hanging(&client));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let refused = client
        .call_tool(call_params("count_files", json!({"directory": "x"})))
        .await
        .expect_err("over the session's cap");
    assert!(
        refused
            .to_string()
            .contains("1 calls already in flight in this session (--max-in-flight-per-session)"),
        "{refused}"
    );
    slow.await.unwrap();
    assert!(
        client
            .call_tool(call_params("count_files", json!({"directory": "x"})))
            .await
            .is_ok()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_capped_and_expire_when_idle() {
    let mcp = test_server_override(SERVER, 3000, "caps-sessions");
    let server = HttpServer::start_with_mcp(
        "file_utils",
        &mcp,
        &["--max-sessions", "1", "--session-idle-secs", "2"],
    )
    .await;
    open_session(server.addr).await;
    let refused = post_init(server.addr, &[]).await;
    assert_eq!(refused.status, 503, "{refused:?}");
    assert!(refused.body.contains("too many sessions (--max-sessions)"));
    assert_eq!(refused.header("retry-after"), Some("1"));
    // The idle session is closed after 2 s; then a new one is admitted.
    let deadline = Instant::now() + Duration::from_secs(8);
    loop {
        let again = post_init(server.addr, &[]).await;
        if again.status == 200 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the idle session never expired: {again:?}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert!(
        scrape(&server)
            .await
            .contains("mcpgraph_refusals_total{cap=\"sessions\"}")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_are_capped() {
    let mcp = test_server_override(SERVER, 3000, "caps-connections");
    let server = HttpServer::start_with_mcp("file_utils", &mcp, &["--max-connections", "2"]).await;
    let first = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let _second = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = Instant::now();
    let refused = http_request(server.addr, "GET", "/health", &[], None).await;
    assert_eq!(refused.status, 503, "{refused:?}");
    assert!(
        refused.body.contains("too many open connections"),
        "{refused:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(1));
    drop(first);
    until_healthy(&server, Duration::from_secs(5), "no place freed").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_bodies_have_a_deadline() {
    let mcp = test_server_override(SERVER, 3000, "caps-body");
    let server =
        HttpServer::start_with_mcp("file_utils", &mcp, &["--body-timeout-secs", "1"]).await;
    let mut slow = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: 200\r\n\r\n{{\"jsonrpc\"",
        server.addr
    );
    slow.write_all(head.as_bytes()).await.unwrap();
    let started = Instant::now();
    // Another client is served meanwhile.
    let other = http_request(server.addr, "GET", "/health", &[], None).await;
    assert_eq!(other.status, 200);
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), slow.read_to_end(&mut answer))
        .await
        .expect("the slow body is cut off")
        .unwrap();
    let took = started.elapsed();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(3),
        "{took:?}"
    );
}

/// A body over `--max-body-bytes` is refused with 413: at once from its
/// `Content-Length` (nothing of it read: the test sends none), or, sent in
/// chunks without one, as soon as it runs over; a body within the limit
/// is served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_bodies_have_a_size_limit() {
    let mcp = test_server_override(SERVER, 3000, "caps-size");
    let server =
        HttpServer::start_with_mcp("file_utils", &mcp, &["--max-body-bytes", "65536"]).await;
    let post = |headers: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\n{headers}\r\n",
            server.addr
        )
    };
    let answer = |mut stream: tokio::net::TcpStream| async move {
        let mut answer = Vec::new();
        tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer))
            .await
            .expect("an answer and a close within 5 s")
            .unwrap();
        String::from_utf8_lossy(&answer).into_owned()
    };
    // Declared: 100 MB, of which nothing is sent.
    let mut declared = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let started = Instant::now();
    declared
        .write_all(post("Content-Length: 104857600\r\n").as_bytes())
        .await
        .unwrap();
    let text = answer(declared).await;
    assert!(text.starts_with("HTTP/1.1 413"), "{text}");
    assert!(text.contains("--max-body-bytes"), "{text}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    // Chunked: 16 KiB chunks, with no end, until the server answers.
    let mut chunked = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    chunked
        .write_all(post("Transfer-Encoding: chunked\r\n").as_bytes())
        .await
        .unwrap();
    let chunk = format!("4000\r\n{}\r\n", " ".repeat(0x4000));
    let mut sent = 0usize;
    while sent < 64 && chunked.write_all(chunk.as_bytes()).await.is_ok() {
        sent += 1;
    }
    let text = answer(chunked).await;
    assert!(
        text.starts_with("HTTP/1.1 413"),
        "after {sent} chunks: {text}"
    );
    // Within the limit: served.
    let init = post_init(server.addr, &[]).await;
    assert_eq!(init.status, 200, "{init:?}");
    let metrics = scrape(&server).await;
    assert!(
        metrics.contains("mcpgraph_refusals_total{cap=\"body_size\"} 2"),
        "{metrics}"
    );
}

/// With 256 file descriptors, 300 open connections exhaust them: `accept`
/// fails with EMFILE. The server backs off (a handful of log lines, not a
/// hot loop), keeps its calls, and serves again once descriptors are free.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn running_out_of_file_descriptors() {
    let mcp = test_server_override(SERVER, 3000, "caps-fds");
    let dir = TempDir::new("caps-fds");
    let mut cmd = tokio::process::Command::new("sh");
    cmd.args(["-c", "ulimit -n 256 && exec \"$@\"", "sh"])
        .arg(bin_path("file_utils"))
        .arg("--mcp")
        .arg(&mcp)
        .args([
            "serve",
            "--http",
            "127.0.0.1:0",
            "--max-connections",
            "100000",
        ])
        .current_dir(dir.path());
    let server = HttpServer::spawn("file_utils", cmd, &[]).await;
    let mut held = Vec::new();
    for _ in 0..300 {
        held.push(tokio::net::TcpStream::connect(server.addr).await.unwrap());
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let stderr = server.stderr();
    let lines = stderr.matches("accept failed").count();
    assert!(
        (1..=8).contains(&lines),
        "{lines} accept-failure lines:\n{stderr}"
    );
    drop(held);
    until_healthy(&server, Duration::from_secs(10), "not serving again").await;
    let client = server.rmcp_client(1).await;
    let ok = client
        .call_tool(call_params("count_files", json!({"directory": "x"})))
        .await
        .expect("a call after the descriptors came back");
    assert_eq!(ok.is_error, Some(false), "{ok:?}");
}

/// HTTP/2 is not served (the caps and deadlines are HTTP/1.1's): a client
/// speaking h2c with prior knowledge gets no HTTP/2 settings frame back,
/// only an HTTP/1.1 refusal or a closed connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http2_is_not_served() {
    let mcp = test_server_override(SERVER, 3000, "caps-h2");
    let server = HttpServer::start_with_mcp("file_utils", &mcp, &[]).await;
    let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    stream
        .write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00")
        .await
        .unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer)).await;
    // An HTTP/2 server's first frame is SETTINGS: type 0x04 at byte 3.
    assert!(
        answer.is_empty() || answer.starts_with(b"HTTP/1.1 "),
        "{:?}",
        String::from_utf8_lossy(&answer)
    );
}
