//! `mcpgraph auth login|logout|status SERVER`: OAuth for a downstream
//! server of a graph, as the graph's binary does it (`<binary> auth ...`):
//! the tokens kept are the ones both use.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;
use mcpgraph_downstream::{AuthAction, run_auth};

use crate::error::{CliError, graph_errors};

/// `auth` sub-commands.
#[derive(Subcommand)]
pub(crate) enum AuthCommand {
    /// Log in to SERVER and keep its tokens (a file only you can read).
    Login(Target),
    /// Forget SERVER's tokens.
    Logout(Target),
    /// Whether there are tokens for SERVER, and where they are kept.
    Status(Target),
}

/// The server, and the graph it belongs to.
#[derive(clap::Args)]
pub(crate) struct Target {
    /// The downstream server (a key of `mcpServers`).
    server: String,
    /// The graph file.
    #[arg(long, default_value = "graph.yaml")]
    graph: PathBuf,
    /// A JSON file of `mcpServers` entries overriding the graph's (by
    /// name). May be repeated.
    #[arg(long, value_name = "FILE")]
    mcp: Vec<PathBuf>,
}

/// Runs `mcpgraph auth ...`.
pub(crate) fn run(command: AuthCommand) -> Result<ExitCode, CliError> {
    let (target, action) = match command {
        AuthCommand::Login(t) => (t, AuthAction::Login),
        AuthCommand::Logout(t) => (t, AuthAction::Logout),
        AuthCommand::Status(t) => (t, AuthAction::Status),
    };
    let (file, _) = mcpgraph_codegen::load_file(&target.graph).map_err(|d| graph_errors(&d, ""))?;
    let specs = crate::lock::specs(&file, &target.mcp, Some(&target.server))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(CliError::run("the async runtime"))?;
    let text = runtime
        .block_on(run_auth(&specs[0], action))
        .map_err(CliError::server(&target.server))?;
    println!("{text}");
    Ok(ExitCode::SUCCESS)
}
