// Files written for mcpGraph compile through `mcpgraph!` unchanged, with
// warnings at most: mcpGraph's own examples (`testdata/mcpgraph/*.yaml`,
// linked here as `mcpgraph-examples/`; `tests/ui.rs` checks that each one is
// named below) and two graphs mcpGraph runs that our checks warn about (a
// transform reading `$.entry.nothing`, a misspelled function in a filter
// predicate). Each warning is rustc's, at the path literal, with the graph
// file's position, message and lint name.
//
// trybuild shows a case's warnings only when its build fails, hence the
// `compile_error!` at the end: the expected output is the two warnings and
// that one error, and any error an example caused would show above it.
mod file_utils {
    mcpgraph::mcpgraph!("mcpgraph-examples/file_utils.yaml");
}
mod loop_example {
    mcpgraph::mcpgraph!("mcpgraph-examples/loop_example.yaml");
}
mod switch_example {
    mcpgraph::mcpgraph!("mcpgraph-examples/switch_example.yaml");
}
mod test_minimal {
    mcpgraph::mcpgraph!("mcpgraph-examples/test_minimal.yaml");
}
mod entry_nothing {
    mcpgraph::mcpgraph!("compat/entry_nothing.yaml");
}
mod substring_before_typo {
    mcpgraph::mcpgraph!("compat/substring_before_typo.yaml");
}

compile_error!("the end of the case: everything above compiled");

fn main() {}
