//! A redis-server of the test's own (the task store's tests): a free
//! directory, no persistence; killed when dropped.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct RedisServer {
    child: Option<Child>,
    port: u16,
    dir: tempfile::TempDir,
}

impl RedisServer {
    /// A running server, or `None` (with the reason on stderr) where
    /// redis-server is not installed and this is not CI.
    pub fn start() -> Option<RedisServer> {
        let found = Command::new("redis-server")
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !found {
            assert_ne!(
                std::env::var("CI").as_deref(),
                Ok("true"),
                "redis-server is not installed (scripts/install-peers.sh installs it)"
            );
            eprintln!(
                "SKIPPED: redis-server is not installed (scripts/install-peers.sh installs it)"
            );
            return None;
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free loopback port")
            .port();
        let dir = tempfile::tempdir().expect("a temporary directory");
        let mut server = RedisServer {
            child: None,
            port,
            dir,
        };
        server.restart();
        Some(server)
    }

    /// The URL of database `db`.
    pub fn url(&self, db: usize) -> String {
        format!("redis://127.0.0.1:{}/{db}", self.port)
    }

    /// Kills the server (SIGKILL) and waits for it.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server (again, on the same port), empty, and waits until
    /// it answers PING.
    pub fn restart(&mut self) {
        self.kill();
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no", "--databases", "64"])
            .arg("--dir")
            .arg(self.dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while !self.pings() {
            let exited = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten());
            assert!(
                exited.is_none(),
                "redis-server exited at start ({exited:?}): port {} taken?",
                self.port
            );
            assert!(
                Instant::now() < deadline,
                "redis-server did not answer on port {} within 10 s",
                self.port
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn pings(&self) -> bool {
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
        let mut reply = [0u8; 7];
        stream.write_all(b"PING\r\n").is_ok()
            && stream.read_exact(&mut reply).is_ok()
            && &reply == b"+PONG\r\n"
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}
