mcpgraph::mcpgraph!("test_minimal.yaml");
// One evaluation cannot allocate past maxValueBytes.
mcpgraph::allocator!();
// `cargo test` runs the cases of test_minimal.test.yaml.
mcpgraph::graph_tests!("test_minimal.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
