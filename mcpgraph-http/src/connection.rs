//! One HTTP connection, from accept to close: its bounds in time (a send
//! timeout: a client that stops reading is dropped with what was buffered
//! for it; a maximum age: an old connection is closed after its current
//! response), its peer's place, and the server's close at the end of a
//! drain.

use std::convert::Infallible;
use std::io::IoSlice;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Sleep;
use tokio_util::sync::CancellationToken;

use super::Body;
use super::peers::PeerConnection;
use super::routes::{Connection, Routes};

/// What every connection is served with.
pub(super) struct Served {
    pub(super) builder: http1::Builder,
    pub(super) routes: Arc<Routes>,
    pub(super) send_timeout: Duration,
    pub(super) max_age: Duration,
    /// Cancelled once the drain is over: every connection closes after
    /// its current response.
    pub(super) closing: CancellationToken,
}

/// The address of the peer a request came from, in its extensions (the
/// caller's identity when it has no principal and no session).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PeerAddress(pub(crate) std::net::IpAddr);

/// Serves `stream` until it closes, the send timeout drops it, it passes
/// its age (after its current response) or the server closes.
pub(super) async fn serve(
    stream: TcpStream,
    peer: std::net::SocketAddr,
    place: PeerConnection,
    served: Arc<Served>,
) {
    let connection = Arc::new(Connection {
        peer: place,
        opened: Instant::now(),
        max_age: served.max_age,
    });
    let routes = Arc::clone(&served.routes);
    let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
        request.extensions_mut().insert(PeerAddress(peer.ip()));
        let (routes, connection) = (Arc::clone(&routes), Arc::clone(&connection));
        async move { Ok::<Response<Body>, Infallible>(routes.handle(request, &connection).await) }
    });
    let io = TokioIo::new(SendTimeout::new(stream, served.send_timeout));
    let http = served.builder.serve_connection(io, service);
    tokio::pin!(http);
    let too_old = tokio::time::sleep(served.max_age);
    tokio::pin!(too_old);
    let mut closing = false;
    let ended = loop {
        tokio::select! {
            ended = http.as_mut() => break ended,
            () = served.closing.cancelled(), if !closing => closing = true,
            () = &mut too_old, if !closing => closing = true,
        }
        // Idle: closed now; busy: after the current response.
        http.as_mut().graceful_shutdown();
    };
    if let Err(e) = ended {
        tracing::debug!(%peer, error = %e, "connection ended with an error");
    }
}

/// A stream whose writes fail once they have made no progress for
/// `limit`: a client that stops reading cannot keep a response (and its
/// connection) in memory. Reads are not bounded here (hyper's header
/// deadline and the body deadline are).
struct SendTimeout {
    inner: TcpStream,
    limit: Duration,
    stall: Pin<Box<Sleep>>,
    /// Whether `stall` runs for the write waiting now.
    armed: bool,
}

impl SendTimeout {
    fn new(inner: TcpStream, limit: Duration) -> Self {
        Self {
            inner,
            limit,
            stall: Box::pin(tokio::time::sleep(limit)),
            armed: false,
        }
    }

    /// What a write that returned `poll` becomes: pending until the stall
    /// passes `limit`, then an error.
    fn bound<T>(
        &mut self,
        cx: &mut Context<'_>,
        poll: Poll<std::io::Result<T>>,
    ) -> Poll<std::io::Result<T>> {
        if poll.is_ready() {
            self.armed = false;
            return poll;
        }
        if !self.armed {
            self.armed = true;
            let deadline = tokio::time::Instant::now() + self.limit;
            self.stall.as_mut().reset(deadline);
        }
        if self.stall.as_mut().poll(cx).is_pending() {
            return Poll::Pending;
        }
        mcpgraph_runtime::host::refused("send_timeout");
        tracing::debug!(limit = ?self.limit, "a client stopped reading; dropping its connection");
        Poll::Ready(Err(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            "the client read nothing within --send-timeout-secs",
        )))
    }
}

impl AsyncRead for SendTimeout {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for SendTimeout {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.bound(cx, poll)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        this.bound(cx, poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.inner).poll_flush(cx);
        this.bound(cx, poll)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.inner).poll_shutdown(cx);
        this.bound(cx, poll)
    }
}
