//! Throughput with 64 calls in flight: pipelined over stdio, and over 64
//! keep-alive connections to a stateless streamable-HTTP server.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcpgraph_bench::report::{Better, Cell, Row};
use mcpgraph_bench::rpc::{Launch, StdioPeer};
use mcpgraph_bench::workloads::{Workload, check_reply};
use mcpgraph_bench::{http, median};

use crate::{Config, HAND, IN_FLIGHT, OURS, PEER_NAMES, TS, log, order, start_all};

/// How many calls make one round of about `budget` for a peer whose
/// sequential mean latency is `mean_us`.
fn calls_for(budget: Duration, mean_us: f64, min: usize, max: usize) -> usize {
    let n = (budget.as_secs_f64() * 1e6 / mean_us.max(1.0)) as usize;
    n.clamp(min, max)
}

/// `n` calls of `workload` with up to 64 in flight over stdio, each reply
/// checked; calls per second, or what went wrong.
pub(crate) fn pipelined(
    peer: &mut StdioPeer,
    workload: &Workload,
    n: usize,
) -> Result<f64, String> {
    peer.pipelined(workload.tool, &workload.args_json, n, IN_FLIGHT, |reply| {
        check_reply(reply, &workload.expected)
    })
}

fn clip(s: &str) -> String {
    let s = s.replace('|', "/").replace('\n', " ");
    if s.chars().count() > 90 {
        format!("{}…", s.chars().take(90).collect::<String>())
    } else {
        s
    }
}

/// The workloads measured for throughput, with their index in `workloads`,
/// each logged as its turn comes (loop N=1000 is left out: it only repeats
/// what loop N=100 shows, at ten times the cost).
fn measured<'a>(
    workloads: &'a [Workload],
    over: &'a str,
) -> impl Iterator<Item = (usize, &'a Workload)> + 'a {
    workloads
        .iter()
        .enumerate()
        .filter(|(_, w)| {
            w.name == "transform-only"
                || w.name == "loop N=100"
                || w.name.starts_with("count_files")
                || w.name.starts_with("wide fan")
        })
        .inspect(move |(_, w)| log(&format!("throughput, {over}, 64 in flight: {}", w.name)))
}

/// Rounds, and the time one round of a workload should take on one peer.
fn schedule(config: &Config) -> (usize, Duration) {
    if config.quick {
        (1, Duration::from_millis(400))
    } else {
        (3, Duration::from_millis(1500))
    }
}

pub(crate) fn throughput_stdio(
    config: &Config,
    workloads: &[Workload],
    means: &[Vec<f64>],
) -> Result<Vec<Row>, String> {
    let mut peers = start_all(config)?;
    let (rounds, budget) = schedule(config);
    let mut rows = Vec::new();
    for (w, workload) in measured(workloads, "stdio") {
        let mut rates = vec![Vec::new(); config.peers()];
        let mut failure: Vec<Option<String>> = vec![None; config.peers()];
        for round in 0..rounds {
            for i in order(round, config.peers()) {
                if failure[i].is_some() {
                    continue;
                }
                let n = calls_for(budget, means[w][i] / 8.0, 2 * IN_FLIGHT, 40_000);
                match pipelined(&mut peers[i], workload, n) {
                    Ok(rate) => rates[i].push(rate),
                    Err(e) => {
                        log(&format!("  {} failed: {e}", PEER_NAMES[i]));
                        failure[i] = Some(format!("fails: {}", clip(&e)));
                        // Whatever state it is in, start it afresh.
                        peers[i] = StdioPeer::start(&config.launches[i])?.0;
                    }
                }
            }
        }
        let cell = |i: usize| match &failure[i] {
            Some(f) => Cell::Text(f.clone()),
            None => Cell::Value(median(&rates[i])),
        };
        rows.push(Row {
            section: "throughput (stdio, 64 in flight)",
            workload: workload.name.to_owned(),
            figure: "calls/s".into(),
            unit: "calls/s",
            better: Better::Higher,
            ours: cell(OURS),
            hand: cell(HAND),
            mcpgraph: cell(TS),
            other: None,
            baseline: config.base_cell(cell),
        });
    }
    Ok(rows)
}

/// A peer serving stateless streamable HTTP on a free loopback port.
pub(crate) struct HttpPeer {
    child: Child,
    pub(crate) addr: SocketAddr,
}

impl HttpPeer {
    fn start(launch: &Launch) -> Result<Self, String> {
        Self::start_with(launch, &[])
    }

    /// The peer with `extra` arguments after `serve`'s own.
    pub(crate) fn start_with(launch: &Launch, extra: &[&str]) -> Result<Self, String> {
        let mut with = vec!["--stateless"];
        with.extend(extra);
        Self::spawn(launch, &with)
    }

    /// The peer serving sessions (not `--stateless`).
    pub(crate) fn start_sessions(launch: &Launch) -> Result<Self, String> {
        Self::spawn(launch, &[])
    }

    /// The peer serving sessions, with `extra` arguments after `serve`'s
    /// own.
    pub(crate) fn start_sessions_with(launch: &Launch, extra: &[&str]) -> Result<Self, String> {
        Self::spawn(launch, extra)
    }

    /// The server's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    fn spawn(launch: &Launch, extra: &[&str]) -> Result<Self, String> {
        let mut args = launch.args.clone();
        if !args.iter().any(|a| a == "serve") {
            args.push("serve".into());
        }
        args.extend(["--http".into(), "127.0.0.1:0".into()]);
        args.extend(extra.iter().map(|a| (*a).to_owned()));
        let mut child = Command::new(&launch.program)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", launch.program.display()))?;
        let stderr = child.stderr.take().ok_or("no stderr")?;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut tx = Some(tx);
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some(rest) = line.split("serving MCP on http://").nth(1)
                    && let Some(tx) = tx.take()
                {
                    let _ = tx.send(rest.trim_end_matches("/mcp").to_owned());
                }
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(30))
            .map_err(|_| format!("{} did not report its address", launch.program.display()))?;
        let addr = addr.parse().map_err(|e| format!("address `{addr}`: {e}"))?;
        Ok(Self { child, addr })
    }
}

impl Drop for HttpPeer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `n` calls spread over 64 connections, each sequential: 64 in flight.
fn http_run(addr: SocketAddr, workload: &Workload, n: usize) -> Result<f64, String> {
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let handles: Vec<_> = (0..IN_FLIGHT)
        .map(|_| {
            let next = Arc::clone(&next);
            let workload = workload.clone();
            std::thread::spawn(move || -> Result<(), String> {
                let mut connection = http::Connection::open(addr)?;
                while next.fetch_add(1, Ordering::Relaxed) < n {
                    let reply = connection.call(workload.tool, &workload.args_json)?;
                    check_reply(&reply, &workload.expected)?;
                }
                Ok(())
            })
        })
        .collect();
    for handle in handles {
        handle.join().map_err(|_| "client thread panicked")??;
    }
    Ok(n as f64 / started.elapsed().as_secs_f64())
}

pub(crate) fn throughput_http(
    config: &Config,
    workloads: &[Workload],
    means: &[Vec<f64>],
) -> Result<Vec<Row>, String> {
    // mcpGraph serves stdio only: its slot holds nothing.
    let peers: Vec<Option<HttpPeer>> = (0..config.peers())
        .map(|i| match i {
            TS => Ok(None),
            _ => HttpPeer::start(&config.launches[i]).map(Some),
        })
        .collect::<Result<_, _>>()?;
    let (rounds, budget) = schedule(config);
    let mut rows = Vec::new();
    for (w, workload) in measured(workloads, "HTTP") {
        // Warm-up (connections, lazy downstream start).
        for peer in peers.iter().flatten() {
            http_run(peer.addr, workload, IN_FLIGHT)?;
        }
        let mut rates = vec![Vec::new(); config.peers()];
        for round in 0..rounds {
            for i in order(round, config.peers()) {
                let Some(peer) = &peers[i] else { continue };
                // HTTP costs more per call than stdio: size from the mean
                // sequential latency with a smaller speed-up.
                let n = calls_for(budget, means[w][i] / 3.0, 2 * IN_FLIGHT, 20_000);
                let rate = http_run(peer.addr, workload, n)
                    .map_err(|e| format!("{} over HTTP: {e}", PEER_NAMES[i]))?;
                rates[i].push(rate);
            }
        }
        rows.push(Row {
            section: "throughput (HTTP stateless, 64 in flight)",
            workload: workload.name.to_owned(),
            figure: "calls/s".into(),
            unit: "calls/s",
            better: Better::Higher,
            ours: Cell::Value(median(&rates[OURS])),
            hand: Cell::Value(median(&rates[HAND])),
            mcpgraph: Cell::Text("stdio only".into()),
            other: None,
            baseline: config.base_cell(|i| Cell::Value(median(&rates[i]))),
        });
    }
    Ok(rows)
}
