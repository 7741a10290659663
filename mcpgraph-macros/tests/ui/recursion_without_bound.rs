mcpgraph::mcpgraph!("ui/recursion_without_bound.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
