//! `graphs/eval_bounds.yaml`, compiled: the server the `eval_bounds`
//! tests drive over stdio (issue 27: evaluations bounded in bytes and
//! time).

mcpgraph::mcpgraph!("graphs/eval_bounds.yaml");
// One evaluation cannot allocate past maxValueBytes.
mcpgraph::allocator!();

fn main() -> std::process::ExitCode {
    Server::main()
}
