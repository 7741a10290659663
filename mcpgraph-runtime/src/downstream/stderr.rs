//! Where the stderr of downstream stdio servers goes: to our stderr, each
//! line prefixed with the server's name (while serving), or held back for
//! a one-shot `call`, whose terminal shows it only if the call fails (or
//! the log level is `info` or more verbose). It never goes to stdout, and
//! forwarding never blocks (`crate::serving::stderr_writer`).

use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Bytes of held-back stderr kept (the end of it).
const HELD_BYTES: usize = 64 * 1024;

static HOLDING: AtomicBool = AtomicBool::new(false);
static HELD: Mutex<Vec<u8>> = Mutex::new(Vec::new());

/// From now on, hold downstream stderr back instead of forwarding it.
pub(crate) fn hold() {
    HOLDING.store(true, Ordering::Relaxed);
}

/// Writes what was held back to our stderr (dropping its beginning beyond
/// the last 64 KiB), and forwards from now on.
pub(crate) fn release() {
    let held = {
        let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
        HOLDING.store(false, Ordering::Relaxed);
        std::mem::take(&mut *held)
    };
    if !held.is_empty() {
        let _ = std::io::stderr().lock().write_all(&held);
    }
}

/// Prefixed lines of one server, forwarded or held.
pub(super) fn emit(lines: &[u8]) {
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
        crate::serving::stderr_writer::write(lines.to_vec());
    }
}
