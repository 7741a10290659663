// A path into a transform's output naming a key its object constructor
// does not write: the read always yields nothing.
mcpgraph::mcpgraph!("ui/shape_transform_field.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
