// A node reading itself off a loop is a `reference_before_run` warning;
// denied in the macro call, an error.
mcpgraph::mcpgraph!("ui/reference_before_run_itself.yaml", deny(reference_before_run));

fn main() -> std::process::ExitCode {
    Server::main()
}
