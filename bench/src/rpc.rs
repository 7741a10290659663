//! A raw JSON-RPC client over a child's stdio: newline-delimited JSON, no
//! SDK. A reader thread timestamps every line as it arrives; the caller
//! writes requests and matches replies by id.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Longest wait for any reply before a run is declared hung.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(30);

/// How to start a peer: program and arguments.
#[derive(Clone, Debug)]
pub struct Launch {
    pub program: PathBuf,
    pub args: Vec<String>,
}

impl Launch {
    pub fn command(&self) -> Command {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args);
        cmd
    }
}

/// One line received from the child, with its arrival time.
struct Line {
    text: String,
    at: Instant,
}

/// A reply matched to its request.
pub struct Reply {
    pub id: u64,
    pub value: Value,
    pub at: Instant,
}

/// A running peer spoken to over stdio.
pub struct StdioPeer {
    child: Child,
    stdin: BufWriter<ChildStdin>,
    lines: Receiver<Line>,
    next_id: u64,
}

impl StdioPeer {
    /// Spawns the peer (stderr discarded) without talking to it yet.
    pub fn spawn(launch: &Launch) -> Result<Self, String> {
        let mut child = launch
            .command()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", launch.program.display()))?;
        let stdin =
            BufWriter::with_capacity(1 << 16, child.stdin.take().ok_or("no stdin on the child")?);
        let stdout = child.stdout.take().ok_or("no stdout on the child")?;
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::with_capacity(1 << 16, stdout);
            let mut text = String::new();
            loop {
                text.clear();
                match reader.read_line(&mut text) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let line = Line {
                            text: text.trim_end().to_owned(),
                            at: Instant::now(),
                        };
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        Ok(Self {
            child,
            stdin,
            lines,
            next_id: 1,
        })
    }

    /// The child's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Spawns and completes the handshake; returns the peer and the time
    /// from spawn to the `initialize` reply.
    pub fn start(launch: &Launch) -> Result<(Self, Duration), String> {
        Self::start_declaring(launch, "{}")
    }

    /// [`StdioPeer::start`] for a client that declares `capabilities` (a
    /// JSON object) in `initialize`.
    pub fn start_declaring(
        launch: &Launch,
        capabilities: &str,
    ) -> Result<(Self, Duration), String> {
        let started = Instant::now();
        let mut peer = Self::spawn(launch)?;
        let id = peer.send(
            "initialize",
            &format!(
                r#"{{"protocolVersion":"2025-06-18","capabilities":{capabilities},"clientInfo":{{"name":"mcpgraph-bench","version":"0.1.0"}}}}"#
            ),
        )?;
        peer.flush()?;
        let reply = peer.recv(Duration::from_secs(60))?;
        if reply.id != id || reply.value.get("result").is_none() {
            return Err(format!("bad initialize reply: {}", reply.value));
        }
        let elapsed = reply.at - started;
        peer.notify("notifications/initialized")?;
        peer.flush()?;
        Ok((peer, elapsed))
    }

    /// Writes a request (not flushed); returns its id.
    pub fn send(&mut self, method: &str, params_json: &str) -> Result<u64, String> {
        let id = self.next_id;
        self.next_id += 1;
        writeln!(
            self.stdin,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params_json}}}"#
        )
        .map_err(|e| format!("write failed: {e}"))?;
        Ok(id)
    }

    /// Writes a `tools/call` (not flushed); returns its id.
    pub fn send_call(&mut self, tool: &str, args_json: &str) -> Result<u64, String> {
        self.send(
            "tools/call",
            &format!(r#"{{"name":"{tool}","arguments":{args_json}}}"#),
        )
    }

    fn notify(&mut self, method: &str) -> Result<(), String> {
        writeln!(self.stdin, r#"{{"jsonrpc":"2.0","method":"{method}"}}"#)
            .map_err(|e| format!("write failed: {e}"))
    }

    pub fn flush(&mut self) -> Result<(), String> {
        self.stdin
            .flush()
            .map_err(|e| format!("write failed (peer exited?): {e}"))
    }

    /// The next reply (lines without an id, i.e. notifications, are skipped).
    pub fn recv(&mut self, timeout: Duration) -> Result<Reply, String> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!("no reply within {} s", timeout.as_secs()));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err("the peer closed its stdout (exited)".to_owned());
                }
            };
            let value: Value = serde_json::from_str(&line.text)
                .map_err(|e| format!("reply is not JSON ({e}): {}", line.text))?;
            if let Some(id) = value.get("id").and_then(Value::as_u64) {
                return Ok(Reply {
                    id,
                    value,
                    at: line.at,
                });
            }
        }
    }

    /// One call, waited for; returns the reply and its latency.
    pub fn call(&mut self, tool: &str, args_json: &str) -> Result<(Value, Duration), String> {
        let started = Instant::now();
        let id = self.send_call(tool, args_json)?;
        self.flush()?;
        loop {
            let reply = self.recv(REPLY_TIMEOUT)?;
            if reply.id == id {
                return Ok((reply.value, reply.at - started));
            }
        }
    }

    /// `n` calls of `tool` with up to `in_flight` of them written before a
    /// reply is awaited, each reply put through `check`; calls per second,
    /// or how many replies were wrong (with the first reason).
    pub fn pipelined(
        &mut self,
        tool: &str,
        args_json: &str,
        n: usize,
        in_flight: usize,
        check: impl Fn(&Value) -> Result<(), String>,
    ) -> Result<f64, String> {
        let started = Instant::now();
        let (mut sent, mut done, mut wrong) = (0usize, 0usize, 0usize);
        let mut first_wrong = None;
        while done < n {
            while sent < n && sent - done < in_flight {
                self.send_call(tool, args_json)?;
                sent += 1;
            }
            self.flush()?;
            let reply = self
                .recv(REPLY_TIMEOUT)
                .map_err(|e| format!("{e} after {done} of {n} replies"))?;
            if let Err(e) = check(&reply.value) {
                wrong += 1;
                first_wrong.get_or_insert(e);
            }
            done += 1;
        }
        let rate = n as f64 / started.elapsed().as_secs_f64();
        match first_wrong {
            None => Ok(rate),
            Some(e) => Err(format!("{wrong} of {n} replies wrong, e.g. {e}")),
        }
    }

    /// Stops the child (as dropping it does).
    pub fn stop(self) {
        drop(self);
    }
}

impl Drop for StdioPeer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `VmRSS` and `VmHWM` of a process, in KiB.
pub fn rss_kib(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}
