// `require_lock`: a graph without `<graph>.lock.json` does not build.
mcpgraph::mcpgraph!("ui/lock_required.yaml", require_lock);

fn main() -> std::process::ExitCode {
    Server::main()
}
