//! The task that owns a stdio server's child process: it records the
//! exit status, and stops the child's whole process group when asked
//! (stdin closed by the transport, then SIGTERM, then SIGKILL), or kills it
//! at once.

use std::process::ExitStatus;
use std::time::Duration;

use tokio::process::Child;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// How long a child gets after its stdin closes, and again after SIGTERM.
const GRACE: Duration = Duration::from_secs(2);

/// How a child is stopped: `stop` closes its stdin, `term` cuts the wait
/// for it to exit short with SIGTERM, `kill` sends SIGKILL at once.
pub(super) struct Stopping {
    pub stop: CancellationToken,
    pub term: CancellationToken,
    pub kill: CancellationToken,
}

/// Owns the child: records its exit, and stops or kills it when asked.
pub(super) async fn monitor(
    mut child: Child,
    stopping: Stopping,
    exit: watch::Sender<Option<ExitStatus>>,
) {
    let group = child.id();
    let status = tokio::select! {
        status = child.wait() => status,
        () = stopping.stop.cancelled() => stop_gracefully(&mut child, group, &stopping).await,
    };
    // Whatever the server left behind in its process group goes too.
    signal_group(group, Signal::Kill);
    if let Some(group) = group {
        crate::reaper::track(group, false);
    }
    let _ = exit.send(Some(status.unwrap_or_else(|e| {
        tracing::warn!("waiting for a downstream server: {e}");
        ExitStatus::default()
    })));
}

/// Stdin is closed (by the transport): a well-behaved server exits; else
/// SIGTERM after [`GRACE`] (or as soon as `term` is cancelled), SIGKILL
/// after another, or at once when `kill` is cancelled.
async fn stop_gracefully(
    child: &mut Child,
    group: Option<u32>,
    stopping: &Stopping,
) -> std::io::Result<ExitStatus> {
    for term in [false, true] {
        if term {
            signal_group(group, Signal::Term);
        }
        tokio::select! {
            waited = tokio::time::timeout(GRACE, child.wait()) => {
                if let Ok(status) = waited {
                    return status;
                }
            }
            () = stopping.term.cancelled(), if !term => {}
            () = stopping.kill.cancelled() => break,
        }
    }
    signal_group(group, Signal::Kill);
    let _ = child.start_kill();
    child.wait().await
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
