mcpgraph::mcpgraph!("ui/missing_file.yaml", allow_all);

fn main() {}
