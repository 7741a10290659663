//! Where the stderr of downstream stdio servers goes: to our stderr, each
//! line prefixed with the server's name (while serving), or held back for
//! a one-shot `call`, whose terminal shows it only if the call fails (or
//! the log level is `info` or more verbose). It never goes to stdout, and
//! forwarding never blocks (`mcpgraph_telemetry::stderr`). Each line is
//! redacted (values expanded from `${VAR}` shown as `${VAR}`) before it is
//! forwarded or held, and what was held once more when it is shown.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::AsyncReadExt;
use tokio::process::ChildStderr;
use tokio_util::sync::CancellationToken;

/// Bytes of held-back stderr kept (the end of it).
const HELD_BYTES: usize = 64 * 1024;

static HOLDING: AtomicBool = AtomicBool::new(false);
static HELD: Mutex<Vec<u8>> = Mutex::new(Vec::new());

/// From now on, hold downstream stderr back instead of forwarding it.
pub fn hold() {
    HOLDING.store(true, Ordering::Relaxed);
}

/// Writes what was held back to our stderr (dropping its beginning beyond
/// the last 64 KiB), and forwards from now on. What was held is redacted
/// again, as a call's error is when it is shown: a value a server printed
/// before it became a secret (another server's `${VAR}` expanded later)
/// does not show either.
pub fn release() {
    let held = {
        let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
        HOLDING.store(false, Ordering::Relaxed);
        std::mem::take(&mut *held)
    };
    if !held.is_empty() {
        let held = mcpgraph_runtime::host::redact_bytes(held);
        let _ = std::io::stderr().lock().write_all(&held);
    }
}

/// Prefixed lines of one server, forwarded or held.
fn emit(lines: &[u8]) {
    // Decided under the lock, so a line is never held after `release`
    // took what was held.
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    if HOLDING.load(Ordering::Relaxed) {
        held.extend_from_slice(lines);
        if held.len() > HELD_BYTES {
            let excess = held.len() - HELD_BYTES;
            // Keep whole lines: cut after the first newline past the excess.
            let cut = held[excess..]
                .iter()
                .position(|b| *b == b'\n')
                .map_or(held.len(), |i| excess + i + 1);
            held.drain(..cut);
        }
    } else {
        drop(held);
        mcpgraph_runtime::host::write_stderr(lines.to_vec());
    }
}

/// What the crash report needs of one child's forwarded stderr: whether it
/// wrote anything but white space, and when the pipe ended.
#[derive(Default)]
pub(super) struct Forwarded {
    wrote: AtomicBool,
    ended: CancellationToken,
}

impl Forwarded {
    /// Whether the child wrote anything but white space.
    pub(super) fn wrote(&self) -> bool {
        self.wrote.load(Ordering::Relaxed)
    }

    /// Completes when the child's stderr has ended.
    pub(super) async fn ended(&self) {
        self.ended.cancelled().await;
    }
}

/// Longest part of a line held back while waiting for its end: past it,
/// the part is forwarded as it is (so a child writing no newline is still
/// heard, and a line costs bounded memory).
const LINE_HOLD: usize = 8 * 1024;

/// Forwards the stderr of the child `name` in the background, line by line
/// with a `[name]` prefix and with values expanded from `${VAR}` redacted
/// (a whole line at a time, so a secret split between two reads is still
/// found).
pub(super) fn forward(name: &str, pipe: ChildStderr) -> Arc<Forwarded> {
    let forwarded = Arc::new(Forwarded::default());
    tokio::spawn(pump(format!("[{name}] "), pipe, Arc::clone(&forwarded)));
    forwarded
}

async fn pump(prefix: String, mut pipe: ChildStderr, forwarded: Arc<Forwarded>) {
    let mut buf = vec![0u8; 8192];
    let mut line: Vec<u8> = Vec::new();
    let forward = |line: &[u8]| {
        let line = String::from_utf8_lossy(line);
        let text = mcpgraph_runtime::host::redact(&line);
        let mut out = Vec::with_capacity(prefix.len() + text.len() + 1);
        out.extend_from_slice(prefix.as_bytes());
        out.extend_from_slice(text.as_bytes());
        if !out.ends_with(b"\n") {
            out.push(b'\n');
        }
        emit(&out);
    };
    loop {
        let n = match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let chunk = &buf[..n];
        if chunk.iter().any(|b| !b.is_ascii_whitespace()) {
            forwarded.wrote.store(true, Ordering::Relaxed);
        }
        for part in chunk.split_inclusive(|b| *b == b'\n') {
            line.extend_from_slice(part);
            if part.ends_with(b"\n") || line.len() >= LINE_HOLD {
                forward(&line);
                line.clear();
            }
        }
    }
    if !line.is_empty() {
        forward(&line);
    }
    forwarded.ended.cancel();
}
