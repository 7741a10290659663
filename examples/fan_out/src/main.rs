mcpgraph::mcpgraph!("fan_out.yaml");
// One evaluation cannot allocate past maxValueBytes.
mcpgraph::allocator!();

fn main() -> std::process::ExitCode {
    Server::main()
}
