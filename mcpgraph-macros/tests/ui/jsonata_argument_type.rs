// A built-in given a literal of a type its signature does not take fails
// every evaluation (T0410).
mcpgraph::mcpgraph!("ui/jsonata_argument_type.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
