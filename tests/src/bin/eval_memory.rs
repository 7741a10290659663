//! `graphs/eval_memory.yaml`, compiled with the counting allocator: the
//! server the `eval_bounds` memory tests drive over stdio (issue 27: one
//! evaluation cannot allocate past `maxValueBytes`).

mcpgraph::mcpgraph!("graphs/eval_memory.yaml");
// One evaluation cannot allocate past maxValueBytes.
mcpgraph::allocator!();

fn main() -> std::process::ExitCode {
    Server::main()
}
