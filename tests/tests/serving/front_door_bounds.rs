//! The front door's bounds where the resource is made (issue 27): sessions
//! counted when they are created, not when their request arrives;
//! connections over the cap answered by a bounded number of tasks (a flood
//! cannot hold descriptors); `/metrics` on a listener of its own, and
//! behind the `Host`/`Origin` checks on the public one.

use std::time::{Duration, Instant};

use mcpgraph_tests::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// `initialize` requests whose bodies arrive slowly, all at once.
const SLOW_INITS: usize = 20;
/// Connections opened at once against `--max-connections 8`.
const FLOOD: usize = 400;

/// An `initialize` whose body comes in two halves, the second at `second`:
/// every request is past the door before any session exists.
async fn slow_initialize(addr: std::net::SocketAddr, second: Instant) -> HttpResponse {
    let body = initialize_body();
    let (first, rest) = body.split_at(body.len() / 2);
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nConnection: close\r\n\
         Content-Length: {}\r\n\r\n{first}",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.expect("write");
    tokio::time::sleep_until(second.into()).await;
    stream.write_all(rest.as_bytes()).await.expect("write");
    let mut raw = Vec::new();
    tokio::time::timeout(RAW_TIMEOUT, stream.read_to_end(&mut raw))
        .await
        .expect("an answer")
        .expect("read");
    parse_http_response("slow initialize", &raw)
}

/// `--max-sessions 2` and 20 `initialize` requests whose bodies trickle in
/// concurrently: exactly 2 sessions are created, the others get a 503 that
/// names the cap.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_capped_where_they_are_created() {
    let server = HttpServer::start("loop_example", &["--max-sessions", "2"], &[]).await;
    let second = Instant::now() + Duration::from_millis(1000);
    let answers =
        futures::future::join_all((0..SLOW_INITS).map(|_| slow_initialize(server.addr, second)))
            .await;
    let created = answers
        .iter()
        .filter(|r| r.status == 200 && r.header("mcp-session-id").is_some())
        .count();
    for r in answers
        .iter()
        .filter(|r| r.header("mcp-session-id").is_none())
    {
        assert_eq!(r.status, 503, "{r:?}");
        assert!(
            r.body.contains("too many sessions (--max-sessions)"),
            "{r:?}"
        );
        assert_eq!(r.header("retry-after"), Some("1"), "{r:?}");
    }
    let metrics = http_request(server.addr, "GET", "/metrics", &[], None)
        .await
        .body;
    eprintln!("{SLOW_INITS} slow initialize requests, --max-sessions 2: {created} sessions");
    assert_eq!(created, 2, "sessions created");
    assert!(metrics.contains("mcpgraph_sessions 2\n"), "{metrics}");
    server.stop().await;
}

/// The server's open file descriptors.
fn descriptors(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |d| d.count())
}

/// 400 connections (within a 1,024 descriptor limit) opened at once and held, against `--max-connections
/// 8`: those over the cap are answered by a bounded set of tasks (the rest
/// closed at once), so the server's descriptors stay near 8 + that bound.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connect_flood_holds_few_descriptors() {
    let server = HttpServer::start("loop_example", &["--max-connections", "8"], &[]).await;
    let pid = server.pid();
    let before = descriptors(pid);
    let sampling = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let sampler = {
        let sampling = sampling.clone();
        std::thread::spawn(move || {
            let mut most = 0;
            while sampling.load(std::sync::atomic::Ordering::Relaxed) {
                most = most.max(descriptors(pid));
                std::thread::sleep(Duration::from_millis(2));
            }
            most
        })
    };
    let mut held = Vec::new();
    for _ in 0..FLOOD {
        if let Ok(stream) = tokio::net::TcpStream::connect(server.addr).await {
            held.push(stream);
        }
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    sampling.store(false, std::sync::atomic::Ordering::Relaxed);
    let most = sampler.join().expect("sampler");
    drop(held);
    eprintln!(
        "{FLOOD} connections against --max-connections 8: {before} descriptors before, \
         at most {most} during the flood"
    );
    assert!(
        most <= before + 8 + 64 + 32,
        "{most} descriptors during the flood ({before} before)"
    );
    // Serving again, and the refusals are counted.
    let deadline = Instant::now() + Duration::from_secs(10);
    let metrics = loop {
        let r = http_request(server.addr, "GET", "/metrics", &[], None).await;
        if r.status == 200 {
            break r.body;
        }
        assert!(Instant::now() < deadline, "not serving again: {r:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    // All from one address: the per-peer cap (6 of 8) refuses first; past
    // 64 refusals under way, connections are closed unanswered.
    for cap in ["connections_per_peer", "connections_unanswered"] {
        let line = format!("mcpgraph_refusals_total{{cap=\"{cap}\"}}");
        assert!(metrics.contains(&line), "{line} not in:\n{metrics}");
    }
    assert!(
        metrics.contains("mcpgraph_connections_refusing "),
        "{metrics}"
    );
    server.stop().await;
}

/// The line a server prints once its metrics listener is bound.
const METRICS_PREFIX: &str = "mcpgraph: serving metrics on http://";

async fn metrics_addr(server: &HttpServer) -> std::net::SocketAddr {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let stderr = server.stderr();
        if let Some(line) = stderr.lines().find_map(|l| l.strip_prefix(METRICS_PREFIX)) {
            return line
                .trim_end_matches("/metrics")
                .parse()
                .unwrap_or_else(|e| panic!("{line:?}: {e}"));
        }
        assert!(Instant::now() < deadline, "no metrics line:\n{stderr}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `--metrics-addr`: `/metrics` on a listener of its own (no token: it is
/// meant for a private interface), and no longer on the public one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_on_a_listener_of_their_own() {
    const TOKEN_VAR: &str = "MCPGRAPH_TEST_METRICS_TOKEN";
    let token = format!("metrics-{}", std::process::id());
    let server = HttpServer::start(
        "loop_example",
        &[
            "--metrics-addr",
            "127.0.0.1:0",
            "--auth-token-env",
            TOKEN_VAR,
        ],
        &[(TOKEN_VAR, &token)],
    )
    .await;
    let private = metrics_addr(&server).await;
    assert_ne!(private, server.addr);
    let r = http_request(private, "GET", "/metrics", &[], None).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert!(r.body.contains("mcpgraph_sessions 0\n"), "{}", r.body);
    let r = http_request(private, "GET", "/mcp", &[], None).await;
    assert_eq!(r.status, 404, "only /metrics there: {r:?}");
    let bearer = format!("Bearer {token}");
    let r = http_request(
        server.addr,
        "GET",
        "/metrics",
        &[("Authorization", &bearer)],
        None,
    )
    .await;
    assert_eq!(r.status, 404, "not on the public listener: {r:?}");
    server.stop().await;
}

/// On the public listener `/metrics` checks `Host` and `Origin` as `/mcp`
/// does (DNS rebinding): a page on another site cannot read it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn public_metrics_check_host_and_origin() {
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
    let scrape = |headers: Vec<(&'static str, &'static str)>| {
        let addr = server.addr;
        async move { http_request(addr, "GET", "/metrics", &headers, None).await }
    };
    for headers in [
        vec![],
        vec![("Host", "mcp.example.com")],
        vec![("Origin", "https://app.example.com")],
    ] {
        let r = scrape(headers.clone()).await;
        assert_eq!(r.status, 200, "{headers:?}: {r:?}");
    }
    for headers in [
        vec![("Host", "evil.example.com")],
        vec![("Origin", "http://evil.example.com")],
        vec![("Host", "mcp.example.com"), ("Origin", "null")],
    ] {
        let r = scrape(headers.clone()).await;
        assert_eq!(r.status, 403, "{headers:?}: {r:?}");
        assert!(!r.body.contains("mcpgraph_"), "{headers:?}: {r:?}");
    }
    server.stop().await;
}
