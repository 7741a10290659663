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
                input_check: count_files::input_schema::check,
                output_check: rt::Some(count_files::output_schema::check),
                content: rt::None,
                annotations: rt::None,
                icons: rt::None,
                required_scopes: &[],
                task: rt::TaskSupport {
                    mode: rt::TaskMode::Allowed,
                    ask_first: false,
                },
            },
            rt::ToolMeta {
                name: "sum_file_sizes",
                description: "Sums the size of all files in a directory",
                input_schema: r#"{"type":"object","properties":{"directory":{"type":"string","description":"The directory path to sum file sizes in"}},"required":["directory"]}"#,
                output_schema: rt::Some(
                    r#"{"type":"object","properties":{"totalSize":{"type":"number","description":"The total size of all files in bytes"}}}"#,
                ),
                input_check: count_files::input_schema::check,
                output_check: rt::Some(sum_file_sizes::output_schema::check),
                content: rt::None,
                annotations: rt::None,
                icons: rt::None,
                required_scopes: &[],
                task: rt::TaskSupport {
                    mode: rt::TaskMode::Allowed,
                    ask_first: false,
                },
            },
        ];
        fn servers() -> rt::Vec<rt::ServerSpec> {
            rt::owned::vec([
                rt::ServerSpec {
                    name: rt::owned::s("filesystem"),
                    transport: rt::TransportSpec::Stdio {
                        command: rt::owned::s("npx"),
                        args: rt::owned::strings(
                            &[
                                "-y",
                                "@modelcontextprotocol/server-filesystem",
                                "../mcpGraph/tests/counting",
                            ],
                        ),
                        cwd: rt::None,
                        env: rt::owned::pairs(&[]),
                        inherit_env: rt::owned::strings(&[]),
                    },
                    timeout_ms: rt::None,
                    ping_timeout_ms: rt::None,
                    auth: rt::None,
                },
            ])
        }
        const CONNECT: rt::Connect = rt::connect_servers;
        const LIMITS: rt::Limits = rt::Limits {
            max_node_executions: 1000,
            max_execution_time_ms: 300000,
            max_expression_depth: 500,
            max_expression_time_ms: 1000,
            max_value_bytes: 67108864,
            max_history_bytes: 268435456,
            max_value_depth: 128,
            max_call_depth: 8,
            max_questions: 16,
            max_answer_wait_ms: 600000,
        };
        const MAP: rt::Option<&'static str> = rt::Some(
            r#"{"file":"file_utils/file_utils.yaml","tools":[{"name":"count_files","nodes":[{"id":"entry","type":"entry","line":48,"routes":[]},{"id":"list_directory_node","type":"mcp","line":53,"routes":[]},{"id":"count_files_node","type":"transform","line":63,"routes":[]},{"id":"exit","type":"exit","line":70,"routes":[]}]},{"name":"sum_file_sizes","nodes":[{"id":"entry","type":"entry","line":91,"routes":[]},{"id":"list_directory_with_sizes_node","type":"mcp","line":96,"routes":[]},{"id":"sum_sizes_node","type":"transform","line":106,"routes":[]},{"id":"exit","type":"exit","line":131,"routes":[]}]}]}"#,
        );
        fn compile() -> rt::Result<Self::Compiled, rt::StartupError> {
            let count_files = count_files::Compiled::new()?;
            let sum_file_sizes = sum_file_sizes::Compiled::new()?;
            rt::Ok(__McpgraphCompiled {
                count_files,
                sum_file_sizes,
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
    /// The tool's expressions, built once at start-up.
    pub struct Compiled {
        list_directory_node: rt::Args,
        count_files_node: rt::Expr,
    }
    impl Compiled {
        /// Builds every expression of the tool from its parsed tree.
        pub fn new() -> rt::Result<Self, rt::StartupError> {
            rt::Ok(Self {
                list_directory_node: rt::Args::Object(
                    rt::Vec::from([
                        (
                            "path",
                            rt::Args::expr_ast(
                                "$.entry.directory",
                                {
                                    use rt::ast as j;
                                    j::names(rt::Some(""), &["entry", "directory"])
                                },
                                rt::Helpers::NONE,
                            ),
                        ),
                    ]),
                ),
                count_files_node: rt::Expr::from_ast(
                    r#"{ "count": $count($split($.list_directory_node.content, "\n")) }"#,
                    {
                        use rt::ast as j;
                        j::object([
                            (
                                j::string("count"),
                                j::function(
                                    "count",
                                    [
                                        j::function(
                                            "split",
                                            [
                                                j::names(rt::Some(""), &["list_directory_node", "content"]),
                                                j::string("\n"),
                                            ],
                                            true,
                                        ),
                                    ],
                                    true,
                                ),
                            ),
                        ])
                    },
                    rt::Helpers::NONE,
                ),
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
    #[doc(hidden)]
    #[allow(unused_imports, unused_qualifications, clippy::all, clippy::pedantic)]
    pub mod input_schema {
        use ::std::prelude::rust_2021::*;
        use ::std::{self as std, matches, vec};
        use ::mcpgraph::__private as rt;
        use rt::jsonschema;
        /// The schema's validator.
        pub struct Validator;
        #[doc(hidden)]
        #[allow(
            non_snake_case,
            dead_code,
            unused_imports,
            unused_variables,
            unreachable_code,
            clippy::all
        )]
        mod __validator_impl {
            use super::*;
            use jsonschema::__private::cmp as __cmp;
            use jsonschema::__private::content as __content;
            use jsonschema::__private::custom as __custom;
            use jsonschema::__private::error as __err;
            use jsonschema::__private::fancy_regex as __fancy;
            use jsonschema::__private::format as __fmt;
            use jsonschema::__private::numeric as __num;
            use jsonschema::__private::regex as __re;
            use jsonschema::__private::serde_json as __sj;
            use jsonschema::__private::types as __types;
            use jsonschema::__private::unique_items as __uniq;
            use jsonschema::__private::unfinished_matches as __unfinished;
            use jsonschema::paths as __paths;
            use jsonschema::JsonType as __JT;
            use jsonschema::JsonTypeSet as __JTS;
            use jsonschema::ErrorIterator as __EI;
            use jsonschema::ValidationError as __VE;
            use __sj::Value as __Value;
            use std::sync::LazyLock as __Lazy;
            type __Map = __sj::Map<String, __Value>;
            pub(super) fn is_valid(instance: &__Value) -> bool {
                match instance {
                    __Value::Object(obj) => {
                        let mut __req_0 = false;
                        let __object_pass = obj
                            .iter()
                            .all(|(key, instance)| {
                                match key.as_str() {
                                    "directory" => {
                                        if !(instance.is_string()) {
                                            return false;
                                        }
                                        __req_0 = true;
                                    }
                                    _ => {}
                                }
                                true
                            });
                        __object_pass && __req_0
                    }
                    _ => false,
                }
            }
            pub(super) fn validate<'__i>(
                instance: &'__i __Value,
                __path: &__paths::LazyLocation,
            ) -> Option<__VE<'__i>> {
                match instance {
                    __Value::Object(obj) => {
                        let mut __req_0 = false;
                        let mut __first = None;
                        for (key, value) in obj.iter() {
                            let key_str = key.as_str();
                            match key_str {
                                "directory" => {
                                    __req_0 = true;
                                    if __first.is_none() {
                                        __first = (|| {
                                            let instance = value;
                                            let __path = &__path.push("directory");
                                            if !(instance.is_string()) {
                                                return Some(
                                                    __err::single_type(
                                                        "/properties/directory/type",
                                                        __path.into(),
                                                        instance,
                                                        __JT::String,
                                                    ),
                                                );
                                            }
                                            None
                                        })();
                                    }
                                }
                                _ => {}
                            }
                        }
                        if !__req_0 {
                            return Some(
                                __err::required(
                                    "/required",
                                    __path.into(),
                                    instance,
                                    "directory",
                                ),
                            );
                        }
                        if __first.is_some() {
                            return __first;
                        }
                    }
                    _ => {
                        return Some(
                            __err::single_type(
                                "/type",
                                __path.into(),
                                instance,
                                __JT::Object,
                            ),
                        );
                    }
                }
                None
            }
            pub(super) fn collect_errors<'__i>(
                instance: &'__i __Value,
                __path: &__paths::LazyLocation,
                __errors: &mut Vec<__VE<'__i>>,
            ) {
                match instance {
                    __Value::Object(obj) => {
                        __errors
                            .extend(
                                (|| -> Option<__VE<'_>> {
                                    if !(obj.contains_key("directory")) {
                                        return Some(
                                            __err::required(
                                                "/required",
                                                __path.into(),
                                                instance,
                                                "directory",
                                            ),
                                        );
                                    }
                                    None
                                })(),
                            );
                        if let Some(value) = obj.get("directory") {
                            let instance = value;
                            if !(instance.is_string()) {
                                let __path = &__path.push("directory");
                                if !(instance.is_string()) {
                                    __errors
                                        .push(
                                            __err::single_type(
                                                "/properties/directory/type",
                                                __path.into(),
                                                instance,
                                                __JT::String,
                                            ),
                                        );
                                }
                            }
                        }
                    }
                    _ => {
                        __errors
                            .push(
                                __err::single_type(
                                    "/type",
                                    __path.into(),
                                    instance,
                                    __JT::Object,
                                ),
                            );
                    }
                }
            }
            pub(super) fn run_is_valid(instance: &__Value) -> bool {
                is_valid(instance)
            }
            pub(super) fn run_validate<'__i>(
                instance: &'__i __Value,
            ) -> Option<__VE<'__i>> {
                validate(instance, &__paths::LazyLocation::new())
            }
            pub(super) fn run_collect_errors<'__i>(
                instance: &'__i __Value,
            ) -> Vec<__VE<'__i>> {
                let mut errors = Vec::new();
                collect_errors(instance, &__paths::LazyLocation::new(), &mut errors);
                errors
            }
            pub(super) fn entry_is_valid(instance: &__Value) -> bool {
                run_is_valid(instance)
            }
            pub(super) fn entry_validate<'__i>(
                instance: &'__i __Value,
            ) -> ::std::result::Result<(), __VE<'__i>> {
                match run_validate(instance) {
                    Some(e) => Err(e),
                    None => Ok(()),
                }
            }
            pub(super) fn entry_iter_errors<'__i>(
                instance: &'__i __Value,
            ) -> __EI<'__i> {
                __err::iterator_from(run_collect_errors(instance))
            }
        }
        impl Validator {
            pub fn is_valid(
                instance: &jsonschema::__private::serde_json::Value,
            ) -> bool {
                __validator_impl::entry_is_valid(instance)
            }
            pub fn validate<'__i>(
                instance: &'__i jsonschema::__private::serde_json::Value,
            ) -> ::std::result::Result<(), jsonschema::ValidationError<'__i>> {
                __validator_impl::entry_validate(instance)
            }
            pub fn iter_errors<'__i>(
                instance: &'__i jsonschema::__private::serde_json::Value,
            ) -> jsonschema::ErrorIterator<'__i> {
                __validator_impl::entry_iter_errors(instance)
            }
        }
        /// The first way `value` breaks the schema, or `None`.
        pub fn check(value: &rt::serde_json::Value) -> rt::Option<rt::String> {
            if Validator::is_valid(value) {
                return rt::None;
            }
            rt::schema_violation(Validator::validate(value))
        }
    }
    #[doc(hidden)]
    #[allow(unused_imports, unused_qualifications, clippy::all, clippy::pedantic)]
    pub mod output_schema {
        use ::std::prelude::rust_2021::*;
        use ::std::{self as std, matches, vec};
        use ::mcpgraph::__private as rt;
        use rt::jsonschema;
        /// The schema's validator.
        pub struct Validator;
        #[doc(hidden)]
        #[allow(
            non_snake_case,
            dead_code,
            unused_imports,
            unused_variables,
            unreachable_code,
            clippy::all
        )]
        mod __validator_impl {
            use super::*;
            use jsonschema::__private::cmp as __cmp;
            use jsonschema::__private::content as __content;
            use jsonschema::__private::custom as __custom;
            use jsonschema::__private::error as __err;
            use jsonschema::__private::fancy_regex as __fancy;
            use jsonschema::__private::format as __fmt;
            use jsonschema::__private::numeric as __num;
            use jsonschema::__private::regex as __re;
            use jsonschema::__private::serde_json as __sj;
            use jsonschema::__private::types as __types;
            use jsonschema::__private::unique_items as __uniq;
            use jsonschema::__private::unfinished_matches as __unfinished;
            use jsonschema::paths as __paths;
            use jsonschema::JsonType as __JT;
            use jsonschema::JsonTypeSet as __JTS;
            use jsonschema::ErrorIterator as __EI;
            use jsonschema::ValidationError as __VE;
            use __sj::Value as __Value;
            use std::sync::LazyLock as __Lazy;
            type __Map = __sj::Map<String, __Value>;
            pub(super) fn is_valid(instance: &__Value) -> bool {
                match instance {
                    __Value::Object(obj) => {
                        obj.iter()
                            .all(|(key, instance)| {
                                let key_str = key.as_str();
                                match key_str {
                                    "count" => instance.is_number(),
                                    _ => true,
                                }
                            })
                    }
                    _ => false,
                }
            }
            pub(super) fn validate<'__i>(
                instance: &'__i __Value,
                __path: &__paths::LazyLocation,
            ) -> Option<__VE<'__i>> {
                match instance {
                    __Value::Object(obj) => {
                        for (key, value) in obj.iter() {
                            let key_str = key.as_str();
                            match key_str {
                                "count" => {
                                    let instance = value;
                                    let __path = &__path.push("count");
                                    if !(instance.is_number()) {
                                        return Some(
                                            __err::single_type(
                                                "/properties/count/type",
                                                __path.into(),
                                                instance,
                                                __JT::Number,
                                            ),
                                        );
                                    }
                                }
                                _ => {}
                            }
                        }
                    }
                    _ => {
                        return Some(
                            __err::single_type(
                                "/type",
                                __path.into(),
                                instance,
                                __JT::Object,
                            ),
                        );
                    }
                }
                None
            }
            pub(super) fn collect_errors<'__i>(
                instance: &'__i __Value,
                __path: &__paths::LazyLocation,
                __errors: &mut Vec<__VE<'__i>>,
            ) {
                match instance {
                    __Value::Object(obj) => {
                        if let Some(value) = obj.get("count") {
                            let instance = value;
                            if !(instance.is_number()) {
                                let __path = &__path.push("count");
                                if !(instance.is_number()) {
                                    __errors
                                        .push(
                                            __err::single_type(
                                                "/properties/count/type",
                                                __path.into(),
                                                instance,
                                                __JT::Number,
                                            ),
                                        );
                                }
                            }
                        }
                    }
                    _ => {
                        __errors
                            .push(
                                __err::single_type(
                                    "/type",
                                    __path.into(),
                                    instance,
                                    __JT::Object,
                                ),
                            );
                    }
                }
            }
            pub(super) fn run_is_valid(instance: &__Value) -> bool {
                is_valid(instance)
            }
            pub(super) fn run_validate<'__i>(
                instance: &'__i __Value,
            ) -> Option<__VE<'__i>> {
                validate(instance, &__paths::LazyLocation::new())
            }
            pub(super) fn run_collect_errors<'__i>(
                instance: &'__i __Value,
            ) -> Vec<__VE<'__i>> {
                let mut errors = Vec::new();
                collect_errors(instance, &__paths::LazyLocation::new(), &mut errors);
                errors
            }
            pub(super) fn entry_is_valid(instance: &__Value) -> bool {
                run_is_valid(instance)
            }
            pub(super) fn entry_validate<'__i>(
                instance: &'__i __Value,
            ) -> ::std::result::Result<(), __VE<'__i>> {
                match run_validate(instance) {
                    Some(e) => Err(e),
                    None => Ok(()),
                }
            }
            pub(super) fn entry_iter_errors<'__i>(
                instance: &'__i __Value,
            ) -> __EI<'__i> {
                __err::iterator_from(run_collect_errors(instance))
            }
        }
        impl Validator {
            pub fn is_valid(
                instance: &jsonschema::__private::serde_json::Value,
            ) -> bool {
                __validator_impl::entry_is_valid(instance)
            }
            pub fn validate<'__i>(
                instance: &'__i jsonschema::__private::serde_json::Value,
            ) -> ::std::result::Result<(), jsonschema::ValidationError<'__i>> {
                __validator_impl::entry_validate(instance)
            }
            pub fn iter_errors<'__i>(
                instance: &'__i jsonschema::__private::serde_json::Value,
            ) -> jsonschema::ErrorIterator<'__i> {
                __validator_impl::entry_iter_errors(instance)
            }
        }
        /// The first way `value` breaks the schema, or `None`.
        pub fn check(value: &rt::serde_json::Value) -> rt::Option<rt::String> {
            if Validator::is_valid(value) {
                return rt::None;
            }
            rt::schema_violation(Validator::validate(value))
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
    /// The tool's expressions, built once at start-up.
    pub struct Compiled {
        list_directory_with_sizes_node: rt::Args,
        sum_sizes_node: rt::Expr,
    }
    impl Compiled {
        /// Builds every expression of the tool from its parsed tree.
        pub fn new() -> rt::Result<Self, rt::StartupError> {
            rt::Ok(Self {
                list_directory_with_sizes_node: rt::Args::Object(
                    rt::Vec::from([
                        (
                            "path",
                            rt::Args::expr_ast(
                                "$.entry.directory",
                                {
                                    use rt::ast as j;
                                    j::names(rt::Some(""), &["entry", "directory"])
                                },
                                rt::Helpers::NONE,
                            ),
                        ),
                    ]),
                ),
                sum_sizes_node: rt::Expr::from_ast(
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
                    {
                        use rt::ast as j;
                        j::AstNode::Block(
                            rt::Vec::from([
                                j::binary(
                                    j::BinaryOp::ColonEqual,
                                    j::var("lines"),
                                    j::function(
                                        "split",
                                        [
                                            j::names(
                                                rt::Some(""),
                                                &["list_directory_with_sizes_node", "content"],
                                            ),
                                            j::string("\n"),
                                        ],
                                        true,
                                    ),
                                ),
                                j::binary(
                                    j::BinaryOp::ColonEqual,
                                    j::var("fileLines"),
                                    j::path([
                                        j::step(
                                            j::var("lines"),
                                            rt::Vec::from([
                                                j::Stage::Filter(
                                                    j::b(
                                                        j::binary(
                                                            j::BinaryOp::Equal,
                                                            j::function(
                                                                "substring",
                                                                [
                                                                    j::var(""),
                                                                    j::AstNode::Number(0.0),
                                                                    j::AstNode::Number(6.0),
                                                                ],
                                                                true,
                                                            ),
                                                            j::string("[FILE]"),
                                                        ),
                                                    ),
                                                ),
                                            ]),
                                            rt::None,
                                            rt::None,
                                            rt::None,
                                            false,
                                            false,
                                        ),
                                    ]),
                                ),
                                j::object([
                                    (
                                        j::string("totalSize"),
                                        j::function(
                                            "sum",
                                            [
                                                j::path([
                                                    j::plain(j::var("fileLines")),
                                                    j::plain(
                                                        j::AstNode::FunctionApplication(
                                                            j::b(
                                                                j::AstNode::Block(
                                                                    rt::Vec::from([
                                                                        j::binary(
                                                                            j::BinaryOp::ColonEqual,
                                                                            j::var("parts"),
                                                                            j::function(
                                                                                "split",
                                                                                [j::function("trim", [j::var("")], true), j::string(" ")],
                                                                                true,
                                                                            ),
                                                                        ),
                                                                        j::binary(
                                                                            j::BinaryOp::ColonEqual,
                                                                            j::var("sizeStr"),
                                                                            j::binary(
                                                                                j::BinaryOp::Concatenate,
                                                                                j::binary(
                                                                                    j::BinaryOp::Concatenate,
                                                                                    j::path([
                                                                                        j::step(
                                                                                            j::var("parts"),
                                                                                            rt::Vec::from([
                                                                                                j::Stage::Filter(
                                                                                                    j::b(
                                                                                                        j::binary(
                                                                                                            j::BinaryOp::Subtract,
                                                                                                            j::function("count", [j::var("parts")], true),
                                                                                                            j::AstNode::Number(2.0),
                                                                                                        ),
                                                                                                    ),
                                                                                                ),
                                                                                            ]),
                                                                                            rt::None,
                                                                                            rt::None,
                                                                                            rt::None,
                                                                                            false,
                                                                                            false,
                                                                                        ),
                                                                                    ]),
                                                                                    j::string(" "),
                                                                                ),
                                                                                j::path([
                                                                                    j::step(
                                                                                        j::var("parts"),
                                                                                        rt::Vec::from([
                                                                                            j::Stage::Filter(
                                                                                                j::b(
                                                                                                    j::binary(
                                                                                                        j::BinaryOp::Subtract,
                                                                                                        j::function("count", [j::var("parts")], true),
                                                                                                        j::AstNode::Number(1.0),
                                                                                                    ),
                                                                                                ),
                                                                                            ),
                                                                                        ]),
                                                                                        rt::None,
                                                                                        rt::None,
                                                                                        rt::None,
                                                                                        false,
                                                                                        false,
                                                                                    ),
                                                                                ]),
                                                                            ),
                                                                        ),
                                                                        j::binary(
                                                                            j::BinaryOp::ColonEqual,
                                                                            j::var("number"),
                                                                            j::function(
                                                                                "number",
                                                                                [
                                                                                    j::AstNode::Block(
                                                                                        rt::Vec::from([
                                                                                            j::binary(
                                                                                                j::BinaryOp::ColonEqual,
                                                                                                j::var("__mcpgraph_0"),
                                                                                                j::var("sizeStr"),
                                                                                            ),
                                                                                            j::binary(
                                                                                                j::BinaryOp::ColonEqual,
                                                                                                j::var("__mcpgraph_1"),
                                                                                                j::AstNode::Regex {
                                                                                                    pattern: j::s(
                                                                                                        r"[\x{0}-\x{2D}\x{2F}\x{3A}-\x{D7FF}\x{E000}-\x{10FFFF}]",
                                                                                                    ),
                                                                                                    flags: j::s(""),
                                                                                                },
                                                                                            ),
                                                                                            j::binary(
                                                                                                j::BinaryOp::ColonEqual,
                                                                                                j::var("__mcpgraph_2"),
                                                                                                j::string(""),
                                                                                            ),
                                                                                            j::function(
                                                                                                "__mcpgraph_replace_check",
                                                                                                [
                                                                                                    j::var(""),
                                                                                                    j::var("__mcpgraph_0"),
                                                                                                    j::var("__mcpgraph_1"),
                                                                                                    j::var("__mcpgraph_2"),
                                                                                                ],
                                                                                                true,
                                                                                            ),
                                                                                            j::function(
                                                                                                "replace",
                                                                                                [
                                                                                                    j::var("__mcpgraph_0"),
                                                                                                    j::var("__mcpgraph_1"),
                                                                                                    j::var("__mcpgraph_2"),
                                                                                                ],
                                                                                                true,
                                                                                            ),
                                                                                        ]),
                                                                                    ),
                                                                                ],
                                                                                true,
                                                                            ),
                                                                        ),
                                                                        j::binary(
                                                                            j::BinaryOp::ColonEqual,
                                                                            j::var("unit"),
                                                                            j::AstNode::Block(
                                                                                rt::Vec::from([
                                                                                    j::binary(
                                                                                        j::BinaryOp::ColonEqual,
                                                                                        j::var("__mcpgraph_0"),
                                                                                        j::var("sizeStr"),
                                                                                    ),
                                                                                    j::binary(
                                                                                        j::BinaryOp::ColonEqual,
                                                                                        j::var("__mcpgraph_1"),
                                                                                        j::AstNode::Regex {
                                                                                            pattern: j::s(r"[\x{2E}\x{30}-\x{39}]"),
                                                                                            flags: j::s(""),
                                                                                        },
                                                                                    ),
                                                                                    j::binary(
                                                                                        j::BinaryOp::ColonEqual,
                                                                                        j::var("__mcpgraph_2"),
                                                                                        j::string(""),
                                                                                    ),
                                                                                    j::function(
                                                                                        "__mcpgraph_replace_check",
                                                                                        [
                                                                                            j::var(""),
                                                                                            j::var("__mcpgraph_0"),
                                                                                            j::var("__mcpgraph_1"),
                                                                                            j::var("__mcpgraph_2"),
                                                                                        ],
                                                                                        true,
                                                                                    ),
                                                                                    j::function(
                                                                                        "replace",
                                                                                        [
                                                                                            j::var("__mcpgraph_0"),
                                                                                            j::var("__mcpgraph_1"),
                                                                                            j::var("__mcpgraph_2"),
                                                                                        ],
                                                                                        true,
                                                                                    ),
                                                                                ]),
                                                                            ),
                                                                        ),
                                                                        j::binary(
                                                                            j::BinaryOp::Multiply,
                                                                            j::var("number"),
                                                                            j::AstNode::Block(
                                                                                rt::Vec::from([
                                                                                    j::AstNode::Conditional {
                                                                                        condition: j::b(
                                                                                            j::binary(
                                                                                                j::BinaryOp::Equal,
                                                                                                j::var("unit"),
                                                                                                j::string("TB"),
                                                                                            ),
                                                                                        ),
                                                                                        then_branch: j::b(j::AstNode::Number(1099511627776.0)),
                                                                                        else_branch: rt::Some(
                                                                                            j::b(j::AstNode::Conditional {
                                                                                                condition: j::b(
                                                                                                    j::binary(
                                                                                                        j::BinaryOp::Equal,
                                                                                                        j::var("unit"),
                                                                                                        j::string("GB"),
                                                                                                    ),
                                                                                                ),
                                                                                                then_branch: j::b(j::AstNode::Number(1073741824.0)),
                                                                                                else_branch: rt::Some(
                                                                                                    j::b(j::AstNode::Conditional {
                                                                                                        condition: j::b(
                                                                                                            j::binary(
                                                                                                                j::BinaryOp::Equal,
                                                                                                                j::var("unit"),
                                                                                                                j::string("MB"),
                                                                                                            ),
                                                                                                        ),
                                                                                                        then_branch: j::b(j::AstNode::Number(1048576.0)),
                                                                                                        else_branch: rt::Some(
                                                                                                            j::b(j::AstNode::Conditional {
                                                                                                                condition: j::b(
                                                                                                                    j::binary(
                                                                                                                        j::BinaryOp::Equal,
                                                                                                                        j::var("unit"),
                                                                                                                        j::string("KB"),
                                                                                                                    ),
                                                                                                                ),
                                                                                                                then_branch: j::b(j::AstNode::Number(1024.0)),
                                                                                                                else_branch: rt::Some(j::b(j::AstNode::Number(1.0))),
                                                                                                            }),
                                                                                                        ),
                                                                                                    }),
                                                                                                ),
                                                                                            }),
                                                                                        ),
                                                                                    },
                                                                                ]),
                                                                            ),
                                                                        ),
                                                                    ]),
                                                                ),
                                                            ),
                                                        ),
                                                    ),
                                                ]),
                                            ],
                                            true,
                                        ),
                                    ),
                                ]),
                            ]),
                        )
                    },
                    rt::Helpers::NONE,
                ),
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
    #[doc(hidden)]
    #[allow(unused_imports, unused_qualifications, clippy::all, clippy::pedantic)]
    pub mod output_schema {
        use ::std::prelude::rust_2021::*;
        use ::std::{self as std, matches, vec};
        use ::mcpgraph::__private as rt;
        use rt::jsonschema;
        /// The schema's validator.
        pub struct Validator;
        #[doc(hidden)]
        #[allow(
            non_snake_case,
            dead_code,
            unused_imports,
            unused_variables,
            unreachable_code,
            clippy::all
        )]
        mod __validator_impl {
            use super::*;
            use jsonschema::__private::cmp as __cmp;
            use jsonschema::__private::content as __content;
            use jsonschema::__private::custom as __custom;
            use jsonschema::__private::error as __err;
            use jsonschema::__private::fancy_regex as __fancy;
            use jsonschema::__private::format as __fmt;
            use jsonschema::__private::numeric as __num;
            use jsonschema::__private::regex as __re;
            use jsonschema::__private::serde_json as __sj;
            use jsonschema::__private::types as __types;
            use jsonschema::__private::unique_items as __uniq;
            use jsonschema::__private::unfinished_matches as __unfinished;
            use jsonschema::paths as __paths;
            use jsonschema::JsonType as __JT;
            use jsonschema::JsonTypeSet as __JTS;
            use jsonschema::ErrorIterator as __EI;
            use jsonschema::ValidationError as __VE;
            use __sj::Value as __Value;
            use std::sync::LazyLock as __Lazy;
            type __Map = __sj::Map<String, __Value>;
            pub(super) fn is_valid(instance: &__Value) -> bool {
                match instance {
                    __Value::Object(obj) => {
                        obj.iter()
                            .all(|(key, instance)| {
                                let key_str = key.as_str();
                                match key_str {
                                    "totalSize" => instance.is_number(),
                                    _ => true,
                                }
                            })
                    }
                    _ => false,
                }
            }
            pub(super) fn validate<'__i>(
                instance: &'__i __Value,
                __path: &__paths::LazyLocation,
            ) -> Option<__VE<'__i>> {
                match instance {
                    __Value::Object(obj) => {
                        for (key, value) in obj.iter() {
                            let key_str = key.as_str();
                            match key_str {
                                "totalSize" => {
                                    let instance = value;
                                    let __path = &__path.push("totalSize");
                                    if !(instance.is_number()) {
                                        return Some(
                                            __err::single_type(
                                                "/properties/totalSize/type",
                                                __path.into(),
                                                instance,
                                                __JT::Number,
                                            ),
                                        );
                                    }
                                }
                                _ => {}
                            }
                        }
                    }
                    _ => {
                        return Some(
                            __err::single_type(
                                "/type",
                                __path.into(),
                                instance,
                                __JT::Object,
                            ),
                        );
                    }
                }
                None
            }
            pub(super) fn collect_errors<'__i>(
                instance: &'__i __Value,
                __path: &__paths::LazyLocation,
                __errors: &mut Vec<__VE<'__i>>,
            ) {
                match instance {
                    __Value::Object(obj) => {
                        if let Some(value) = obj.get("totalSize") {
                            let instance = value;
                            if !(instance.is_number()) {
                                let __path = &__path.push("totalSize");
                                if !(instance.is_number()) {
                                    __errors
                                        .push(
                                            __err::single_type(
                                                "/properties/totalSize/type",
                                                __path.into(),
                                                instance,
                                                __JT::Number,
                                            ),
                                        );
                                }
                            }
                        }
                    }
                    _ => {
                        __errors
                            .push(
                                __err::single_type(
                                    "/type",
                                    __path.into(),
                                    instance,
                                    __JT::Object,
                                ),
                            );
                    }
                }
            }
            pub(super) fn run_is_valid(instance: &__Value) -> bool {
                is_valid(instance)
            }
            pub(super) fn run_validate<'__i>(
                instance: &'__i __Value,
            ) -> Option<__VE<'__i>> {
                validate(instance, &__paths::LazyLocation::new())
            }
            pub(super) fn run_collect_errors<'__i>(
                instance: &'__i __Value,
            ) -> Vec<__VE<'__i>> {
                let mut errors = Vec::new();
                collect_errors(instance, &__paths::LazyLocation::new(), &mut errors);
                errors
            }
            pub(super) fn entry_is_valid(instance: &__Value) -> bool {
                run_is_valid(instance)
            }
            pub(super) fn entry_validate<'__i>(
                instance: &'__i __Value,
            ) -> ::std::result::Result<(), __VE<'__i>> {
                match run_validate(instance) {
                    Some(e) => Err(e),
                    None => Ok(()),
                }
            }
            pub(super) fn entry_iter_errors<'__i>(
                instance: &'__i __Value,
            ) -> __EI<'__i> {
                __err::iterator_from(run_collect_errors(instance))
            }
        }
        impl Validator {
            pub fn is_valid(
                instance: &jsonschema::__private::serde_json::Value,
            ) -> bool {
                __validator_impl::entry_is_valid(instance)
            }
            pub fn validate<'__i>(
                instance: &'__i jsonschema::__private::serde_json::Value,
            ) -> ::std::result::Result<(), jsonschema::ValidationError<'__i>> {
                __validator_impl::entry_validate(instance)
            }
            pub fn iter_errors<'__i>(
                instance: &'__i jsonschema::__private::serde_json::Value,
            ) -> jsonschema::ErrorIterator<'__i> {
                __validator_impl::entry_iter_errors(instance)
            }
        }
        /// The first way `value` breaks the schema, or `None`.
        pub fn check(value: &rt::serde_json::Value) -> rt::Option<rt::String> {
            if Validator::is_valid(value) {
                return rt::None;
            }
            rt::schema_violation(Validator::validate(value))
        }
    }
}
