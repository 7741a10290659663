//! Downstream HTTP clients do not carry a server's configured headers to
//! another origin: a redirect that leaves the origin is refused, over
//! streamable HTTP and legacy SSE alike.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcpgraph::Engine;
use mcpgraph::TransportSpec;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

mod downstream {
    mcpgraph::mcpgraph!("graphs/downstream.yaml");
}

/// Counts the connections made to it (and answers none).
async fn elsewhere() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&seen);
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            drop(socket);
        }
    });
    (format!("http://{addr}/mcp"), seen)
}

/// Answers every request with a 307 to `location`.
async fn redirecting(location: String) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let location = location.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 16 * 1024];
                let _ = socket.read(&mut buf).await;
                let reply = format!(
                    "HTTP/1.1 307 Temporary Redirect\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                );
                let _ = socket.write_all(reply.as_bytes()).await;
            });
        }
    });
    format!("http://{addr}/mcp")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_to_another_origin_is_refused() {
    for sse in [false, true] {
        let (target, seen) = elsewhere().await;
        let url = redirecting(target).await;
        let headers = vec![("X-Api-Key".to_owned(), "k-secret".to_owned())];
        let transport = if sse {
            TransportSpec::Sse { url, headers }
        } else {
            TransportSpec::StreamableHttp { url, headers }
        };
        let specs = mcpgraph_tests::replace_server("test", transport);
        let engine = Engine::start::<downstream::Server>(specs, 1).unwrap();
        let err = mcpgraph_tests::engine_call(&engine, "echo", json!({"x": 1}))
            .await
            .unwrap_err();
        eprintln!("sse={sse}: {err}");
        assert!(
            err.contains("refused a redirect to another origin"),
            "{err}"
        );
        assert_eq!(
            seen.load(Ordering::SeqCst),
            0,
            "sse={sse}: the other origin was contacted"
        );
        engine.shutdown().await;
    }
}
