//! A server whose `long` tool runs for seconds inside one evaluation, beside
//! a `quick` one (`graphs/long_eval.yaml`, compiled), for the serving tests
//! that check a busy worker holds no I/O (`tests/serving/busy_thread.rs`).

mcpgraph::mcpgraph!("graphs/long_eval.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
