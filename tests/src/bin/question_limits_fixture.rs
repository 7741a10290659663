//! `graphs/question_limits.yaml` compiled: tools whose downstream server keeps its
//! caller busy with questions or floods it with an error
//! (tests/tests/serving/question_limits.rs).

mcpgraph::mcpgraph!("graphs/question_limits.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
