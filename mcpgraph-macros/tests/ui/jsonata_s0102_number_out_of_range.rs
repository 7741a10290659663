mcpgraph::mcpgraph!("ui/jsonata_s0102_number_out_of_range.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
