// A path into the tool's arguments naming a field its (open) inputSchema
// does not list: a warning (`unknown_input_field`).
mcpgraph::mcpgraph!("ui/shape_input_field.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
