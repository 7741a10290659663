// A graph whose expression reads a node that cannot have run yet is an
// error of the macro unless allowed; allowed, it compiles. The file is the
// one of the failing case `reference_before_run`.
mcpgraph::mcpgraph!("ui/reference_before_run.yaml", allow(reference_before_run));

fn main() {
    assert_eq!(count_files::Node::ALL.len(), 4);
}
