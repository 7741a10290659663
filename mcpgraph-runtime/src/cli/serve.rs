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
use crate::engine::Engine;
use crate::serving::handler::{CallCaps, Handler, serve};
#[cfg(feature = "http-server")]
use crate::serving::http::{HttpOptions, MCP_PATH, RateLimit, serve_http};
use crate::serving::state::StateKeys;

/// What the whole shutdown may take beyond `--drain-secs`: the calls
/// stopped at the drain's end (1 s), the last responses and connections
/// (about 2 s), the downstream servers. Past it the process exits anyway.
pub(super) const SHUTDOWN_SLACK: Duration = Duration::from_secs(5);

pub(super) async fn serve_command(engine: &Engine, args: ServeArgs) -> Result<(), String> {
    #[cfg(not(feature = "http-server"))]
    if args.http.is_some() {
        return Err(crate::features::missing("`serve --http`", "http-server"));
    }
    let recording;
    let engine = match &args.record_failures {
        Some(dir) => {
            let recorder = crate::graph_tests::FailureRecorder::new(dir.clone())?;
            recording = engine.clone().with_failure_recorder(recorder);
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
    .map_err(|e| e.to_string())?;
    #[cfg(feature = "http-server")]
    if state_keys.is_ephemeral() && args.stateless {
        tracing::warn!(
            "--stateless without --state-key-file or --state-key-env: the state a waiting \
             call hands its client is sealed with a random key of this process, so its retry \
             resumes only on this replica, and not after a restart; give every replica the \
             same key"
        );
    }
    let handler = Handler::new(engine.clone())
        .with_caps(CallCaps::new(
            args.max_in_flight,
            args.max_in_flight_per_session,
        ))
        .with_state_keys(Arc::new(state_keys));
    // Listening from now on, so that no signal falls between.
    if let Some(signals) = Signals::new() {
        tokio::spawn(on_signals(
            signals,
            shutdown.clone(),
            handler.clone(),
            drain,
        ));
    }
    match args.http {
        None => {
            // stdio: the session ends at EOF; a signal ends it early, once
            // running calls are done.
            let serving = serve(handler, crate::serving::stdio::halves());
            tokio::pin!(serving);
            tokio::select! {
                result = &mut serving => return result.map_err(|e| e.to_string()),
                () = shutdown.cancelled() => {}
            }
            // The session stays alive (its loop runs as its own task) while
            // running calls finish, so their responses still go out; it
            // refuses new calls (`CallCaps::close`).
            if !engine.drain(drain).await {
                tracing::warn!("calls still running after {drain:?} were stopped");
            }
            tokio::time::sleep(crate::serving::FLUSH_GRACE).await;
            Ok(())
        }
        #[cfg(not(feature = "http-server"))]
        Some(_) => Ok(()), // refused at the top
        #[cfg(feature = "http-server")]
        Some(addr) => {
            let auth_token = match &args.auth_token_env {
                None => None,
                Some(var) => match std::env::var(var) {
                    Ok(token) if !token.is_empty() => {
                        crate::downstream::withhold_from_children(var);
                        crate::secrets::remember(var, &token);
                        Some(token)
                    }
                    _ => {
                        return Err(format!(
                            "--auth-token-env: environment variable `{var}` is not set"
                        ));
                    }
                },
            };
            let options = HttpOptions {
                addr,
                allowed_hosts: args.allowed_hosts,
                allowed_origins: args.allowed_origins,
                auth_token,
                oauth: args.oauth.options(),
                stateless: args.stateless,
                drain,
                header_read_timeout: Duration::from_secs(args.header_timeout_secs),
                body_timeout: Duration::from_secs(args.body_timeout_secs),
                max_body_bytes: args.max_body_bytes,
                max_connections: args.max_connections,
                max_connections_per_peer: args.max_connections_per_peer.unwrap_or_else(|| {
                    crate::serving::http::default_max_connections_per_peer(args.max_connections)
                }),
                request_rate: request_rate(args.max_request_rate_per_peer),
                send_timeout: Duration::from_secs(args.send_timeout_secs),
                max_connection_age: Duration::from_secs(args.max_connection_age_secs),
                max_sessions: args.max_sessions,
                session_idle: Duration::from_secs(args.session_idle_secs),
                metrics_addr: args.metrics_addr,
            };
            serve_http(handler, options, shutdown, |bound, metrics| {
                // On stderr, so scripts (and tests binding port 0) learn it.
                if let Some(metrics) = metrics {
                    eprintln!("mcpgraph: serving metrics on http://{metrics}/metrics");
                }
                eprintln!("mcpgraph: serving MCP on http://{bound}{MCP_PATH}");
            })
            .await
        }
    }
}

/// `--max-request-rate-per-peer`: by default, the default rate for peers
/// beyond loopback (a local reverse proxy, through which every client
/// shares one address, or a benchmark is not limited); a value given
/// limits every peer; 0, none.
#[cfg(feature = "http-server")]
fn request_rate(given: Option<u32>) -> Option<RateLimit> {
    match given {
        None => Some(RateLimit {
            per_sec: crate::serving::http::DEFAULT_MAX_REQUEST_RATE_PER_PEER,
            loopback: false,
        }),
        Some(0) => None,
        Some(per_sec) => Some(RateLimit {
            per_sec,
            loopback: true,
        }),
    }
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
    crate::serving::stderr_writer::flush(Duration::from_millis(200));
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
