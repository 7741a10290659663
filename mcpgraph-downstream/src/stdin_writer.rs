//! Writing to a child's stdin, bounded in queue and in time.
//!
//! One task per child owns its stdin and writes the messages queued for it
//! in order. The queue holds at most [`QUEUE_MESSAGES`] messages and
//! [`QUEUE_BYTES`] bytes: a message that does not fit is refused at once
//! (a request or notification fails with an error, a reply to one of the
//! child's own requests, such as a ping, is dropped), so nothing waits on a
//! child that does not read. A write that does not complete within the
//! server's `timeoutMs` retires the child: it is killed, the calls on it
//! fail as a crash naming the cause, and the next call starts a new one.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::process::ChildStdin;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Most messages waiting for one child's stdin.
const QUEUE_MESSAGES: usize = 256;

/// Most bytes waiting for one child's stdin (one larger message is still
/// taken when nothing else waits).
const QUEUE_BYTES: usize = 16 * 1024 * 1024;

/// The sending side of a child's stdin.
pub(super) struct StdinQueue {
    tx: mpsc::Sender<Vec<u8>>,
    queued: Arc<AtomicUsize>,
    /// Whether a dropped reply was logged already (once per child).
    warned: AtomicBool,
    server: String,
}

/// Why a message was not queued.
pub(super) enum Refused {
    /// The queue is full: the child is not reading (fast enough).
    Full,
    /// The writer is gone: stdin is closed.
    Closed,
}

impl StdinQueue {
    /// Starts the task that writes to `stdin` until `stopping` is
    /// cancelled, calling `retire` with why when a write takes longer than
    /// `limit` (the child is then killed).
    pub(super) fn start(
        server: &str,
        stdin: ChildStdin,
        stopping: CancellationToken,
        retire: Box<dyn FnOnce(String) + Send>,
        limit: Duration,
    ) -> Self {
        let (tx, rx) = mpsc::channel(QUEUE_MESSAGES);
        let queued = Arc::new(AtomicUsize::new(0));
        tokio::spawn(write_loop(
            stdin,
            rx,
            Arc::clone(&queued),
            (stopping, retire),
            limit,
        ));
        Self {
            tx,
            queued,
            warned: AtomicBool::new(false),
            server: server.to_owned(),
        }
    }

    /// Queues `bytes` without waiting.
    pub(super) fn push(&self, bytes: Vec<u8>) -> Result<(), Refused> {
        let len = bytes.len();
        let before = self.queued.fetch_add(len, Ordering::SeqCst);
        if before > 0 && before + len > QUEUE_BYTES {
            self.queued.fetch_sub(len, Ordering::SeqCst);
            return Err(Refused::Full);
        }
        match self.tx.try_send(bytes) {
            Ok(()) => Ok(()),
            Err(e) => {
                self.queued.fetch_sub(len, Ordering::SeqCst);
                Err(match e {
                    mpsc::error::TrySendError::Full(_) => Refused::Full,
                    mpsc::error::TrySendError::Closed(_) => Refused::Closed,
                })
            }
        }
    }

    /// Logs (once per child) that replies to its requests are dropped.
    pub(super) fn note_dropped_reply(&self) {
        if !self.warned.swap(true, Ordering::Relaxed) {
            let server = self.server.as_str();
            tracing::warn!(
                server,
                "downstream server `{server}` is not reading its stdin: replies to its requests are dropped \
                 (it is stopped if a write stays blocked for its timeoutMs)"
            );
        }
    }

    /// Messages and bytes waiting, for errors.
    pub(super) fn waiting(&self) -> (usize, usize) {
        (
            QUEUE_MESSAGES - self.tx.capacity(),
            self.queued.load(Ordering::SeqCst),
        )
    }
}

/// Writes each queued message; ends (closing stdin) when the queue closes,
/// the child is being stopped, the pipe breaks, or a write stalls.
async fn write_loop(
    mut stdin: ChildStdin,
    mut rx: mpsc::Receiver<Vec<u8>>,
    queued: Arc<AtomicUsize>,
    (stopping, retire): (CancellationToken, Box<dyn FnOnce(String) + Send>),
    limit: Duration,
) {
    loop {
        let message = tokio::select! {
            message = rx.recv() => match message {
                Some(message) => message,
                None => break,
            },
            () = stopping.cancelled() => break,
        };
        let len = message.len();
        let write = async {
            stdin.write_all(&message).await?;
            stdin.flush().await
        };
        let written = tokio::select! {
            written = tokio::time::timeout(limit, write) => written,
            () = stopping.cancelled() => break,
        };
        queued.fetch_sub(len, Ordering::SeqCst);
        match written {
            Ok(Ok(())) => {}
            // The pipe closed: the child exited (its exit is reported).
            Ok(Err(_)) => break,
            Err(_) => {
                retire(format!(
                    "stopped reading its stdin (a write of {len} bytes did not complete within {} ms, \
                     the server's timeoutMs) and was killed",
                    limit.as_millis()
                ));
                break;
            }
        }
    }
}
