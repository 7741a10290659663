//! The worker threads: each an OS thread with a current-thread tokio
//! runtime and a `LocalSet`, running the jobs sent to it; and how a call
//! picks the least-loaded one.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::mpsc;

use crate::error::StartupError;

/// One call, as sent to a worker: it builds the call's future there, since
/// that future is not `Send`.
pub(super) type Job = Box<dyn FnOnce() -> Pin<Box<dyn Future<Output = ()>>> + Send>;

/// One worker thread: where its jobs go, and how many of its calls run.
pub(super) struct Worker {
    pub(super) jobs: mpsc::UnboundedSender<Job>,
    pub(super) load: Arc<AtomicUsize>,
}

impl Worker {
    /// The least-loaded of `workers`, ties broken by rotating from `turn`.
    pub(super) fn pick(workers: &[Worker], turn: usize) -> &Worker {
        let n = workers.len();
        (0..n)
            .map(|i| &workers[(turn + i) % n])
            .min_by_key(|w| w.load.load(Ordering::Relaxed))
            .expect("at least one worker")
    }
}

/// Counts a worker's call from dispatch until the call ends (or is dropped
/// unrun).
pub(super) struct LoadGuard(Arc<AtomicUsize>);

impl LoadGuard {
    pub(super) fn new(load: &Arc<AtomicUsize>) -> Self {
        load.fetch_add(1, Ordering::Relaxed);
        Self(Arc::clone(load))
    }
}

impl Drop for LoadGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

pub(super) fn spawn_worker(index: usize) -> Result<Worker, StartupError> {
    let (tx, mut rx) = mpsc::unbounded_channel::<Job>();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| StartupError(format!("cannot start worker runtime: {e}")))?;
    std::thread::Builder::new()
        .name(format!("mcpgraph-worker-{index}"))
        .spawn(move || {
            let local = tokio::task::LocalSet::new();
            local.block_on(&runtime, async move {
                while let Some(job) = rx.recv().await {
                    tokio::task::spawn_local(job());
                }
            });
        })
        .map_err(|e| StartupError(format!("cannot start worker thread: {e}")))?;
    Ok(Worker {
        jobs: tx,
        load: Arc::default(),
    })
}
