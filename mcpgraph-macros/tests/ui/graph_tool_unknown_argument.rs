// A call of one of the graph's tools passing an argument its `inputSchema`
// does not list: an error when the schema is closed
// (`additionalProperties: false`), naming the node and the branch, with the
// closest argument; a literal is checked against the whole property schema.
mcpgraph::mcpgraph!("ui/graph_tool_unknown_argument.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
