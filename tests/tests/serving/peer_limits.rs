//! Bounds per peer and per connection for `serve --http` (issue 27): one
//! address cannot hold every connection or send without limit (another
//! address, 127.0.0.2, is still served), a client that stops reading its
//! response is dropped after the send timeout, and a connection older than
//! the maximum age is closed after its current response.

use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};

use mcpgraph_tests::*;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::keep_alive::{KeepAlive, says_close};
use super::shutdown::{count_of, slow_override, wait_child};

/// A second peer on loopback.
const OTHER: Option<IpAddr> = Some(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2)));

/// `GET /health` on `connection` in a blocking thread; the status, or
/// `None` when the connection was closed without an answer.
async fn health(mut connection: KeepAlive) -> (Option<u16>, Option<String>, KeepAlive) {
    tokio::task::spawn_blocking(move || {
        let r = connection.request("GET", "/health", &[], None);
        let status = r.as_ref().ok().and_then(|r| r.status().ok());
        let text = r.ok().map(|r| {
            format!(
                "{} retry-after={:?} {}",
                r.start_line,
                r.header("retry-after"),
                String::from_utf8_lossy(&r.body)
            )
        });
        (status, text, connection)
    })
    .await
    .expect("a blocking request")
}

/// `--max-connections-per-peer 2`: a third connection from 127.0.0.1 is
/// refused, while 127.0.0.2 still connects; a place freed is usable again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_peer_over_its_connection_limit() {
    let server = HttpServer::start("loop_example", &["--max-connections-per-peer", "2"], &[]).await;
    let addr = server.addr;
    let mut held = Vec::new();
    for _ in 0..2 {
        let (status, _, c) = health(KeepAlive::connect(addr, None).await.unwrap()).await;
        assert_eq!(status, Some(200));
        held.push(c);
    }
    let (status, text, _) = health(KeepAlive::connect(addr, None).await.unwrap()).await;
    assert_eq!(status, Some(503), "{text:?}");
    let text = text.unwrap_or_default();
    assert!(
        text.contains("from one address (--max-connections-per-peer)"),
        "{text}"
    );
    let (status, text, _other) = health(KeepAlive::connect(addr, OTHER).await.unwrap()).await;
    assert_eq!(status, Some(200), "127.0.0.2 is another peer: {text:?}");
    held.pop();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (status, _, _) = health(KeepAlive::connect(addr, None).await.unwrap()).await;
        if status == Some(200) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the freed place was not given back"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // From the other peer: 127.0.0.1 may still hold both of its places.
    let mut scraper = KeepAlive::connect(addr, OTHER).await.unwrap();
    let metrics =
        tokio::task::spawn_blocking(move || scraper.request("GET", "/metrics", &[], None))
            .await
            .unwrap()
            .expect("a scrape");
    let metrics = String::from_utf8_lossy(&metrics.body);
    assert!(
        metrics.contains("mcpgraph_refusals_total{cap=\"connections_per_peer\"}"),
        "{metrics}"
    );
    server.stop().await;
}

/// `--max-request-rate-per-peer 5`: a burst from 127.0.0.1 beyond 5
/// requests gets 429 with `Retry-After`; 127.0.0.2 is still served, and
/// 127.0.0.1 again a second later.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_rate_per_peer() {
    let server =
        HttpServer::start("loop_example", &["--max-request-rate-per-peer", "5"], &[]).await;
    let addr = server.addr;
    let mut connection = KeepAlive::connect(addr, None).await.unwrap();
    let mut statuses = Vec::new();
    let mut limited = None;
    for _ in 0..12 {
        let (status, text, c) = health(connection).await;
        connection = c;
        statuses.push(status);
        if status == Some(429) {
            limited = text;
        }
    }
    let ok = statuses.iter().filter(|s| **s == Some(200)).count();
    assert!((5..=7).contains(&ok), "{statuses:?}");
    let limited = limited.unwrap_or_else(|| panic!("no 429: {statuses:?}"));
    assert!(limited.contains("retry-after=Some(\"1\")"), "{limited}");
    assert!(limited.contains("--max-request-rate-per-peer"), "{limited}");
    let (status, text, _) = health(KeepAlive::connect(addr, OTHER).await.unwrap()).await;
    assert_eq!(status, Some(200), "127.0.0.2 is another peer: {text:?}");
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let (status, text, _) = health(connection).await;
    assert_eq!(status, Some(200), "a second later: {text:?}");
    eprintln!("--max-request-rate-per-peer 5, 12 requests at once: {statuses:?}");
    server.stop().await;
}

/// The open HTTP connections, as `/metrics` counts them.
async fn open_connections(addr: std::net::SocketAddr) -> (u64, String) {
    let metrics = http_request(addr, "GET", "/metrics", &[], None).await.body;
    let open = metrics
        .lines()
        .find_map(|l| l.strip_prefix("mcpgraph_connections "))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no gauge:\n{metrics}"));
    (open, metrics)
}

/// Clients that stop reading a response of several MiB (a small receive
/// buffer, nothing read) are dropped once the server could not write for
/// `--send-timeout-secs`: their connections, and the responses buffered for
/// them, are gone; each had only part of its response.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_stops_reading_is_dropped() {
    const CLIENTS: usize = 4;
    const PAD: usize = 3 << 20;
    let server = HttpServer::start(
        "test_minimal",
        &["--stateless", "--send-timeout-secs", "1"],
        &[],
    )
    .await;
    let addr = server.addr;
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": { "name": "test_tool", "arguments": { "pad": "x".repeat(PAD) } }
    })
    .to_string();
    let mut stalled = Vec::new();
    for _ in 0..CLIENTS {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.set_recv_buffer_size(4096).unwrap();
        let mut stream = socket.connect(addr).await.unwrap();
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(body.as_bytes()).await.unwrap();
        stalled.push(stream);
    }
    let started = Instant::now();
    let deadline = started + Duration::from_secs(15);
    let (open, metrics) = loop {
        // The scrape's own connection is the one left.
        let (open, metrics) = open_connections(addr).await;
        if open <= 1 || Instant::now() > deadline {
            break (open, metrics);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let took = started.elapsed();
    assert!(
        open <= 1,
        "{open} connections still open after {took:?}:\n{metrics}"
    );
    assert!(
        metrics.contains(&format!(
            "mcpgraph_refusals_total{{cap=\"send_timeout\"}} {CLIENTS}"
        )),
        "{metrics}"
    );
    for mut stream in stalled {
        let mut got = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut got)).await;
        assert!(
            got.len() < 2 * PAD,
            "a dropped client got {} bytes",
            got.len()
        );
    }
    eprintln!("{CLIENTS} clients that stopped reading dropped within {took:?}");
    server.stop().await;
}

/// `--max-connection-age-secs 1`: a connection busy past its age gets its
/// response with `Connection: close` and is then closed; an idle one past
/// its age is closed; a young one is kept alive.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn old_connections_close_after_their_response() {
    let tmp = TempDir::new("max-age");
    let tag = tmp.path().join("tag");
    let mcp = slow_override(tmp.path(), 1500, &tag);
    let server = HttpServer::start_with_mcp(
        "file_utils",
        &mcp,
        &["--stateless", "--max-connection-age-secs", "1"],
    )
    .await;
    let addr = server.addr;
    let call = json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": { "name": "count_files", "arguments": { "directory": "/anywhere" } }
    })
    .to_string();
    // Start the downstream child.
    let warm = post_mcp(addr, &[], &call).await;
    assert!(warm.body.contains("\"count\":3"), "{warm:?}");
    wait_child(&tag.to_string_lossy()).await;

    let young = KeepAlive::connect(addr, None).await.unwrap();
    let mut busy = KeepAlive::connect(addr, None).await.unwrap();
    let (status, _, mut young) = health(young).await;
    assert_eq!(status, Some(200));
    let (answer, mut busy) = tokio::task::spawn_blocking(move || {
        let headers = mcp_post_headers(&[]);
        let r = busy.request("POST", "/mcp", &headers, Some(&call));
        (r, busy)
    })
    .await
    .unwrap();
    let answer = answer.expect("the call's answer");
    assert!(
        says_close(&answer),
        "no Connection: close past the age: {answer:?}"
    );
    let body: serde_json::Value = serde_json::from_slice(&answer.body).expect("JSON");
    assert_eq!(count_of(&body["result"]), Some(3.0), "{body}");
    assert!(
        tokio::task::spawn_blocking(move || busy.closed_within(Duration::from_secs(3)))
            .await
            .unwrap(),
        "the busy connection was not closed after its response"
    );
    // The idle one has passed its age meanwhile: closed too.
    assert!(
        tokio::task::spawn_blocking(move || young.closed_within(Duration::from_secs(3)))
            .await
            .unwrap(),
        "an idle connection past its age was not closed"
    );
    // A new connection is kept alive.
    let (status, text, fresh) = health(KeepAlive::connect(addr, None).await.unwrap()).await;
    assert_eq!(status, Some(200), "{text:?}");
    let (status, text, _) = health(fresh).await;
    assert_eq!(
        status,
        Some(200),
        "a young connection is kept alive: {text:?}"
    );
    server.stop().await;
}

/// An SDK client (rmcp over reqwest, which pools its connections and keeps
/// an event stream open) goes on calling across connection ages: the
/// closes at `--max-connection-age-secs 1` cost it no call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sdk_clients_outlive_connection_ages() {
    let server = HttpServer::start("loop_example", &["--max-connection-age-secs", "1"], &[]).await;
    let client = server.rmcp_client(4).await;
    for n in 1..=20u64 {
        let r = client
            .call_tool(call_params("sum_to_n", json!({ "n": n })))
            .await
            .unwrap_or_else(|e| panic!("call {n} across connection ages: {e}"));
        assert_eq!(
            r.structured_content,
            Some(json!({ "sum": n * (n + 1) / 2 }))
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    server.stop().await;
}
