//! Throughput with 64 calls in flight against two or more servers,
//! interleaved round by round: a quick A/B of one throughput row of
//! `scripts/bench.sh`, and a steady load to `perf record` a server under.
//!
//! Over stdio it starts each server (the word `--vs` separates them),
//! pipelining 64 calls; with `--http` it takes the addresses of servers
//! already running `serve --http ADDR --stateless`, with 64 keep-alive
//! connections, one call in flight on each.
//!
//! ```text
//! cargo run --release -p mcpgraph-bench --example pipeline -- \
//!     [--tool NAME] [--args JSON] [--calls N] [--rounds R] \
//!     PROGRAM [ARGS...] [--vs PROGRAM [ARGS...]]...
//! cargo run --release -p mcpgraph-bench --example pipeline -- \
//!     --http [--tool NAME] [--args JSON] [--calls N] [--rounds R] ADDR [ADDR...]
//! ```

use std::net::SocketAddr;
use std::path::PathBuf;

use mcpgraph_bench::http::{Connection, spread};
use mcpgraph_bench::median;
use mcpgraph_bench::rpc::{Launch, StdioPeer};
use serde_json::Value;

const IN_FLIGHT: usize = 64;

/// One server under load.
enum Target {
    Stdio(Launch, StdioPeer),
    Http(SocketAddr),
}

fn main() -> Result<(), String> {
    let mut tool = "echo".to_owned();
    let mut args_json = r#"{"name":"bench","n":21}"#.to_owned();
    let (mut calls, mut rounds, mut http) = (20_000usize, 6usize, false);
    let mut words: Vec<Vec<String>> = vec![Vec::new()];
    let mut argv = std::env::args().skip(1);
    while let Some(arg) = argv.next() {
        // Options come before the first server.
        let options = words.len() == 1 && words[0].is_empty();
        let mut value = |what: &str| argv.next().ok_or(format!("{what} needs a value"));
        match arg.as_str() {
            "--http" if options => http = true,
            "--tool" if options => tool = value("--tool")?,
            "--args" if options => args_json = value("--args")?,
            "--calls" if options => {
                calls = value("--calls")?
                    .parse()
                    .map_err(|e| format!("--calls: {e}"))?
            }
            "--rounds" if options => {
                rounds = value("--rounds")?
                    .parse()
                    .map_err(|e| format!("--rounds: {e}"))?
            }
            "--vs" if !http => words.push(Vec::new()),
            _ if http => words.push(vec![arg]),
            _ => words.last_mut().expect("one server").push(arg),
        }
    }
    let mut targets = words
        .into_iter()
        .filter(|w| !w.is_empty())
        .map(|w| target(w, http))
        .collect::<Result<Vec<_>, String>>()?;
    if targets.is_empty() {
        return Err("no server to measure".into());
    }
    let mut rates = vec![Vec::new(); targets.len()];
    for round in 0..rounds {
        for k in 0..targets.len() {
            let i = (round + k) % targets.len();
            rates[i].push(run(&mut targets[i], &tool, &args_json, calls)?);
        }
    }
    for (target, rates) in targets.iter().zip(&rates) {
        let shown: Vec<String> = rates.iter().map(|r| format!("{r:.0}")).collect();
        let name = match target {
            Target::Stdio(launch, _) => launch.program.display().to_string(),
            Target::Http(addr) => addr.to_string(),
        };
        println!(
            "{:>9.0} calls/s median  [{}]  {name}",
            median(rates),
            shown.join(" ")
        );
    }
    Ok(())
}

/// The server that `words` (a command line, or an address with `http`)
/// names, started over stdio.
fn target(words: Vec<String>, http: bool) -> Result<Target, String> {
    if http {
        let addr = &words[0];
        return Ok(Target::Http(
            addr.parse().map_err(|e| format!("`{addr}`: {e}"))?,
        ));
    }
    let (program, args) = words.split_first().ok_or("a server to run is missing")?;
    let launch = Launch {
        program: PathBuf::from(program),
        args: args.to_vec(),
    };
    let (peer, _) = StdioPeer::start(&launch)?;
    Ok(Target::Stdio(launch, peer))
}

/// A reply that is neither a JSON-RPC error nor a tool error.
fn succeeded(reply: &Value) -> Result<(), String> {
    match reply.get("error").is_some() || reply["result"]["isError"] == true {
        true => Err(format!("call failed: {reply}")),
        false => Ok(()),
    }
}

/// `n` calls with 64 in flight; calls per second.
fn run(target: &mut Target, tool: &str, args_json: &str, n: usize) -> Result<f64, String> {
    match target {
        Target::Stdio(_, peer) => peer.pipelined(tool, args_json, n, IN_FLIGHT, succeeded),
        Target::Http(addr) => {
            let mut connections = (0..IN_FLIGHT)
                .map(|_| Connection::open(*addr))
                .collect::<Result<Vec<_>, _>>()?;
            spread(&mut connections, n, |c| {
                succeeded(&c.call(tool, args_json)?)
            })
        }
    }
}
