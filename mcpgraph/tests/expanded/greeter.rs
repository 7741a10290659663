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
                input_check: greet::input_schema::check,
                output_check: rt::Some(greet::output_schema::check),
                content: rt::None,
                annotations: rt::Some(
                    r#"{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}"#,
                ),
                icons: rt::None,
                required_scopes: &[],
                task: rt::TaskSupport {
                    mode: rt::TaskMode::Allowed,
                    ask_first: false,
                },
            },
        ];
        fn servers() -> rt::Vec<rt::ServerSpec> {
            rt::owned::vec([])
        }
        const CONNECT: rt::Connect = rt::no_servers;
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
            r#"{"file":"build_rs_example/greeter.yaml","tools":[{"name":"greet","nodes":[{"id":"entry","type":"entry","line":21,"routes":[]},{"id":"route","type":"switch","line":22,"routes":[{"to":"french","line":26,"label":"condition 1"},{"to":"english","line":27,"label":"default"}]},{"id":"french","type":"transform","line":28,"routes":[]},{"id":"english","type":"transform","line":32,"routes":[]},{"id":"repeat","type":"transform","line":36,"routes":[]},{"id":"exit","type":"exit","line":45,"routes":[]}]}]}"#,
        );
        fn compile() -> rt::Result<Self::Compiled, rt::StartupError> {
            let greet = greet::Compiled::new()?;
            rt::Ok(__McpgraphCompiled { greet })
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
    /// The tool's expressions, built once at start-up.
    pub struct Compiled {
        route: rt::Switch,
        french: rt::Expr,
        english: rt::Expr,
        repeat: rt::Expr,
    }
    impl Compiled {
        /// Builds every expression of the tool from its parsed tree.
        pub fn new() -> rt::Result<Self, rt::StartupError> {
            rt::Ok(Self {
                route: rt::Switch::compiled(
                    rt::Vec::from([
                        rt::Condition {
                            json: r#"{"==":[{"val":["\u0000","0"]},"fr"]}"#,
                            tree: {
                                use rt::logic as l;
                                l::binary(l::Op::Eq, l::slot(0), l::text("fr"))
                            },
                            slots: rt::Vec::from([
                                rt::Expr::from_ast(
                                    "entry.language",
                                    {
                                        use rt::ast as j;
                                        j::names(rt::None, &["entry", "language"])
                                    },
                                    rt::Helpers::NONE,
                                ),
                            ]),
                            needs_context: false,
                        },
                    ]),
                )?,
                french: rt::Expr::from_ast(
                    r#""Bonjour, " & $.entry.name & " !""#,
                    {
                        use rt::ast as j;
                        j::binary(
                            j::BinaryOp::Concatenate,
                            j::binary(
                                j::BinaryOp::Concatenate,
                                j::string("Bonjour, "),
                                j::names(rt::Some(""), &["entry", "name"]),
                            ),
                            j::string(" !"),
                        )
                    },
                    rt::Helpers::NONE,
                ),
                english: rt::Expr::from_ast(
                    r#""Hello, " & $.entry.name & "!""#,
                    {
                        use rt::ast as j;
                        j::binary(
                            j::BinaryOp::Concatenate,
                            j::binary(
                                j::BinaryOp::Concatenate,
                                j::string("Hello, "),
                                j::names(rt::Some(""), &["entry", "name"]),
                            ),
                            j::string("!"),
                        )
                    },
                    rt::Helpers::NONE,
                ),
                repeat: rt::Expr::from_ast(
                    r#"(
  $line := $exists($.french) ? $.french : $.english;
  { "greetings": [[1..($.entry.times ? $.entry.times : 1)].($line)] }
)
"#,
                    {
                        use rt::ast as j;
                        j::AstNode::Block(
                            rt::Vec::from([
                                j::binary(
                                    j::BinaryOp::ColonEqual,
                                    j::var("line"),
                                    j::AstNode::Conditional {
                                        condition: j::b(
                                            j::function(
                                                "exists",
                                                [j::names(rt::Some(""), &["french"])],
                                                true,
                                            ),
                                        ),
                                        then_branch: j::b(j::names(rt::Some(""), &["french"])),
                                        else_branch: rt::Some(
                                            j::b(j::names(rt::Some(""), &["english"])),
                                        ),
                                    },
                                ),
                                j::object([
                                    (
                                        j::string("greetings"),
                                        j::array([
                                            j::path([
                                                j::plain(
                                                    j::array([
                                                        j::binary(
                                                            j::BinaryOp::Range,
                                                            j::AstNode::Number(1.0),
                                                            j::AstNode::Block(
                                                                rt::Vec::from([
                                                                    j::AstNode::Conditional {
                                                                        condition: j::b(
                                                                            j::names(rt::Some(""), &["entry", "times"]),
                                                                        ),
                                                                        then_branch: j::b(
                                                                            j::names(rt::Some(""), &["entry", "times"]),
                                                                        ),
                                                                        else_branch: rt::Some(j::b(j::AstNode::Number(1.0))),
                                                                    },
                                                                ]),
                                                            ),
                                                        ),
                                                    ]),
                                                ),
                                                j::plain(
                                                    j::AstNode::FunctionApplication(
                                                        j::b(j::AstNode::Block(rt::Vec::from([j::var("line")]))),
                                                    ),
                                                ),
                                            ]),
                                        ]),
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
                                    "name" => {
                                        if !(instance.is_string()) {
                                            return false;
                                        }
                                        __req_0 = true;
                                    }
                                    "language" => {
                                        if !(match instance {
                                            __Value::String(s) => {
                                                matches!(s.as_str(), "en" | "fr" | "de")
                                            }
                                            _ => false,
                                        }) {
                                            return false;
                                        }
                                    }
                                    "times" => {
                                        if !(match instance {
                                            __Value::Number(n) if __types::is_integer(n) => {
                                                (__num::ge(n, 1u64)) && (__num::le(n, 10u64))
                                            }
                                            _ => false,
                                        }) {
                                            return false;
                                        }
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
                                "name" => {
                                    __req_0 = true;
                                    if __first.is_none() {
                                        __first = (|| {
                                            let instance = value;
                                            let __path = &__path.push("name");
                                            if !(instance.is_string()) {
                                                return Some(
                                                    __err::single_type(
                                                        "/properties/name/type",
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
                                "language" => {
                                    if __first.is_none() {
                                        __first = (|| {
                                            let instance = value;
                                            let __path = &__path.push("language");
                                            if !(match instance {
                                                __Value::String(s) => {
                                                    matches!(s.as_str(), "en" | "fr" | "de")
                                                }
                                                _ => false,
                                            }) {
                                                static ENUM_OPTIONS: __Lazy<
                                                    ::std::sync::Arc<__sj::Value>,
                                                > = __Lazy::new(|| {
                                                    ::std::sync::Arc::new(
                                                        __sj::from_str("[\"en\",\"fr\",\"de\"]")
                                                            .expect("Failed to parse enum options"),
                                                    )
                                                });
                                                return Some(
                                                    __err::enumeration(
                                                        "/properties/language/enum",
                                                        __path.into(),
                                                        instance,
                                                        &*ENUM_OPTIONS,
                                                    ),
                                                );
                                            }
                                            None
                                        })();
                                    }
                                }
                                "times" => {
                                    if __first.is_none() {
                                        __first = (|| {
                                            let instance = value;
                                            let __path = &__path.push("times");
                                            match instance {
                                                __Value::Number(n) if __types::is_integer(n) => {
                                                    if !(__num::ge(n, 1u64)) {
                                                        return Some(
                                                            __err::minimum(
                                                                "/properties/times/minimum",
                                                                __path.into(),
                                                                instance,
                                                                __sj::Value::Number(__sj::Number::from(1u64)),
                                                            ),
                                                        );
                                                    }
                                                    if !(__num::le(n, 10u64)) {
                                                        return Some(
                                                            __err::maximum(
                                                                "/properties/times/maximum",
                                                                __path.into(),
                                                                instance,
                                                                __sj::Value::Number(__sj::Number::from(10u64)),
                                                            ),
                                                        );
                                                    }
                                                }
                                                _ => {
                                                    return Some(
                                                        __err::single_type(
                                                            "/properties/times/type",
                                                            __path.into(),
                                                            instance,
                                                            __JT::Integer,
                                                        ),
                                                    );
                                                }
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
                                    "name",
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
                                    if !(obj.contains_key("name")) {
                                        return Some(
                                            __err::required(
                                                "/required",
                                                __path.into(),
                                                instance,
                                                "name",
                                            ),
                                        );
                                    }
                                    None
                                })(),
                            );
                        if let Some(value) = obj.get("name") {
                            let instance = value;
                            if !(instance.is_string()) {
                                let __path = &__path.push("name");
                                if !(instance.is_string()) {
                                    __errors
                                        .push(
                                            __err::single_type(
                                                "/properties/name/type",
                                                __path.into(),
                                                instance,
                                                __JT::String,
                                            ),
                                        );
                                }
                            }
                        }
                        if let Some(value) = obj.get("language") {
                            let instance = value;
                            if !(match instance {
                                __Value::String(s) => {
                                    matches!(s.as_str(), "en" | "fr" | "de")
                                }
                                _ => false,
                            }) {
                                let __path = &__path.push("language");
                                __errors
                                    .extend(
                                        (|| -> Option<__VE<'_>> {
                                            if !(match instance {
                                                __Value::String(s) => {
                                                    matches!(s.as_str(), "en" | "fr" | "de")
                                                }
                                                _ => false,
                                            }) {
                                                static ENUM_OPTIONS: __Lazy<
                                                    ::std::sync::Arc<__sj::Value>,
                                                > = __Lazy::new(|| {
                                                    ::std::sync::Arc::new(
                                                        __sj::from_str("[\"en\",\"fr\",\"de\"]")
                                                            .expect("Failed to parse enum options"),
                                                    )
                                                });
                                                return Some(
                                                    __err::enumeration(
                                                        "/properties/language/enum",
                                                        __path.into(),
                                                        instance,
                                                        &*ENUM_OPTIONS,
                                                    ),
                                                );
                                            }
                                            None
                                        })(),
                                    );
                            }
                        }
                        if let Some(value) = obj.get("times") {
                            let instance = value;
                            if !(match instance {
                                __Value::Number(n) if __types::is_integer(n) => {
                                    (__num::ge(n, 1u64)) && (__num::le(n, 10u64))
                                }
                                _ => false,
                            }) {
                                let __path = &__path.push("times");
                                match instance {
                                    __Value::Number(n) => {
                                        if !(__types::is_integer(n)) {
                                            __errors
                                                .push(
                                                    __err::single_type(
                                                        "/properties/times/type",
                                                        __path.into(),
                                                        instance,
                                                        __JT::Integer,
                                                    ),
                                                );
                                        }
                                        if !(__num::ge(n, 1u64)) {
                                            __errors
                                                .push(
                                                    __err::minimum(
                                                        "/properties/times/minimum",
                                                        __path.into(),
                                                        instance,
                                                        __sj::Value::Number(__sj::Number::from(1u64)),
                                                    ),
                                                );
                                        }
                                        if !(__num::le(n, 10u64)) {
                                            __errors
                                                .push(
                                                    __err::maximum(
                                                        "/properties/times/maximum",
                                                        __path.into(),
                                                        instance,
                                                        __sj::Value::Number(__sj::Number::from(10u64)),
                                                    ),
                                                );
                                        }
                                    }
                                    _ => {
                                        __errors
                                            .push(
                                                __err::single_type(
                                                    "/properties/times/type",
                                                    __path.into(),
                                                    instance,
                                                    __JT::Integer,
                                                ),
                                            );
                                    }
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
                                    "greetings" => {
                                        match instance {
                                            __Value::Array(arr) => {
                                                arr.iter().all(|instance| instance.is_string())
                                            }
                                            _ => false,
                                        }
                                    }
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
                                "greetings" => {
                                    let instance = value;
                                    let __path = &__path.push("greetings");
                                    match instance {
                                        __Value::Array(arr) => {
                                            for (idx, item) in arr.iter().enumerate() {
                                                let instance = item;
                                                let __path = &__path.push(idx);
                                                if !(instance.is_string()) {
                                                    return Some(
                                                        __err::single_type(
                                                            "/properties/greetings/items/type",
                                                            __path.into(),
                                                            instance,
                                                            __JT::String,
                                                        ),
                                                    );
                                                }
                                            }
                                        }
                                        _ => {
                                            return Some(
                                                __err::single_type(
                                                    "/properties/greetings/type",
                                                    __path.into(),
                                                    instance,
                                                    __JT::Array,
                                                ),
                                            );
                                        }
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
                        if let Some(value) = obj.get("greetings") {
                            let instance = value;
                            if !(match instance {
                                __Value::Array(arr) => {
                                    arr.iter().all(|instance| instance.is_string())
                                }
                                _ => false,
                            }) {
                                let __path = &__path.push("greetings");
                                match instance {
                                    __Value::Array(arr) => {
                                        for (idx, item) in arr.iter().enumerate() {
                                            let instance = item;
                                            if !(instance.is_string()) {
                                                let __path = &__path.push(idx);
                                                if !(instance.is_string()) {
                                                    __errors
                                                        .push(
                                                            __err::single_type(
                                                                "/properties/greetings/items/type",
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
                                                    "/properties/greetings/type",
                                                    __path.into(),
                                                    instance,
                                                    __JT::Array,
                                                ),
                                            );
                                    }
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
