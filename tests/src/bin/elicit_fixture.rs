//! `graphs/elicit.yaml` compiled: tools whose graph asks the calling
//! client's user with an `elicit` node (tests/tests/serving/elicit.rs).

mcpgraph::mcpgraph!("graphs/elicit.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
