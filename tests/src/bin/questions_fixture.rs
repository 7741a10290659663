//! `graphs/questions.yaml` compiled: tools whose downstream server
//! (server-everything) asks the calling client questions
//! (tests/tests/serving/questions.rs).

mcpgraph::mcpgraph!("graphs/questions.yaml");
// One evaluation cannot allocate past maxValueBytes.
mcpgraph::allocator!();

fn main() -> std::process::ExitCode {
    Server::main()
}
