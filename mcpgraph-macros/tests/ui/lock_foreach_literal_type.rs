// With a lock, a `forEach` call's literal arguments are checked against the
// locked tool's property schemas: `head: "10"` where `read_text_file` wants
// a number is an error at the argument, naming the node's item call.
mcpgraph::mcpgraph!("ui/lock_foreach_literal_type.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
