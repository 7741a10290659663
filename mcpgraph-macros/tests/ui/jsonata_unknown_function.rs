// A call of a function nothing defines fails every evaluation (T1006):
// an error, with the closest built-in as a hint.
mcpgraph::mcpgraph!("ui/jsonata_unknown_function.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
