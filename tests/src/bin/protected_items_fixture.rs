//! `graphs/protected_items.yaml` compiled: a slow read-only tool behind
//! inbound OAuth, the downstream server of a task whose replica dies
//! (tests/tests/serving/task_exchange.rs).

mcpgraph::mcpgraph!("graphs/protected_items.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
