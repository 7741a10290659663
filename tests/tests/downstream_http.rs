//! HTTP downstream servers: the legacy SSE transport (written here; rmcp
//! has none) and streamable HTTP (rmcp's client), both against the pinned
//! `@modelcontextprotocol/server-everything` started on a free loopback
//! port, and `${VAR}` expansion of `headers` checked on the wire.

use std::process::Stdio;
use std::time::Duration;

use mcpgraph::runtime::client_manager::{ServerSpec, TransportSpec};
use mcpgraph::runtime::{CancellationToken, Engine};
use mcpgraph_tests::repo_root;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

mod downstream {
    mcpgraph::mcpgraph!("graphs/downstream.yaml");
}

type Server = downstream::Server;

const STEP: Duration = Duration::from_secs(10);

/// server-everything in `mode` (`sse` or `streamableHttp`) on `port`.
struct Everything {
    child: tokio::process::Child,
}

impl Everything {
    async fn start(mode: &str, port: u16) -> Everything {
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
        let mut lines = BufReader::new(child.stderr.take().expect("stderr piped")).lines();
        let ready = tokio::time::timeout(STEP, async {
            while let Ok(Some(line)) = lines.next_line().await {
                if line.contains("port") {
                    return line;
                }
            }
            panic!("server-everything {mode} exited before listening");
        })
        .await
        .unwrap_or_else(|_| panic!("server-everything {mode} did not start within {STEP:?}"));
        assert!(!ready.contains("Failed"), "{ready}");
        // Keep draining its log so it never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Everything { child }
    }

    async fn stop(mut self) {
        let _ = self.child.kill().await;
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

fn remote(transport: TransportSpec) -> Vec<ServerSpec> {
    vec![ServerSpec {
        name: "remote".into(),
        transport,
        timeout_ms: Some(5000),
    }]
}

async fn call(engine: &Engine<Server>, tool: &str, args: Value) -> Result<Value, String> {
    let args = args.as_object().cloned();
    match tokio::time::timeout(STEP, engine.call(tool, args, CancellationToken::new())).await {
        Ok(result) => result.map_err(|e| e.to_string()),
        Err(_) => panic!("`{tool}` did not return within {STEP:?}"),
    }
}

/// Calls over one connection, some of them concurrent.
async fn exercise(e: &Engine<Server>) {
    assert_eq!(
        call(e, "remote_echo", json!({"message": "hi"})).await,
        Ok(json!("Echo: hi"))
    );
    let mut calls = tokio::task::JoinSet::new();
    for i in 0..8 {
        let e = e.clone();
        calls.spawn(async move { (i, call(&e, "remote_sum", json!({"a": i, "b": 10})).await) });
    }
    while let Some(joined) = calls.join_next().await {
        let (i, r) = joined.expect("call task");
        assert_eq!(
            r,
            Ok(json!(format!("The sum of {i} and 10 is {}.", i + 10)))
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn legacy_sse_server_everything() {
    let port = free_port();
    let server = Everything::start("sse", port).await;
    let e = Engine::<Server>::start(
        remote(TransportSpec::Sse {
            url: format!("http://127.0.0.1:{port}/sse"),
            headers: vec![],
        }),
        2,
    )
    .unwrap();
    exercise(&e).await;
    // The server goes away: calls fail with a clear error...
    server.stop().await;
    let err = call(&e, "remote_echo", json!({"message": "x"}))
        .await
        .unwrap_err();
    eprintln!("{err}");
    assert!(err.contains("`remote`"), "{err}");
    // ...and once it is back, the next call reconnects.
    let server = Everything::start("sse", port).await;
    let mut last = Err(String::new());
    for _ in 0..3 {
        last = call(&e, "remote_echo", json!({"message": "back"})).await;
        if last.is_ok() {
            break;
        }
    }
    assert_eq!(last, Ok(json!("Echo: back")));
    e.shutdown().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn streamable_http_server_everything() {
    let port = free_port();
    let server = Everything::start("streamableHttp", port).await;
    let e = Engine::<Server>::start(
        remote(TransportSpec::StreamableHttp {
            url: format!("http://127.0.0.1:{port}/mcp"),
            headers: vec![("X-Test".into(), "yes".into())],
        }),
        2,
    )
    .unwrap();
    exercise(&e).await;
    e.shutdown().await;
    server.stop().await;
}

/// Accepts one connection on a fresh port, returns what the client sent
/// (up to the end of the headers), and answers 503.
async fn capture_one_request() -> (u16, tokio::task::JoinHandle<String>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let task = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut head = Vec::new();
        let mut buf = [0u8; 4096];
        while !head.windows(4).any(|w| w == b"\r\n\r\n") {
            match socket.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => head.extend_from_slice(&buf[..n]),
            }
        }
        let _ = socket
            .write_all(b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            .await;
        String::from_utf8_lossy(&head).to_lowercase()
    });
    (port, task)
}

#[tokio::test(flavor = "multi_thread")]
async fn headers_are_expanded_at_connect_time() {
    let home = std::env::var("HOME").unwrap_or_default();
    let headers = || {
        vec![
            (
                "X-Default".to_owned(),
                "${MCPGRAPH_TEST_SURELY_UNSET:-fallback}".to_owned(),
            ),
            ("X-Home".to_owned(), "home=${HOME}".to_owned()),
        ]
    };
    for sse in [true, false] {
        let (port, request) = capture_one_request().await;
        let transport = if sse {
            TransportSpec::Sse {
                url: format!("http://127.0.0.1:{port}/sse"),
                headers: headers(),
            }
        } else {
            TransportSpec::StreamableHttp {
                url: format!("http://127.0.0.1:{port}/mcp"),
                headers: headers(),
            }
        };
        let e = Engine::<Server>::start(remote(transport), 1).unwrap();
        let err = call(&e, "remote_echo", json!({"message": "x"}))
            .await
            .unwrap_err();
        eprintln!("{err}");
        assert!(
            err.contains("cannot start downstream server `remote`"),
            "{err}"
        );
        let head = tokio::time::timeout(STEP, request).await.unwrap().unwrap();
        assert!(
            head.contains("x-default: fallback\r\n"),
            "sse={sse}: {head}"
        );
        assert!(
            head.contains(&format!("x-home: home={}\r\n", home.to_lowercase())),
            "sse={sse}: {head}"
        );
    }
}
