//! `graphs/eval_bounds.yaml`, compiled: the server the `eval_bounds`
//! tests drive over stdio (issue 27: evaluations bounded in bytes and
//! time).

mcpgraph::mcpgraph!("graphs/eval_bounds.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
