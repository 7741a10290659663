// A lock that exists but cannot be read is an error, required or not.
mcpgraph::mcpgraph!("ui/lock_unreadable.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
