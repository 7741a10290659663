//! `serve`: MCP over stdio or streamable HTTP until the session ends or a
//! signal comes, then a drain of the calls still running.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::args::ServeArgs;
use crate::engine::Engine;
use crate::serving::handler::{CallCaps, Handler, serve};
use crate::serving::http::{HttpOptions, MCP_PATH, serve_http};

pub(super) async fn serve_command(engine: &Engine, args: ServeArgs) -> Result<(), String> {
    let shutdown = CancellationToken::new();
    tokio::spawn(cancel_on_signal(shutdown.clone()));
    let drain = Duration::from_secs(args.drain_secs);
    let handler = Handler::new(engine.clone()).with_caps(CallCaps::new(
        args.max_in_flight,
        args.max_in_flight_per_session,
    ));
    match args.http {
        None => {
            // stdio: the session ends at EOF; a signal ends it early, once
            // running calls are done.
            let serving = serve(handler, crate::serving::stdio::halves());
            tokio::pin!(serving);
            tokio::select! {
                result = &mut serving => return result,
                () = shutdown.cancelled() => {}
            }
            // The session stays alive (its loop runs as its own task) while
            // running calls finish, so their responses still go out.
            if !engine.drain(drain).await {
                tracing::warn!("calls still running after {drain:?} were stopped");
            }
            tokio::time::sleep(crate::serving::http::FLUSH_GRACE).await;
            Ok(())
        }
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
                stateless: args.stateless,
                drain,
                header_read_timeout: Duration::from_secs(args.header_timeout_secs),
                body_timeout: Duration::from_secs(args.body_timeout_secs),
                max_connections: args.max_connections,
                max_sessions: args.max_sessions,
                session_idle: Duration::from_secs(args.session_idle_secs),
            };
            serve_http(handler, options, shutdown, |bound| {
                // On stderr, so scripts (and tests binding port 0) learn it.
                eprintln!("mcpgraph: serving MCP on http://{bound}{MCP_PATH}");
            })
            .await
        }
    }
}

async fn cancel_on_signal(token: CancellationToken) {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(term) => term,
                Err(_) => {
                    let _ = ctrl_c.await;
                    token.cancel();
                    return;
                }
            };
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
    tracing::info!("shutdown signal received");
    token.cancel();
}
