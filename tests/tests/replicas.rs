//! Stateless mode: two replicas of one example behind nginx (round-robin on
//! loopback, started by this test), driven by the official Python SDK
//! client. Every call must succeed and both replicas must have answered.
//!
//! nginx is the Debian package, installed by `scripts/install-peers.sh`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use mcpgraph_tests::*;
use serde_json::{Value, json};

/// nginx started on a loopback port with its own prefix directory; killed
/// (and its directory removed) on drop.
struct Nginx {
    child: tokio::process::Child,
    dir: PathBuf,
    port: u16,
}

impl Nginx {
    async fn start(upstreams: &[std::net::SocketAddr]) -> Nginx {
        let exe = nginx_exe();
        let dir = std::env::temp_dir().join(format!(
            "mcpgraph-replicas-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        std::fs::create_dir_all(dir.join("logs")).expect("create nginx prefix dir");
        // A free port can be taken between probing and nginx's bind: retry.
        let mut last_err = String::new();
        for _ in 0..5 {
            let port = free_port();
            let conf = dir.join("nginx.conf");
            std::fs::write(&conf, nginx_conf(&dir, port, upstreams)).expect("write nginx.conf");
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
                        use tokio::io::AsyncReadExt;
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

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    fn access_log(&self) -> String {
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

fn nginx_conf(dir: &Path, port: u16, upstreams: &[std::net::SocketAddr]) -> String {
    let servers: String = upstreams
        .iter()
        .map(|a| format!("        server {a} max_fails=0;\n"))
        .collect();
    let d = dir.display();
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
    upstream mcpgraph_replicas {{
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
}}
"#
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_replicas_behind_nginx() {
    let a = HttpServer::start("loop_example", &["--stateless", "--log-level", "info"], &[]).await;
    let b = HttpServer::start("loop_example", &["--stateless", "--log-level", "info"], &[]).await;
    let nginx = Nginx::start(&[a.addr, b.addr]).await;

    // 12 calls with distinct answers from one client session.
    let ns: Vec<u64> = (1..=12).collect();
    let calls = Value::Array(
        ns.iter()
            .map(|n| json!({ "name": "sum_to_n", "arguments": { "n": n } }))
            .collect(),
    );
    let target = Target::Http {
        url: nginx.url(),
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
