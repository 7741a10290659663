mcpgraph::mcpgraph!("ui/unknown_branch_tool.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
