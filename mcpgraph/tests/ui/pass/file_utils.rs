// The file_utils example compiles, with its two tools' state machines.
mcpgraph::mcpgraph!("examples/file_utils/file_utils.yaml");

use mcpgraph::runtime::Graph;

fn main() {
    assert_eq!(count_files::Node::ListDirectoryNode.id(), "list_directory_node");
    assert_eq!(sum_file_sizes::Node::ALL.len(), 4);
    assert_eq!(<Server as Graph>::TOOLS.len(), 2);
    assert!(<Server as Graph>::compile().is_ok());
}
