//! A hostile client against `serve --http` (issue 27): what it sends must
//! not grow the server's memory, its `/metrics` (tool names it makes up
//! share one label) or its log lines; and the bearer scheme is matched as
//! HTTP says, in any case.

use std::time::{Duration, Instant};

use mcpgraph_tests::*;
use serde_json::json;

/// Calls of made-up tools, and the size of each made-up name.
const UNKNOWN_CALLS: usize = 3_000;
const NAME_BYTES: usize = 64 * 1024;
/// The calls in flight at once, each on a client of its own.
const CLIENTS: usize = 4;

/// The server's resident memory, from `/proc/<pid>/status`.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_else(|e| panic!("/proc/{pid}/status: {e}"));
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no VmRSS in /proc/{pid}/status:\n{status}"))
}

async fn scrape(server: &HttpServer) -> String {
    let r = http_request(server.addr, "GET", "/metrics", &[], None).await;
    assert_eq!(r.status, 200, "{r:?}");
    r.body
}

async fn sum_to_ten(client: &Client) {
    let ok = client
        .call_tool(call_params("sum_to_n", json!({ "n": 10 })))
        .await
        .expect("a real call");
    assert_eq!(
        ok.structured_content,
        Some(json!({ "sum": 55 })),
        "{}",
        result_json(&ok)
    );
}

/// 3,000 calls of tools the graph does not have, each named with 64 KiB of
/// its own, leave `/metrics` small (one shared label) and the server's
/// memory where it was; neither the errors nor the server's log lines
/// repeat the names whole; a real call is still answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_tool_names_do_not_grow_metrics_or_memory() {
    let server = HttpServer::start("loop_example", &[], &[]).await;
    let mut clients = Vec::new();
    for _ in 0..CLIENTS {
        clients.push(server.rmcp_client(1).await);
    }
    // Warm up: the first calls allocate what every later call reuses.
    for client in &clients {
        sum_to_ten(client).await;
    }
    let before = rss_kib(server.pid());

    let started = Instant::now();
    let flood = clients.into_iter().enumerate().map(|(c, client)| {
        tokio::spawn(async move {
            for i in (c..UNKNOWN_CALLS).step_by(CLIENTS) {
                let mut name = format!("no-such-tool-{i}-");
                name.extend(std::iter::repeat_n('x', NAME_BYTES - name.len()));
                let refused = client
                    .call_tool(call_params(&name, json!({})))
                    .await
                    .expect_err("a tool the graph does not have");
                let refused = refused.to_string();
                assert!(refused.contains("unknown tool"), "{refused}");
                // The name is not echoed back whole.
                assert!(refused.len() < 1024, "{} bytes of error", refused.len());
            }
            client
        })
    });
    let clients = tokio::time::timeout(Duration::from_secs(240), futures::future::join_all(flood))
        .await
        .expect("the calls of unknown tools took over 240 s");
    let clients: Vec<Client> = clients
        .into_iter()
        .map(|c| c.expect("a client task"))
        .collect();
    let took = started.elapsed();

    let after = rss_kib(server.pid());
    let metrics = scrape(&server).await;
    let stderr = server.stderr();
    eprintln!(
        "{UNKNOWN_CALLS} unknown tools of {NAME_BYTES} bytes in {took:?}: /metrics {} bytes, \
         RSS {before} KiB before, {after} KiB after ({:+} KiB), {} bytes of stderr",
        metrics.len(),
        after as i64 - before as i64,
        stderr.len()
    );
    assert!(
        metrics.len() < 64 * 1024,
        "/metrics is {} bytes; its first 2,000:\n{}",
        metrics.len(),
        &metrics[..metrics.len().min(2_000)]
    );
    assert!(
        metrics.contains(&format!(
            "mcpgraph_calls_total{{tool=\"(unknown)\",outcome=\"unknown_tool\"}} {UNKNOWN_CALLS}"
        )),
        "{metrics}"
    );
    assert!(
        metrics.contains(&format!(
            "mcpgraph_calls_total{{tool=\"sum_to_n\",outcome=\"ok\"}} {CLIENTS}"
        )),
        "{metrics}"
    );
    assert!(
        after <= before + 32 * 1024,
        "RSS grew from {before} KiB to {after} KiB"
    );
    // rmcp logs every error response, message included, at `warn`: the
    // names must not reach the log whole either.
    let longest = stderr.lines().map(str::len).max().unwrap_or(0);
    assert!(
        longest < 4096,
        "a {longest}-byte line in the server's {}-byte stderr",
        stderr.len()
    );
    sum_to_ten(&clients[0]).await;
    server.stop().await;
}

/// The bearer scheme is case-insensitive (RFC 9110 §11.1) and may be
/// followed by more than one space (RFC 6750 §2.1's `1*SP`); the token is
/// not, and another scheme carrying the right token is still refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bearer_scheme_in_any_case() {
    const TOKEN_VAR: &str = "MCPGRAPH_TEST_AUTH_TOKEN";
    let token = format!("Tok-{}-Secret", std::process::id());
    let server = HttpServer::start(
        "loop_example",
        &["--auth-token-env", TOKEN_VAR],
        &[(TOKEN_VAR, &token)],
    )
    .await;
    let body = initialize_body();
    let accepted = [
        format!("Bearer {token}"),
        format!("bearer {token}"),
        format!("BEARER {token}"),
        format!("bEaReR {token}"),
        format!("Bearer   {token}"),
    ];
    for auth in &accepted {
        let r = post_mcp(server.addr, &[("Authorization", auth)], &body).await;
        assert_accepted(&r, auth);
    }
    let refused = [
        format!("bearer {}", token.to_lowercase()),
        format!("bearer {}", token.to_uppercase()),
        "bearer not-the-token".to_owned(),
        format!("Basic {token}"),
        format!("Bearer{token}"),
        format!("Bearers {token}"),
        format!("bearer\t{token}"),
        token.clone(),
        "bearer ".to_owned(),
    ];
    for auth in &refused {
        let r = post_mcp(server.addr, &[("Authorization", auth)], &body).await;
        assert_eq!(r.status, 401, "{auth:?}: {r:?}");
        assert!(
            r.header("mcp-session-id").is_none(),
            "{auth:?}: no session without auth: {r:?}"
        );
    }
    // `/metrics` is behind the same token, read the same way.
    let r = http_request(
        server.addr,
        "GET",
        "/metrics",
        &[("Authorization", &format!("BEARER {token}"))],
        None,
    )
    .await;
    assert_eq!(r.status, 200, "{r:?}");
    server.stop().await;
}
