//! The bounds of the HTTP front door, so that a flood of clients costs at
//! most their own requests: a cap on open connections (a connection over
//! it gets a 503 and is closed, by a bounded number of tasks: past them it
//! is closed at once), a backoff when `accept` fails (file descriptors run
//! out: no hot loop, no flood of log lines), a cap on sessions
//! (`sessions`), caps per peer (`peers`), and request bodies that must
//! arrive within a deadline and a size. The header deadline is hyper's; the send
//! timeout and the connection age are `connection`'s; calls in flight are
//! capped by the handler (`server::CallCaps`).

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Sleep;

/// Default of `serve --max-connections`.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;
/// Default of `serve --max-sessions`.
pub const DEFAULT_MAX_SESSIONS: usize = 1024;
/// Default of `serve --session-idle-secs`.
pub const DEFAULT_SESSION_IDLE_SECS: u64 = 300;
/// Default of `serve --body-timeout-secs`.
pub const DEFAULT_BODY_TIMEOUT_SECS: u64 = 30;
/// Default of `serve --max-body-bytes`: 4 MiB, rmcp's own default since
/// 3.10.
pub const DEFAULT_MAX_BODY_BYTES: u64 = 4 << 20;
/// Default of `serve --max-request-rate-per-peer`, for peers beyond
/// loopback.
pub const DEFAULT_MAX_REQUEST_RATE_PER_PEER: u32 = 1000;
/// Default of `serve --send-timeout-secs`.
pub const DEFAULT_SEND_TIMEOUT_SECS: u64 = 30;
/// Default of `serve --max-connection-age-secs`.
pub const DEFAULT_MAX_CONNECTION_AGE_SECS: u64 = 600;

/// Default of `serve --max-connections-per-peer`: three quarters of
/// `max_connections` (rounded up), so that a quarter always stays for
/// other peers.
pub fn default_max_connections_per_peer(max_connections: usize) -> usize {
    max_connections - max_connections / 4
}

/// The first wait after a failed `accept`, and the longest.
const BACKOFF_START: Duration = Duration::from_millis(10);
const BACKOFF_MAX: Duration = Duration::from_secs(1);

/// Connections over a cap being answered at once; one more is closed
/// without an answer.
const REFUSING_MAX: usize = 64;
/// How long a refused connection is held, at most, for its answer to go out.
const REFUSAL_TIME: Duration = Duration::from_secs(1);

/// Why a connection is refused.
#[derive(Clone, Copy, Debug)]
pub(super) enum Refusal {
    /// `--max-connections`.
    Connections,
    /// `--max-connections-per-peer`.
    ConnectionsPerPeer,
}

impl Refusal {
    fn cap(self) -> &'static str {
        match self {
            Self::Connections => "connections",
            Self::ConnectionsPerPeer => "connections_per_peer",
        }
    }

    /// What the client is told before the connection is closed.
    fn answer(self) -> String {
        let text = match self {
            Self::Connections => "server busy: too many open connections\n",
            Self::ConnectionsPerPeer => {
                "server busy: too many open connections from one address \
                 (--max-connections-per-peer)\n"
            }
        };
        format!(
            "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\n\
             retry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{text}",
            text.len()
        )
    }
}

/// Answers connections over a cap: at most [`REFUSING_MAX`] at once, each
/// for at most [`REFUSAL_TIME`]; past that a connection is closed at once,
/// so a connect flood holds no more descriptors than that.
#[derive(Clone, Debug)]
pub(super) struct Refuser {
    slots: Arc<tokio::sync::Semaphore>,
}

impl Default for Refuser {
    fn default() -> Self {
        Self {
            slots: Arc::new(tokio::sync::Semaphore::new(REFUSING_MAX)),
        }
    }
}

impl Refuser {
    /// Answers `stream` with a 503 and closes it, in the background and
    /// within [`REFUSAL_TIME`] whatever the client does; or closes it now
    /// when [`REFUSING_MAX`] refusals are under way.
    pub(super) fn refuse(&self, mut stream: TcpStream, why: Refusal) {
        crate::serving::metrics::refused(why.cap());
        let Ok(slot) = Arc::clone(&self.slots).try_acquire_owned() else {
            crate::serving::metrics::refused("connections_unanswered");
            return;
        };
        tokio::spawn(async move {
            let _slot = slot;
            let _ = tokio::time::timeout(REFUSAL_TIME, async {
                let _ = stream.write_all(why.answer().as_bytes()).await;
                let _ = stream.shutdown().await;
                // Read what the client sent until it closes: closing with
                // unread data would reset the connection before it reads the
                // 503.
                let mut sink = [0u8; 1024];
                while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {}
            })
            .await;
        });
    }

    /// The refusals under way.
    pub(super) fn refusing(&self) -> usize {
        REFUSING_MAX - self.slots.available_permits()
    }
}

/// Waits after failed accepts, doubling up to [`BACKOFF_MAX`], and logs a
/// line at the first failure, at each power of two, and on recovery.
#[derive(Debug, Default)]
pub(super) struct AcceptBackoff {
    failures: u64,
}

impl AcceptBackoff {
    pub(super) async fn failed(&mut self, error: &std::io::Error) {
        self.failures += 1;
        let n = self.failures;
        if n.is_power_of_two() {
            tracing::warn!(%error, failures = n, "accept failed; backing off");
        }
        let doubled = BACKOFF_START.saturating_mul(1 << (n - 1).min(16) as u32);
        tokio::time::sleep(doubled.min(BACKOFF_MAX)).await;
    }

    pub(super) fn succeeded(&mut self) {
        if self.failures > 0 {
            tracing::warn!(failures = self.failures, "accept works again");
            self.failures = 0;
        }
    }
}

/// Why a request body was not read.
#[derive(Debug)]
pub(super) struct BodyError(String);

impl std::fmt::Display for BodyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BodyError {}

/// Why a request body was cut off: stored in [`BoundedBody::cut`], so
/// that the response can say so (rmcp answers any body error with a 500).
pub(super) type Cut = Arc<AtomicU8>;
/// [`Cut`] (0 while it is not): its deadline passed first.
const LATE: u8 = 1;
/// [`Cut`]: it ran past the size limit.
const TOO_LARGE: u8 = 2;

/// A request body that fails once its deadline passes before its end, or
/// once it runs past `max_bytes` (so that it is never held whole).
pub(super) struct BoundedBody {
    inner: Incoming,
    deadline: Pin<Box<Sleep>>,
    limit: Duration,
    max_bytes: u64,
    received: u64,
    cut: Cut,
}

impl BoundedBody {
    pub(super) fn new(inner: Incoming, limit: Duration, max_bytes: u64, cut: Cut) -> Self {
        Self {
            inner,
            deadline: Box::pin(tokio::time::sleep(limit)),
            limit,
            max_bytes,
            received: 0,
            cut,
        }
    }
}

/// The answer to a request whose body was cut off (`None`: it was not),
/// given the limits it was read under.
pub(super) fn cut_response(
    cut: &Cut,
    limit: Duration,
    max_bytes: u64,
) -> Option<hyper::Response<super::Body>> {
    let (status, text) = match cut.load(Ordering::SeqCst) {
        LATE => (
            hyper::StatusCode::REQUEST_TIMEOUT,
            "request body not received in time (--body-timeout-secs)\n",
        ),
        TOO_LARGE => too_large_parts(),
        _ => return None,
    };
    tracing::debug!(limit = ?limit, max_bytes, status = %status, "a request body was cut off");
    Some(closing(super::plain(status, text)))
}

/// The answer to a request whose declared `Content-Length` is over
/// `max_bytes`, before any of its body is read.
pub(super) fn too_large() -> hyper::Response<super::Body> {
    crate::serving::metrics::refused("body_size");
    let (status, text) = too_large_parts();
    closing(super::plain(status, text))
}

fn too_large_parts() -> (hyper::StatusCode, &'static str) {
    (
        hyper::StatusCode::PAYLOAD_TOO_LARGE,
        "request body too large (--max-body-bytes)\n",
    )
}

/// `response` with `Connection: close`: the rest of a cut-off body is
/// not read.
fn closing(mut response: hyper::Response<super::Body>) -> hyper::Response<super::Body> {
    response.headers_mut().insert(
        hyper::header::CONNECTION,
        hyper::header::HeaderValue::from_static("close"),
    );
    response
}

impl Body for BoundedBody {
    type Data = Bytes;
    type Error = BodyError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BodyError>>> {
        let this = self.get_mut();
        if this.deadline.as_mut().poll(cx).is_ready() {
            crate::serving::metrics::refused("body_timeout");
            this.cut.store(LATE, Ordering::SeqCst);
            return Poll::Ready(Some(Err(BodyError(format!(
                "the request body did not arrive within {} s",
                this.limit.as_secs()
            )))));
        }
        let frame = Pin::new(&mut this.inner)
            .poll_frame(cx)
            .map(|frame| frame.map(|f| f.map_err(|e| BodyError(e.to_string()))));
        if let Poll::Ready(Some(Ok(frame))) = &frame
            && let Some(data) = frame.data_ref()
        {
            this.received = this.received.saturating_add(data.len() as u64);
            if this.received > this.max_bytes {
                crate::serving::metrics::refused("body_size");
                this.cut.store(TOO_LARGE, Ordering::SeqCst);
                return Poll::Ready(Some(Err(BodyError(format!(
                    "the request body is over {} bytes",
                    this.max_bytes
                )))));
            }
        }
        frame
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
