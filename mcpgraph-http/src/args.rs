//! `serve`'s flags for streamable HTTP, one group that the command line
//! flattens into `serve`'s (`--http` and the flags marked "HTTP only"),
//! and what they start: [`HttpArgs::serve`].

mod oauth;

use std::net::SocketAddr;
use std::time::Duration;

use mcpgraph_runtime::host::Handler;
use tokio_util::sync::CancellationToken;

use oauth::OAuthArgs;

use crate::{
    DEFAULT_BODY_TIMEOUT_SECS, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_CONNECTION_AGE_SECS,
    DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_REQUEST_RATE_PER_PEER, DEFAULT_MAX_SESSIONS,
    DEFAULT_SEND_TIMEOUT_SECS, DEFAULT_SESSION_IDLE_SECS, HttpError, HttpOptions, MCP_PATH,
    RateLimit, default_max_connections_per_peer, serve_http,
};

/// Default of `--header-timeout-secs`.
const DEFAULT_HEADER_TIMEOUT_SECS: u64 = 30;

/// Where `serve --http` listens when no address is given.
const DEFAULT_HTTP_ADDR: &str = "127.0.0.1:8080";

/// `serve`'s flags for streamable HTTP.
#[derive(clap::Args, Debug)]
pub struct HttpArgs {
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
    pub(crate) http: Option<SocketAddr>,

    /// No sessions: any replica can answer any request (for running several
    /// behind a load balancer). HTTP only.
    #[arg(long, requires = "http")]
    pub(crate) stateless: bool,

    /// A `Host` header value to accept besides localhost/127.0.0.1/::1
    /// (DNS-rebinding protection). Repeatable.
    #[arg(long = "allowed-host", value_name = "HOST", requires = "http")]
    pub(crate) allowed_hosts: Vec<String>,

    /// An `Origin` to accept besides loopback origins, e.g.
    /// `https://app.example.com:443`. Repeatable.
    #[arg(long = "allowed-origin", value_name = "ORIGIN", requires = "http")]
    pub(crate) allowed_origins: Vec<String>,

    /// Require `Authorization: Bearer <token>`, the token being read from
    /// this environment variable (never from a flag, which `ps` shows).
    #[arg(long, value_name = "VAR", requires = "http")]
    pub(crate) auth_token_env: Option<String>,

    #[command(flatten)]
    pub(crate) oauth: OAuthArgs,

    /// Seconds a client may take to send a request's headers before its
    /// connection is closed (against slowloris). HTTP only.
    #[arg(long, default_value_t = DEFAULT_HEADER_TIMEOUT_SECS, value_parser = clap::value_parser!(u64).range(1..), requires = "http")]
    pub(crate) header_timeout_secs: u64,

    /// Seconds a client may take to send a request's body. HTTP only.
    #[arg(long, default_value_t = DEFAULT_BODY_TIMEOUT_SECS, value_parser = clap::value_parser!(u64).range(1..), requires = "http")]
    pub(crate) body_timeout_secs: u64,

    /// The largest request body read, in bytes; a larger one gets HTTP 413
    /// (refused from its Content-Length before it is read). HTTP only.
    #[arg(long, default_value_t = DEFAULT_MAX_BODY_BYTES, value_parser = clap::value_parser!(u64).range(1..), requires = "http")]
    pub(crate) max_body_bytes: u64,

    /// Open connections at most; one more gets HTTP 503 and is closed.
    /// HTTP only.
    #[arg(long, default_value_t = DEFAULT_MAX_CONNECTIONS, value_parser = at_least_one, requires = "http")]
    pub(crate) max_connections: usize,

    /// Open connections from one peer (an IPv4 address, an IPv6 /64) at
    /// most; one more gets HTTP 503 and is closed. Default: three quarters
    /// of --max-connections, rounded up. HTTP only.
    #[arg(long, value_parser = at_least_one, requires = "http")]
    pub(crate) max_connections_per_peer: Option<usize>,

    /// Requests per second from one peer (bursts up to as many); one more
    /// gets HTTP 429 with Retry-After. Default: 1000 for peers beyond
    /// loopback (a reverse proxy on the same host is one peer for all its
    /// clients); a value given applies to every peer; 0: no limit. HTTP
    /// only.
    #[arg(long, value_name = "N", requires = "http")]
    pub(crate) max_request_rate_per_peer: Option<u32>,

    /// Seconds a response may wait for a client that stops reading before
    /// its connection is dropped. HTTP only.
    #[arg(long, default_value_t = DEFAULT_SEND_TIMEOUT_SECS, value_parser = clap::value_parser!(u64).range(1..), requires = "http")]
    pub(crate) send_timeout_secs: u64,

    /// Seconds after which a connection is closed once its current
    /// response is sent (clients reconnect, and spread over replicas).
    /// HTTP only.
    #[arg(long, default_value_t = DEFAULT_MAX_CONNECTION_AGE_SECS, value_parser = clap::value_parser!(u64).range(1..), requires = "http")]
    pub(crate) max_connection_age_secs: u64,

    /// Serve /metrics on this address (IP:PORT or PORT, for a private
    /// interface; no token asked) instead of on the public listener. HTTP
    /// only.
    #[arg(long, value_name = "ADDR", value_parser = parse_http_addr, requires = "http")]
    pub(crate) metrics_addr: Option<SocketAddr>,

    /// MCP sessions at most; a client opening one more gets HTTP 503.
    /// HTTP only.
    #[arg(long, default_value_t = DEFAULT_MAX_SESSIONS, value_parser = at_least_one, requires = "http")]
    pub(crate) max_sessions: usize,

    /// Seconds after which an idle session is closed. HTTP only.
    #[arg(long, default_value_t = DEFAULT_SESSION_IDLE_SECS, value_parser = clap::value_parser!(u64).range(1..), requires = "http")]
    pub(crate) session_idle_secs: u64,
}

/// No `--http`: what clap gives without the flags.
impl Default for HttpArgs {
    fn default() -> Self {
        Self {
            http: None,
            stateless: false,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            auth_token_env: None,
            oauth: OAuthArgs::default(),
            header_timeout_secs: DEFAULT_HEADER_TIMEOUT_SECS,
            body_timeout_secs: DEFAULT_BODY_TIMEOUT_SECS,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_connections_per_peer: None,
            max_request_rate_per_peer: None,
            send_timeout_secs: DEFAULT_SEND_TIMEOUT_SECS,
            max_connection_age_secs: DEFAULT_MAX_CONNECTION_AGE_SECS,
            metrics_addr: None,
            max_sessions: DEFAULT_MAX_SESSIONS,
            session_idle_secs: DEFAULT_SESSION_IDLE_SECS,
        }
    }
}

impl HttpArgs {
    /// Whether `serve` is to serve streamable HTTP (`--http` was given)
    /// rather than stdio.
    pub fn requested(&self) -> bool {
        self.http.is_some()
    }

    /// Serves `handler` over streamable HTTP as the flags say, each
    /// session by what `session` makes of it ([`Handler::for_session`]),
    /// until `shutdown` is cancelled; then lets running calls finish for at
    /// most `drain`. Prints the addresses it serves on to stderr (scripts,
    /// and tests binding port 0, learn them there). Without `--http`,
    /// returns at once.
    ///
    /// `session`'s type is a parameter so that rmcp's server is compiled
    /// where this is called, beside the stdio server (the facade's
    /// `serve`): the two share one copy of their generic code (rmcp's
    /// request handling, its messages' serde) instead of one per crate.
    pub async fn serve<S: rmcp::ServerHandler + Send + 'static>(
        self,
        handler: Handler,
        session: fn(&Handler) -> S,
        drain: Duration,
        shutdown: CancellationToken,
    ) -> Result<(), HttpError> {
        let Some(addr) = self.http else {
            return Ok(());
        };
        if handler.state_keys().is_ephemeral() && self.stateless {
            tracing::warn!(
                "--stateless without --state-key-file or --state-key-env: the state a waiting \
                 call hands its client is sealed with a random key of this process, so its \
                 retry resumes only on this replica, and not after a restart; give every \
                 replica the same key"
            );
        }
        let options = self.options(addr, drain)?;
        serve_http(handler, session, options, shutdown, |bound, metrics| {
            if let Some(metrics) = metrics {
                eprintln!("mcpgraph: serving metrics on http://{metrics}/metrics");
            }
            eprintln!("mcpgraph: serving MCP on http://{bound}{MCP_PATH}");
        })
        .await
    }

    /// The server's settings, serving on `addr`; reads the bearer token
    /// from `--auth-token-env`'s variable (and keeps it from downstream
    /// servers and out of logs).
    fn options(self, addr: SocketAddr, drain: Duration) -> Result<HttpOptions, HttpError> {
        let auth_token = match &self.auth_token_env {
            None => None,
            Some(var) => Some(bearer_token(var)?),
        };
        Ok(HttpOptions {
            addr,
            oauth: self.oauth.options(),
            allowed_hosts: self.allowed_hosts,
            allowed_origins: self.allowed_origins,
            auth_token,
            stateless: self.stateless,
            drain,
            header_read_timeout: Duration::from_secs(self.header_timeout_secs),
            body_timeout: Duration::from_secs(self.body_timeout_secs),
            max_body_bytes: self.max_body_bytes,
            max_connections: self.max_connections,
            max_connections_per_peer: self
                .max_connections_per_peer
                .unwrap_or_else(|| default_max_connections_per_peer(self.max_connections)),
            request_rate: request_rate(self.max_request_rate_per_peer),
            send_timeout: Duration::from_secs(self.send_timeout_secs),
            max_connection_age: Duration::from_secs(self.max_connection_age_secs),
            max_sessions: self.max_sessions,
            session_idle: Duration::from_secs(self.session_idle_secs),
            metrics_addr: self.metrics_addr,
        })
    }
}

/// The bearer token in the environment variable `var`, withheld from
/// downstream servers and redacted from logs.
fn bearer_token(var: &str) -> Result<String, HttpError> {
    match std::env::var(var) {
        Ok(token) if !token.is_empty() => {
            mcpgraph_runtime::host::withhold_from_children(var);
            mcpgraph_runtime::host::remember(var, &token);
            Ok(token)
        }
        _ => Err(HttpError::AuthTokenUnset {
            var: var.to_owned(),
        }),
    }
}

/// `--max-request-rate-per-peer`: by default, the default rate for peers
/// beyond loopback (a local reverse proxy, through which every client
/// shares one address, or a benchmark is not limited); a value given
/// limits every peer; 0, none.
fn request_rate(given: Option<u32>) -> Option<RateLimit> {
    match given {
        None => Some(RateLimit {
            per_sec: DEFAULT_MAX_REQUEST_RATE_PER_PEER,
            loopback: false,
        }),
        Some(0) => None,
        Some(per_sec) => Some(RateLimit {
            per_sec,
            loopback: true,
        }),
    }
}

/// A whole number of at least one.
fn at_least_one(text: &str) -> Result<usize, ArgError> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(ArgError(format!(
            "`{text}` is not a whole number of at least 1"
        ))),
    }
}

/// `PORT` (loopback), `localhost:PORT` (loopback) or `IP:PORT`.
fn parse_http_addr(text: &str) -> Result<SocketAddr, ArgError> {
    let loopback = std::net::Ipv4Addr::LOCALHOST;
    if let Ok(port) = text.parse::<u16>() {
        return Ok((loopback, port).into());
    }
    if let Some(port) = text.strip_prefix("localhost:") {
        return port
            .parse::<u16>()
            .map(|port| (loopback, port).into())
            .map_err(|e| ArgError(format!("bad port `{port}`: {e}")));
    }
    text.parse().map_err(|_| {
        ArgError(format!(
            "`{text}` is not PORT, localhost:PORT or IP:PORT \
             (e.g. 8080, 127.0.0.1:8080, 0.0.0.0:8080, [::1]:8080)"
        ))
    })
}

/// Why a flag's value was refused (clap prints it after the flag).
#[derive(Debug)]
struct ArgError(String);

impl std::fmt::Display for ArgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ArgError {}

#[cfg(test)]
pub(crate) mod tests {
    use clap::Parser;

    use super::HttpArgs;

    /// A command line of the HTTP flags alone.
    #[derive(Parser, Debug)]
    pub(crate) struct Line {
        #[command(flatten)]
        pub(crate) http: HttpArgs,
    }

    /// The HTTP flags `args` give, or clap's refusal.
    pub(crate) fn parse(args: &[&str]) -> Result<HttpArgs, clap::Error> {
        let argv = std::iter::once("bin").chain(args.iter().copied());
        Line::try_parse_from(argv).map(|line| line.http)
    }

    #[test]
    fn http_addresses_default_to_loopback() {
        let addr = |args: &[&str]| {
            parse(args)
                .map(|a| a.http.map(|a| a.to_string()))
                .map_err(|e| e.to_string())
        };
        assert_eq!(addr(&[]), Ok(None));
        for (args, want) in [
            (&["--http"][..], "127.0.0.1:8080"),
            (&["--http", "9000"], "127.0.0.1:9000"),
            (&["--http=localhost:9001"], "127.0.0.1:9001"),
            (&["--http", "0.0.0.0:80"], "0.0.0.0:80"),
            (&["--http", "[::1]:81"], "[::1]:81"),
        ] {
            assert_eq!(addr(args), Ok(Some(want.to_owned())), "{args:?}");
        }
        assert_eq!(
            addr(&["--http", "--stateless"]),
            Ok(Some("127.0.0.1:8080".to_owned()))
        );
        assert!(addr(&["--stateless"]).is_err());
        let err = addr(&["--http", "example.com:80"]).unwrap_err();
        assert!(
            err.contains("is not PORT, localhost:PORT or IP:PORT"),
            "{err}"
        );
    }

    #[test]
    fn the_default_is_what_clap_gives_without_flags() {
        let clap = parse(&[]).unwrap();
        assert_eq!(format!("{clap:?}"), format!("{:?}", HttpArgs::default()));
    }
}
