// A literal of a type its operator refuses fails every evaluation (T2001).
mcpgraph::mcpgraph!("ui/jsonata_operand_type.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
