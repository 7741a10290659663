//! `serve --record-failures DIR`: each failed call written as a cassette of
//! its own (the call, every downstream request and reply, the error),
//! secrets redacted, for `test --replay FILE` to run again offline.
//!
//! Only real failures: a round that stops for the client's answers
//! (`input_required`), a call its caller cancelled and one cut short by
//! the server's shutdown are not failures of the graph, and are not
//! written. The files hold the caller's arguments and the downstream
//! servers' raw replies: the directory is the owner's alone (0700, and an
//! existing one open to others is refused at start-up) and each file is
//! 0600. Bounded: at most [`MAX_FILES`] files (the ones there count), the
//! oldest removed to make room for the newest; the record of one call is
//! at most its budget ([`CallRecord`]), so each file stays under
//! [`MAX_BYTES`].

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use rmcp::model::CallToolResult;
use serde_json::{Map, Value};

use crate::cassette::{Cassette, Failure};
use crate::error::{DirProblem, GraphTestError};
use crate::tape::Tape;
use mcpgraph_runtime::Limits;
use mcpgraph_runtime::host::DownstreamError;
use mcpgraph_runtime::{Before, CallInterceptor};
use mcpgraph_runtime::{CallError, ErrorKind, NodeError};

/// The most failure files a directory holds.
pub(crate) const MAX_FILES: usize = 100;
/// The largest failure file written, in bytes.
pub(crate) const MAX_BYTES: usize = 4 << 20;
/// The most bytes of one call's record (its arguments, the downstream
/// requests and replies, as compact JSON): the graph's `maxValueBytes`,
/// and never over half of [`MAX_BYTES`] (the file is pretty-printed).
const MAX_RECORD_BYTES: usize = MAX_BYTES / 2;

/// The failure files' name ends so.
const SUFFIX: &str = ".failure.json";

/// Writes failed calls into a directory.
#[derive(Debug)]
pub struct FailureRecorder {
    dir: PathBuf,
    /// The failure files in the directory, oldest first, counting the
    /// ones found at start.
    files: Mutex<VecDeque<PathBuf>>,
    /// Distinguishes failures within one millisecond.
    sequence: AtomicUsize,
}

/// What one call's failure record keeps until it is known whether the
/// call failed: its arguments and a tape of its downstream exchanges, the
/// two within one budget.
pub(crate) struct CallRecord {
    recorder: Arc<FailureRecorder>,
    tool: &'static str,
    tape: Arc<Tape>,
    /// `None`: over the budget on their own, left out.
    arguments: Option<Map<String, Value>>,
    budget: usize,
}

/// Each call gets a record of its own ([`CallRecord`]).
impl CallInterceptor for FailureRecorder {
    fn begin(
        self: Arc<Self>,
        tool: &'static str,
        arguments: &Map<String, Value>,
        limits: &Limits,
    ) -> Option<Arc<dyn CallInterceptor>> {
        Some(Arc::new(Self::start(
            self,
            tool,
            arguments,
            limits.max_value_bytes,
        )))
    }
}

/// The call's downstream exchanges go on its tape; a failure is written.
impl CallInterceptor for CallRecord {
    fn begin(
        self: Arc<Self>,
        _tool: &'static str,
        _arguments: &Map<String, Value>,
        _limits: &Limits,
    ) -> Option<Arc<dyn CallInterceptor>> {
        Some(self)
    }

    fn before(&self, server: &str, tool: &str, arguments: &Map<String, Value>) -> Before {
        self.tape.before(server, tool, arguments)
    }

    fn after(&self, ticket: usize, outcome: &Result<CallToolResult, DownstreamError>) {
        self.tape.after(ticket, outcome);
    }

    fn end(&self, outcome: &Result<Value, CallError>, cancelled_by_caller: bool) {
        if let Err(CallError::Failed(error)) = outcome
            && FailureRecorder::records(error, cancelled_by_caller)
        {
            self.recorder.write(self.tool, self, error);
        }
    }
}

impl FailureRecorder {
    /// A recorder writing into `dir`: created (0700) if missing; refused
    /// if it exists and others may read, write or enter it.
    pub fn new(dir: PathBuf) -> Result<Self, GraphTestError> {
        private_dir(&dir).map_err(|problem| GraphTestError::RecordDir {
            dir: dir.clone(),
            problem,
        })?;
        let mut files: Vec<(SystemTime, PathBuf)> = std::fs::read_dir(&dir)
            .map_err(|e| GraphTestError::RecordDir {
                dir: dir.clone(),
                problem: DirProblem::List(e),
            })?
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(SUFFIX))
            .map(|e| {
                let modified = e
                    .metadata()
                    .and_then(|m| m.modified())
                    .unwrap_or(UNIX_EPOCH);
                (modified, e.path())
            })
            .collect();
        files.sort();
        Ok(Self {
            dir,
            files: Mutex::new(files.into_iter().map(|(_, path)| path).collect()),
            sequence: AtomicUsize::new(0),
        })
    }

    /// The record of one call of `tool` with `arguments`, within
    /// `max_value_bytes` (the graph's `maxValueBytes`; at most
    /// [`MAX_RECORD_BYTES`]).
    fn start(
        recorder: Arc<Self>,
        tool: &'static str,
        arguments: &Map<String, Value>,
        max_value_bytes: u64,
    ) -> CallRecord {
        let budget = usize::try_from(max_value_bytes)
            .unwrap_or(usize::MAX)
            .min(MAX_RECORD_BYTES);
        let size = crate::tape::json_size(arguments);
        let (arguments, used) = if size <= budget {
            (Some(arguments.clone()), size)
        } else {
            (None, 0)
        };
        let tape = Arc::new(Tape::default());
        tape.record_within(budget, used);
        CallRecord {
            recorder,
            tool,
            tape,
            arguments,
            budget,
        }
    }

    /// Whether a call that ended with `error` is a failure to record: not
    /// a round waiting for answers, nor a call its caller cancelled or the
    /// server's shutdown cut short.
    fn records(error: &NodeError, cancelled_by_caller: bool) -> bool {
        !cancelled_by_caller
            && !matches!(
                error.kind(),
                ErrorKind::InputRequired | ErrorKind::Cancelled | ErrorKind::Shutdown
            )
    }

    /// Writes the failed call of `tool`, whose arguments and downstream
    /// calls are in `record`, failed with `error`; past [`MAX_FILES`],
    /// the oldest file goes.
    fn write(&self, tool: &str, record: &CallRecord, error: &NodeError) {
        let since = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let sequence = self.sequence.fetch_add(1, Ordering::SeqCst);
        let played = record.tape.finish();
        let mut cut = Vec::new();
        if record.arguments.is_none() {
            cut.push("the call's arguments".to_owned());
        }
        if played.cut > 0 {
            cut.push(format!(
                "{} of {} downstream requests or replies",
                played.cut,
                played.made.len()
            ));
        }
        let mut cassette = Cassette::default();
        cassette.failure = Some(Failure {
            tool: tool.to_owned(),
            arguments: record
                .arguments
                .as_ref()
                .map(crate::cassette::redacted)
                .unwrap_or_default(),
            error: serde_json::to_value(error).unwrap_or_default(),
            at_unix_ms: u64::try_from(since.as_millis()).unwrap_or(u64::MAX),
            cut: (!cut.is_empty()).then(|| {
                format!(
                    "the record is cut at its budget of {} bytes (maxValueBytes, at most {} \
                     bytes): {} left out",
                    record.budget,
                    MAX_RECORD_BYTES,
                    cut.join(" and ")
                )
            }),
        });
        cassette
            .cases
            .insert(crate::cassette::FAILURE_CASE.to_owned(), played.made);
        let name = format!(
            "{}-{}-{sequence}{SUFFIX}",
            since.as_millis(),
            tool.replace(
                |c: char| !c.is_ascii_alphanumeric() && c != '_' && c != '-',
                "_"
            )
        );
        let path = self.dir.join(name);
        if let Err(e) = cassette.save_private(&path, MAX_BYTES) {
            tracing::warn!("a failed call of `{tool}` was not recorded: {e}");
            return;
        }
        tracing::info!(file = %path.display(), "recorded a failed call of `{tool}`");
        let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        files.push_back(path);
        while files.len() > MAX_FILES {
            let Some(oldest) = files.pop_front() else {
                break;
            };
            match std::fs::remove_file(&oldest) {
                Ok(()) => tracing::info!(
                    file = %oldest.display(),
                    "removed the oldest recorded failure: the directory holds {MAX_FILES}"
                ),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => tracing::warn!(
                    file = %oldest.display(),
                    "cannot remove the oldest recorded failure: {e}"
                ),
            }
        }
    }
}

/// Makes `dir` (0700) if missing; an existing one must be a directory that
/// only its owner may read, write or enter.
fn private_dir(dir: &Path) -> Result<(), DirProblem> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt as _, PermissionsExt as _};
        match std::fs::symlink_metadata(dir) {
            Ok(meta) if !meta.is_dir() => Err(DirProblem::NotADirectory),
            Ok(meta) => {
                let mode = meta.permissions().mode() & 0o777;
                if mode & 0o077 != 0 {
                    return Err(DirProblem::Open(mode));
                }
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(DirProblem::Create),
            Err(e) => Err(DirProblem::Inspect(e)),
        }
    }
    #[cfg(not(unix))]
    std::fs::create_dir_all(dir).map_err(DirProblem::Create)
}
