//! Processes and the machine: signals, ending children, free ports, finding
//! processes by their command line in /proc, and temp directories whose
//! paths tag the processes started with them.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// Ends a child that may still run: SIGTERM, up to `grace` for it to exit,
/// then SIGKILL. For `Drop` impls (blocking, no runtime needed).
pub fn terminate_then_kill(child: &mut tokio::process::Child, grace: Duration) {
    if !matches!(child.try_wait(), Ok(None)) {
        return;
    }
    if let Some(pid) = child.id() {
        let _ = std::process::Command::new("kill")
            .args(["-s", "TERM", &pid.to_string()])
            .status();
        let deadline = std::time::Instant::now() + grace;
        while std::time::Instant::now() < deadline {
            if !matches!(child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    let _ = child.start_kill();
}

/// `kill -s SIG PID`; fails the test if `kill` fails.
pub fn send_signal(pid: u32, sig: &str) {
    let status = std::process::Command::new("kill")
        .args(["-s", sig, &pid.to_string()])
        .status()
        .unwrap_or_else(|e| panic!("cannot run `kill -s {sig} {pid}`: {e}"));
    assert!(status.success(), "`kill -s {sig} {pid}` failed: {status}");
}

/// A loopback port that was free a moment ago (bind to port 0, then release).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("bind 127.0.0.1:0")
        .port()
}

/// Processes (pid, command line with NULs as spaces) whose command line
/// contains `needle`, from /proc (the current process excluded).
pub fn processes_with_arg(needle: &str) -> Vec<(u32, String)> {
    let me = std::process::id();
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(raw) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&raw).replace('\0', " ");
        if cmdline.contains(needle) {
            found.push((pid, cmdline.trim_end().to_string()));
        }
    }
    found
}

/// Waits up to `limit` until no process has `needle` in its command line;
/// returns the ones still there.
pub async fn wait_no_process_with_arg(needle: &str, limit: Duration) -> Vec<(u32, String)> {
    let deadline = std::time::Instant::now() + limit;
    loop {
        let left = processes_with_arg(needle);
        if left.is_empty() || std::time::Instant::now() > deadline {
            return left;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A fresh directory under the system temp dir, unique to this process and
/// call (`mcpgraph-<label>-<pid>-<n>-<nanos>`), so that processes started
/// with it in their command line can be found in /proc. Removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(label: &str) -> TempDir {
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let dir = std::env::temp_dir().join(format!(
            "mcpgraph-{label}-{}-{n}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("create {}: {e}", dir.display()));
        TempDir(dir.canonicalize().expect("canonicalize temp dir"))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
