// @generated from examples/test_minimal/test_minimal.yaml by `cargo test -p mcpgraph --test expand`
// with EXPECTORATE=overwrite. Do not edit.

/// The MCP server `testMinimal` 1.0.0, compiled from its graph file.
#[derive(
    ::core::clone::Clone,
    ::core::marker::Copy,
    ::core::fmt::Debug,
    ::core::default::Default
)]
pub struct Server;
impl Server {
    /// Runs the server's command line: `serve` (stdio, the default),
    /// `tools`, `call TOOL JSON`; see `--help`.
    pub fn main() -> ::std::process::ExitCode {
        ::mcpgraph::__private::cli::main::<Server>()
    }
}
#[doc(hidden)]
pub struct __McpgraphCompiled {
    test_tool: test_tool::Compiled,
}
impl ::mcpgraph::__private::Graph for Server {
    type Compiled = __McpgraphCompiled;
    const SERVER: ::mcpgraph::__private::ServerMeta = ::mcpgraph::__private::ServerMeta {
        name: "testMinimal",
        version: "1.0.0",
        title: "testMinimal",
        instructions: ::core::option::Option::None,
    };
    const TOOLS: &'static [::mcpgraph::__private::ToolMeta] = &[
        ::mcpgraph::__private::ToolMeta {
            name: "test_tool",
            description: "Test tool",
            input_schema: "{\"type\":\"object\"}",
            output_schema: ::core::option::Option::Some("{\"type\":\"object\"}"),
        },
    ];
    const SERVERS: &'static [::mcpgraph::__private::ServerDef] = &[];
    const LIMITS: ::mcpgraph::__private::Limits = ::mcpgraph::__private::Limits {
        max_node_executions: 1000u64,
        max_execution_time_ms: 300000u64,
        max_expression_depth: 500u64,
        max_expression_time_ms: 1000u64,
        max_value_bytes: 67108864u64,
        max_history_bytes: 268435456u64,
        max_value_depth: 128u64,
    };
    fn compile() -> ::core::result::Result<
        Self::Compiled,
        ::mcpgraph::__private::StartupError,
    > {
        ::core::result::Result::Ok(__McpgraphCompiled {
            test_tool: test_tool::Compiled::new()?,
        })
    }
    fn run<'a>(
        compiled: &'a Self::Compiled,
        tool: usize,
        exec: &'a mut ::mcpgraph::__private::Execution,
    ) -> ::mcpgraph::__private::RunFuture<'a> {
        match tool {
            0usize => ::std::boxed::Box::pin(test_tool::run(&compiled.test_tool, exec)),
            _ => {
                ::std::boxed::Box::pin(async move {
                    ::core::result::Result::Err(
                        ::mcpgraph::__private::NodeError::call("no such tool"),
                    )
                })
            }
        }
    }
}
/// The tool `test_tool`: its nodes and its state machine.
pub mod test_tool {
    /// One variant per node of the tool's graph.
    #[derive(
        ::core::clone::Clone,
        ::core::marker::Copy,
        ::core::fmt::Debug,
        ::core::cmp::PartialEq,
        ::core::cmp::Eq,
        ::core::hash::Hash
    )]
    #[allow(clippy::enum_variant_names)]
    pub enum Node {
        Entry,
        Exit,
    }
    impl Node {
        /// Every node, in file order.
        pub const ALL: [Node; 2usize] = [Node::Entry, Node::Exit];
        /// The node's id in the graph file.
        pub const fn id(self) -> &'static str {
            match self {
                Node::Entry => "entry",
                Node::Exit => "exit",
            }
        }
        /// The node's type.
        pub const fn kind(self) -> ::mcpgraph::__private::NodeType {
            match self {
                Node::Entry => ::mcpgraph::__private::NodeType::Entry,
                Node::Exit => ::mcpgraph::__private::NodeType::Exit,
            }
        }
    }
    /// The tool's expressions, parsed once at start-up.
    pub struct Compiled {}
    impl Compiled {
        /// Parses every expression of the tool.
        pub fn new() -> ::core::result::Result<
            Self,
            ::mcpgraph::__private::StartupError,
        > {
            ::core::result::Result::Ok(Self {})
        }
    }
    /// Runs the tool's graph from its entry to its exit.
    pub async fn run(
        _: &Compiled,
        exec: &mut ::mcpgraph::__private::Execution,
    ) -> ::core::result::Result<(), ::mcpgraph::__private::NodeError> {
        let mut node = Node::Entry;
        loop {
            exec.enter(node.id(), node.kind()).await?;
            node = match node {
                Node::Entry => {
                    exec.entry()?;
                    Node::Exit
                }
                Node::Exit => {
                    exec.exit();
                    return ::core::result::Result::Ok(());
                }
            };
        }
    }
}
