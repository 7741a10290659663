//! Downstream servers never outlive the graph server, even one killed with
//! SIGKILL, which runs no code of ours.
//!
//! Each stdio server runs in a process group of its own, so that stopping
//! it also stops what it started (`npx` -> `sh` -> `node`). A parent-death
//! signal would not do: on Linux it fires when the spawning *thread* exits
//! and reaches only the direct child. Instead the generated binary starts
//! a small reaper: itself again, with `REAPER_ENV` set, in a process group
//! of its own, reading the ids of the live groups on a pipe from us. When
//! that pipe closes (we exited, however), the reaper kills every group it
//! still knows with SIGKILL, then exits.
//!
//! Only binaries whose `main` runs the facade's `cli` (which calls `run_if_reaper`
//! first) start a reaper; a program embedding the [`mcpgraph_runtime::Engine`] does not
//! get one, since running its own executable again would not mean the same.

use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set in the reaper's environment to our process id.
pub(crate) const REAPER_ENV: &str = "MCPGRAPH_REAPER_OF";

static ENABLED: AtomicBool = AtomicBool::new(false);

/// The pipe to the reaper, once started (`None` inside: it could not be).
static REAPER: Mutex<Option<Option<std::process::ChildStdin>>> = Mutex::new(None);

/// Lets `register` start a reaper (the CLI does this).
pub fn enable() {
    ENABLED.store(true, Ordering::Relaxed);
}

/// When this process was started as a reaper, runs it to the end and
/// returns `true`.
pub fn run_if_reaper() -> bool {
    if std::env::var_os(REAPER_ENV).is_none() {
        return false;
    }
    #[cfg(unix)]
    reap_when_orphaned();
    true
}

/// The groups still alive are killed when stdin closes.
#[cfg(unix)]
fn reap_when_orphaned() {
    use std::io::BufRead;
    let mut groups: Vec<i32> = Vec::new();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let (add, id) = line.split_at(line.len().min(1));
        let Ok(id) = id.parse::<i32>() else { continue };
        match add {
            "+" => groups.push(id),
            "-" => groups.retain(|g| *g != id),
            _ => {}
        }
    }
    for group in groups {
        // SAFETY: killpg has no memory-safety preconditions.
        unsafe {
            libc::killpg(group, libc::SIGKILL);
        }
    }
}

/// Tells the reaper (started on first use) about the process group `id`
/// (`alive`) or that it is gone.
pub(crate) fn track(id: u32, alive: bool) {
    if !ENABLED.load(Ordering::Relaxed) {
        return;
    }
    let mut reaper = REAPER.lock().unwrap_or_else(|e| e.into_inner());
    let pipe = reaper.get_or_insert_with(start);
    if let Some(stdin) = pipe {
        let line = format!("{}{id}\n", if alive { '+' } else { '-' });
        if stdin.write_all(line.as_bytes()).is_err() {
            tracing::warn!("the reaper of downstream servers is gone");
            *pipe = None;
        }
    }
}

fn start() -> Option<std::process::ChildStdin> {
    let started = std::env::current_exe().and_then(|exe| {
        let mut cmd = std::process::Command::new(exe);
        cmd.env(REAPER_ENV, std::process::id().to_string())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        cmd.spawn()
    });
    match started {
        Ok(mut child) => child.stdin.take(),
        Err(e) => {
            tracing::warn!(
                "cannot start the reaper of downstream servers ({e}): they may outlive a killed server"
            );
            None
        }
    }
}
