//! nginx as a reverse proxy in front of a server under test, with its own
//! prefix directory and an access log that names the upstream.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncReadExt;

use crate::{free_port, nginx_exe, terminate_then_kill};

/// nginx on a loopback port with its own prefix directory (config, logs,
/// temp files, certificates a test puts there); stopped and its directory
/// removed on drop, its logs printed first if the test is failing.
pub struct Nginx {
    child: tokio::process::Child,
    dir: PathBuf,
    port: u16,
}

impl Nginx {
    /// Starts nginx whose `http` block holds the shared settings (temp
    /// paths, an access log `METHOD URI STATUS upstream=ADDR`) and then
    /// `servers(dir, port)`: upstreams and `server` blocks, one of which
    /// must listen on `127.0.0.1:port`. Ready once that port accepts
    /// connections.
    pub async fn start(label: &str, servers: impl Fn(&Path, u16) -> String) -> Nginx {
        let exe = nginx_exe();
        let dir = std::env::temp_dir().join(format!(
            "mcpgraph-nginx-{label}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        ));
        std::fs::create_dir_all(dir.join("logs")).expect("create nginx prefix dir");
        // A free port can be taken between probing and nginx's bind: retry.
        let mut last_err = String::new();
        for _ in 0..5 {
            let port = free_port();
            let conf = dir.join("nginx.conf");
            let d = dir.display();
            let body = servers(&dir, port);
            std::fs::write(
                &conf,
                format!(
                    r#"worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/logs/error.log warn;
events {{ worker_connections 256; }}
http {{
    client_body_temp_path {d}/client_body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
    log_format upstream '$request_method $uri $status upstream=$upstream_addr';
    access_log {d}/logs/access.log upstream;
{body}}}
"#
                ),
            )
            .expect("write nginx.conf");
            let mut child = tokio::process::Command::new(&exe)
                .arg("-p")
                .arg(&dir)
                .arg("-c")
                .arg(&conf)
                .args(["-g", "daemon off;"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .kill_on_drop(true)
                .spawn()
                .unwrap_or_else(|e| panic!("cannot start {}: {e}", exe.display()));
            // Ready when the port accepts connections; failed when nginx exits.
            let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
            loop {
                if let Ok(Some(status)) = child.try_wait() {
                    let mut err = String::new();
                    if let Some(mut e) = child.stderr.take() {
                        let _ = e.read_to_string(&mut err).await;
                    }
                    last_err = format!("nginx exited with {status}: {err}");
                    break;
                }
                if tokio::net::TcpStream::connect(("127.0.0.1", port))
                    .await
                    .is_ok()
                {
                    return Nginx { child, dir, port };
                }
                if tokio::time::Instant::now() > deadline {
                    terminate_then_kill(&mut child, Duration::from_secs(5));
                    last_err = "nginx did not listen within 10 s".into();
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
        panic!(
            "could not start nginx (prefix {}): {last_err}",
            dir.display()
        );
    }

    /// The port nginx was asked to listen on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The access log so far.
    pub fn access_log(&self) -> String {
        std::fs::read_to_string(self.dir.join("logs/access.log")).unwrap_or_default()
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("---- nginx access log ----\n{}", self.access_log());
            eprintln!(
                "---- nginx error log ----\n{}",
                std::fs::read_to_string(self.dir.join("logs/error.log")).unwrap_or_default()
            );
        }
        // SIGTERM (fast shutdown) lets the master stop its workers; a
        // SIGKILLed master would leave them running.
        terminate_then_kill(&mut self.child, Duration::from_secs(5));
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
