//! An example binary serving streamable HTTP
//! (`<bin> serve --http 127.0.0.1:0 ...`): started on a free port, signalled,
//! stopped, and reached with an rmcp client.

use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::ServiceExt;

use crate::{Client, TIMEOUT, command, command_with_mcp, send_signal, terminate_then_kill, timed};

/// The line a server prints on stderr once it listens:
/// `mcpgraph: serving MCP on http://ADDR/mcp`.
const SERVING_PREFIX: &str = "mcpgraph: serving MCP on http://";

/// An example binary serving streamable HTTP on a free loopback port. Its
/// stderr is captured (and printed if the test panics); the process is
/// killed when this is dropped (use [`HttpServer::stop`] for a graceful end).
pub struct HttpServer {
    pub name: String,
    /// The bound address, as the server printed it.
    pub addr: std::net::SocketAddr,
    child: tokio::process::Child,
    stderr: Arc<Mutex<Vec<u8>>>,
}

impl HttpServer {
    /// Starts `<bin> [global options] serve --http 127.0.0.1:0 <extra...>`
    /// with `envs` added to the environment, and waits for its address line.
    pub async fn start(name: &str, extra: &[&str], envs: &[(&str, &str)]) -> HttpServer {
        let mut cmd = command(name);
        cmd.args(["serve", "--http", "127.0.0.1:0"])
            .args(extra)
            .envs(envs.iter().copied());
        Self::spawn(name, cmd, extra).await
    }

    /// Like [`HttpServer::start`], with `--mcp mcp_file` as the only global
    /// option (instead of the harness's).
    pub async fn start_with_mcp(name: &str, mcp_file: &Path, extra: &[&str]) -> HttpServer {
        Self::start_with_mcp_env(name, mcp_file, extra, &[]).await
    }

    /// [`HttpServer::start_with_mcp`] with `envs` added to the environment.
    pub async fn start_with_mcp_env(
        name: &str,
        mcp_file: &Path,
        extra: &[&str],
        envs: &[(&str, &str)],
    ) -> HttpServer {
        let mut cmd = command_with_mcp(name, mcp_file);
        cmd.args(["serve", "--http", "127.0.0.1:0"])
            .args(extra)
            .envs(envs.iter().copied());
        Self::spawn(name, cmd, extra).await
    }

    /// Starts `cmd`, which must run the binary `name` serving HTTP, and
    /// waits for its address line.
    pub async fn spawn(name: &str, mut cmd: tokio::process::Command, extra: &[&str]) -> HttpServer {
        use tokio::io::AsyncBufReadExt;
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot spawn {:?}: {e}", cmd.as_std().get_program()));
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = tokio::sync::oneshot::channel::<String>();
        let mut lines =
            tokio::io::BufReader::new(child.stderr.take().expect("stderr piped")).lines();
        let sink = stderr.clone();
        tokio::spawn(async move {
            let mut tx = Some(tx);
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(rest) = line.strip_prefix(SERVING_PREFIX)
                    && let Some(tx) = tx.take()
                {
                    let _ = tx.send(rest.trim_end_matches("/mcp").to_string());
                }
                let mut buf = sink.lock().unwrap();
                buf.extend_from_slice(line.as_bytes());
                buf.push(b'\n');
            }
        });
        let addr = match tokio::time::timeout(TIMEOUT, rx).await {
            Ok(Ok(addr)) => addr,
            other => {
                let _ = child.start_kill();
                let status = child.wait().await;
                panic!(
                    "{name} serve --http {extra:?}: no `{SERVING_PREFIX}...` line on stderr \
                     ({other:?}, exit: {status:?})\nstderr:\n{}",
                    String::from_utf8_lossy(&stderr.lock().unwrap())
                );
            }
        };
        let addr = addr
            .parse()
            .unwrap_or_else(|e| panic!("{name}: bad address {addr:?} in its serving line: {e}"));
        HttpServer {
            name: name.to_string(),
            addr,
            child,
            stderr,
        }
    }

    /// `http://ADDR/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id().expect("server still running")
    }

    /// What the server wrote on stderr so far.
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }

    /// Sends a signal (`TERM`, `INT`, ...) with the `kill` command.
    pub fn signal(&self, sig: &str) {
        send_signal(self.pid(), sig);
    }

    /// Waits for the process to exit; `None` if it is still running after `limit`.
    pub async fn wait_exit(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        match tokio::time::timeout(limit, self.child.wait()).await {
            Ok(status) => Some(status.expect("wait for server")),
            Err(_) => None,
        }
    }

    /// SIGTERM, then waits (at most [`TIMEOUT`]) for a clean exit; fails the
    /// test if the server does not exit with status 0.
    pub async fn stop(mut self) {
        self.signal("TERM");
        let status = self.wait_exit(TIMEOUT).await;
        assert!(
            status.is_some_and(|s| s.success()),
            "{}: did not exit cleanly after SIGTERM: {status:?}\nstderr:\n{}",
            self.name,
            self.stderr()
        );
    }

    /// An rmcp client over streamable HTTP to this server, initialized, with
    /// up to `max_concurrent` POSTs in flight.
    pub async fn rmcp_client(&self, max_concurrent: usize) -> Client {
        use rmcp::transport::StreamableHttpClientTransport;
        use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
        let config = StreamableHttpClientTransportConfig::with_uri(self.url())
            .max_concurrent_requests(max_concurrent);
        // reqwest has no default TLS provider in this build: rmcp's default
        // client would panic without one.
        mcpgraph_downstream::install_crypto_provider();
        let transport = StreamableHttpClientTransport::from_config(config);
        timed(
            &format!("{}: rmcp initialize over HTTP", self.name),
            ().serve(transport),
        )
        .await
        .unwrap_or_else(|e| {
            panic!(
                "{}: initialize over HTTP failed: {e}\nstderr:\n{}",
                self.name,
                self.stderr()
            )
        })
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!(
                "---- stderr of {} (HTTP) ----\n{}",
                self.name,
                self.stderr()
            );
        }
        // Still running (a test failed before `stop`): SIGTERM first, so its
        // downstream children are not orphaned; SIGKILL (kill_on_drop) after.
        terminate_then_kill(&mut self.child, Duration::from_secs(3));
    }
}
