//! The command line's grammar: global options, sub-commands and their
//! arguments, as clap parses them. What each command does is `cli`'s.

mod auth;
mod test;

use clap::{Parser, Subcommand};

pub(super) use auth::AuthCommand;
pub(super) use test::TestArgs;

use mcpgraph_runtime::ServerMeta;
use mcpgraph_runtime::host as server;

use super::http::HttpArgs;

#[derive(Parser, Debug)]
#[command(about = "An MCP server compiled from a graph file by mcpgraph")]
pub(super) struct Cli {
    /// A JSON file `{"mcpServers": {...}}` whose entries replace (or add to)
    /// the downstream servers compiled into this binary.
    #[arg(long, global = true, value_name = "FILE")]
    pub(super) mcp: Option<std::path::PathBuf>,

    /// Log level for stderr (error, warn, info, debug, trace); `RUST_LOG`
    /// takes precedence.
    #[arg(long, global = true, default_value = "warn")]
    pub(super) log_level: String,

    /// Also export spans over OTLP/HTTP to this endpoint (e.g.
    /// http://127.0.0.1:4318/v1/traces); needs the `otel` cargo feature.
    #[arg(long, global = true, value_name = "URL")]
    pub(super) otlp_endpoint: Option<String>,

    /// Worker threads running graphs (default: one per core, at least two).
    #[arg(long, global = true)]
    pub(super) workers: Option<usize>,

    /// When the binary was built against a schema lock: fail the calls to
    /// a downstream tool that changed since (instead of only logging a
    /// warning on the first call to its server).
    #[arg(long, global = true)]
    pub(super) strict_lock: bool,

    #[command(subcommand)]
    pub(super) command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub(super) enum Command {
    /// Serve MCP over stdio (the default), or over streamable HTTP.
    Serve(Box<ServeArgs>),
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
        /// Arguments as a JSON object (default `{}`); `@FILE` reads them
        /// from a file, `-` from stdin.
        arguments: Option<String>,
        /// Print the execution record (every node: type, timing, output or
        /// error) to stderr.
        #[arg(long)]
        trace: bool,
        /// Print one JSON object on stdout instead: `tool`, `result` (or
        /// `error`), and with `--trace` the execution record as `trace`.
        #[arg(long)]
        json: bool,
    },
    /// Run the graph's test cases: replayed from their cassette (no
    /// server started), or recorded from the servers with `--record`.
    Test(Box<TestArgs>),
    /// OAuth for a downstream server with `auth`: log in (opening the
    /// authorization page with $BROWSER, or printing its address), log
    /// out, or show what is kept.
    // Hidden without the `http-client` feature: no server takes a login
    // then (`run_auth` says so).
    #[command(hide = !crate::features::HTTP_CLIENT)]
    Auth {
        #[command(subcommand)]
        action: AuthCommand,
    },
}

#[derive(clap::Args, Debug)]
pub(super) struct ServeArgs {
    /// `--http` and the flags marked "HTTP only" (without the
    /// `http-server` feature: a hidden `--http`, refused with that reason).
    #[command(flatten)]
    pub(super) http: HttpArgs,

    /// Write each failed call (its arguments, every downstream request and
    /// reply, the error; secrets redacted) into this directory (0700, files
    /// 0600), the newest 100 kept: `test --replay FILE` runs one again
    /// offline.
    #[arg(long, value_name = "DIR")]
    pub(super) record_failures: Option<std::path::PathBuf>,

    /// Seal the state a waiting call hands its client (`requestState`)
    /// with the keys in this environment variable: entries
    /// `kid=<base64 of 32 bytes>`, the first sealing, all opening (see
    /// docs/OPERATING.md). Default: a random key for this process.
    #[arg(long, value_name = "VAR", conflicts_with = "state_key_file")]
    pub(super) state_key_env: Option<String>,

    /// Like --state-key-env, the keys read from this file, one entry a
    /// line (`#` comments); refused if other users can write it.
    #[arg(long, value_name = "PATH")]
    pub(super) state_key_file: Option<std::path::PathBuf>,

    /// Seconds in-flight calls may run after SIGINT/SIGTERM (new calls are
    /// refused at once; a second signal exits at once; the process is gone
    /// 5 s after this at the latest).
    #[arg(long, default_value_t = DEFAULT_DRAIN_SECS)]
    pub(super) drain_secs: u64,

    /// Tool calls running at once in the whole server; one more is refused
    /// with a JSON-RPC error at once.
    #[arg(long, default_value_t = server::DEFAULT_MAX_IN_FLIGHT, value_parser = at_least_one)]
    pub(super) max_in_flight: usize,

    /// Tool calls running at once in one session (over stdio: the client);
    /// one more is refused with a JSON-RPC error at once.
    #[arg(long, default_value_t = server::DEFAULT_MAX_IN_FLIGHT_PER_SESSION, value_parser = at_least_one)]
    pub(super) max_in_flight_per_session: usize,

    /// Where calls run as MCP tasks are kept (clients of MCP 2026-07-28
    /// that declare the tasks extension): `memory`, this process; or
    /// `redis://HOST:PORT/DB` (`rediss://` over TLS; Redis or Valkey),
    /// shared by every replica on it (the `task-store-redis` feature).
    #[arg(long, value_name = "URL", default_value = "memory")]
    pub(super) task_store: String,

    /// Tasks running at once, counted in the store (over every replica
    /// sharing it); one more is refused with a tool error.
    #[arg(long, default_value_t = DEFAULT_MAX_TASKS, value_parser = at_least_one)]
    pub(super) max_tasks: usize,

    /// Seconds a task, and then its result, is kept from its start.
    #[arg(long, default_value_t = DEFAULT_TASK_TTL_SECS, value_parser = at_least_one)]
    pub(super) task_ttl_secs: usize,
}

fn at_least_one(text: &str) -> Result<usize, NotAtLeastOne> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(NotAtLeastOne(text.to_owned())),
    }
}

/// A flag's value (this text) that is not a whole number of at least 1.
#[derive(Debug)]
struct NotAtLeastOne(String);

impl std::fmt::Display for NotAtLeastOne {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` is not a whole number of at least 1", self.0)
    }
}

impl std::error::Error for NotAtLeastOne {}

const DEFAULT_DRAIN_SECS: u64 = 10;
const DEFAULT_MAX_TASKS: usize = 1000;
const DEFAULT_TASK_TTL_SECS: usize = 3600;

/// What a bare `<binary>` (no sub-command) means: stdio serving.
impl Default for ServeArgs {
    fn default() -> Self {
        Self {
            http: HttpArgs::default(),
            record_failures: None,
            state_key_env: None,
            state_key_file: None,
            drain_secs: DEFAULT_DRAIN_SECS,
            max_in_flight: server::DEFAULT_MAX_IN_FLIGHT,
            max_in_flight_per_session: server::DEFAULT_MAX_IN_FLIGHT_PER_SESSION,
            task_store: "memory".to_owned(),
            max_tasks: DEFAULT_MAX_TASKS,
            task_ttl_secs: DEFAULT_TASK_TTL_SECS,
        }
    }
}

/// The command line, named after the graph's `server`, whose `--version`
/// gives its `server.version` and the mcpgraph version it was built with.
pub(super) fn parse_args(
    server: &ServerMeta,
    args: Vec<std::ffi::OsString>,
) -> Result<Cli, clap::Error> {
    use clap::{CommandFactory, FromArgMatches};
    if let Some(cli) = plain_serve(&args) {
        return Ok(cli);
    }
    let version = format!(
        "{} (mcpgraph {})",
        server.version,
        env!("CARGO_PKG_VERSION")
    );
    let matches = Cli::command()
        .name(server.name)
        .version(version)
        .try_get_matches_from(args)?;
    Cli::from_arg_matches(&matches)
}

/// The command lines an MCP client starts a server with: nothing or
/// `serve`, after `--mcp FILE` (or `--mcp=FILE`) or not. They are read
/// here without clap, whose parser (building the whole command with its
/// help) cost an eighth of start-up; any other line goes to clap. What this
/// gives is what clap gives (`plain_lines_read_as_clap_reads_them`).
fn plain_serve(args: &[std::ffi::OsString]) -> Option<Cli> {
    let mut rest = args.get(1..)?;
    let mut mcp = None;
    if let [flag, file, tail @ ..] = rest
        && flag == "--mcp"
    {
        mcp = Some(file.clone());
        rest = tail;
    } else if let [flag, tail @ ..] = rest
        && let Some(file) = flag.to_str().and_then(|f| f.strip_prefix("--mcp="))
    {
        mcp = Some(file.into());
        rest = tail;
    }
    // Values clap might read otherwise (`--mcp -x`, `--mcp=`) go to clap.
    if mcp
        .as_ref()
        .is_some_and(|f| f.is_empty() || f.as_encoded_bytes().starts_with(b"-"))
    {
        return None;
    }
    let command = match rest {
        [] => None,
        [serve] if serve == "serve" => Some(Command::Serve(Box::default())),
        _ => return None,
    };
    Some(Cli {
        mcp: mcp.map(Into::into),
        log_level: "warn".to_owned(),
        otlp_endpoint: None,
        workers: None,
        strict_lock: false,
        command,
    })
}

#[cfg(test)]
#[path = "args_tests.rs"]
mod tests;
