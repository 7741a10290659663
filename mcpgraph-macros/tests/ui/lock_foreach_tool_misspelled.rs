// With a lock, a `forEach` node's call is checked as an `mcp` node's is: a
// tool its server does not have is an error at the tool's name, naming the
// node's item call, with the closest tool and the server's tools.
mcpgraph::mcpgraph!("ui/lock_foreach_tool_misspelled.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
