// Types through `forEach`: `$.item` in the call's `args` is an element of
// `items` (here the tool's `files` argument, by its `inputSchema`), and the
// node's output is an array of the call's outputs (here a graph tool's,
// by its `outputSchema`).
mcpgraph::mcpgraph!("ui/types_foreach_item_path.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
