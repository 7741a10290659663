// A path into the tool's arguments naming a field its (open) inputSchema
// does not list: a warning (`unknown_input_field`), denied here.
mcpgraph::mcpgraph!("ui/shape_input_field.yaml", deny(unknown_input_field));

fn main() -> std::process::ExitCode {
    Server::main()
}
