//! `serve`: MCP over stdio or streamable HTTP until the session ends or a
//! signal comes, then a drain of the calls still running.
//!
//! The first SIGINT or SIGTERM starts the drain: no new call is admitted
//! (over stdio or HTTP), the running ones finish within `--drain-secs`.
//! A second signal ends the process at once, with status 128 + its number;
//! and whatever happens, the process is gone [`SHUTDOWN_SLACK`] after
//! `--drain-secs` (status 1).

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::args::ServeArgs;
use super::error::CliError;
use mcpgraph_runtime::host::StateKeys;
use mcpgraph_runtime::host::{CallCaps, Handler, serve};
use mcpgraph_runtime::{Engine, StartupError};

/// The store `--task-store` names, with `--max-tasks` and `--task-ttl-secs`.
fn task_store(args: &ServeArgs) -> Result<Arc<dyn mcpgraph_tasks::TaskStore>, CliError> {
    let limits = mcpgraph_tasks::StoreLimits {
        max_live: args.max_tasks,
        ttl: Duration::from_secs(args.task_ttl_secs as u64),
        poll_interval: TASK_POLL_INTERVAL,
    };
    mcpgraph_tasks::open(&args.task_store, limits).map_err(|e| CliError::TaskStore(Box::new(e)))
}

/// How often a client is told to poll a task (`pollIntervalMs`).
const TASK_POLL_INTERVAL: Duration = Duration::from_millis(500);

/// What the whole shutdown may take beyond `--drain-secs`: the calls
/// stopped at the drain's end (1 s), the last responses and connections
/// (about 2 s), the downstream servers. Past it the process exits anyway.
pub(super) const SHUTDOWN_SLACK: Duration = Duration::from_secs(5);

pub(super) async fn serve_command(engine: &Engine, args: ServeArgs) -> Result<(), CliError> {
    let recording;
    let engine = match &args.record_failures {
        Some(dir) => {
            recording = super::graph_tests::recording_failures(engine, dir)?;
            &recording
        }
        None => engine,
    };
    let shutdown = CancellationToken::new();
    let drain = Duration::from_secs(args.drain_secs);
    let state_keys = StateKeys::load(
        args.state_key_env.as_deref(),
        args.state_key_file.as_deref(),
    )
    .map_err(StartupError::from)?;
    let handler = Handler::new(engine.clone())
        .with_caps(CallCaps::new(
            args.max_in_flight,
            args.max_in_flight_per_session,
        ))
        .with_state_keys(Arc::new(state_keys))
        .with_tasks(Arc::new(mcpgraph_tasks::Tasks::new(task_store(&args)?)));
    // Tasks of replicas that stop (sharing this one's store) go on here.
    handler.adopt_tasks();
    // Listening from now on, so that no signal falls between.
    if let Some(signals) = Signals::new() {
        tokio::spawn(on_signals(
            signals,
            shutdown.clone(),
            handler.clone(),
            drain,
        ));
    }
    if args.http.requested() {
        return args
            .http
            .serve(handler, Handler::for_session, drain, shutdown)
            .await
            .map_err(|e| CliError::Serve(Box::new(e)));
    }
    // stdio: the session ends at EOF; a signal ends it early, once running
    // calls are done.
    let serving = serve(handler, mcpgraph_runtime::host::stdio_halves());
    tokio::pin!(serving);
    tokio::select! {
        result = &mut serving => return result.map_err(|e| CliError::Serve(Box::new(e))),
        () = shutdown.cancelled() => {}
    }
    // The session stays alive (its loop runs as its own task) while running
    // calls finish, so their responses still go out; it refuses new calls
    // (`CallCaps::close`).
    if !engine.drain(drain).await {
        tracing::warn!("calls still running after {drain:?} were stopped");
    }
    tokio::time::sleep(mcpgraph_runtime::host::FLUSH_GRACE).await;
    Ok(())
}

/// At the first signal: refuses new calls, starts the drain (`token`) and
/// the bound on the whole shutdown; at the second, exits.
async fn on_signals(
    mut signals: Signals,
    token: CancellationToken,
    handler: Handler,
    drain: Duration,
) {
    signals.next().await;
    tracing::info!("shutdown signal received");
    handler.caps().close();
    token.cancel();
    let limit = drain + SHUTDOWN_SLACK;
    // A thread of its own: it must fire even if the runtime is stuck.
    let _ = std::thread::Builder::new()
        .name("shutdown-bound".into())
        .spawn(move || {
            std::thread::sleep(limit);
            exit_now(
                1,
                &format!("shutdown still not done after {limit:?}; exiting"),
            );
        });
    let second = signals.next().await;
    exit_now(128 + second, "second signal during the drain: exiting now");
}

/// Ends the process with `code` after logging `why`.
fn exit_now(code: i32, why: &str) -> ! {
    tracing::warn!("{why}");
    eprintln!("mcpgraph: {why}");
    mcpgraph_runtime::host::flush_stderr(Duration::from_millis(200));
    std::process::exit(code)
}

/// SIGINT and SIGTERM, received from the start.
struct Signals {
    #[cfg(unix)]
    int: tokio::signal::unix::Signal,
    #[cfg(unix)]
    term: tokio::signal::unix::Signal,
}

impl Signals {
    /// `None` if signals cannot be received.
    fn new() -> Option<Self> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Some(Self {
                int: signal(SignalKind::interrupt()).ok()?,
                term: signal(SignalKind::terminate()).ok()?,
            })
        }
        #[cfg(not(unix))]
        Some(Self {})
    }

    /// The next signal's number.
    async fn next(&mut self) -> i32 {
        #[cfg(unix)]
        {
            tokio::select! {
                _ = self.int.recv() => 2,
                _ = self.term.recv() => 15,
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            2
        }
    }
}
