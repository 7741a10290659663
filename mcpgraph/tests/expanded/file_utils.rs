// @generated from examples/file_utils/file_utils.yaml by `cargo test -p mcpgraph --test expand`
// with EXPECTORATE=overwrite. Do not edit.

/// The MCP server `fileUtils` 1.0.0, compiled from its graph file.
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
    count_files: count_files::Compiled,
    sum_file_sizes: sum_file_sizes::Compiled,
}
const _: () = {
    use ::mcpgraph::__private as rt;
    impl rt::Graph for Server {
        type Compiled = __McpgraphCompiled;
        const SERVER: rt::ServerMeta = rt::ServerMeta {
            name: "fileUtils",
            version: "1.0.0",
            title: "File utilities",
            instructions: rt::Some(
                "This server provides file utility tools for counting files and calculating total file sizes in directories.",
            ),
        };
        const TOOLS: &'static [rt::ToolMeta] = &[
            rt::ToolMeta {
                name: "count_files",
                description: "Counts the number of files in a directory",
                input_schema: r#"{"type":"object","properties":{"directory":{"type":"string","description":"The directory path to count files in"}},"required":["directory"]}"#,
                output_schema: rt::Some(
                    r#"{"type":"object","properties":{"count":{"type":"number","description":"The number of files in the directory"}}}"#,
                ),
            },
            rt::ToolMeta {
                name: "sum_file_sizes",
                description: "Sums the size of all files in a directory",
                input_schema: r#"{"type":"object","properties":{"directory":{"type":"string","description":"The directory path to sum file sizes in"}},"required":["directory"]}"#,
                output_schema: rt::Some(
                    r#"{"type":"object","properties":{"totalSize":{"type":"number","description":"The total size of all files in bytes"}}}"#,
                ),
            },
        ];
        const SERVERS: &'static [rt::ServerDef] = &[
            rt::ServerDef {
                name: "filesystem",
                transport: rt::TransportDef::Stdio {
                    command: "npx",
                    args: &[
                        "-y",
                        "@modelcontextprotocol/server-filesystem",
                        "../mcpGraph/tests/counting",
                    ],
                    cwd: rt::None,
                    env: &[],
                },
                timeout_ms: rt::None,
                ping_timeout_ms: rt::None,
            },
        ];
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
                count_files: count_files::Compiled::new()?,
                sum_file_sizes: sum_file_sizes::Compiled::new()?,
            })
        }
        fn run<'a>(
            compiled: &'a Self::Compiled,
            tool: usize,
            exec: &'a mut rt::Execution,
        ) -> rt::RunFuture<'a> {
            match tool {
                0 => rt::Box::pin(count_files::run(&compiled.count_files, exec)),
                1 => rt::Box::pin(sum_file_sizes::run(&compiled.sum_file_sizes, exec)),
                _ => rt::Box::pin(async { rt::Err(rt::NodeError::call("no such tool")) }),
            }
        }
    }
};
/// The tool `count_files`: its nodes and its state machine.
pub mod count_files {
    use ::mcpgraph::__private as rt;
    /// One variant per node of the tool's graph.
    #[derive(rt::Clone, rt::Copy, rt::Debug, rt::PartialEq, rt::Eq, rt::Hash)]
    #[allow(clippy::enum_variant_names)]
    pub enum Node {
        Entry,
        ListDirectoryNode,
        CountFilesNode,
        Exit,
    }
    impl Node {
        /// Every node, in file order.
        pub const ALL: [Node; 4] = [
            Node::Entry,
            Node::ListDirectoryNode,
            Node::CountFilesNode,
            Node::Exit,
        ];
        /// The node's id in the graph file.
        pub const fn id(self) -> &'static str {
            match self {
                Node::Entry => "entry",
                Node::ListDirectoryNode => "list_directory_node",
                Node::CountFilesNode => "count_files_node",
                Node::Exit => "exit",
            }
        }
        /// The node's type.
        pub const fn kind(self) -> rt::NodeType {
            match self {
                Node::Entry => rt::NodeType::Entry,
                Node::ListDirectoryNode => rt::NodeType::Mcp,
                Node::CountFilesNode => rt::NodeType::Transform,
                Node::Exit => rt::NodeType::Exit,
            }
        }
    }
    /// The tool's expressions, parsed once at start-up.
    pub struct Compiled {
        list_directory_node: rt::Args,
        count_files_node: rt::Expr,
    }
    impl Compiled {
        /// Parses every expression of the tool.
        pub fn new() -> rt::Result<Self, rt::StartupError> {
            rt::Ok(Self {
                list_directory_node: rt::Args::Object(
                    rt::Vec::from([("path", rt::Args::expr("$.entry.directory")?)]),
                ),
                count_files_node: rt::Expr::parse(
                    r#"{ "count": $count($split($.list_directory_node.content, "\n")) }"#,
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
                    Node::ListDirectoryNode
                }
                Node::ListDirectoryNode => {
                    exec.mcp(
                            "filesystem",
                            "list_directory",
                            &compiled.list_directory_node,
                        )
                        .await?;
                    Node::CountFilesNode
                }
                Node::CountFilesNode => {
                    exec.transform(&compiled.count_files_node)?;
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
/// The tool `sum_file_sizes`: its nodes and its state machine.
pub mod sum_file_sizes {
    use ::mcpgraph::__private as rt;
    /// One variant per node of the tool's graph.
    #[derive(rt::Clone, rt::Copy, rt::Debug, rt::PartialEq, rt::Eq, rt::Hash)]
    #[allow(clippy::enum_variant_names)]
    pub enum Node {
        Entry,
        ListDirectoryWithSizesNode,
        SumSizesNode,
        Exit,
    }
    impl Node {
        /// Every node, in file order.
        pub const ALL: [Node; 4] = [
            Node::Entry,
            Node::ListDirectoryWithSizesNode,
            Node::SumSizesNode,
            Node::Exit,
        ];
        /// The node's id in the graph file.
        pub const fn id(self) -> &'static str {
            match self {
                Node::Entry => "entry",
                Node::ListDirectoryWithSizesNode => "list_directory_with_sizes_node",
                Node::SumSizesNode => "sum_sizes_node",
                Node::Exit => "exit",
            }
        }
        /// The node's type.
        pub const fn kind(self) -> rt::NodeType {
            match self {
                Node::Entry => rt::NodeType::Entry,
                Node::ListDirectoryWithSizesNode => rt::NodeType::Mcp,
                Node::SumSizesNode => rt::NodeType::Transform,
                Node::Exit => rt::NodeType::Exit,
            }
        }
    }
    /// The tool's expressions, parsed once at start-up.
    pub struct Compiled {
        list_directory_with_sizes_node: rt::Args,
        sum_sizes_node: rt::Expr,
    }
    impl Compiled {
        /// Parses every expression of the tool.
        pub fn new() -> rt::Result<Self, rt::StartupError> {
            rt::Ok(Self {
                list_directory_with_sizes_node: rt::Args::Object(
                    rt::Vec::from([("path", rt::Args::expr("$.entry.directory")?)]),
                ),
                sum_sizes_node: rt::Expr::parse(
                    r#"(
  $lines := $split($.list_directory_with_sizes_node.content, "\n");
  $fileLines := $lines[$substring($, 0, 6) = "[FILE]"];
  { 
    "totalSize": $sum($fileLines. (
      $parts := $split($trim($), " ");
      $sizeStr := $parts[$count($parts) - 2] & " " & $parts[$count($parts) - 1];
      $number := $number($replace($sizeStr, /[^0-9.]/, ""));
      $unit := $replace($sizeStr, /[0-9.]/, "");
      $number * (
        $unit = "TB" ? 1099511627776 :
        $unit = "GB" ? 1073741824 :
        $unit = "MB" ? 1048576 :
        $unit = "KB" ? 1024 : 1
      )
    ))
  }
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
                    Node::ListDirectoryWithSizesNode
                }
                Node::ListDirectoryWithSizesNode => {
                    exec.mcp(
                            "filesystem",
                            "list_directory_with_sizes",
                            &compiled.list_directory_with_sizes_node,
                        )
                        .await?;
                    Node::SumSizesNode
                }
                Node::SumSizesNode => {
                    exec.transform(&compiled.sum_sizes_node)?;
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
