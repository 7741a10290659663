// Types through `parallel`: the node's output is an object with exactly its
// branches, each the output of its call: by the lock's `outputSchema` for a
// call of a downstream server, by the graph tool's own `outputSchema` for a
// call of a tool of this graph.
mcpgraph::mcpgraph!("ui/types_branch_output_path.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
