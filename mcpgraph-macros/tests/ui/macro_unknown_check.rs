mcpgraph::mcpgraph!("ui/missing_file.yaml", allow(reference_before_rn));

fn main() {}
