//! The workers: the worker threads, each an OS thread with a
//! current-thread tokio runtime and a `LocalSet`, running the jobs sent to
//! it; optionally the serving thread's own `LocalSet`; and how a call picks
//! one. HTTP connections are served on the worker threads too (see
//! [`Workers::spawn_connection`]), so a call made on a connection runs on
//! that connection's thread while it is among the least loaded, with no
//! hand-over between threads.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use tokio::sync::mpsc;

use crate::error::StartupError;

/// One call, as sent to a worker: it builds the call's future there, since
/// that future is not `Send`.
pub(crate) type Job = Box<dyn FnOnce() -> Pin<Box<dyn Future<Output = ()>>> + Send>;

/// One worker thread: where its jobs go, and how many of its calls run.
pub(super) struct Worker {
    pub(super) jobs: mpsc::UnboundedSender<Job>,
    pub(super) load: Arc<AtomicUsize>,
}

/// Where calls run: the serving thread itself while it has no call
/// (`local`, no hand-over between threads: the common case of one client
/// over stdio), else the least-loaded worker thread. The threads start on
/// the first call that needs them, so a server that never has two calls at
/// once never starts them.
pub(super) struct Workers {
    local: Option<Worker>,
    threads: OnceLock<Result<Vec<Worker>, String>>,
    /// How many threads; `None`: one per core, counted when they start
    /// (reading the cgroup limits costs start-up time).
    count: Option<usize>,
    next: AtomicUsize,
    /// Tells this pool's threads from another engine's (`HERE`).
    id: usize,
}

thread_local! {
    /// On a worker thread: its pool's `id` and its index there.
    static HERE: Cell<Option<(usize, usize)>> = const { Cell::new(None) };
}

/// Numbers the pools of a process (tests run several engines).
static POOLS: AtomicUsize = AtomicUsize::new(0);

impl Workers {
    /// `count` worker threads (at least one; `None`: one per core), not
    /// started yet.
    pub(super) fn threads(count: Option<usize>) -> Self {
        Self {
            local: None,
            threads: OnceLock::new(),
            count,
            next: AtomicUsize::new(0),
            id: POOLS.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// The same, plus a worker on the current thread's `LocalSet`, which
    /// takes every call made while it runs none. Must be called inside a
    /// `LocalSet`.
    pub(super) fn with_local(mut self) -> Self {
        self.local = Some(spawn_local_worker());
        self
    }

    /// The worker for a new call: the local one if this call is the only
    /// one (`alone`), else the least-loaded thread, ties broken by
    /// rotating. With calls overlapping, the serving thread keeps to the
    /// protocol: a call there would hold up every other call's reply.
    pub(super) fn pick(&self, alone: bool) -> Result<&Worker, String> {
        if let Some(local) = &self.local
            && alone
            && local.load() == 0
        {
            return Ok(local);
        }
        let threads = self.started()?;
        let least = |w: &Worker| threads.iter().all(|o| w.load() <= o.load());
        // A call made on a connection this pool serves stays on its thread
        // while no other is less loaded: no hand-over, no wake-up of
        // another thread.
        if let Some((pool, index)) = HERE.get()
            && pool == self.id
            && let Some(here) = threads.get(index)
            && least(here)
        {
            return Ok(here);
        }
        let turn = self.next.fetch_add(1, Ordering::Relaxed);
        let n = threads.len();
        Ok((0..n)
            .map(|i| &threads[(turn + i) % n])
            .min_by_key(|w| w.load())
            .expect("at least one worker"))
    }

    /// Runs `job` (an HTTP connection) on the next worker thread in turn,
    /// starting them if need be; gives `job` back if none can start.
    pub(super) fn spawn_connection(&self, job: Job) -> Result<(), Job> {
        let Ok(threads) = self.started() else {
            return Err(job);
        };
        let turn = self.next.fetch_add(1, Ordering::Relaxed);
        threads[turn % threads.len()]
            .jobs
            .send(job)
            .map_err(|returned| returned.0)
    }

    /// The worker threads, started on first use.
    fn started(&self) -> Result<&[Worker], String> {
        self.threads
            .get_or_init(|| {
                let count = self
                    .count
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, usize::from));
                (0..count.max(1))
                    .map(|index| spawn_worker(self.id, index))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| e.0)
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
fn spawn_worker(pool: usize, index: usize) -> Result<Worker, StartupError> {
    let (tx, rx) = mpsc::unbounded_channel::<Job>();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| StartupError(format!("cannot start worker runtime: {e}")))?;
    std::thread::Builder::new()
        .name(format!("mcpgraph-worker-{index}"))
        .spawn(move || {
            HERE.set(Some((pool, index)));
            let local = tokio::task::LocalSet::new();
            local.block_on(&runtime, run_jobs(rx));
        })
        .map_err(|e| StartupError(format!("cannot start worker thread: {e}")))?;
    Ok(Worker {
        jobs: tx,
        load: Arc::default(),
    })
}
