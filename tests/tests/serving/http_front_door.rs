//! The HTTP front door, spoken to with raw HTTP/1.1: Host/Origin
//! validation (DNS rebinding), the session lifecycle (DELETE) and unknown
//! paths, ping and progress on a session, slow headers, oversized bodies.

use std::time::Duration;

use mcpgraph_tests::*;
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn host_and_origin_validation() {
    let server = HttpServer::start(
        "loop_example",
        &[
            "--allowed-host",
            "mcp.example.com",
            "--allowed-origin",
            "https://app.example.com",
        ],
        &[],
    )
    .await;
    let port = server.addr.port();
    let addr = server.addr;

    // Hosts.
    let local = format!("localhost:{port}");
    let v4 = format!("127.0.0.1:{port}");
    let v6 = format!("[::1]:{port}");
    for host in [&local[..], &v4, &v6, "localhost", "mcp.example.com"] {
        assert_accepted(
            &post_init(addr, &[("Host", host)]).await,
            &format!("Host: {host}"),
        );
    }
    let evil_port = format!("evil.example.com:{port}");
    let suffix = format!("localhost.evil.example.com:{port}");
    let prefix = format!("127.0.0.1.evil.example.com:{port}");
    for host in [
        "evil.example.com",
        &evil_port[..],
        &suffix,
        &prefix,
        "sub.mcp.example.com",
        "example.com",
    ] {
        assert_rejected(
            &post_init(addr, &[("Host", host)]).await,
            &format!("Host: {host}"),
        );
    }

    // Origins (with the default, allowed Host).
    let local_origin = format!("http://localhost:{port}");
    let v4_origin = format!("http://127.0.0.1:{port}");
    for origin in [&local_origin[..], &v4_origin, "https://app.example.com"] {
        assert_accepted(
            &post_init(addr, &[("Origin", origin)]).await,
            &format!("Origin: {origin}"),
        );
    }
    for origin in [
        "http://evil.example.com",
        "https://evil.example.com",
        "http://localhost.evil.example.com",
        "http://127.0.0.1.evil.example.com",
        "http://app.example.com",
        "https://app.example.com.evil.example.com",
        "null",
    ] {
        assert_rejected(
            &post_init(addr, &[("Origin", origin)]).await,
            &format!("Origin: {origin}"),
        );
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_lifecycle_and_paths() {
    let server = HttpServer::start("loop_example", &[], &[]).await;
    let addr = server.addr;

    let sid = open_session(addr).await;
    let with_sid = [("Mcp-Session-Id", sid.as_str())];

    let call = json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": { "name": "sum_to_n", "arguments": { "n": 10 } }
    })
    .to_string();
    let r = post_mcp(addr, &with_sid, &call).await;
    assert_eq!(r.status, 200, "{r:?}");
    let result = r
        .messages()
        .into_iter()
        .find(|m| m["id"] == 2)
        .unwrap_or_else(|| panic!("no response to id 2: {r:?}"));
    assert_eq!(
        result["result"]["structuredContent"],
        json!({ "sum": 55 }),
        "{r:?}"
    );

    // DELETE ends the session; the id is then unknown (404, per the spec).
    let r = http_request(addr, "DELETE", "/mcp", &with_sid, None).await;
    assert!(matches!(r.status, 200 | 204), "session DELETE: {r:?}");
    let r = post_mcp(addr, &with_sid, &call).await;
    assert_eq!(r.status, 404, "POST on a deleted session: {r:?}");
    assert!(
        !r.body.contains("\"sum\""),
        "a deleted session must not run calls: {r:?}"
    );

    // Only /mcp is served.
    for (method, path) in [
        ("GET", "/"),
        ("GET", "/other"),
        ("POST", "/other"),
        ("POST", "/mcp/extra"),
        ("POST", "/mcpx"),
    ] {
        let body = (method == "POST").then(initialize_body);
        let r = http_request(addr, method, path, &mcp_post_headers(&[]), body.as_deref()).await;
        assert_eq!(r.status, 404, "{method} {path}: {r:?}");
    }

    // The server still serves new sessions afterwards.
    assert_accepted(&post_init(addr, &[]).await, "initialize after all that");
    server.stop().await;
}

/// Over a streamable HTTP session, `ping` is answered and a call with a
/// `progressToken` streams one `notifications/progress` per node on its
/// POST's SSE stream, ahead of the result. (In `--stateless` mode the
/// answer is one JSON body: there is no stream to carry progress.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ping_and_progress_over_an_http_session() {
    let server = HttpServer::start("loop_example", &[], &[]).await;
    let addr = server.addr;
    let sid = open_session(addr).await;
    let with_sid = [("Mcp-Session-Id", sid.as_str())];
    let post = |body: Value| async move { post_mcp(addr, &with_sid, &body.to_string()).await };

    let r = post(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"})).await;
    let pong = r.messages().into_iter().find(|m| m["id"] == 2);
    assert_eq!(
        pong.map(|m| m["result"].clone()),
        Some(json!({})),
        "ping: {r:?}"
    );

    let r = post(json!({
        "jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {
            "name": "sum_to_n",
            "arguments": { "n": 3 },
            "_meta": { "progressToken": 77 }
        }
    }))
    .await;
    assert_eq!(r.status, 200, "{r:?}");
    let messages = r.messages();
    let last = messages
        .last()
        .unwrap_or_else(|| panic!("no messages: {r:?}"));
    assert_eq!(last["id"], 3, "the result comes last: {messages:?}");
    assert_eq!(last["result"]["structuredContent"], json!({"sum": 6}));
    let progress: Vec<&Value> = messages
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .collect();
    // entry, 3 × (increment, check), exit_sum, exit_sum_final
    assert_eq!(progress.len(), 9, "{messages:?}");
    assert!(progress.iter().all(|p| p["params"]["progressToken"] == 77));
    assert_eq!(progress[0]["params"]["message"], "node `entry_sum`");
    assert_eq!(progress[8]["params"]["message"], "node `exit_sum_final`");
    server.stop().await;
}

/// A client that never finishes its request headers (slowloris) has its
/// connection closed after `--header-timeout-secs`; others are served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_headers_are_cut_off() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = HttpServer::start("loop_example", &["--header-timeout-secs", "1"], &[]).await;
    let mut slow = tokio::net::TcpStream::connect(server.addr)
        .await
        .expect("connect");
    slow.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl")
        .await
        .expect("write part of the headers");
    let started = std::time::Instant::now();
    let mut rest = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), slow.read_to_end(&mut rest)).await;
    let waited = started.elapsed();
    eprintln!(
        "closed after {waited:?}: {:?}",
        String::from_utf8_lossy(&rest)
    );
    assert!(read.is_ok(), "still open after 10 s");
    assert!(waited >= Duration::from_millis(900), "{waited:?}");
    assert!(
        !String::from_utf8_lossy(&rest).contains("200 OK"),
        "{rest:?}"
    );
    // A prompt client on another connection is served all along.
    assert_accepted(&post_init(server.addr, &[]).await, "initialize");
    server.stop().await;
}

/// A request body over 4 MiB (`--max-body-bytes`' default, rmcp's bound
/// too) is refused from its `Content-Length` without being read or run:
/// the server answers 413 before the body is sent, and closes; the server
/// goes on serving.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_request_bodies_are_refused() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = HttpServer::start("loop_example", &["--stateless"], &[]).await;
    let call = |id: u64, arguments: Value| {
        let body = json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": { "name": "sum_to_n", "arguments": arguments }
        })
        .to_string();
        async move {
            let headers = mcp_post_headers(&[]);
            http_request(server.addr, "POST", "/mcp", &headers, Some(&body)).await
        }
    };
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": { "name": "sum_to_n", "arguments": { "n": 3, "pad": "x".repeat(5 << 20) } }
    })
    .to_string();
    let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n",
        server.addr,
        body.len()
    );
    // The answer comes before the body is sent (a client that sends it
    // anyway may see the connection reset instead: the server reads none
    // of it).
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    let _ = tokio::time::timeout(RAW_TIMEOUT, stream.read_to_end(&mut raw)).await;
    let text = String::from_utf8_lossy(&raw);
    assert!(text.starts_with("HTTP/1.1 413"), "{text:?}");
    assert!(!text.contains("\"sum\""), "{text:?}");
    let r = call(2, json!({ "n": 3 })).await;
    assert!(r.body.contains(r#""sum":6"#), "{r:?}");
    server.stop().await;
}

/// `--max-body-bytes` raised over 4 MiB raises rmcp's own bound with it: a
/// 5 MiB call is read and run, not refused by rmcp with a 413.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_raised_body_limit_reaches_rmcp() {
    let args = ["--stateless", "--max-body-bytes", "8388608"];
    let server = HttpServer::start("loop_example", &args, &[]).await;
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": { "name": "sum_to_n", "arguments": { "n": 3, "pad": "x".repeat(5 << 20) } }
    })
    .to_string();
    let headers = mcp_post_headers(&[]);
    let r = http_request(server.addr, "POST", "/mcp", &headers, Some(&body)).await;
    assert_eq!(r.status, 200, "{:?}", r.headers);
    assert!(
        r.body.contains(r#""sum":6"#),
        "{}",
        &r.body[..r.body.len().min(500)]
    );
    server.stop().await;
}
