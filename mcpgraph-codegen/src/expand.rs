//! Turns a validated [`GraphFile`] into Rust tokens.
//!
//! Per tool: a module named after the tool holding `enum Node` (one variant
//! per node), `struct Compiled` (the tool's expressions, parsed once at
//! start-up) and `async fn run`, a loop over `Node` that calls one runtime
//! operation per node. Per file: `struct Server`, implementing the
//! runtime's `Graph` trait with the metadata. Everything the generated code
//! needs is reached through `<crate>::__private`, so it compiles after a
//! rename of the facade dependency. This module assumes validation passed.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

use crate::ident::{camel, snake, unique};
use crate::model::{Arg, GraphFile, Logic, McpServer, NodeKind, Tool, Transport};

/// Options of one expansion.
#[derive(Clone)]
pub struct ExpandOptions {
    /// Path of the crate generated code reaches the runtime through
    /// (default `::mcpgraph`), for users who renamed the dependency.
    pub krate: syn::Path,
    /// Absolute path of the graph file, embedded with `include_bytes!` so
    /// cargo rebuilds when it changes. `None` for front ends that track it
    /// themselves (build.rs).
    pub track_path: Option<String>,
}

impl Default for ExpandOptions {
    fn default() -> Self {
        Self {
            krate: syn::parse_quote!(::mcpgraph),
            track_path: None,
        }
    }
}

/// Generates the code for `graph`.
pub fn expand(graph: &GraphFile, options: &ExpandOptions) -> TokenStream {
    let krate = &options.krate;
    let rt = quote!(#krate::__private);
    let tool_names: Vec<&str> = graph.tools.iter().map(|t| t.name.value.as_str()).collect();
    let modules = unique(&tool_names, snake, &["server", "__mcpgraph_compiled"]);

    let tool_modules = graph
        .tools
        .iter()
        .zip(&modules)
        .map(|(tool, module)| expand_tool(tool, module, &rt));
    let tool_metas = graph.tools.iter().map(|tool| tool_meta(tool, &rt));
    let server_defs = graph.mcp_servers.iter().map(|s| server_def(s, &rt));
    let compiled_fields = modules.iter().map(|m| quote!(#m: #m::Compiled));
    let compiled_inits = modules.iter().map(|m| quote!(#m: #m::Compiled::new()?));
    let run_arms = modules
        .iter()
        .enumerate()
        .map(|(i, m)| quote!(#i => ::std::boxed::Box::pin(#m::run(&compiled.#m, exec))));

    let meta = &graph.server;
    let name = &meta.name.value;
    let version = &meta.version.value;
    let title = meta.title.as_ref().map_or(name, |t| &t.value);
    let instructions = match &meta.instructions {
        Some(text) => {
            let text = &text.value;
            quote!(::core::option::Option::Some(#text))
        }
        None => quote!(::core::option::Option::None),
    };
    let limits = &graph.limits;
    let (max_nodes, max_time, max_depth, max_expr_time) = (
        limits.max_node_executions,
        limits.max_execution_time_ms,
        limits.max_expression_depth,
        limits.max_expression_time_ms,
    );
    let (max_value_bytes, max_history_bytes, max_value_depth) = (
        limits.max_value_bytes,
        limits.max_history_bytes,
        limits.max_value_depth,
    );
    let track = options.track_path.as_ref().map(|path| {
        quote!(
            const _: &[u8] = ::core::include_bytes!(#path);
        )
    });
    let doc = format!(" The MCP server `{name}` {version}, compiled from its graph file.");

    quote! {
        #track

        #[doc = #doc]
        #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
        pub struct Server;

        impl Server {
            /// Runs the server's command line: `serve` (stdio, the default),
            /// `tools`, `call TOOL JSON`; see `--help`.
            pub fn main() -> ::std::process::ExitCode {
                #rt::cli::main::<Server>()
            }
        }

        #[doc(hidden)]
        pub struct __McpgraphCompiled {
            #(#compiled_fields,)*
        }

        impl #rt::Graph for Server {
            type Compiled = __McpgraphCompiled;

            const SERVER: #rt::ServerMeta = #rt::ServerMeta {
                name: #name,
                version: #version,
                title: #title,
                instructions: #instructions,
            };
            const TOOLS: &'static [#rt::ToolMeta] = &[#(#tool_metas),*];
            const SERVERS: &'static [#rt::ServerDef] = &[#(#server_defs),*];
            const LIMITS: #rt::Limits = #rt::Limits {
                max_node_executions: #max_nodes,
                max_execution_time_ms: #max_time,
                max_expression_depth: #max_depth,
                max_expression_time_ms: #max_expr_time,
                max_value_bytes: #max_value_bytes,
                max_history_bytes: #max_history_bytes,
                max_value_depth: #max_value_depth,
            };

            fn compile() -> ::core::result::Result<Self::Compiled, #rt::StartupError> {
                ::core::result::Result::Ok(__McpgraphCompiled {
                    #(#compiled_inits,)*
                })
            }

            fn run<'a>(
                compiled: &'a Self::Compiled,
                tool: usize,
                exec: &'a mut #rt::Execution,
            ) -> #rt::RunFuture<'a> {
                match tool {
                    #(#run_arms,)*
                    _ => ::std::boxed::Box::pin(async move {
                        ::core::result::Result::Err(#rt::NodeError::call("no such tool"))
                    }),
                }
            }
        }

        #(#tool_modules)*
    }
}

fn tool_meta(tool: &Tool, rt: &TokenStream) -> TokenStream {
    let name = &tool.name.value;
    let description = &tool.description;
    let input = tool.input_schema.to_string();
    let output = match &tool.output_schema {
        Some(schema) => {
            let text = schema.to_string();
            quote!(::core::option::Option::Some(#text))
        }
        None => quote!(::core::option::Option::None),
    };
    quote! {
        #rt::ToolMeta {
            name: #name,
            description: #description,
            input_schema: #input,
            output_schema: #output,
        }
    }
}

fn pairs(items: &[(String, String)]) -> TokenStream {
    let items = items.iter().map(|(k, v)| quote!((#k, #v)));
    quote!(&[#(#items),*])
}

fn server_def(server: &McpServer, rt: &TokenStream) -> TokenStream {
    let name = &server.name.value;
    let transport = match &server.transport {
        Transport::Stdio {
            command,
            args,
            cwd,
            env,
        } => {
            let cwd = match cwd {
                Some(cwd) => quote!(::core::option::Option::Some(#cwd)),
                None => quote!(::core::option::Option::None),
            };
            let env = pairs(env);
            quote! {
                #rt::TransportDef::Stdio {
                    command: #command,
                    args: &[#(#args),*],
                    cwd: #cwd,
                    env: #env,
                }
            }
        }
        Transport::StreamableHttp { url, headers } => {
            let headers = pairs(headers);
            quote!(#rt::TransportDef::StreamableHttp { url: #url, headers: #headers })
        }
        Transport::Sse { url, headers } => {
            let headers = pairs(headers);
            quote!(#rt::TransportDef::Sse { url: #url, headers: #headers })
        }
    };
    let millis = |ms: Option<u64>| match ms {
        Some(ms) => quote!(::core::option::Option::Some(#ms)),
        None => quote!(::core::option::Option::None),
    };
    let (timeout, ping_timeout) = (millis(server.timeout_ms), millis(server.ping_timeout_ms));
    quote! {
        #rt::ServerDef {
            name: #name,
            transport: #transport,
            timeout_ms: #timeout,
            ping_timeout_ms: #ping_timeout,
        }
    }
}

fn expand_tool(tool: &Tool, module: &Ident, rt: &TokenStream) -> TokenStream {
    let ids: Vec<&str> = tool.nodes.iter().map(|n| n.id.value.as_str()).collect();
    let variants = unique(&ids, camel, &[]);
    let fields = unique(&ids, snake, &[]);
    let variant_of = |id: &str| -> &Ident {
        let index = ids.iter().position(|i| *i == id).unwrap_or(0);
        &variants[index]
    };
    let entry = tool
        .nodes
        .iter()
        .position(|n| matches!(n.kind, NodeKind::Entry { .. }))
        .map_or_else(|| variants[0].clone(), |i| variants[i].clone());

    let mut field_decls = Vec::new();
    let mut field_inits = Vec::new();
    let mut arms = Vec::new();
    for ((node, variant), field) in tool.nodes.iter().zip(&variants).zip(&fields) {
        let arm = match &node.kind {
            NodeKind::Entry { next } => {
                let next = variant_of(&next.value);
                quote!(Node::#variant => { exec.entry()?; Node::#next })
            }
            NodeKind::Exit => {
                quote!(Node::#variant => { exec.exit(); return ::core::result::Result::Ok(()); })
            }
            NodeKind::Transform { expr, next } => {
                let source = &expr.source;
                field_decls.push(quote!(#field: #rt::Expr));
                field_inits.push(quote!(#field: #rt::Expr::parse(#source)?));
                let next = variant_of(&next.value);
                quote!(Node::#variant => { exec.transform(&self_.#field)?; Node::#next })
            }
            NodeKind::Mcp {
                server,
                tool: remote,
                args,
                next,
            } => {
                let (server, remote) = (&server.value, &remote.value);
                let args = expand_args(args, rt);
                field_decls.push(quote!(#field: #rt::Args));
                field_inits.push(quote!(#field: #args));
                let next = variant_of(&next.value);
                quote!(Node::#variant => { exec.mcp(#server, #remote, &self_.#field).await?; Node::#next })
            }
            NodeKind::Switch { conditions, next } => {
                let rules = conditions.iter().map(|c| {
                    let RewrittenRule {
                        json,
                        vars,
                        needs_context,
                    } = rewrite_rule(&c.rule);
                    quote!(#rt::Rule { json: #json, vars: &[#(#vars),*], needs_context: #needs_context })
                });
                field_decls.push(quote!(#field: #rt::Switch));
                field_inits.push(quote!(#field: #rt::Switch::new(&[#(#rules),*])?));
                let branches = conditions.iter().enumerate().map(|(i, c)| {
                    let target = variant_of(&c.next.value);
                    quote!(::core::option::Option::Some(#i) => Node::#target)
                });
                let default = variant_of(&next.value);
                quote! {
                    Node::#variant => {
                        let next = match exec.switch(&self_.#field)? {
                            #(#branches,)*
                            _ => Node::#default,
                        };
                        exec.switched(next.id())?;
                        next
                    }
                }
            }
        };
        arms.push(arm);
    }

    let node_enum = node_enum(tool, &variants, rt);
    // A tool without expressions has nothing to read from `Compiled`.
    let compiled_param = if field_decls.is_empty() {
        quote!(_: &Compiled)
    } else {
        quote!(self_: &Compiled)
    };
    let tool_name = &tool.name.value;
    let doc = format!(" The tool `{tool_name}`: its nodes and its state machine.");
    quote! {
        #[doc = #doc]
        pub mod #module {
            #node_enum

            /// The tool's expressions, parsed once at start-up.
            pub struct Compiled {
                #(#field_decls,)*
            }

            impl Compiled {
                /// Parses every expression of the tool.
                pub fn new() -> ::core::result::Result<Self, #rt::StartupError> {
                    ::core::result::Result::Ok(Self {
                        #(#field_inits,)*
                    })
                }
            }

            /// Runs the tool's graph from its entry to its exit.
            pub async fn run(
                #compiled_param,
                exec: &mut #rt::Execution,
            ) -> ::core::result::Result<(), #rt::NodeError> {
                let mut node = Node::#entry;
                loop {
                    exec.enter(node.id(), node.kind()).await?;
                    node = match node {
                        #(#arms)*
                    };
                }
            }
        }
    }
}

/// `enum Node` of a tool (one variant per node, in file order) with its
/// `ALL`, `id()` and `kind()`; shared with the skeleton emitted on error.
pub(crate) fn node_enum(tool: &Tool, variants: &[Ident], rt: &TokenStream) -> TokenStream {
    let ids = tool.nodes.iter().map(|n| n.id.value.as_str());
    let id_arms = variants
        .iter()
        .zip(ids)
        .map(|(v, id)| quote!(Node::#v => #id));
    let kind_arms = variants.iter().zip(&tool.nodes).map(|(v, node)| {
        let kind = match node.kind {
            NodeKind::Entry { .. } => quote!(Entry),
            NodeKind::Exit => quote!(Exit),
            NodeKind::Mcp { .. } => quote!(Mcp),
            NodeKind::Transform { .. } => quote!(Transform),
            NodeKind::Switch { .. } => quote!(Switch),
        };
        quote!(Node::#v => #rt::NodeType::#kind)
    });
    let count = variants.len();
    quote! {
        /// One variant per node of the tool's graph.
        #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::cmp::PartialEq, ::core::cmp::Eq, ::core::hash::Hash)]
        #[allow(clippy::enum_variant_names)]
        pub enum Node {
            #(#variants,)*
        }

        impl Node {
            /// Every node, in file order.
            pub const ALL: [Node; #count] = [#(Node::#variants),*];

            /// The node's id in the graph file.
            pub const fn id(self) -> &'static str {
                match self {
                    #(#id_arms,)*
                }
            }

            /// The node's type.
            pub const fn kind(self) -> #rt::NodeType {
                match self {
                    #(#kind_arms,)*
                }
            }
        }
    }
}

fn expand_args(arg: &Arg, rt: &TokenStream) -> TokenStream {
    match arg {
        Arg::Expr(expr) => {
            let source = &expr.source;
            quote!(#rt::Args::expr(#source)?)
        }
        Arg::Object(fields) => {
            let fields = fields.iter().map(|(key, value)| {
                let value = expand_args(value, rt);
                quote!((#key, #value))
            });
            quote!(#rt::Args::Object(::std::vec![#(#fields),*]))
        }
        Arg::Array(items) => {
            let items = items.iter().map(|item| expand_args(item, rt));
            quote!(#rt::Args::Array(::std::vec![#(#items),*]))
        }
        Arg::Literal(value) => {
            let json = value.to_string();
            quote!(#rt::Args::literal(#json)?)
        }
    }
}

/// Operators whose later arguments are evaluated once per item, in a scope
/// of their own: there, a slot must climb back to the root data.
const ITERATING: &[&str] = &["map", "filter", "reduce", "all", "some", "none"];

/// The key of the data object under which the runtime puts slot values;
/// must match `mcpgraph_runtime`'s `SLOT_KEY`. A NUL character cannot
/// clash with a node id anyone writes.
const SLOT_KEY: &str = "\u{0}";

/// Operators that read the data by path themselves: a rule using them is
/// given the whole context (as mcpGraph gives it) besides the slots.
const READ_DATA: &[&str] = &["missing", "missing_some"];

/// A switch rule rewritten for the runtime.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RewrittenRule {
    /// The rule as JSON text, every `var` replaced by a slot read.
    pub json: String,
    /// The JSONata source of each slot, in slot order.
    pub vars: Vec<String>,
    /// Whether the rule reads the context itself (`missing`,
    /// `missing_some`), so the runtime must pass it as data.
    pub needs_context: bool,
}

/// Rewrites a rule for the runtime: every `{"var": S}` becomes a slot read
/// from the data (`{"val": [SLOT_KEY, "i"]}`, with a scope level inside
/// iterating operators so it still reads the root) and `S` becomes slot `i`.
pub fn rewrite_rule(rule: &Logic) -> RewrittenRule {
    fn walk(
        logic: &Logic,
        depth: u64,
        vars: &mut Vec<String>,
        needs_context: &mut bool,
    ) -> serde_json::Value {
        use serde_json::{Value, json};
        match logic {
            Logic::Var(expr) => {
                let slot = vars.len().to_string();
                vars.push(expr.source.clone());
                if depth == 0 {
                    json!({"val": [SLOT_KEY, slot]})
                } else {
                    json!({"val": [[depth], SLOT_KEY, slot]})
                }
            }
            Logic::Literal(value) => value.clone(),
            Logic::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|i| walk(i, depth, vars, needs_context))
                    .collect(),
            ),
            Logic::Object(entries) => {
                let mut map = serde_json::Map::new();
                for (key, value) in entries {
                    let op = key.value.as_str();
                    *needs_context |= READ_DATA.contains(&op);
                    let rewritten = match value {
                        Logic::Array(args) if ITERATING.contains(&op) => Value::Array(
                            args.iter()
                                .enumerate()
                                .map(|(i, a)| {
                                    let inner = i == 1;
                                    walk(
                                        a,
                                        if inner { depth + 1 } else { depth },
                                        vars,
                                        needs_context,
                                    )
                                })
                                .collect(),
                        ),
                        other => walk(other, depth, vars, needs_context),
                    };
                    map.insert(key.value.clone(), rewritten);
                }
                Value::Object(map)
            }
        }
    }
    let mut vars = Vec::new();
    let mut needs_context = false;
    let json = walk(rule, 0, &mut vars, &mut needs_context).to_string();
    RewrittenRule {
        json,
        vars,
        needs_context,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Expr, Pos, Sp};

    fn var(s: &str) -> Logic {
        Logic::Var(Expr {
            source: s.into(),
            pos: Pos::default(),
            spans: Vec::new(),
        })
    }

    fn op(name: &str, args: Vec<Logic>) -> Logic {
        Logic::Object(vec![(
            Sp::new(name.into(), Pos::default()),
            Logic::Array(args),
        )])
    }

    #[test]
    fn vars_become_slots_that_reach_the_root() {
        let rule = op(
            "all",
            vec![
                var("$.a.items"),
                op(">", vec![var("$.b.min"), Logic::Literal(0.into())]),
            ],
        );
        let rewritten = rewrite_rule(&rule);
        assert_eq!(
            rewritten.json,
            r#"{"all":[{"val":["\u0000","0"]},{">":[{"val":[[1],"\u0000","1"]},0]}]}"#
        );
        assert_eq!(rewritten.vars, ["$.a.items", "$.b.min"]);
        assert!(!rewritten.needs_context);
        let missing = op("missing", vec![Logic::Literal("entry.a".into())]);
        assert!(rewrite_rule(&missing).needs_context);
    }
}
