// With a lock, a `parallel` branch's literal arguments are checked against
// the locked tool's property schemas: `message: 42` where `echo` wants a
// string is an error at the argument, naming the node and the branch.
mcpgraph::mcpgraph!("ui/lock_branch_literal_type.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
