//! Our stderr, written by one background thread so that writing to it
//! never blocks the runtime: logs, spans and the forwarded stderr of
//! downstream servers go through a bounded queue. When the queue is full
//! (a host that stopped reading our stderr, a downstream server spamming
//! its own), new lines are dropped and counted, and the count is reported
//! once writing works again. Nothing here writes to stdout.

use std::io::Write;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::time::{Duration, Instant};

/// Chunks (a log event, a batch of forwarded lines) the queue holds...
const QUEUE: usize = 4096;
/// ...and the bytes they may take together.
const QUEUE_BYTES: u64 = 8 << 20;

struct Queue {
    sender: SyncSender<Vec<u8>>,
    /// Chunks queued and not yet written.
    pending: AtomicU64,
    /// Their bytes.
    pending_bytes: AtomicU64,
    /// Lines dropped since the last report.
    dropped: AtomicU64,
}

static QUEUE_CELL: OnceLock<Queue> = OnceLock::new();

fn queue() -> &'static Queue {
    QUEUE_CELL.get_or_init(|| {
        let (sender, receiver) = sync_channel(QUEUE);
        let started = std::thread::Builder::new()
            .name("mcpgraph-stderr".into())
            .spawn(move || write_loop(&receiver));
        if let Err(e) = started {
            // Without the thread the queue fills and everything is dropped
            // and counted; say so once, directly.
            let _ = writeln!(
                std::io::stderr(),
                "mcpgraph: cannot start the stderr writer: {e}"
            );
        }
        Queue {
            sender,
            pending: AtomicU64::new(0),
            pending_bytes: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
        }
    })
}

fn write_loop(receiver: &Receiver<Vec<u8>>) {
    while let Ok(chunk) = receiver.recv() {
        let mut out = std::io::stderr().lock();
        let dropped = queue().dropped.swap(0, Ordering::Relaxed);
        if dropped > 0 {
            let _ = writeln!(
                out,
                "mcpgraph: {dropped} line(s) of stderr dropped: stderr was not read fast enough"
            );
        }
        let _ = out.write_all(&chunk);
        queue()
            .pending_bytes
            .fetch_sub(chunk.len() as u64, Ordering::Relaxed);
        queue().pending.fetch_sub(1, Ordering::Release);
    }
}

/// Queues `chunk` (whole lines) for our stderr, or drops and counts it.
#[doc(hidden)]
pub fn write(chunk: Vec<u8>) {
    if chunk.is_empty() {
        return;
    }
    let queue = queue();
    let lines = chunk.iter().filter(|b| **b == b'\n').count().max(1) as u64;
    let bytes = chunk.len() as u64;
    if queue.pending_bytes.fetch_add(bytes, Ordering::Relaxed) + bytes > QUEUE_BYTES {
        queue.pending_bytes.fetch_sub(bytes, Ordering::Relaxed);
        queue.dropped.fetch_add(lines, Ordering::Relaxed);
        return;
    }
    queue.pending.fetch_add(1, Ordering::Acquire);
    if let Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) = queue.sender.try_send(chunk)
    {
        queue.pending.fetch_sub(1, Ordering::Release);
        queue.pending_bytes.fetch_sub(bytes, Ordering::Relaxed);
        queue.dropped.fetch_add(lines, Ordering::Relaxed);
    }
}

/// Waits until what was queued so far is written, for at most `limit`
/// (before the process exits).
pub fn flush(limit: Duration) {
    // A process that never wrote has no queue (and starts no thread here).
    let Some(queue) = QUEUE_CELL.get() else {
        return;
    };
    let deadline = Instant::now() + limit;
    while queue.pending.load(Ordering::Acquire) > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(2));
    }
    let dropped = queue.dropped.swap(0, Ordering::Relaxed);
    if dropped > 0 {
        write(
            format!(
                "mcpgraph: {dropped} line(s) of stderr dropped: stderr was not read fast enough\n"
            )
            .into_bytes(),
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A writer for `tracing_subscriber`: one event per writer, queued whole
/// when the writer is dropped, with secrets redacted (`mcpgraph_secrets`).
#[derive(Default)]
pub(crate) struct EventWriter(Vec<u8>);

impl Write for EventWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for EventWriter {
    fn drop(&mut self) {
        write(mcpgraph_secrets::redact_bytes(std::mem::take(&mut self.0)));
    }
}
