// A `forEach` node's `onError` is a route like `next`: it must name a node
// of the tool (and the node it names is reachable through it).
mcpgraph::mcpgraph!("ui/fanout_on_error_unknown_node.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
