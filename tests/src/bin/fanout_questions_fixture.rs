//! `graphs/fanout_questions.yaml` compiled: `parallel` and `forEach` nodes
//! whose downstream servers (the `questioner`) ask the calling client
//! (tests/tests/serving/fanout_rounds.rs).

mcpgraph::mcpgraph!("graphs/fanout_questions.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
