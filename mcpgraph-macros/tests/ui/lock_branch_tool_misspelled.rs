// With a lock, a `parallel` branch's tool is checked as an `mcp` node's is:
// a tool its server does not have is an error at the tool's name, naming
// the node and the branch, with the closest tool and the server's tools.
mcpgraph::mcpgraph!("ui/lock_branch_tool_misspelled.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
