// The transform that goes to the exit builds an object without a
// property the tool's outputSchema requires, and with one it does not allow.
mcpgraph::mcpgraph!("ui/shape_exit_value.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
