//! The test server over streamable HTTP (`--http PORT`).

use std::sync::Arc;

use crate::TestServer;

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
    let service = TowerToHyperService::new(StreamableHttpService::new(
        || Ok(TestServer::default()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    ));
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
