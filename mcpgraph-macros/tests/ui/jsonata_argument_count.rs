// A built-in called with more arguments than its signature takes fails
// every evaluation (T0410).
mcpgraph::mcpgraph!("ui/jsonata_argument_count.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
