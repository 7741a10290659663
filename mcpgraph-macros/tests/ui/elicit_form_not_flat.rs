mcpgraph::mcpgraph!("ui/elicit_form_not_flat.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
