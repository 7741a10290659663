mcpgraph::mcpgraph!("ui/jsonata_in_switch_var.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
