// A literal `args` string that reads like an expression is passed as it
// is: a warning (`literal_looks_like_expression`); denied in the macro
// call, an error.
mcpgraph::mcpgraph!("ui/literal_looks_like_expression.yaml", deny(literal_looks_like_expression));

fn main() -> std::process::ExitCode {
    Server::main()
}
