//! Throughput over stateless streamable HTTP with 64 keep-alive
//! connections (one call in flight on each), servers already running at
//! the addresses given, interleaved round by round: a quick A/B of one row
//! of `scripts/bench.sh` (start the servers with `serve --http ADDR
//! --stateless` and whatever flags are compared).
//!
//! cargo run --release -p mcpgraph-bench --example http_pipeline -- \
//!     [--tool NAME] [--args JSON] [--calls N] [--rounds R] ADDR [ADDR...]

use std::net::SocketAddr;

use mcpgraph_bench::http::{Connection, spread};
use mcpgraph_bench::median;

const CONNECTIONS: usize = 64;

fn main() -> Result<(), String> {
    let mut tool = "echo".to_owned();
    let mut args_json = r#"{"name":"bench","n":21}"#.to_owned();
    let (mut calls, mut rounds) = (20_000usize, 6usize);
    let mut addrs: Vec<SocketAddr> = Vec::new();
    let mut argv = std::env::args().skip(1);
    while let Some(arg) = argv.next() {
        let mut value = |what: &str| argv.next().ok_or(format!("{what} needs a value"));
        match arg.as_str() {
            "--tool" => tool = value("--tool")?,
            "--args" => args_json = value("--args")?,
            "--calls" => {
                calls = value("--calls")?
                    .parse()
                    .map_err(|e| format!("--calls: {e}"))?
            }
            "--rounds" => {
                rounds = value("--rounds")?
                    .parse()
                    .map_err(|e| format!("--rounds: {e}"))?
            }
            addr => addrs.push(addr.parse().map_err(|e| format!("`{addr}`: {e}"))?),
        }
    }
    let mut rates = vec![Vec::new(); addrs.len()];
    for round in 0..rounds {
        for k in 0..addrs.len() {
            let i = (round + k) % addrs.len();
            rates[i].push(run(addrs[i], &tool, &args_json, calls)?);
        }
    }
    for (addr, rates) in addrs.iter().zip(&rates) {
        let shown: Vec<String> = rates.iter().map(|r| format!("{r:.0}")).collect();
        println!(
            "{:>9.0} calls/s median  [{}]  {addr}",
            median(rates),
            shown.join(" ")
        );
    }
    Ok(())
}

/// `n` calls over 64 connections; calls per second.
fn run(addr: SocketAddr, tool: &str, args_json: &str, n: usize) -> Result<f64, String> {
    let mut connections = (0..CONNECTIONS)
        .map(|_| Connection::open(addr))
        .collect::<Result<Vec<_>, _>>()?;
    spread(&mut connections, n, |connection| {
        let reply = connection.call(tool, args_json)?;
        if reply.get("error").is_some() || reply["result"]["isError"] == true {
            return Err(format!("call failed: {reply}"));
        }
        Ok(())
    })
}
