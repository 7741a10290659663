//! HTTP downstream servers: the legacy SSE transport (written here; rmcp
//! has none) and streamable HTTP (rmcp's client), both against the pinned
//! `@modelcontextprotocol/server-everything` started on a free loopback
//! port, and `${VAR}` expansion of `headers` checked on the wire.

use std::time::Duration;

use mcpgraph::Engine;
use mcpgraph::{ServerSpec, TransportSpec};
use mcpgraph_tests::{Everything, engine_call, free_port, replace_server, test_server_over_http};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

mod downstream {
    mcpgraph::mcpgraph!("graphs/downstream.yaml");
}

mod sse_failures {
    mcpgraph::mcpgraph!("graphs/sse_failures.yaml");
}

type Server = downstream::Server;

const STEP: Duration = Duration::from_secs(10);

fn remote(transport: TransportSpec) -> Vec<ServerSpec> {
    replace_server("remote", transport)
}

async fn call(engine: &Engine, tool: &str, args: Value) -> Result<Value, String> {
    engine_call(engine, tool, args).await
}

/// Calls over one connection, some of them concurrent.
async fn exercise(e: &Engine) {
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
    let e = Engine::start::<Server>(
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
    let e = Engine::start::<Server>(
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
        let e = Engine::start::<Server>(remote(transport), 1).unwrap();
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

async fn test_server_http(port: u16) -> tokio::process::Child {
    mcpgraph_tests::test_server_http(env!("CARGO_BIN_EXE_mcpgraph-test-server"), port).await
}

#[tokio::test(flavor = "multi_thread")]
async fn an_oversized_streamable_http_reply_fails_that_call_only() {
    let port = free_port();
    let _server = test_server_http(port).await;
    let e = Engine::start::<Server>(test_server_over_http(port, 8000), 2).unwrap();
    assert_eq!(call(&e, "echo", json!({"x": 1})).await, Ok(json!({"x": 1})));
    let big = 4 << 20;
    assert_eq!(
        call(&e, "huge", json!({"bytes": big})).await,
        Ok(json!({"length": big})),
        "4 MiB is within the limit"
    );
    let (slow, huge) = tokio::join!(
        call(&e, "sleep", json!({"ms": 300})),
        call(&e, "huge", json!({"bytes": 17 << 20}))
    );
    let err = huge.unwrap_err();
    eprintln!("{err}");
    assert!(err.contains("node `m`") && err.contains("`test`"), "{err}");
    assert!(
        err.contains("16777216") || err.contains("too large") || err.contains("exceed"),
        "names the size limit: {err}"
    );
    assert_eq!(slow, Ok(json!({"slept": 300})), "the concurrent call");
    assert_eq!(
        call(&e, "echo", json!({"x": "after"})).await,
        Ok(json!({"x": "after"})),
        "a correct call after the oversized reply"
    );
    e.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_vanished_streamable_http_server_is_reconnected_when_back() {
    let port = free_port();
    let server = test_server_http(port).await;
    let e = Engine::start::<Server>(test_server_over_http(port, 8000), 2).unwrap();
    assert_eq!(call(&e, "echo", json!({"x": 1})).await, Ok(json!({"x": 1})));
    // The process exits in the middle of a call: that call fails...
    let err = call(&e, "crash", json!({"lines": 1})).await.unwrap_err();
    eprintln!("crash: {err}");
    assert!(err.contains("node `m`") && err.contains("`test`"), "{err}");
    drop(server);
    // ...and so does the next one while nothing listens on the port...
    let err = call(&e, "echo", json!({"x": 2})).await.unwrap_err();
    eprintln!("gone: {err}");
    assert!(err.contains("`test`"), "{err}");
    // ...and once a server is back on the URL (a new process knowing none
    // of the old sessions), the next call succeeds.
    let _server = test_server_http(port).await;
    assert_eq!(
        call(&e, "echo", json!({"x": 3})).await,
        Ok(json!({"x": 3})),
        "the first call after the server came back"
    );
    let stats = call(&e, "stats", json!({})).await.unwrap();
    assert_eq!(stats["calls"], json!(2), "a fresh process: {stats}");
    e.shutdown().await;
}

/// Our SSE client against a server that misbehaves on request: an
/// oversized event, a malformed reply and a hung call each fail that call
/// only, a non-JSON event is skipped, and a correct call follows each on
/// the same event stream.
#[tokio::test(flavor = "multi_thread")]
async fn sse_failures_fail_that_call_only() {
    let server = mcpgraph_tests::sse_server::SseServer::start().await;
    let engine = |timeout_ms| {
        let specs = vec![ServerSpec {
            name: "remote".into(),
            transport: TransportSpec::Sse {
                url: server.url(),
                headers: vec![],
            },
            timeout_ms: Some(timeout_ms),
            ping_timeout_ms: None,
            auth: None,
        }];
        Engine::start::<sse_failures::Server>(specs, 2).unwrap()
    };
    // Room for a debug build to produce and skip 17 MiB; a short bound for
    // the hang, on an engine (and event stream) of its own.
    let (patient, quick) = (engine(20_000), engine(1000));
    let call = |e: &Engine, tool: &'static str, args: Value| {
        let e = e.clone();
        async move { engine_call(&e, tool, args).await }
    };
    assert_eq!(
        call(&patient, "echo", json!({"x": 0})).await,
        Ok(json!({"x": 0}))
    );
    let oversized = 17 << 20;
    for (e, tool, args, want) in [
        (&patient, "huge", json!({"bytes": oversized}), "16777216"),
        (&patient, "malformed", json!({}), "malformed"),
        (&quick, "hang", json!({}), "did not answer within 1000 ms"),
    ] {
        // A correct call runs alongside the failing one.
        let (failed, alongside) = tokio::join!(call(e, tool, args), async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            call(e, "echo", json!({"x": "alongside"})).await
        });
        let err = failed.unwrap_err();
        eprintln!("{tool}: {err}");
        assert!(
            err.contains("node `m`") && err.contains(want),
            "{tool}: want {want:?} in {err}"
        );
        assert_eq!(alongside, Ok(json!({"x": "alongside"})), "alongside {tool}");
        assert_eq!(
            call(e, "echo", json!({"x": tool})).await,
            Ok(json!({"x": tool})),
            "a correct call after {tool}"
        );
    }
    assert_eq!(
        call(&patient, "garbage", json!({"x": 1})).await,
        Ok(json!({"x": 1}))
    );
    assert_eq!(
        call(&patient, "huge", json!({"bytes": 1000}))
            .await
            .map(|v| v.as_str().map(str::len)),
        Ok(Some(1000)),
        "a large reply within the bound"
    );
    // One event stream per engine: nothing forced a reconnect.
    assert_eq!(server.streams.load(std::sync::atomic::Ordering::SeqCst), 2);
    patient.shutdown().await;
    quick.shutdown().await;
}
