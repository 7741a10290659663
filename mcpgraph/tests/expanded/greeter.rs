// @generated from examples/build_rs_example/greeter.yaml by `cargo test -p mcpgraph --test expand`
// with EXPECTORATE=overwrite. Do not edit.

/// The MCP server `greeter` 1.0.0, compiled from its graph file.
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
    greet: greet::Compiled,
}
const _: () = {
    use ::mcpgraph::__private as rt;
    impl rt::Graph for Server {
        type Compiled = __McpgraphCompiled;
        const SERVER: rt::ServerMeta = rt::ServerMeta {
            name: "greeter",
            version: "1.0.0",
            title: "Greeter",
            instructions: rt::None,
        };
        const TOOLS: &'static [rt::ToolMeta] = &[
            rt::ToolMeta {
                name: "greet",
                description: "Greets someone in their language, and repeats it `times` times",
                input_schema: r#"{"type":"object","properties":{"name":{"type":"string"},"language":{"type":"string","enum":["en","fr","de"]},"times":{"type":"integer","minimum":1,"maximum":10}},"required":["name"]}"#,
                output_schema: rt::Some(
                    r#"{"type":"object","properties":{"greetings":{"type":"array","items":{"type":"string"}}}}"#,
                ),
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
                greet: greet::Compiled::new()?,
            })
        }
        fn run<'a>(
            compiled: &'a Self::Compiled,
            tool: usize,
            exec: &'a mut rt::Execution,
        ) -> rt::RunFuture<'a> {
            match tool {
                0 => rt::Box::pin(greet::run(&compiled.greet, exec)),
                _ => rt::Box::pin(async { rt::Err(rt::NodeError::call("no such tool")) }),
            }
        }
    }
};
/// The tool `greet`: its nodes and its state machine.
pub mod greet {
    use ::mcpgraph::__private as rt;
    /// One variant per node of the tool's graph.
    #[derive(rt::Clone, rt::Copy, rt::Debug, rt::PartialEq, rt::Eq, rt::Hash)]
    #[allow(clippy::enum_variant_names)]
    pub enum Node {
        Entry,
        Route,
        French,
        English,
        Repeat,
        Exit,
    }
    impl Node {
        /// Every node, in file order.
        pub const ALL: [Node; 6] = [
            Node::Entry,
            Node::Route,
            Node::French,
            Node::English,
            Node::Repeat,
            Node::Exit,
        ];
        /// The node's id in the graph file.
        pub const fn id(self) -> &'static str {
            match self {
                Node::Entry => "entry",
                Node::Route => "route",
                Node::French => "french",
                Node::English => "english",
                Node::Repeat => "repeat",
                Node::Exit => "exit",
            }
        }
        /// The node's type.
        pub const fn kind(self) -> rt::NodeType {
            match self {
                Node::Entry => rt::NodeType::Entry,
                Node::Route => rt::NodeType::Switch,
                Node::French => rt::NodeType::Transform,
                Node::English => rt::NodeType::Transform,
                Node::Repeat => rt::NodeType::Transform,
                Node::Exit => rt::NodeType::Exit,
            }
        }
    }
    /// The tool's expressions, parsed once at start-up.
    pub struct Compiled {
        route: rt::Switch,
        french: rt::Expr,
        english: rt::Expr,
        repeat: rt::Expr,
    }
    impl Compiled {
        /// Parses every expression of the tool.
        pub fn new() -> rt::Result<Self, rt::StartupError> {
            rt::Ok(Self {
                route: rt::Switch::new(
                    &[
                        rt::Rule {
                            json: r#"{"==":[{"val":["\u0000","0"]},"fr"]}"#,
                            vars: &["entry.language"],
                            needs_context: false,
                        },
                    ],
                )?,
                french: rt::Expr::parse(r#""Bonjour, " & $.entry.name & " !""#)?,
                english: rt::Expr::parse(r#""Hello, " & $.entry.name & "!""#)?,
                repeat: rt::Expr::parse(
                    r#"(
  $line := $exists($.french) ? $.french : $.english;
  { "greetings": [[1..($.entry.times ? $.entry.times : 1)].($line)] }
)
"#,
                )?,
            })
        }
    }
    /// Runs the tool's graph from its entry to its exit.
    pub async fn run(
        compiled: &Compiled,
        exec: &mut rt::Execution,
    ) -> rt::Result<(), rt::NodeError> {
        let mut node = Node::Entry;
        loop {
            exec.enter(node.id(), node.kind()).await?;
            node = match node {
                Node::Entry => {
                    exec.entry()?;
                    Node::Route
                }
                Node::Route => {
                    let next = match exec.switch(&compiled.route)? {
                        // {"==": [{"var": "entry.language"}, "fr"]}
                        rt::Some(0) => Node::French,
                        _ => Node::English,
                    };
                    exec.switched(next.id())?;
                    next
                }
                Node::French => {
                    exec.transform(&compiled.french)?;
                    Node::Repeat
                }
                Node::English => {
                    exec.transform(&compiled.english)?;
                    Node::Repeat
                }
                Node::Repeat => {
                    exec.transform(&compiled.repeat)?;
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
