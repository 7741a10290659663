//! Stateless mode: two replicas of one example behind nginx (round-robin on
//! loopback, started by this test), driven by the official Python SDK
//! client. Every call must succeed and both replicas must have answered.
//!
//! nginx is the Debian package, installed by `scripts/install-peers.sh`.

use std::collections::BTreeMap;

use mcpgraph_tests::*;
use serde_json::{Value, json};

/// The `http` block's servers: round-robin over `upstreams` on `port`.
pub(super) fn nginx_servers(port: u16, upstreams: &[std::net::SocketAddr]) -> String {
    let servers: String = upstreams
        .iter()
        .map(|a| format!("        server {a} max_fails=0;\n"))
        .collect();
    format!(
        r#"    upstream mcpgraph_replicas {{
{servers}    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://mcpgraph_replicas;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_buffering off;
            proxy_read_timeout 60s;
        }}
    }}
"#
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_replicas_behind_nginx() {
    let a = HttpServer::start("loop_example", &["--stateless", "--log-level", "info"], &[]).await;
    let b = HttpServer::start("loop_example", &["--stateless", "--log-level", "info"], &[]).await;
    let upstreams = [a.addr, b.addr];
    let nginx = Nginx::start("replicas", |_, port| nginx_servers(port, &upstreams)).await;

    // 12 calls with distinct answers from one client session.
    let ns: Vec<u64> = (1..=12).collect();
    let calls = Value::Array(
        ns.iter()
            .map(|n| json!({ "name": "sum_to_n", "arguments": { "n": n } }))
            .collect(),
    );
    let target = Target::Http {
        url: format!("http://127.0.0.1:{}/mcp", nginx.port()),
        headers: vec![],
    };
    let run = run_sdk_client(Sdk::Python, &target, &calls).await;
    assert_eq!(run.code, Some(0), "Python SDK through nginx: {run:#?}");
    assert_eq!(run.initialize()["serverInfo"]["name"], "loopExample");
    assert_eq!(run.tools(), vec!["sum_to_n".to_string()]);
    let got = run.calls();
    assert_eq!(got.len(), ns.len(), "{run:#?}");
    for (n, line) in ns.iter().zip(got) {
        assert_ne!(line["result"]["isError"], json!(true), "n={n}: {line}");
        assert_eq!(
            line["result"]["structuredContent"]["sum"].as_f64(),
            Some((n * (n + 1) / 2) as f64),
            "n={n}: {line}"
        );
    }

    // Both replicas answered: count POSTs per upstream in nginx's log
    // (`METHOD URI STATUS upstream=ADDR`), and no request failed at the
    // proxy (no 5xx, no retry to the next upstream: "a, b").
    let log = nginx.access_log();
    let mut per_upstream: BTreeMap<String, usize> = BTreeMap::new();
    for line in log.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        let [method, uri, status, upstream] = fields[..] else {
            panic!("unexpected access log line {line:?}\nlog:\n{log}");
        };
        let upstream = upstream.strip_prefix("upstream=").unwrap_or(upstream);
        assert!(
            status.starts_with('2') && !upstream.contains(','),
            "request failed or was retried at the proxy: {line:?}\nlog:\n{log}"
        );
        if method == "POST" && uri == "/mcp" {
            *per_upstream.entry(upstream.to_string()).or_default() += 1;
        }
    }
    for s in [&a, &b] {
        let n = per_upstream.get(&s.addr.to_string()).copied().unwrap_or(0);
        assert!(
            n >= 3,
            "replica {} answered {n} POSTs (want ≥ 3 of the ≥ 14): {per_upstream:?}\nlog:\n{log}",
            s.addr
        );
    }
    let total: usize = per_upstream.values().sum();
    assert!(
        total >= ns.len() + 2,
        "initialize + tools/list + {} calls went through nginx, log has {total}: {log}",
        ns.len()
    );
    // Each replica's own log shows tool calls too.
    for s in [&a, &b] {
        assert!(
            s.stderr().contains("sum_to_n"),
            "replica {} logged no sum_to_n call at --log-level info:\n{}",
            s.addr,
            s.stderr()
        );
    }

    eprintln!("requests per replica: {per_upstream:?}");
    drop(nginx);
    a.stop().await;
    b.stop().await;
}
