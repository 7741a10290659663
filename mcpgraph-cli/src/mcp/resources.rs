//! The resources `mcpgraph mcp` offers: the format's reference, the test
//! files' reference, the editor JSON Schemas, the examples, and the
//! authoring guide written for agents. All built in: what the agent reads
//! is what this `mcpgraph` checks against.

/// One resource.
pub(super) struct Resource {
    pub uri: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    pub mime: &'static str,
    pub text: &'static str,
}

macro_rules! example {
    ($dir:literal, $file:literal, $what:literal) => {
        example!($dir, $file, $what, "application/yaml")
    };
    ($dir:literal, $file:literal, $what:literal, $mime:literal) => {
        Resource {
            uri: concat!("mcpgraph://examples/", $dir, "/", $file),
            name: concat!("example ", $dir, "/", $file),
            description: $what,
            mime: $mime,
            text: include_str!(concat!("../../../examples/", $dir, "/", $file)),
        }
    };
}

/// Every resource, the guide first.
pub(super) const RESOURCES: &[Resource] = &[
    Resource {
        uri: "mcpgraph://docs/AUTHORING.md",
        name: "authoring guide",
        description: "Read first: from a task to a checked, locked and tested graph in the fewest steps, with this server's tools",
        mime: "text/markdown",
        text: include_str!("../../../docs/AUTHORING.md"),
    },
    Resource {
        uri: "mcpgraph://docs/FORMAT.md",
        name: "graph format",
        description: "The graph file format: servers, tools, node types, expressions, limits, and mcpgraph's extensions",
        mime: "text/markdown",
        text: include_str!("../../../docs/FORMAT.md"),
    },
    Resource {
        uri: "mcpgraph://docs/TESTING.md",
        name: "graph tests",
        description: "Test files (`<graph>.test.yaml`), cassettes, recording and coverage",
        mime: "text/markdown",
        text: include_str!("../../../docs/TESTING.md"),
    },
    Resource {
        uri: "mcpgraph://schema/mcpgraph.schema.json",
        name: "graph file JSON Schema",
        description: "The editor JSON Schema of graph files",
        mime: "application/schema+json",
        text: include_str!("../../../docs/mcpgraph.schema.json"),
    },
    Resource {
        uri: "mcpgraph://schema/mcpgraph.test.schema.json",
        name: "test file JSON Schema",
        description: "The editor JSON Schema of test files",
        mime: "application/schema+json",
        text: include_str!("../../../docs/mcpgraph.test.schema.json"),
    },
    example!(
        "test_minimal",
        "test_minimal.yaml",
        "The smallest graph: entry, a transform, exit"
    ),
    example!(
        "test_minimal",
        "test_minimal.test.yaml",
        "The smallest graph's test cases"
    ),
    example!(
        "switch_example",
        "switch_example.yaml",
        "A switch node with JSON Logic conditions"
    ),
    example!(
        "switch_example",
        "switch_example.test.yaml",
        "The switch example's test cases"
    ),
    example!(
        "loop_example",
        "loop_example.yaml",
        "A loop: a switch whose route goes back, with the execution history"
    ),
    example!(
        "file_utils",
        "file_utils.yaml",
        "Calls of a downstream MCP server (the filesystem server)"
    ),
    example!(
        "file_utils",
        "file_utils.test.yaml",
        "Test cases replayed from a cassette of the filesystem server's replies"
    ),
    example!(
        "file_utils",
        "mcp.json",
        "The filesystem server's entry, given with `--mcp`",
        "application/json"
    ),
    example!("fan_out", "fan_out.yaml", "`parallel` and `forEach` nodes"),
    example!(
        "fan_out",
        "fan_out.test.yaml",
        "The fan-out example's test cases"
    ),
];

/// The resource at `uri`.
pub(super) fn find(uri: &str) -> Option<&'static Resource> {
    RESOURCES.iter().find(|r| r.uri == uri)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each example is a graph file the generator accepts (or its test
    /// file, or its servers' JSON), and every URI is unique.
    #[test]
    fn examples_load_and_uris_are_unique() {
        let mut uris = std::collections::HashSet::new();
        for r in RESOURCES {
            assert!(uris.insert(r.uri), "{} twice", r.uri);
            assert!(!r.text.is_empty(), "{}", r.uri);
            if r.uri.starts_with("mcpgraph://examples/")
                && r.uri.ends_with(".yaml")
                && !r.uri.ends_with(".test.yaml")
                && let Err(d) = mcpgraph_codegen::load_str(r.text, r.uri)
            {
                panic!("{d}");
            }
        }
        assert!(find("mcpgraph://docs/AUTHORING.md").is_some());
    }
}
