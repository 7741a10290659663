//! mcp-proxy 0.6 (crates.io, Rust, tower-mcp) as a peer from the same
//! field, full runs only: `scripts/bench.sh` installs it under the target
//! directory (`mcp-proxy/bin/mcp-proxy`). Both serve streamable HTTP in
//! sessions (mcp-proxy has no stateless mode in its default build), the
//! same client talks to each, peers interleaved round by round:
//!
//! - one hop: client → mcp-proxy → the raw echo server (`echo/echo`),
//!   against client → our graph (`hop`: `entry` → `mcp` → `exit`) → the
//!   same raw echo server; p50 and p99 one call at a time on one
//!   keep-alive connection, and calls/s with 32 connections;
//! - composite fan-out: an mcp-proxy composite tool over four `bench-slow`
//!   servers (50 ms each), against our `parallel` node over the same four
//!   (`fan_out`); p50 one call at a time.

use std::io::{BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mcpgraph_bench::http::{Connection, spread};
use mcpgraph_bench::report::{Better, Cell, Row};
use mcpgraph_bench::rpc::Launch;
use mcpgraph_bench::workloads::check_reply;
use mcpgraph_bench::{median, quantile};
use mcpgraph_tests::http1;
use serde_json::{Value, json};

use crate::throughput::HttpPeer;
use crate::{Config, log};

const SECTION: &str = "vs mcp-proxy (streamable HTTP, sessions)";
const PEER: &str = "mcp-proxy 0.6.0";
/// Connections (one call in flight on each) of the calls/s row.
const CONNECTIONS: usize = 32;
/// How long each fan-out server waits, ms.
const SLOW_MS: u64 = 50;

/// Where `scripts/bench.sh` installs mcp-proxy: beside the release
/// directory, in the same target directory.
fn installed(config: &Config) -> PathBuf {
    config
        .bin_dir
        .parent()
        .unwrap_or(&config.bin_dir)
        .join("mcp-proxy/bin/mcp-proxy")
}

/// One of the two servers, by the path and tool names it answers to.
struct Side {
    addr: SocketAddr,
    path: &'static str,
    hop: &'static str,
    fan: &'static str,
    fan_args: String,
}

pub(crate) fn proxy_rows(config: &Config) -> Result<Vec<Row>, String> {
    if config.quick {
        return Ok(Vec::new());
    }
    let program = installed(config);
    if !program.is_file() {
        return Err(format!(
            "missing {} (scripts/bench.sh installs it in full runs)",
            program.display()
        ));
    }
    log("vs mcp-proxy: one hop and a composite fan-out over streamable HTTP");
    let echo = config.bin_dir.join("bench-raw-echo");
    let slow = config.bin_dir.join("bench-slow");
    let proxy = ProxyProcess::start(&program, &config.work, &echo, &slow)?;
    let servers = json!({ "mcpServers": {
        "echo": { "command": echo, "args": [] },
        "s1": { "command": slow, "args": [] },
        "s2": { "command": slow, "args": [] },
        "s3": { "command": slow, "args": [] },
        "s4": { "command": slow, "args": [] },
    }});
    let mcp_json = config.work.join("proxy-mcp.json");
    std::fs::write(&mcp_json, servers.to_string()).map_err(|e| e.to_string())?;
    let ours = HttpPeer::start_sessions(&Launch {
        program: config.bin_dir.join("bench-fanout"),
        args: vec!["--mcp".into(), mcp_json.to_string_lossy().into_owned()],
    })?;
    let sides = [
        Side {
            addr: ours.addr,
            path: "/mcp",
            hop: "hop",
            fan: "fan_out",
            fan_args: json!({ "q": "x", "ms": SLOW_MS }).to_string(),
        },
        Side {
            addr: proxy.addr,
            path: "/",
            hop: "echo/echo",
            fan: "fan4",
            fan_args: json!({ "ms": SLOW_MS, "value": "x" }).to_string(),
        },
    ];
    let hop_args = json!({ "name": "bench", "n": 21 }).to_string();
    let expected = json!({ "greeting": "hello bench", "n": 21, "twice": 42, "tags": ["a", "b"] });

    let mut connections = sides
        .iter()
        .map(|s| Connection::open_session(s.addr, s.path))
        .collect::<Result<Vec<_>, _>>()?;
    // Warm-up: the downstream servers start, the allocators settle.
    for (side, connection) in sides.iter().zip(connections.iter_mut()) {
        for _ in 0..200 {
            check_reply(&connection.call(side.hop, &hop_args)?, &expected)?;
        }
        fan_call(connection, side)?;
    }
    let (rounds, calls) = (2, 2000);
    let mut hops = [Vec::new(), Vec::new()];
    let mut rates = [Vec::new(), Vec::new()];
    let mut fans = [Vec::new(), Vec::new()];
    for round in 0..rounds {
        for k in 0..sides.len() {
            let i = (round + k) % sides.len();
            let (side, connection) = (&sides[i], &mut connections[i]);
            for _ in 0..calls {
                let started = Instant::now();
                let reply = connection.call(side.hop, &hop_args)?;
                hops[i].push(started.elapsed().as_secs_f64() * 1e6);
                check_reply(&reply, &expected).map_err(|e| format!("{}: {e}", side.hop))?;
            }
            rates[i].push(concurrent(side, &hop_args, &expected, 10 * calls)?);
            for _ in 0..20 {
                fans[i].push(fan_call(connection, side)?);
            }
        }
    }
    for samples in hops.iter_mut().chain(fans.iter_mut()) {
        samples.sort_by(f64::total_cmp);
    }
    let row = |workload: &str, figure: String, unit, better, value: &dyn Fn(usize) -> f64| Row {
        section: SECTION,
        workload: workload.to_owned(),
        figure,
        unit,
        better,
        ours: Cell::Value(value(0)),
        hand: Cell::na(),
        mcpgraph: Cell::Text("stdio only".into()),
        other: Some((PEER, Cell::Value(value(1)))),
        baseline: config.base_cell(|_| Cell::na()),
    };
    let hop = "one hop to a raw echo server";
    let fan = format!("composite fan-out, 4 servers × {SLOW_MS} ms");
    Ok(vec![
        row(
            hop,
            format!("p50, one call at a time ({rounds} × {calls})"),
            "µs",
            Better::Lower,
            &|i| quantile(&hops[i], 0.5),
        ),
        row(
            hop,
            format!("p99, one call at a time ({rounds} × {calls})"),
            "µs",
            Better::Lower,
            &|i| quantile(&hops[i], 0.99),
        ),
        row(
            hop,
            format!("calls/s, {CONNECTIONS} connections"),
            "calls/s",
            Better::Higher,
            &|i| median(&rates[i]),
        ),
        row(
            &fan,
            "p50, one call at a time".into(),
            "ms",
            Better::Lower,
            &|i| quantile(&fans[i], 0.5),
        ),
    ])
}

/// One fan-out call, checked; its latency in ms.
fn fan_call(connection: &mut Connection, side: &Side) -> Result<f64, String> {
    let started = Instant::now();
    let reply = connection.call(side.fan, &side.fan_args)?;
    let elapsed = started.elapsed().as_secs_f64() * 1e3;
    let result = reply
        .get("result")
        .ok_or_else(|| format!("{}: no result: {reply}", side.fan))?;
    let blocks = result["content"].as_array().map_or(0, Vec::len);
    if result["isError"] == true || blocks == 0 {
        return Err(format!("{}: {reply}", side.fan));
    }
    if elapsed < SLOW_MS as f64 {
        return Err(format!(
            "{}: answered in {elapsed:.1} ms, before its servers",
            side.fan
        ));
    }
    Ok(elapsed)
}

/// `n` hop calls over 32 session connections, one call in flight on
/// each; calls per second.
fn concurrent(side: &Side, args: &str, expected: &Value, n: usize) -> Result<f64, String> {
    let mut connections = (0..CONNECTIONS)
        .map(|_| Connection::open_session(side.addr, side.path))
        .collect::<Result<Vec<_>, _>>()?;
    spread(&mut connections, n, |connection| {
        check_reply(&connection.call(side.hop, args)?, expected)
    })
}

/// mcp-proxy running on a free loopback port with the raw echo server
/// and four slow servers behind it.
struct ProxyProcess {
    child: Child,
    addr: SocketAddr,
}

impl ProxyProcess {
    fn start(program: &Path, work: &Path, echo: &Path, slow: &Path) -> Result<Self, String> {
        let port = mcpgraph_tests::free_port();
        let backend = |name: &str, command: &Path| {
            format!(
                "[[backends]]\nname = \"{name}\"\ntransport = \"stdio\"\ncommand = {}\nargs = []\n\n",
                toml_string(command)
            )
        };
        let mut config = format!(
            "[proxy]\nname = \"bench-proxy\"\n\n[proxy.listen]\nhost = \"127.0.0.1\"\nport = {port}\n\n[observability]\nlog_level = \"warn\"\n\n"
        );
        config.push_str(&backend("echo", echo));
        for name in ["s1", "s2", "s3", "s4"] {
            config.push_str(&backend(name, slow));
        }
        config.push_str(
            "[[composite_tools]]\nname = \"fan4\"\ndescription = \"The four slow servers at once\"\ntools = [\"s1/slow\", \"s2/slow\", \"s3/slow\", \"s4/slow\"]\nstrategy = \"parallel\"\n",
        );
        let file = work.join("mcp-proxy.toml");
        std::fs::write(&file, config).map_err(|e| e.to_string())?;
        let child = Command::new(program)
            .arg("--config")
            .arg(&file)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
        let proxy = Self {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
        };
        proxy.wait_ready()?;
        Ok(proxy)
    }

    /// Polls `GET /readyz` until it answers 200 (the port opens once every
    /// backend is up), for up to 60 s.
    fn wait_ready(&self) -> Result<(), String> {
        let end = Instant::now() + Duration::from_secs(60);
        while Instant::now() < end {
            if let Ok(mut stream) = TcpStream::connect(self.addr) {
                let request = format!(
                    "GET /readyz HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
                    self.addr
                );
                if stream.write_all(request.as_bytes()).is_ok()
                    && let Ok(reply) = http1::read_response(&mut BufReader::new(stream), "GET")
                    && reply.status() == Ok(200)
                {
                    return Ok(());
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Err("mcp-proxy did not become ready within 60 s".into())
    }
}

impl Drop for ProxyProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `path` as a TOML basic string.
fn toml_string(path: &Path) -> String {
    serde_json::to_string(&path.to_string_lossy()).unwrap_or_default()
}
