// A literal `args` string that reads like an expression is passed as it
// is: a warning (`literal_looks_like_expression`), which the macro
// reports as an error unless allowed.
mcpgraph::mcpgraph!("ui/literal_looks_like_expression.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
