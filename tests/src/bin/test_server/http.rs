//! The test server over streamable HTTP (`--http PORT`), and its busy
//! mode (`--http-busy N:SECS`: the first N tool calls are answered HTTP 429
//! with `Retry-After: SECS`, without reaching the server).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::TestServer;

/// Tool calls still to answer 429 (`--http-busy`).
pub(crate) static BUSY_CALLS: AtomicU64 = AtomicU64::new(0);
/// Their `Retry-After`, in seconds.
pub(crate) static BUSY_RETRY_AFTER: AtomicU64 = AtomicU64::new(0);

/// Whether a request with `body` is one of the tool calls to refuse.
fn refuse(body: &[u8]) -> bool {
    let needle = br#""method":"tools/call""#;
    let call = body.windows(needle.len()).any(|w| w == needle);
    call && BUSY_CALLS
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok()
}

/// Serves streamable HTTP on `127.0.0.1:port`, path `/mcp`, until killed.
pub(crate) async fn serve_http(port: u16) {
    use hyper_util::rt::{TokioExecutor, TokioIo};
    use hyper_util::service::TowerToHyperService;
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };

    let listener = match tokio::net::TcpListener::bind(("127.0.0.1", port)).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("test server: cannot bind 127.0.0.1:{port}: {e}");
            std::process::exit(2);
        }
    };
    let mcp = Arc::new(TowerToHyperService::new(StreamableHttpService::new(
        || Ok(TestServer::default()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    )));
    let service =
        hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
            let mcp = Arc::clone(&mcp);
            async move {
                use http_body_util::BodyExt;
                use hyper::service::Service;
                let (parts, body) = request.into_parts();
                let body = body.collect().await?.to_bytes();
                if refuse(&body) {
                    eprintln!("test server: a tool call answered 429 (--http-busy)");
                    let busy = http_body_util::Full::new(bytes::Bytes::new()).boxed();
                    let mut response = hyper::Response::new(busy);
                    *response.status_mut() = hyper::StatusCode::TOO_MANY_REQUESTS;
                    let after = BUSY_RETRY_AFTER.load(Ordering::SeqCst).to_string();
                    if let Ok(after) = after.parse() {
                        response.headers_mut().insert("retry-after", after);
                    }
                    return Ok::<_, hyper::Error>(response);
                }
                let request = hyper::Request::from_parts(parts, http_body_util::Full::new(body));
                Ok(mcp
                    .call(request)
                    .await
                    .unwrap_or_else(|never| match never {}))
            }
        });
    eprintln!("test server: listening on http://127.0.0.1:{port}/mcp");
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        let service = service.clone();
        tokio::spawn(async move {
            let _ = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
