// An unknown function in a branch that only some evaluations take is a
// warning (`unknown_function`), which the macro reports as an error
// unless allowed.
mcpgraph::mcpgraph!("ui/jsonata_unknown_function_maybe.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
