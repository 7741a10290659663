//! `graphs/questions_twin.yaml` compiled: another graph with the questions
//! fixture's `ask_twice`, to check that a sealed state opens only in the
//! graph that sealed it (tests/tests/serving/resume.rs).

mcpgraph::mcpgraph!("graphs/questions_twin.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
