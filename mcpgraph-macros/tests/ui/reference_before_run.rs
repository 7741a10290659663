// Reading a node that cannot have run yet is a warning
// (`reference_before_run`); denied in the macro call, an error.
mcpgraph::mcpgraph!("ui/reference_before_run.yaml", deny(reference_before_run));

fn main() -> std::process::ExitCode {
    Server::main()
}
