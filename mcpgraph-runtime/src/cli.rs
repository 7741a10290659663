//! The command line every generated server has: serve over stdio (the
//! default), list tools, run one call.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::client_manager::{ServerSpec, parse_override};
use crate::graph::Graph;
use crate::http::{HttpOptions, MCP_PATH, serve_http};
use crate::pool::{CallOptions, Engine};
use crate::server::{Handler, serve};
use std::time::Duration;

#[derive(Parser, Debug)]
#[command(about = "An MCP server compiled from a graph file by mcpgraph")]
struct Cli {
    /// A JSON file `{"mcpServers": {...}}` whose entries replace (or add to)
    /// the downstream servers compiled into this binary.
    #[arg(long, global = true, value_name = "FILE")]
    mcp: Option<std::path::PathBuf>,

    /// Log level for stderr (error, warn, info, debug, trace); `RUST_LOG`
    /// takes precedence.
    #[arg(long, global = true, default_value = "warn")]
    log_level: String,

    /// Also export spans over OTLP/HTTP to this endpoint (e.g.
    /// http://127.0.0.1:4318/v1/traces); needs the `otel` cargo feature.
    #[arg(long, global = true, value_name = "URL")]
    otlp_endpoint: Option<String>,

    /// Worker threads running graphs (default: one per core).
    #[arg(long, global = true)]
    workers: Option<usize>,

    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Serve MCP over stdio (the default), or over streamable HTTP.
    Serve(ServeArgs),
    /// List the tools with their descriptions.
    Tools {
        /// Print the full tool definitions as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run one tool call and print its result as JSON.
    Call {
        /// Tool name.
        tool: String,
        /// Arguments as a JSON object (default `{}`).
        arguments: Option<String>,
        /// Print the execution record (every node: type, timing, output or
        /// error) to stderr.
        #[arg(long)]
        trace: bool,
    },
}

#[derive(clap::Args, Debug)]
struct ServeArgs {
    /// Serve streamable HTTP (path /mcp) instead of stdio: on
    /// 127.0.0.1:8080 without a value, on 127.0.0.1:PORT for a bare port,
    /// or on IP:PORT. Binding beyond loopback is your explicit choice.
    #[arg(
        long,
        value_name = "ADDR",
        num_args = 0..=1,
        default_missing_value = DEFAULT_HTTP_ADDR,
        value_parser = parse_http_addr
    )]
    http: Option<std::net::SocketAddr>,

    /// No sessions: any replica can answer any request (for running several
    /// behind a load balancer). HTTP only.
    #[arg(long, requires = "http")]
    stateless: bool,

    /// A `Host` header value to accept besides localhost/127.0.0.1/::1
    /// (DNS-rebinding protection). Repeatable.
    #[arg(long = "allowed-host", value_name = "HOST", requires = "http")]
    allowed_hosts: Vec<String>,

    /// An `Origin` to accept besides loopback origins, e.g.
    /// https://app.example.com:443. Repeatable.
    #[arg(long = "allowed-origin", value_name = "ORIGIN", requires = "http")]
    allowed_origins: Vec<String>,

    /// Require `Authorization: Bearer <token>`, the token being read from
    /// this environment variable (never from a flag, which `ps` shows).
    #[arg(long, value_name = "VAR", requires = "http")]
    auth_token_env: Option<String>,

    /// Seconds in-flight calls may run after SIGINT/SIGTERM.
    #[arg(long, default_value_t = DEFAULT_DRAIN_SECS)]
    drain_secs: u64,

    /// Seconds a client may take to send a request's headers before its
    /// connection is closed (against slowloris). HTTP only.
    #[arg(long, default_value_t = DEFAULT_HEADER_TIMEOUT_SECS, value_parser = clap::value_parser!(u64).range(1..), requires = "http")]
    header_timeout_secs: u64,
}

const DEFAULT_DRAIN_SECS: u64 = 10;

const DEFAULT_HEADER_TIMEOUT_SECS: u64 = 30;

/// Where `serve --http` listens when no address is given.
const DEFAULT_HTTP_ADDR: &str = "127.0.0.1:8080";

/// `PORT` (loopback), `localhost:PORT` (loopback) or `IP:PORT`.
fn parse_http_addr(text: &str) -> Result<std::net::SocketAddr, String> {
    let loopback = std::net::Ipv4Addr::LOCALHOST;
    if let Ok(port) = text.parse::<u16>() {
        return Ok((loopback, port).into());
    }
    if let Some(port) = text.strip_prefix("localhost:") {
        return port
            .parse::<u16>()
            .map(|port| (loopback, port).into())
            .map_err(|e| format!("bad port `{port}`: {e}"));
    }
    text.parse().map_err(|_| {
        format!(
            "`{text}` is not PORT, localhost:PORT or IP:PORT \
             (e.g. 8080, 127.0.0.1:8080, 0.0.0.0:8080, [::1]:8080)"
        )
    })
}

/// What a bare `<binary>` (no sub-command) means: stdio serving.
impl Default for ServeArgs {
    fn default() -> Self {
        Self {
            http: None,
            stateless: false,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            auth_token_env: None,
            drain_secs: DEFAULT_DRAIN_SECS,
            header_timeout_secs: DEFAULT_HEADER_TIMEOUT_SECS,
        }
    }
}

/// Runs the CLI of graph `G` with the process's arguments. Only here (the
/// generated binary's `main`) may downstream servers get a reaper, which
/// runs this executable again (`crate::reaper`); [`main_from`] is for
/// embedding and tests, whose executables are something else.
pub fn main<G: Graph>() -> ExitCode {
    if crate::reaper::run_if_reaper() {
        return ExitCode::SUCCESS;
    }
    crate::reaper::enable();
    main_from::<G, _, _>(std::env::args_os())
}

/// Runs the CLI of graph `G` with `args` (the first one is the program
/// name), as `main` does with the process's: for embedding and tests.
pub fn main_from<G, I, T>(args: I) -> ExitCode
where
    G: Graph,
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match parse_args::<G, _, _>(args) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let telemetry =
        crate::telemetry::init(&cli.log_level, cli.otlp_endpoint.as_deref(), G::SERVER.name);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return fail(format!("cannot start the tokio runtime: {e}")),
    };
    let code = runtime.block_on(run::<G>(cli));
    // Workers and downstream children must not keep the process alive
    // once the session is over.
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    // Exporters flush (and may log) first; then what was logged goes out.
    drop(telemetry);
    crate::stderr_writer::flush(std::time::Duration::from_millis(500));
    code
}

/// The command line, named after the graph's server, whose `--version`
/// gives the graph's `server.version` and the mcpgraph version it was
/// built with.
fn parse_args<G, I, T>(args: I) -> Result<Cli, clap::Error>
where
    G: Graph,
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    use clap::{CommandFactory, FromArgMatches};
    let version = format!(
        "{} (mcpgraph {})",
        G::SERVER.version,
        env!("CARGO_PKG_VERSION")
    );
    let matches = Cli::command()
        .name(G::SERVER.name)
        .version(version)
        .try_get_matches_from(args)?;
    Cli::from_arg_matches(&matches)
}

async fn run<G: Graph>(cli: Cli) -> ExitCode {
    let overrides = match load_overrides(cli.mcp.as_deref()) {
        Ok(o) => o,
        Err(e) => return fail(e),
    };
    let workers = cli
        .workers
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, usize::from));
    let engine = match Engine::<G>::start(overrides, workers) {
        Ok(engine) => engine,
        Err(e) => return fail(e.to_string()),
    };
    let code = match cli.command.unwrap_or(Command::Serve(ServeArgs::default())) {
        Command::Serve(args) => match serve_command(&engine, args).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(e),
        },
        Command::Tools { json } => {
            list_tools::<G>(json);
            ExitCode::SUCCESS
        }
        Command::Call {
            tool,
            arguments,
            trace,
        } => {
            // Downstream servers' stderr would bury the result on a
            // terminal: it is shown only when the call fails (see `call`),
            // unless the log level asks for it.
            if !tracing::enabled!(tracing::Level::INFO) {
                crate::client_manager::stderr::hold();
            }
            call(&engine, &tool, arguments.as_deref(), trace).await
        }
    };
    engine.shutdown().await;
    code
}

async fn serve_command<G: Graph>(engine: &Engine<G>, args: ServeArgs) -> Result<(), String> {
    let shutdown = CancellationToken::new();
    tokio::spawn(cancel_on_signal(shutdown.clone()));
    let drain = Duration::from_secs(args.drain_secs);
    let handler = Handler::new(engine.clone());
    match args.http {
        None => {
            // stdio: the session ends at EOF; a signal ends it early, once
            // running calls are done.
            let serving = serve(handler, rmcp::transport::stdio());
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
            tokio::time::sleep(crate::http::FLUSH_GRACE).await;
            Ok(())
        }
        Some(addr) => {
            let auth_token = match &args.auth_token_env {
                None => None,
                Some(var) => match std::env::var(var) {
                    Ok(token) if !token.is_empty() => {
                        crate::client_manager::withhold_from_children(var);
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

fn load_overrides(path: Option<&std::path::Path>) -> Result<Vec<ServerSpec>, String> {
    let Some(path) = path else {
        return Ok(Vec::new());
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read --mcp file {}: {e}", path.display()))?;
    parse_override(&text).map_err(|e| e.to_string())
}

fn list_tools<G: Graph>(json: bool) {
    if json {
        let tools: Vec<Value> = G::TOOLS
            .iter()
            .map(|t| {
                let mut tool = serde_json::json!({
                    "name": t.name,
                    "description": t.description,
                    "inputSchema": serde_json::from_str::<Value>(t.input_schema).unwrap_or(Value::Null),
                });
                if let Some(schema) = t.output_schema {
                    tool["outputSchema"] = serde_json::from_str(schema).unwrap_or(Value::Null);
                }
                tool
            })
            .collect();
        println!("{}", Value::Array(tools));
    } else {
        for tool in G::TOOLS {
            println!("{}\t{}", tool.name, tool.description);
        }
    }
}

async fn call<G: Graph>(
    engine: &Engine<G>,
    tool: &str,
    arguments: Option<&str>,
    trace: bool,
) -> ExitCode {
    let arguments = match arguments.map(serde_json::from_str::<Value>) {
        None => Map::new(),
        Some(Ok(Value::Object(map))) => map,
        Some(Ok(_)) => return fail("the arguments must be a JSON object".to_owned()),
        Some(Err(e)) => return fail(format!("the arguments are not valid JSON: {e}")),
    };
    let options = CallOptions {
        record: trace,
        ..CallOptions::default()
    };
    let outcome = engine.call_with(tool, Some(arguments), options).await;
    for record in outcome.records.iter().flatten() {
        let detail = match &record.outcome {
            Ok(Some(output)) => format!("-> {output}"),
            Ok(None) => "-> (no output)".to_owned(),
            Err(e) => format!("!! {e}"),
        };
        eprintln!(
            "#{:<3} {:<24} {:<9} +{:>9.3} ms {:>9.3} ms  {detail}",
            record.index,
            record.node,
            record.node_type.as_str(),
            record.start.as_secs_f64() * 1000.0,
            record.duration.as_secs_f64() * 1000.0,
        );
    }
    match outcome.result {
        Ok(value) => {
            println!("{value}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            crate::client_manager::stderr::release();
            fail(e.to_string())
        }
    }
}

fn fail(message: String) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::FAILURE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_addresses_default_to_loopback() {
        let parse = |args: &[&str]| {
            let cli = Cli::try_parse_from(args).map_err(|e| e.to_string())?;
            match cli.command {
                Some(Command::Serve(serve)) => Ok(serve.http.map(|a| a.to_string())),
                other => Err(format!("{other:?}")),
            }
        };
        assert_eq!(parse(&["bin", "serve"]), Ok(None));
        for (args, want) in [
            (&["--http"][..], "127.0.0.1:8080"),
            (&["--http", "--stateless"], "127.0.0.1:8080"),
            (&["--http", "9000"], "127.0.0.1:9000"),
            (&["--http=localhost:9001"], "127.0.0.1:9001"),
            (&["--http", "0.0.0.0:80"], "0.0.0.0:80"),
            (&["--http", "[::1]:81"], "[::1]:81"),
        ] {
            let argv: Vec<&str> = ["bin", "serve"].iter().chain(args).copied().collect();
            assert_eq!(parse(&argv), Ok(Some(want.to_owned())), "{args:?}");
        }
        let err = parse(&["bin", "serve", "--http", "example.com:80"]).unwrap_err();
        assert!(
            err.contains("is not PORT, localhost:PORT or IP:PORT"),
            "{err}"
        );
    }
}
