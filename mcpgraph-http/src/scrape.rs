//! `/metrics`: the gauges read at each scrape, and the listener of its own
//! that `--metrics-addr` gives it, for a private interface. That listener
//! serves nothing else, asks for no token and checks no `Host` (a
//! Prometheus server scrapes by address); its connections are few (a
//! scraper's) and capped, and it closes with the server.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header::{self, HeaderValue};
use hyper::{Method, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use super::front_door::Refuser;
use super::prometheus;
use super::sessions::CappedSessions;
use super::{Body, METRICS_PATH, plain};
use mcpgraph_runtime::host::Handler;

/// Connections the metrics listener serves at once; one more is closed.
const SCRAPERS: usize = 8;
/// How long a scraper may take to send its request's headers.
const SCRAPE_HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Where the gauges are read.
pub(super) struct Gauges {
    pub(super) sessions: Arc<CappedSessions>,
    /// The calls in flight are its caps'.
    pub(super) handler: Handler,
    pub(super) connections: Arc<Semaphore>,
    pub(super) max_connections: usize,
    pub(super) refuser: Refuser,
}

impl Gauges {
    /// The sessions open now.
    pub(super) async fn sessions(&self) -> usize {
        self.sessions.len().await
    }

    /// A scrape's answer.
    pub(super) async fn response(&self) -> Response<Body> {
        let gauges = prometheus::Gauges {
            sessions: self.sessions().await,
            in_flight: self.handler.caps().running(),
            connections: self.max_connections - self.connections.available_permits(),
            refusing: self.refuser.refusing(),
        };
        let text = prometheus::render(&mcpgraph_runtime::host::counters(), gauges);
        let mut response = Response::new(Full::new(Bytes::from(text)).boxed());
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; version=0.0.4"),
        );
        response
    }
}

/// Serves `/metrics` on `listener` until `shutdown` is cancelled.
pub(super) async fn serve(listener: TcpListener, gauges: Arc<Gauges>, shutdown: CancellationToken) {
    let scrapers = Arc::new(Semaphore::new(SCRAPERS));
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(SCRAPE_HEADER_TIMEOUT);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    tracing::debug!(error = %e, "metrics listener: accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = shutdown.cancelled() => return,
        };
        let Ok(place) = Arc::clone(&scrapers).try_acquire_owned() else {
            continue;
        };
        let (gauges, builder, shutdown) = (Arc::clone(&gauges), builder.clone(), shutdown.clone());
        tokio::spawn(async move {
            let _place = place;
            let service = hyper::service::service_fn(move |request: hyper::Request<_>| {
                let gauges = Arc::clone(&gauges);
                async move {
                    Ok::<_, std::convert::Infallible>(match *request.method() {
                        Method::GET | Method::HEAD if request.uri().path() == METRICS_PATH => {
                            gauges.response().await
                        }
                        _ if request.uri().path() == METRICS_PATH => {
                            plain(StatusCode::METHOD_NOT_ALLOWED, "GET or HEAD\n")
                        }
                        _ => plain(StatusCode::NOT_FOUND, "not found: only /metrics here\n"),
                    })
                }
            });
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            tokio::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                () = shutdown.cancelled() => {}
            }
        });
    }
}
