//! A downstream server run as a child process, spoken to over its stdin and
//! stdout (newline-delimited JSON-RPC).
//!
//! Unlike rmcp's `TokioChildProcess`, this transport
//! - bounds each line ([`MAX_REPLY_BYTES`]) and turns an oversized or
//!   malformed reply into an error for the one call it answers;
//! - forwards the child's stderr to ours (`super::stderr`: prefixed,
//!   redacted, never to stdout or a caller), noting whether it wrote any;
//! - records the exit status, and stops the child's whole process group
//!   (stdin closed, then SIGTERM, then SIGKILL) when the connection closes.

use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::wire::{IdScanner, MAX_REPLY_BYTES, decode, oversized};

/// How long a child gets after its stdin closes, and again after SIGTERM.
const GRACE: Duration = Duration::from_secs(2);

/// The child process behind a stdio connection, as seen by the client
/// manager: its exit status and whether it wrote on stderr.
pub(crate) struct Process {
    /// The program, as run (after `${VAR}` expansion).
    pub program: String,
    stderr: Arc<super::stderr::Forwarded>,
    exit: watch::Receiver<Option<ExitStatus>>,
    stop: CancellationToken,
}

impl Process {
    /// The exit status, waiting up to `wait` for it (and for the stderr
    /// pipe to drain) when the child has not exited yet.
    pub(super) async fn exit_status(&self, wait: Duration) -> Option<ExitStatus> {
        let mut exit = self.exit.clone();
        let status = tokio::time::timeout(wait, exit.wait_for(Option::is_some))
            .await
            .ok()
            .and_then(|r| r.ok().and_then(|s| *s));
        let _ = tokio::time::timeout(wait, self.stderr.ended()).await;
        status
    }

    /// Whether the child wrote anything but white space on stderr.
    pub(super) fn wrote_stderr(&self) -> bool {
        self.stderr.wrote()
    }

    /// Starts stopping the child without waiting (see [`Process::stop`]).
    pub(super) fn request_stop(&self) {
        self.stop.cancel();
    }

    /// Stops the child (stdin closed by the transport, then signals) and
    /// waits until it has been reaped.
    pub(super) async fn stop(&self) {
        self.stop.cancel();
        let mut exit = self.exit.clone();
        // Err: the monitor is gone (runtime shutting down; the child is
        // killed on drop).
        let _ = exit.wait_for(Option::is_some).await;
    }
}

/// Starts `cmd` as the server `name`.
pub(crate) fn spawn(
    name: &str,
    program: String,
    mut cmd: Command,
) -> Result<(ChildTransport, Arc<Process>), String> {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    cmd.process_group(0);
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot run `{program}`: {e}"))?;
    if let Some(group) = child.id() {
        crate::downstream::reaper::track(group, true);
    }
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(format!("cannot run `{program}`: its stdio is not piped"));
    };
    let forwarded = super::stderr::forward(name, stderr);
    let (exit_tx, exit) = watch::channel(None);
    let stop = CancellationToken::new();
    tokio::spawn(monitor(child, stop.clone(), exit_tx));
    let process = Arc::new(Process {
        program,
        stderr: forwarded,
        exit,
        stop: stop.clone(),
    });
    let transport = ChildTransport {
        name: name.to_owned(),
        stdin: Arc::new(tokio::sync::Mutex::new(Some(stdin))),
        stdout: BufReader::with_capacity(64 * 1024, stdout),
        line: Vec::new(),
        discarding: None,
        process: Arc::clone(&process),
    };
    Ok((transport, process))
}

/// Owns the child: records its exit, and stops it when asked.
async fn monitor(
    mut child: Child,
    stop: CancellationToken,
    exit: watch::Sender<Option<ExitStatus>>,
) {
    let group = child.id();
    let status = tokio::select! {
        status = child.wait() => status,
        () = stop.cancelled() => {
            // The transport closed stdin first: a well-behaved server exits.
            match tokio::time::timeout(GRACE, child.wait()).await {
                Ok(status) => status,
                Err(_) => {
                    signal_group(group, Signal::Term);
                    match tokio::time::timeout(GRACE, child.wait()).await {
                        Ok(status) => status,
                        Err(_) => {
                            signal_group(group, Signal::Kill);
                            let _ = child.start_kill();
                            child.wait().await
                        }
                    }
                }
            }
        }
    };
    // Whatever the server left behind in its process group goes too.
    signal_group(group, Signal::Kill);
    if let Some(group) = group {
        crate::downstream::reaper::track(group, false);
    }
    let _ = exit.send(Some(status.unwrap_or_else(|e| {
        tracing::warn!("waiting for a downstream server: {e}");
        ExitStatus::default()
    })));
}

enum Signal {
    Term,
    Kill,
}

#[cfg(unix)]
fn signal_group(group: Option<u32>, signal: Signal) {
    let Some(Ok(pgid)) = group.map(libc::pid_t::try_from) else {
        return;
    };
    let signal = match signal {
        Signal::Term => libc::SIGTERM,
        Signal::Kill => libc::SIGKILL,
    };
    // SAFETY: killpg has no memory-safety preconditions. The group was
    // created for this child (process_group(0)), so its id is the child's
    // pid, which is not reused while the group has members.
    unsafe {
        libc::killpg(pgid, signal);
    }
}

#[cfg(not(unix))]
fn signal_group(_group: Option<u32>, _signal: Signal) {}

/// The rmcp transport over a child's stdin/stdout.
pub(crate) struct ChildTransport {
    name: String,
    stdin: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
    stdout: BufReader<ChildStdout>,
    /// The line being read (kept across cancelled `receive` calls).
    line: Vec<u8>,
    /// While discarding an oversized line: what is known of its id.
    discarding: Option<IdScanner>,
    process: Arc<Process>,
}

/// One step of reading a line.
enum Read {
    Line,
    Oversized(IdScanner),
    Eof,
}

impl ChildTransport {
    /// Reads one line into `self.line`, never holding more than
    /// [`MAX_REPLY_BYTES`] of it. Cancel-safe: progress lives in `self`.
    async fn read_line(&mut self) -> std::io::Result<Read> {
        loop {
            let available = self.stdout.fill_buf().await?;
            if available.is_empty() {
                return Ok(Read::Eof);
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            let piece = &available[..take];
            if let Some(scanner) = self.discarding.as_mut() {
                scanner.feed(piece);
            } else if self.line.len() + take > MAX_REPLY_BYTES {
                let mut scanner = IdScanner::default();
                scanner.feed(&self.line);
                scanner.feed(piece);
                self.line = Vec::new();
                self.discarding = Some(scanner);
            } else {
                self.line.extend_from_slice(piece);
            }
            self.stdout.consume(take);
            if newline.is_some() {
                return Ok(match self.discarding.take() {
                    Some(scanner) => Read::Oversized(scanner),
                    None => Read::Line,
                });
            }
        }
    }
}

impl Transport<RoleClient> for ChildTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let stdin = Arc::clone(&self.stdin);
        async move {
            let mut bytes = serde_json::to_vec(&item).map_err(std::io::Error::other)?;
            bytes.push(b'\n');
            let mut stdin = stdin.lock().await;
            let Some(pipe) = stdin.as_mut() else {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::NotConnected,
                    "the server's stdin is closed",
                ));
            };
            pipe.write_all(&bytes).await?;
            pipe.flush().await
        }
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        loop {
            match self.read_line().await {
                Ok(Read::Line) => {
                    let message = decode(&self.name, &self.line);
                    self.line.clear();
                    if self.line.capacity() > 1024 * 1024 {
                        self.line = Vec::new();
                    }
                    if message.is_some() {
                        return message;
                    }
                }
                Ok(Read::Oversized(scanner)) => {
                    if let Some(message) = oversized(&self.name, &scanner) {
                        return Some(message);
                    }
                }
                Ok(Read::Eof) => return None,
                Err(e) => {
                    tracing::warn!(
                        server = self.name,
                        "reading from downstream server `{}`: {e}",
                        self.name
                    );
                    return None;
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        drop(self.stdin.lock().await.take());
        self.process.stop().await;
        Ok(())
    }
}

impl Drop for ChildTransport {
    fn drop(&mut self) {
        // Dropped without `close` (a handshake that timed out): stdin
        // closes with it; make sure the child goes too.
        self.process.stop.cancel();
    }
}
