// A path into a locked tool's output, misspelt on the second line of a
// folded block scalar (`>-`): reported at the typo's line and column.
mcpgraph::mcpgraph!("ui/types_block_scalar_position.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
