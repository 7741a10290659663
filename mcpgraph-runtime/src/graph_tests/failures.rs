//! `serve --record-failures DIR`: each failed call written as a cassette of
//! its own (the call, every downstream request and reply, the error),
//! secrets redacted, for `test --replay FILE` to run again offline.
//!
//! Bounded: at most [`MAX_FILES`] files in the directory (the ones there
//! count), each at most [`MAX_BYTES`]; a failure past either bound is only
//! logged.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

use super::cassette::{Cassette, Failure};
use super::tape::Tape;
use crate::error::NodeError;

/// The most failure files a directory holds.
pub(crate) const MAX_FILES: usize = 100;
/// The largest failure file written, in bytes.
pub(crate) const MAX_BYTES: usize = 4 << 20;

tokio::task_local! {
    /// The tape of the call running in this task, when failures are
    /// recorded: `ClientManager::call` records into it.
    pub(crate) static CALL_TAPE: Arc<Tape>;
}

/// Writes failed calls into a directory.
#[derive(Debug)]
pub(crate) struct FailureRecorder {
    dir: PathBuf,
    /// Files in the directory, counting the ones found at start.
    files: AtomicUsize,
    /// Distinguishes failures within one millisecond.
    sequence: AtomicUsize,
}

impl FailureRecorder {
    /// A recorder writing into `dir`, created if missing.
    pub(crate) fn new(dir: PathBuf) -> Result<Self, String> {
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("--record-failures: cannot create {}: {e}", dir.display()))?;
        let files = std::fs::read_dir(&dir)
            .map_err(|e| format!("--record-failures: cannot read {}: {e}", dir.display()))?
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".failure.json"))
            .count();
        Ok(Self {
            dir,
            files: AtomicUsize::new(files),
            sequence: AtomicUsize::new(0),
        })
    }

    /// A tape for one call (it records).
    pub(crate) fn tape() -> Arc<Tape> {
        let tape = Arc::new(Tape::default());
        tape.record();
        tape
    }

    /// Writes the failed call of `tool` with `arguments`, whose downstream
    /// calls are on `tape`, failed with `error`.
    pub(crate) fn write(
        &self,
        tool: &str,
        arguments: &Map<String, Value>,
        tape: &Tape,
        error: &NodeError,
    ) {
        if self.files.fetch_add(1, Ordering::SeqCst) >= MAX_FILES {
            self.files.fetch_sub(1, Ordering::SeqCst);
            tracing::warn!(
                dir = %self.dir.display(),
                "a failed call of `{tool}` was not recorded: the directory holds {MAX_FILES} failures already"
            );
            return;
        }
        let since = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let sequence = self.sequence.fetch_add(1, Ordering::SeqCst);
        let mut cassette = Cassette::default();
        cassette.failure = Some(Failure {
            tool: tool.to_owned(),
            arguments: super::cassette::redacted(arguments),
            error: serde_json::to_value(error).unwrap_or_default(),
            at_unix_ms: u64::try_from(since.as_millis()).unwrap_or(u64::MAX),
        });
        cassette
            .cases
            .insert(super::cassette::FAILURE_CASE.to_owned(), tape.finish().made);
        let name = format!(
            "{}-{}-{sequence}.failure.json",
            since.as_millis(),
            tool.replace(
                |c: char| !c.is_ascii_alphanumeric() && c != '_' && c != '-',
                "_"
            )
        );
        let path = self.dir.join(name);
        if let Err(e) = cassette.save_bounded(&path, MAX_BYTES) {
            self.files.fetch_sub(1, Ordering::SeqCst);
            tracing::warn!("a failed call of `{tool}` was not recorded: {e}");
        } else {
            tracing::info!(file = %path.display(), "recorded a failed call of `{tool}`");
        }
    }
}
