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
const _: () = {
    use ::mcpgraph::__private as rt;
    impl rt::Graph for Server {
        type Compiled = __McpgraphCompiled;
        const SERVER: rt::ServerMeta = rt::ServerMeta {
            name: "testMinimal",
            version: "1.0.0",
            title: "testMinimal",
            instructions: rt::None,
        };
        const TOOLS: &'static [rt::ToolMeta] = &[
            rt::ToolMeta {
                name: "test_tool",
                description: "Test tool",
                input_schema: r#"{"type":"object"}"#,
                output_schema: rt::Some(r#"{"type":"object"}"#),
            },
        ];
        const SERVERS: &'static [rt::ServerDef] = &[];
        const LIMITS: rt::Limits = rt::Limits {
            max_node_executions: 1000,
            max_execution_time_ms: 300000,
            max_expression_depth: 500,
            max_expression_time_ms: 1000,
            max_value_bytes: 67108864,
            max_history_bytes: 268435456,
            max_value_depth: 128,
        };
        fn compile() -> rt::Result<Self::Compiled, rt::StartupError> {
            rt::Ok(__McpgraphCompiled {
                test_tool: test_tool::Compiled::new()?,
            })
        }
        fn run<'a>(
            compiled: &'a Self::Compiled,
            tool: usize,
            exec: &'a mut rt::Execution,
        ) -> rt::RunFuture<'a> {
            match tool {
                0 => rt::Box::pin(test_tool::run(&compiled.test_tool, exec)),
                _ => rt::Box::pin(async { rt::Err(rt::NodeError::call("no such tool")) }),
            }
        }
    }
};
/// The tool `test_tool`: its nodes and its state machine.
pub mod test_tool {
    use ::mcpgraph::__private as rt;
    /// One variant per node of the tool's graph.
    #[derive(rt::Clone, rt::Copy, rt::Debug, rt::PartialEq, rt::Eq, rt::Hash)]
    #[allow(clippy::enum_variant_names)]
    pub enum Node {
        Entry,
        Exit,
    }
    impl Node {
        /// Every node, in file order.
        pub const ALL: [Node; 2] = [Node::Entry, Node::Exit];
        /// The node's id in the graph file.
        pub const fn id(self) -> &'static str {
            match self {
                Node::Entry => "entry",
                Node::Exit => "exit",
            }
        }
        /// The node's type.
        pub const fn kind(self) -> rt::NodeType {
            match self {
                Node::Entry => rt::NodeType::Entry,
                Node::Exit => rt::NodeType::Exit,
            }
        }
    }
    /// The tool's expressions, parsed once at start-up.
    pub struct Compiled {}
    impl Compiled {
        /// Parses every expression of the tool.
        pub fn new() -> rt::Result<Self, rt::StartupError> {
            rt::Ok(Self {})
        }
    }
    /// Runs the tool's graph from its entry to its exit.
    pub async fn run(
        _: &Compiled,
        exec: &mut rt::Execution,
    ) -> rt::Result<(), rt::NodeError> {
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
                    return rt::Ok(());
                }
            };
        }
    }
}
