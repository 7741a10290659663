mcpgraph::mcpgraph!("loop_example.yaml");
// One evaluation cannot allocate past maxValueBytes.
mcpgraph::allocator!();
// `cargo test` runs the cases of loop_example.test.yaml.
mcpgraph::graph_tests!("loop_example.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
