//! A downstream server run as a child process, spoken to over its stdin and
//! stdout (newline-delimited JSON-RPC).
//!
//! Unlike rmcp's `TokioChildProcess`, this transport
//! - bounds each line ([`MAX_REPLY_BYTES`]) and turns an oversized or
//!   malformed reply into an error for the one call it answers;
//! - forwards the child's stderr to ours (`super::stderr`: prefixed,
//!   redacted, never to stdout or a caller), noting whether it wrote any;
//! - writes to the child through a bounded queue, retiring a child that
//!   stops reading (`super::stdin_writer`);
//! - records the exit status, and stops the child's whole process group
//!   (stdin closed, then SIGTERM, then SIGKILL) when the connection closes,
//!   or kills it at once when it is retired or shutdown's time is up.

use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{ChildStdout, Command};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::stdin_writer::{Refused, StdinQueue};
use super::wire::{IdScanner, MAX_REPLY_BYTES, decode, oversized};

/// The child process behind a stdio connection, as seen by the client
/// manager: its exit status and whether it wrote on stderr.
pub(crate) struct Process {
    /// The server's name.
    server: String,
    /// The program, as run (after `${VAR}` expansion).
    pub program: String,
    stderr: Arc<super::stderr::Forwarded>,
    exit: watch::Receiver<Option<ExitStatus>>,
    stop: CancellationToken,
    /// Cancelled to send SIGTERM to the child's process group now, not
    /// after the grace its closed stdin gets.
    term: CancellationToken,
    /// Cancelled to kill the child's process group now.
    kill: CancellationToken,
    /// Why the child was killed, when it was retired (see [`Process::retire`]).
    retired: OnceLock<String>,
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
        self.exited().await;
    }

    /// Completes once the child has been reaped.
    pub(super) async fn exited(&self) {
        let mut exit = self.exit.clone();
        // Err: the monitor is gone (runtime shutting down; the child is
        // killed on drop).
        let _ = exit.wait_for(Option::is_some).await;
    }

    /// Stops the child, with SIGTERM to its process group now if its
    /// stdin is closed already (see [`Process::stop`]).
    pub(super) fn terminate(&self) {
        self.stop.cancel();
        self.term.cancel();
    }

    /// Kills the child's process group now (SIGKILL), without a grace.
    pub(super) fn kill(&self) {
        self.stop.cancel();
        self.kill.cancel();
    }

    /// Cancelled once the child is being stopped (or killed).
    pub(super) fn stopping(&self) -> CancellationToken {
        self.stop.clone()
    }

    /// Kills a child that misbehaves beyond healing (`why`, e.g. it stopped
    /// reading its stdin): its connection closes, the calls on it fail with
    /// a crash report saying why, and the next call starts a new one.
    pub(super) fn retire(&self, why: String) {
        if self.retired.set(why).is_ok()
            && let Some(why) = self.retired.get()
        {
            let program = &self.program;
            crate::warn_redacted!(
                self.server.as_str(),
                "downstream server `{}`: `{program}` {why}",
                self.server
            );
        }
        self.kill();
    }

    /// Why the child was retired, if it was.
    pub(super) fn retired(&self) -> Option<&str> {
        self.retired.get().map(String::as_str)
    }

    fn has_exited(&self) -> bool {
        self.exit.borrow().is_some()
    }
}

/// The children a client manager started and that may still run, so that
/// shutdown can stop (and finally kill) every one of them, whichever
/// connection, failed attempt or retired connection it belongs to.
#[derive(Default)]
pub(crate) struct Children(Mutex<Vec<Arc<Process>>>);

impl Children {
    fn add(&self, process: &Arc<Process>) {
        let mut children = self.0.lock().unwrap_or_else(|e| e.into_inner());
        children.retain(|c| !c.has_exited());
        children.push(Arc::clone(process));
    }

    /// The children not reaped yet.
    pub(super) fn live(&self) -> Vec<Arc<Process>> {
        let mut children = self.0.lock().unwrap_or_else(|e| e.into_inner());
        children.retain(|c| !c.has_exited());
        children.clone()
    }
}

/// Why a stdio server's program could not be started.
#[derive(Debug)]
pub(crate) struct SpawnError {
    pub(crate) program: String,
    pub(crate) source: std::io::Error,
}

impl std::fmt::Display for SpawnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot run `{}`: {}", self.program, self.source)
    }
}

impl std::error::Error for SpawnError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// Starts `cmd` as the server `name`; a write to it that takes longer than
/// `write_limit` retires it.
pub(crate) fn spawn(
    name: &str,
    program: String,
    mut cmd: Command,
    write_limit: Duration,
    children: &Children,
) -> Result<(ChildTransport, Arc<Process>), SpawnError> {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    cmd.process_group(0);
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(source) => return Err(SpawnError { program, source }),
    };
    if let Some(group) = child.id() {
        crate::reaper::track(group, true);
    }
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        let source = std::io::Error::other("its stdio is not piped");
        return Err(SpawnError { program, source });
    };
    let forwarded = super::stderr::forward(name, stderr);
    let (exit_tx, exit) = watch::channel(None);
    let (stop, term, kill) = (
        CancellationToken::new(),
        CancellationToken::new(),
        CancellationToken::new(),
    );
    let stopping = super::monitor::Stopping {
        stop: stop.clone(),
        term: term.clone(),
        kill: kill.clone(),
    };
    tokio::spawn(super::monitor::monitor(child, stopping, exit_tx));
    let process = Arc::new(Process {
        server: name.to_owned(),
        program,
        stderr: forwarded,
        exit,
        stop,
        term,
        kill,
        retired: OnceLock::new(),
    });
    children.add(&process);
    let transport = ChildTransport {
        name: name.to_owned(),
        stdin: Some(StdinQueue::start(
            name,
            stdin,
            process.stopping(),
            {
                let process = Arc::clone(&process);
                Box::new(move |why| process.retire(why))
            },
            write_limit,
        )),
        stdout: BufReader::with_capacity(64 * 1024, stdout),
        line: Vec::new(),
        discarding: None,
        process: Arc::clone(&process),
    };
    Ok((transport, process))
}

/// The rmcp transport over a child's stdin/stdout.
pub(crate) struct ChildTransport {
    name: String,
    /// `None` once closed.
    stdin: Option<StdinQueue>,
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
        // Queued now, never waited on: the future holds nothing.
        let queued = self.queue(&item);
        async move { queued }
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
        // The writer closes stdin once it has written what was queued, or
        // at once now that the child is being stopped.
        drop(self.stdin.take());
        self.process.stop().await;
        Ok(())
    }
}

impl ChildTransport {
    /// Queues `item` for the child's stdin. A full queue (the child does
    /// not read) refuses a request or notification with an error, and
    /// drops a reply to the child's own request (nothing waits for it).
    fn queue(&self, item: &ClientJsonRpcMessage) -> Result<(), std::io::Error> {
        let Some(stdin) = &self.stdin else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotConnected,
                "the server's stdin is closed",
            ));
        };
        let mut bytes = serde_json::to_vec(item).map_err(std::io::Error::other)?;
        bytes.push(b'\n');
        match stdin.push(bytes) {
            Ok(()) => Ok(()),
            Err(Refused::Closed) => Err(std::io::Error::new(
                std::io::ErrorKind::NotConnected,
                "the server's stdin is closed",
            )),
            Err(Refused::Full) => {
                if matches!(
                    item,
                    ClientJsonRpcMessage::Response(_) | ClientJsonRpcMessage::Error(_)
                ) {
                    stdin.note_dropped_reply();
                    return Ok(());
                }
                let (messages, bytes) = stdin.waiting();
                Err(std::io::Error::new(
                    std::io::ErrorKind::WouldBlock,
                    format!(
                        "downstream server `{}` is not reading its stdin ({messages} messages, {bytes} bytes waiting); not sent",
                        self.name
                    ),
                ))
            }
        }
    }
}

impl Drop for ChildTransport {
    fn drop(&mut self) {
        // Dropped without `close` (a handshake that timed out): stdin
        // closes with it; make sure the child goes too.
        self.process.stop.cancel();
    }
}
