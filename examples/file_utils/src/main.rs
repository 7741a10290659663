mcpgraph::mcpgraph!("file_utils.yaml");
// One evaluation cannot allocate past maxValueBytes.
mcpgraph::allocator!();
// `cargo test` runs the cases of file_utils.test.yaml, replayed.
mcpgraph::graph_tests!("file_utils.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
