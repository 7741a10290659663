//! Throughput over stdio with 64 calls in flight, two servers interleaved
//! round by round: a quick A/B of one row of `scripts/bench.sh`, and a
//! steady load to `perf record` a server under.
//!
//! cargo run --release -p mcpgraph-bench --example stdio_pipeline -- \
//!     [--tool NAME] [--args JSON] [--calls N] [--rounds R] \
//!     PROGRAM [ARGS...] [--vs PROGRAM [ARGS...]]

use std::path::PathBuf;
use std::time::Instant;

use mcpgraph_bench::median;
use mcpgraph_bench::rpc::{Launch, REPLY_TIMEOUT, StdioPeer};

const IN_FLIGHT: usize = 64;

fn main() -> Result<(), String> {
    let mut tool = "echo".to_owned();
    let mut args_json = r#"{"name":"bench","n":21}"#.to_owned();
    let (mut calls, mut rounds) = (20_000usize, 6usize);
    let mut launches: Vec<Vec<String>> = vec![Vec::new()];
    let mut argv = std::env::args().skip(1);
    while let Some(arg) = argv.next() {
        let mut value = |what: &str| argv.next().ok_or(format!("{what} needs a value"));
        match arg.as_str() {
            "--tool" if launches[0].is_empty() => tool = value("--tool")?,
            "--args" if launches[0].is_empty() => args_json = value("--args")?,
            "--calls" if launches[0].is_empty() => {
                calls = value("--calls")?
                    .parse()
                    .map_err(|e| format!("--calls: {e}"))?
            }
            "--rounds" if launches[0].is_empty() => {
                rounds = value("--rounds")?
                    .parse()
                    .map_err(|e| format!("--rounds: {e}"))?
            }
            "--vs" => launches.push(Vec::new()),
            _ => launches.last_mut().expect("one launch").push(arg),
        }
    }
    let launches = launches
        .into_iter()
        .map(|words| {
            let (program, args) = words.split_first().ok_or("a server to run is missing")?;
            Ok(Launch {
                program: PathBuf::from(program),
                args: args.to_vec(),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let mut peers = launches
        .iter()
        .map(|l| StdioPeer::start(l).map(|(p, _)| p))
        .collect::<Result<Vec<_>, _>>()?;
    let mut rates = vec![Vec::new(); peers.len()];
    for round in 0..rounds {
        for k in 0..peers.len() {
            let i = (round + k) % peers.len();
            rates[i].push(pipelined(&mut peers[i], &tool, &args_json, calls)?);
        }
    }
    for (launch, rates) in launches.iter().zip(&rates) {
        let shown: Vec<String> = rates.iter().map(|r| format!("{r:.0}")).collect();
        println!(
            "{:>9.0} calls/s median  [{}]  {}",
            median(rates),
            shown.join(" "),
            launch.program.display()
        );
    }
    for peer in peers {
        peer.stop();
    }
    Ok(())
}

/// `n` calls with up to 64 in flight; calls per second.
fn pipelined(peer: &mut StdioPeer, tool: &str, args_json: &str, n: usize) -> Result<f64, String> {
    let started = Instant::now();
    let (mut sent, mut done) = (0usize, 0usize);
    while done < n {
        while sent < n && sent - done < IN_FLIGHT {
            peer.send_call(tool, args_json)?;
            sent += 1;
        }
        peer.flush()?;
        let reply = peer.recv(REPLY_TIMEOUT)?;
        if reply.value.get("error").is_some() || reply.value["result"]["isError"] == true {
            return Err(format!("call failed: {}", reply.value));
        }
        done += 1;
    }
    Ok(n as f64 / started.elapsed().as_secs_f64())
}
