//! The command line's grammar: global options, sub-commands and their
//! arguments, as clap parses them. What each command does is `cli`'s.

mod auth;
#[cfg(feature = "http-server")]
mod oauth;
mod test;

use clap::{Parser, Subcommand};

pub(super) use auth::AuthCommand;
pub(super) use test::TestArgs;

use mcpgraph_runtime::ServerMeta;
use mcpgraph_runtime::host as server;
#[cfg(feature = "http-server")]
use mcpgraph_runtime::host::http;

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
    /// Serve streamable HTTP (path /mcp) instead of stdio: on
    /// 127.0.0.1:8080 without a value, on 127.0.0.1:PORT for a bare port,
    /// or on IP:PORT. Binding beyond loopback is your explicit choice.
    // Without the `http-server` feature: hidden, and refused with that
    // reason (`serve_command`); the flags marked "HTTP only" are absent.
    #[arg(
        long,
        hide = !crate::features::HTTP_SERVER,
        value_name = "ADDR",
        num_args = 0..=1,
        default_missing_value = DEFAULT_HTTP_ADDR,
        value_parser = parse_http_addr
    )]
    pub(super) http: Option<std::net::SocketAddr>,

    /// No sessions: any replica can answer any request (for running several
    /// behind a load balancer). HTTP only.
    #[cfg(feature = "http-server")]
    #[arg(long, requires = "http")]
    pub(super) stateless: bool,

    /// A `Host` header value to accept besides localhost/127.0.0.1/::1
    /// (DNS-rebinding protection). Repeatable.
    #[cfg(feature = "http-server")]
    #[arg(long = "allowed-host", value_name = "HOST", requires = "http")]
    pub(super) allowed_hosts: Vec<String>,

    /// An `Origin` to accept besides loopback origins, e.g.
    /// https://app.example.com:443. Repeatable.
    #[cfg(feature = "http-server")]
    #[arg(long = "allowed-origin", value_name = "ORIGIN", requires = "http")]
    pub(super) allowed_origins: Vec<String>,

    /// Require `Authorization: Bearer <token>`, the token being read from
    /// this environment variable (never from a flag, which `ps` shows).
    #[cfg(feature = "http-server")]
    #[arg(long, value_name = "VAR", requires = "http")]
    pub(super) auth_token_env: Option<String>,

    #[cfg(feature = "http-server")]
    #[command(flatten)]
    pub(super) oauth: oauth::OAuthArgs,

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

    /// Seconds a client may take to send a request's headers before its
    /// connection is closed (against slowloris). HTTP only.
    #[cfg(feature = "http-server")]
    #[arg(long, default_value_t = DEFAULT_HEADER_TIMEOUT_SECS, value_parser = clap::value_parser!(u64).range(1..), requires = "http")]
    pub(super) header_timeout_secs: u64,

    /// Seconds a client may take to send a request's body. HTTP only.
    #[cfg(feature = "http-server")]
    #[arg(long, default_value_t = http::DEFAULT_BODY_TIMEOUT_SECS, value_parser = clap::value_parser!(u64).range(1..), requires = "http")]
    pub(super) body_timeout_secs: u64,

    /// The largest request body read, in bytes; a larger one gets HTTP 413
    /// (refused from its Content-Length before it is read). HTTP only.
    #[cfg(feature = "http-server")]
    #[arg(long, default_value_t = http::DEFAULT_MAX_BODY_BYTES, value_parser = clap::value_parser!(u64).range(1..), requires = "http")]
    pub(super) max_body_bytes: u64,

    /// Open connections at most; one more gets HTTP 503 and is closed.
    /// HTTP only.
    #[cfg(feature = "http-server")]
    #[arg(long, default_value_t = http::DEFAULT_MAX_CONNECTIONS, value_parser = at_least_one, requires = "http")]
    pub(super) max_connections: usize,

    /// Open connections from one peer (an IPv4 address, an IPv6 /64) at
    /// most; one more gets HTTP 503 and is closed. Default: three quarters
    /// of --max-connections, rounded up. HTTP only.
    #[cfg(feature = "http-server")]
    #[arg(long, value_parser = at_least_one, requires = "http")]
    pub(super) max_connections_per_peer: Option<usize>,

    /// Requests per second from one peer (bursts up to as many); one more
    /// gets HTTP 429 with Retry-After. Default: 1000 for peers beyond
    /// loopback (a reverse proxy on the same host is one peer for all its
    /// clients); a value given applies to every peer; 0: no limit. HTTP
    /// only.
    #[cfg(feature = "http-server")]
    #[arg(long, value_name = "N", requires = "http")]
    pub(super) max_request_rate_per_peer: Option<u32>,

    /// Seconds a response may wait for a client that stops reading before
    /// its connection is dropped. HTTP only.
    #[cfg(feature = "http-server")]
    #[arg(long, default_value_t = http::DEFAULT_SEND_TIMEOUT_SECS, value_parser = clap::value_parser!(u64).range(1..), requires = "http")]
    pub(super) send_timeout_secs: u64,

    /// Seconds after which a connection is closed once its current
    /// response is sent (clients reconnect, and spread over replicas).
    /// HTTP only.
    #[cfg(feature = "http-server")]
    #[arg(long, default_value_t = http::DEFAULT_MAX_CONNECTION_AGE_SECS, value_parser = clap::value_parser!(u64).range(1..), requires = "http")]
    pub(super) max_connection_age_secs: u64,

    /// Serve /metrics on this address (IP:PORT or PORT, for a private
    /// interface; no token asked) instead of on the public listener. HTTP
    /// only.
    #[cfg(feature = "http-server")]
    #[arg(long, value_name = "ADDR", value_parser = parse_http_addr, requires = "http")]
    pub(super) metrics_addr: Option<std::net::SocketAddr>,

    /// MCP sessions at most; a client opening one more gets HTTP 503.
    /// HTTP only.
    #[cfg(feature = "http-server")]
    #[arg(long, default_value_t = http::DEFAULT_MAX_SESSIONS, value_parser = at_least_one, requires = "http")]
    pub(super) max_sessions: usize,

    /// Seconds after which an idle session is closed. HTTP only.
    #[cfg(feature = "http-server")]
    #[arg(long, default_value_t = http::DEFAULT_SESSION_IDLE_SECS, value_parser = clap::value_parser!(u64).range(1..), requires = "http")]
    pub(super) session_idle_secs: u64,

    /// Tool calls running at once in the whole server; one more is refused
    /// with a JSON-RPC error at once.
    #[arg(long, default_value_t = server::DEFAULT_MAX_IN_FLIGHT, value_parser = at_least_one)]
    pub(super) max_in_flight: usize,

    /// Tool calls running at once in one session (over stdio: the client);
    /// one more is refused with a JSON-RPC error at once.
    #[arg(long, default_value_t = server::DEFAULT_MAX_IN_FLIGHT_PER_SESSION, value_parser = at_least_one)]
    pub(super) max_in_flight_per_session: usize,
}

fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("`{text}` is not a whole number of at least 1")),
    }
}

const DEFAULT_DRAIN_SECS: u64 = 10;

#[cfg(feature = "http-server")]
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
            #[cfg(feature = "http-server")]
            stateless: false,
            #[cfg(feature = "http-server")]
            allowed_hosts: Vec::new(),
            #[cfg(feature = "http-server")]
            allowed_origins: Vec::new(),
            #[cfg(feature = "http-server")]
            auth_token_env: None,
            #[cfg(feature = "http-server")]
            oauth: oauth::OAuthArgs::default(),
            record_failures: None,
            state_key_env: None,
            state_key_file: None,
            drain_secs: DEFAULT_DRAIN_SECS,
            #[cfg(feature = "http-server")]
            header_timeout_secs: DEFAULT_HEADER_TIMEOUT_SECS,
            #[cfg(feature = "http-server")]
            body_timeout_secs: http::DEFAULT_BODY_TIMEOUT_SECS,
            #[cfg(feature = "http-server")]
            max_body_bytes: http::DEFAULT_MAX_BODY_BYTES,
            #[cfg(feature = "http-server")]
            max_connections: http::DEFAULT_MAX_CONNECTIONS,
            #[cfg(feature = "http-server")]
            max_connections_per_peer: None,
            #[cfg(feature = "http-server")]
            max_request_rate_per_peer: None,
            #[cfg(feature = "http-server")]
            send_timeout_secs: http::DEFAULT_SEND_TIMEOUT_SECS,
            #[cfg(feature = "http-server")]
            max_connection_age_secs: http::DEFAULT_MAX_CONNECTION_AGE_SECS,
            #[cfg(feature = "http-server")]
            metrics_addr: None,
            #[cfg(feature = "http-server")]
            max_sessions: http::DEFAULT_MAX_SESSIONS,
            #[cfg(feature = "http-server")]
            session_idle_secs: http::DEFAULT_SESSION_IDLE_SECS,
            max_in_flight: server::DEFAULT_MAX_IN_FLIGHT,
            max_in_flight_per_session: server::DEFAULT_MAX_IN_FLIGHT_PER_SESSION,
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
