mcpgraph::mcpgraph!("switch_example.yaml");
// One evaluation cannot allocate past maxValueBytes.
mcpgraph::allocator!();
// `cargo test` runs the cases of switch_example.test.yaml.
mcpgraph::graph_tests!("switch_example.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
