//! The workers: the worker threads, each an OS thread with a
//! current-thread tokio runtime and a `LocalSet`, running the jobs sent to
//! it; optionally the caller's own `LocalSet`; and how a call picks one.
//!
//! Worker threads run calls and nothing else: no connection, no protocol
//! message, no probe is ever served on one, so an evaluation that keeps
//! its thread for seconds holds up only the calls placed there (new calls
//! go to the least-loaded thread).
//!
//! An evaluation step is synchronous and may keep its thread as long as
//! `maxExpressionTimeMs` allows (seconds, if a graph says so): whatever
//! else that thread multiplexes waits as long. So connections, protocol
//! messages, pings and `/health` are served where no call runs (the serving
//! runtime), and every call the MCP handler makes is handed to a worker
//! thread (`Engine::off_serving_thread`). The price is one hand-over
//! between threads per call, a wake-up each way. Running a call on the
//! thread that read its request saved it (HTTP connections used to be
//! served on the worker threads, and a lone stdio call ran on the serving
//! thread), but then one long evaluation froze every connection, probe
//! and ping multiplexed there; and no cheaper split exists, since a call's
//! future cannot leave its thread and which evaluation will run long is
//! not known before it runs. Measured with `scripts/bench.sh --quick`,
//! before and after interleaved, four runs on a shared 2-core machine under
//! load (noisy): stdio throughput at 64 in flight unchanged (about 1.0-1.1x:
//! overlapping calls were handed over already); sequential stdio latency
//! about 0.7-0.9x (the two wake-ups, 7-14 µs a call, still below the
//! hand-written rmcp server's); HTTP stateless throughput 0.8-0.9x for the
//! cheapest tools, about 1.0x for heavier ones. The worker runtimes have
//! no I/O driver, so a job sent to a busy worker costs an atomic store,
//! and a parked one a futex wake. Only a caller whose thread
//! serves nothing else (a one-shot `call`, an embedding driving the engine
//! inside a `LocalSet`, see `Engine::start_local`) still runs a lone call
//! on its own thread.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use tokio::sync::mpsc;

use crate::error::StartupError;

/// One call, as sent to a worker: it builds the call's future there, since
/// that future is not `Send`.
pub(crate) type Job = Box<dyn FnOnce() -> Pin<Box<dyn Future<Output = ()>>> + Send>;

/// One worker: where its jobs go, and how many of its calls run.
pub(super) struct Worker {
    pub(super) jobs: mpsc::UnboundedSender<Job>,
    pub(super) load: Arc<AtomicUsize>,
}

/// Where calls run: the caller's own thread while it has no call and may
/// take one (`local`, no hand-over between threads: a one-shot `call`,
/// whose thread has nothing else to do), else the least-loaded worker
/// thread. The threads start on the first call that needs them.
pub(super) struct Workers {
    local: Option<Worker>,
    threads: OnceLock<Result<Vec<Worker>, StartupError>>,
    /// How many threads; `None`: one per core (at least two), counted when
    /// they start (reading the cgroup limits costs start-up time).
    count: Option<usize>,
    next: AtomicUsize,
}

impl Workers {
    /// `count` worker threads (at least one; `None`: one per core, at
    /// least two), not started yet.
    pub(super) fn threads(count: Option<usize>) -> Self {
        Self {
            local: None,
            threads: OnceLock::new(),
            count,
            next: AtomicUsize::new(0),
        }
    }

    /// The same, plus a worker on the current thread's `LocalSet`, which
    /// takes every call made while it runs none, when the caller allows
    /// it. Must be called inside a `LocalSet`.
    pub(super) fn with_local(mut self) -> Self {
        self.local = Some(spawn_local_worker());
        self
    }

    /// The worker for a new call: the local one if the caller's thread may
    /// run it (`here`: it serves nothing else) and runs no other call, else
    /// the least-loaded thread, ties broken by rotating.
    pub(super) fn pick(&self, here: bool) -> Result<&Worker, StartupError> {
        if let Some(local) = &self.local
            && here
            && local.load() == 0
        {
            return Ok(local);
        }
        let threads = self.started()?;
        let turn = self.next.fetch_add(1, Ordering::Relaxed);
        let n = threads.len();
        Ok((0..n)
            .map(|i| &threads[(turn + i) % n])
            .min_by_key(|w| w.load())
            .expect("at least one worker"))
    }

    /// The worker threads, started on first use.
    fn started(&self) -> Result<&[Worker], StartupError> {
        self.threads
            .get_or_init(|| {
                let count = self.count.unwrap_or_else(|| {
                    // Two at least: a long call on one leaves the other
                    // for the calls made meanwhile.
                    std::thread::available_parallelism().map_or(2, |n| n.get().max(2))
                });
                (0..count.max(1))
                    .map(spawn_worker)
                    .collect::<Result<Vec<_>, _>>()
            })
            .as_deref()
            .map_err(Clone::clone)
    }
}

impl Worker {
    fn load(&self) -> usize {
        self.load.load(Ordering::Relaxed)
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

/// Runs every job sent to it on the current thread's `LocalSet`, until
/// the engine (every sender) is gone.
fn spawn_local_worker() -> Worker {
    let (tx, rx) = mpsc::unbounded_channel::<Job>();
    tokio::task::spawn_local(run_jobs(rx));
    Worker {
        jobs: tx,
        load: Arc::default(),
    }
}

/// A worker's loop: each job becomes a task of the worker's `LocalSet`.
async fn run_jobs(mut rx: mpsc::UnboundedReceiver<Job>) {
    while let Some(job) = rx.recv().await {
        tokio::task::spawn_local(job());
    }
}

/// A worker on a thread of its own. Its stack is the platform's default
/// for spawned threads: expressions recurse, so it is not trimmed.
///
/// Its runtime has timers but no I/O driver: a call reaches its downstream
/// servers through channels to the serving runtime, which drives every
/// connection. Parked without one, the thread waits on a futex, and a job
/// sent while it runs costs an atomic store instead of a write to the
/// driver's eventfd.
fn spawn_worker(index: usize) -> Result<Worker, StartupError> {
    let (tx, rx) = mpsc::unbounded_channel::<Job>();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .map_err(|e| StartupError(format!("cannot start worker runtime: {e}")))?;
    std::thread::Builder::new()
        .name(format!("mcpgraph-worker-{index}"))
        .spawn(move || {
            let local = tokio::task::LocalSet::new();
            local.block_on(&runtime, run_jobs(rx));
        })
        .map_err(|e| StartupError(format!("cannot start worker thread: {e}")))?;
    Ok(Worker {
        jobs: tx,
        load: Arc::default(),
    })
}
