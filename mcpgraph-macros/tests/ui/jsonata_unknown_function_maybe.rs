// An unknown function in a branch that only some evaluations take is a
// warning (`unknown_function`); denied in the macro call, an error.
mcpgraph::mcpgraph!("ui/jsonata_unknown_function_maybe.yaml", deny(unknown_function));

fn main() -> std::process::ExitCode {
    Server::main()
}
