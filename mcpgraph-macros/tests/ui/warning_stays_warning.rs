// A graph that mcpGraph runs, with a warning (`unknown_input_field`: the
// transform reads `$.entry.nothing`, a field its open inputSchema does not
// declare), compiles: the warning is rustc's, at the path literal, with the
// graph's position, message, notes and lint name. `#![deny(warnings)]`
// makes it an error so that this case shows its text (trybuild hides the
// warnings of a build that passes; `mcpgraph_files_compile.rs` shows it
// as a warning), and `#![allow(deprecated)]` does not hide it.
#![allow(deprecated)]
#![deny(warnings)]

mcpgraph::mcpgraph!("compat/entry_nothing.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
