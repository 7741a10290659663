//! The command line every generated server has: serve over stdio (the
//! default), list tools, run one call.
//!
//! `args` holds the grammar, `serve` the serving, `call` the one-shot
//! call; `tools` and `auth` are here. The entry points generic over a [`Graph`]
//! only erase it ([`GraphDef::of`]) and call their `_def` twin, so the
//! command line is compiled once, in this crate.

use std::ffi::OsString;
use std::process::ExitCode;

use serde_json::Value;

use mcpgraph_downstream::{AuthAction, parse_override};
use mcpgraph_runtime::Engine;
use mcpgraph_runtime::ServerSpec;
use mcpgraph_runtime::ToolMeta;
use mcpgraph_runtime::host::one_copy;
use mcpgraph_runtime::{Graph, GraphDef};

mod args;
mod call;
mod error;
// `serve`'s HTTP flags and serving: mcpgraph-http's, or without the
// `http-server` feature a hidden `--http` refused with that reason.
#[cfg(feature = "http-server")]
use mcpgraph_http as http;
// `test` and `serve --record-failures`: the graph tests' crate, or
// without the `graph-tests` feature, a stand-in refusing both.
#[cfg(feature = "graph-tests")]
mod graph_tests;
#[cfg(not(feature = "graph-tests"))]
#[path = "cli/graph_tests_refused.rs"]
mod graph_tests;
#[cfg(not(feature = "http-server"))]
mod http;
mod serve;

use args::{AuthCommand, Cli, Command, parse_args};
use error::CliError;
use serve::serve_command;

/// Runs the CLI of graph `G` with the process's arguments. Only here (the
/// generated binary's `main`) may downstream servers get a reaper, which
/// runs this executable again (`mcpgraph_downstream::reaper`); [`main_from`] is for
/// embedding and tests, whose executables are something else.
#[inline]
pub fn main<G: Graph>() -> ExitCode {
    main_def(GraphDef::of::<G>())
}

/// [`main`] for a graph given by its [`GraphDef`].
pub(crate) fn main_def(graph: GraphDef) -> ExitCode {
    if mcpgraph_downstream::reaper::run_if_reaper() {
        return ExitCode::SUCCESS;
    }
    mcpgraph_downstream::reaper::enable();
    main_from_def(graph, std::env::args_os().collect())
}

/// Runs the CLI of graph `G` with `args` (the first one is the program
/// name), as `main` does with the process's: for embedding and tests.
#[inline]
pub fn main_from<G, I, T>(args: I) -> ExitCode
where
    G: Graph,
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    main_from_def(
        GraphDef::of::<G>(),
        args.into_iter().map(Into::into).collect(),
    )
}

/// [`main_from`] for a graph given by its [`GraphDef`].
pub(crate) fn main_from_def(graph: GraphDef, args: Vec<OsString>) -> ExitCode {
    let cli = match parse_args(&graph.server, args) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let telemetry = mcpgraph_runtime::host::init_telemetry(
        &cli.log_level,
        cli.otlp_endpoint.as_deref(),
        graph.server.name,
    );
    let local = one_connection(&cli);
    let runtime = if local {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
    };
    let runtime = match runtime {
        Ok(rt) => rt,
        Err(e) => return fail(CliError::Runtime(e)),
    };
    let code = if local {
        let set = tokio::task::LocalSet::new();
        // Boxed once: both `block_on`s would compile the body again.
        let code = set.block_on(&runtime, one_copy(run(graph, cli, true)));
        drop(set);
        code
    } else {
        runtime.block_on(one_copy(run(graph, cli, false)))
    };
    // Workers and downstream children must not keep the process alive
    // once the session is over.
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    // Exporters flush (and may log) first; then what was logged goes out.
    drop(telemetry);
    mcpgraph_runtime::host::flush_stderr(std::time::Duration::from_millis(500));
    code
}

/// Whether the command serves one connection (stdio, a one-shot call):
/// then the protocol runs on one thread, a current-thread runtime, and the
/// calls on worker threads (a one-shot call on that thread itself, which
/// has nothing else to do; see `engine`). HTTP, with many clients, accepts
/// and serves connections on a multi-threaded runtime, calls on worker
/// threads (see `mcpgraph_http`).
fn one_connection(cli: &Cli) -> bool {
    !matches!(&cli.command, Some(Command::Serve(args)) if args.http.requested())
}

/// Runs the command on `graph`; `local`: on a current-thread runtime,
/// inside a `LocalSet` (see [`one_connection`]).
async fn run(graph: GraphDef, cli: Cli, local: bool) -> ExitCode {
    let overrides = match load_overrides(cli.mcp.as_deref()) {
        Ok(o) => o,
        Err(e) => return fail(e),
    };
    if let Some(Command::Auth { action }) = cli.command {
        return auth(graph, overrides, action).await;
    }
    let engine = if local {
        Engine::start_local_def(graph, overrides, cli.workers)
    } else {
        let workers = cli
            .workers
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get().max(2)));
        Engine::start_def(graph, overrides, workers)
    };
    let engine = match engine {
        Ok(engine) => engine.with_strict_lock(cli.strict_lock),
        Err(e) => return fail(e),
    };
    let command = cli.command.unwrap_or(Command::Serve(Box::default()));
    let one_shot = matches!(command, Command::Call { .. });
    let code = match command {
        Command::Serve(args) => match serve_command(&engine, *args).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(e),
        },
        Command::Tools { json } => {
            list_tools(graph.tools, json);
            ExitCode::SUCCESS
        }
        Command::Call {
            tool,
            arguments,
            trace,
            json,
        } => {
            // Downstream servers' stderr would bury the result on a
            // terminal: it is shown only when the call fails (see `call`),
            // unless the log level asks for it.
            if !tracing::enabled!(tracing::Level::INFO) {
                mcpgraph_downstream::stderr::hold();
            }
            // A person is at the terminal: a server that wants a login gets one.
            mcpgraph_downstream::allow_interactive_login(true);
            call::call(
                &engine,
                graph.tools,
                &tool,
                arguments.as_deref(),
                call::Report { trace, json },
            )
            .await
        }
        Command::Test(args) => graph_tests::test(&engine, &graph, *args).await,
        // Answered before the engine starts (see above).
        Command::Auth { .. } => ExitCode::SUCCESS,
    };
    if one_shot {
        // The result is out: the exit follows soon, children stopped.
        engine.shutdown_soon().await;
    } else {
        engine.shutdown().await;
    }
    code
}

/// `auth login|logout|status SERVER`.
async fn auth(graph: GraphDef, overrides: Vec<ServerSpec>, action: AuthCommand) -> ExitCode {
    let (server, action) = match action {
        AuthCommand::Login { server } => (server, AuthAction::Login),
        AuthCommand::Logout { server } => (server, AuthAction::Logout),
        AuthCommand::Status { server } => (server, AuthAction::Status),
    };
    let specs = mcpgraph_runtime::host::effective_specs((graph.servers)(), overrides);
    let Some(spec) = specs.iter().find(|s| s.name == server) else {
        return fail(format!("no downstream server `{server}`"));
    };
    match mcpgraph_downstream::run_auth(spec, action).await {
        Ok(text) => {
            println!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => fail(format!("`{server}`: {e}")),
    }
}

fn load_overrides(path: Option<&std::path::Path>) -> Result<Vec<ServerSpec>, CliError> {
    let Some(path) = path else {
        return Ok(Vec::new());
    };
    let text = std::fs::read_to_string(path).map_err(|source| CliError::McpFile {
        path: path.to_owned(),
        source,
    })?;
    Ok(parse_override(&text)?)
}

fn list_tools(tools: &[ToolMeta], json: bool) {
    if json {
        let tools: Vec<Value> = tools
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
        for tool in tools {
            println!("{}\t{}", tool.name, tool.description);
        }
    }
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::FAILURE
}
