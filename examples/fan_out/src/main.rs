mcpgraph::mcpgraph!("fan_out.yaml");
// One evaluation cannot allocate past maxValueBytes.
mcpgraph::allocator!();
// `cargo test` runs the cases of fan_out.test.yaml, replayed.
mcpgraph::graph_tests!("fan_out.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
