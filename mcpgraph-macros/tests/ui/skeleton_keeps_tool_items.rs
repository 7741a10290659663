mcpgraph::mcpgraph!("ui/skeleton_keeps_tool_items.yaml");

// The graph has an error; its tool module and `Node` enum still exist, so
// this code adds no error of its own.
fn main() -> std::process::ExitCode {
    assert_eq!(count_files::Node::List.id(), "list");
    assert_eq!(count_files::Node::ALL.len(), 4);
    Server::main()
}
