//! Turns a validated [`GraphFile`] into Rust tokens.
//!
//! Per file: `struct Server`, implementing the runtime's `Graph` trait with
//! the server's metadata and a dispatch to the tools (this module). Per
//! tool: a module named after it with `enum Node`, `struct Compiled` and
//! `async fn run`, its state machine ([`tool`]). Everything the generated
//! code needs is reached through `<crate>::__private` (the runtime's
//! `codegen` module), imported once per scope as `rt`, so it compiles after
//! a rename of the facade dependency and without the prelude. Literals are
//! written as a person would ([`lit`]); switch rules are rewritten for the
//! runtime ([`rule`]). On error, [`skeleton`] stands in. This module
//! assumes validation passed.

mod args;
mod fanout;
mod jsonata;
mod lit;
mod map;
mod node;
mod resilience;
mod rule;
mod schema;
mod skeleton;
mod tool;

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

use crate::ident::{snake, unique};
use crate::lock::Lock;
use crate::model::{GraphFile, McpServer, Tool, Transport};

pub use rule::{RewrittenRule, rewrite_rule};
pub use skeleton::skeleton;
pub(crate) use skeleton::skeleton_of;

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
    /// Fail when the graph's lock (`<graph>.lock.json`) is missing (the
    /// macro's `require_lock`, `Builder::require_lock`).
    pub require_lock: bool,
    /// Absolute path of the graph's lock, embedded like `track_path`. Set
    /// by [`generate_file`](crate::generate_file) when the lock exists and
    /// `track_path` is set.
    pub track_lock: Option<String>,
    /// The lock entries of the tools the graph calls, as JSON text,
    /// embedded as `Graph::LOCK` for the run-time drift check. Set by
    /// [`generate_file`](crate::generate_file) when the lock exists.
    pub embed_lock: Option<String>,
    /// The graph's lock, which tools' annotations are derived from. Set by
    /// [`generate_file`](crate::generate_file) when the lock exists.
    pub lock: Option<Lock>,
    /// The graph's test file (`<graph>.test.yaml`), checked, as the JSON
    /// embedded as `Graph::TESTS`. Set by
    /// [`generate_file`](crate::generate_file) when the file exists.
    pub embed_tests: Option<String>,
    /// Absolute path of the test file, embedded like `track_path`.
    pub track_tests: Option<String>,
    /// How messages in the generated code name the graph file, as its
    /// diagnostics do. Set by [`generate_str`](crate::generate_str) and
    /// [`generate_file`](crate::generate_file) from their `display_path`.
    pub display_path: Option<String>,
    /// What a relative graph path is relative to, for the help beside a
    /// graph file that cannot be read: for the macro and build.rs (the
    /// default) the directory of the crate's `Cargo.toml`; for the CLI
    /// the current directory.
    pub relative_to: std::borrow::Cow<'static, str>,
}

impl Default for ExpandOptions {
    fn default() -> Self {
        Self {
            krate: syn::parse_quote!(::mcpgraph),
            track_path: None,
            require_lock: false,
            track_lock: None,
            embed_lock: None,
            lock: None,
            embed_tests: None,
            track_tests: None,
            display_path: None,
            relative_to: "the directory of the crate's `Cargo.toml`".into(),
        }
    }
}

/// The module name of each tool, in file order: its name in snake case,
/// numbered on a collision, never a name the expansion uses itself.
fn tool_modules(tools: &[&Tool]) -> Vec<Ident> {
    let names: Vec<&str> = tools.iter().map(|t| t.name.value.as_str()).collect();
    unique(&names, snake, &["server", "__mcpgraph_compiled"])
}

/// `const _: &[u8] = include_bytes!(path);`, so cargo rebuilds when the
/// graph file (or its lock) changes.
fn track(options: &ExpandOptions) -> TokenStream {
    let paths = options
        .track_path
        .iter()
        .chain(&options.track_lock)
        .chain(&options.track_tests);
    quote!(#(const _: &[u8] = ::core::include_bytes!(#paths);)*)
}

/// Generates the code for `graph`.
pub fn expand(graph: &GraphFile, options: &ExpandOptions) -> TokenStream {
    let krate = &options.krate;
    let tools: Vec<&Tool> = graph.tools.iter().collect();
    let modules = tool_modules(&tools);
    let schemas = schema::plan(&tools, &modules);
    let names: Vec<&str> = tools.iter().map(|t| t.name.value.as_str()).collect();
    let tool_modules = tools
        .iter()
        .zip(&modules)
        .zip(&schemas)
        .map(|((tool, module), schemas)| tool::expand_tool(tool, module, schemas, &names, krate));
    let compiled_fields = modules.iter().map(|m| quote!(#m: #m::Compiled));
    let graph_impl = graph_impl(graph, &modules, &schemas, options);
    let track = track(options);
    let meta = &graph.server;
    let doc = format!(
        " The MCP server `{}` {}, compiled from its graph file.",
        meta.name.value, meta.version.value
    );

    quote! {
        #track

        #[doc = #doc]
        #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
        pub struct Server;

        impl Server {
            /// Runs the server's command line: `serve` (stdio, the default),
            /// `tools`, `call TOOL JSON`; see `--help`.
            pub fn main() -> ::std::process::ExitCode {
                #krate::__private::cli::main::<Server>()
            }
        }

        #[doc(hidden)]
        pub struct __McpgraphCompiled {
            #(#compiled_fields,)*
        }

        const _: () = {
            use #krate::__private as rt;

            #graph_impl
        };

        #(#tool_modules)*
    }
}

/// `impl rt::Graph for Server`: the metadata, start-up and the dispatch of
/// a call to its tool's `run`.
fn graph_impl(
    graph: &GraphFile,
    modules: &[Ident],
    schemas: &[schema::ToolSchemas<'_>],
    options: &ExpandOptions,
) -> TokenStream {
    let lock = options.embed_lock.as_deref().map(|text| {
        let text = lit::string(text);
        quote!(const LOCK: rt::Option<&'static str> = rt::Some(#text);)
    });
    let tests = options.embed_tests.as_deref().map(|text| {
        let text = lit::string(text);
        quote!(const TESTS: rt::Option<&'static str> = rt::Some(#text);)
    });
    let map = lit::string(&map::map(
        graph,
        options.display_path.as_deref().unwrap_or_default(),
    ));
    let tool_metas = graph
        .tools
        .iter()
        .zip(schemas)
        .map(|(t, s)| tool_meta(t, s, options.lock.as_ref()));
    let servers = graph.mcp_servers.iter().map(|s| &s.spec);
    // A graph that declares no server links no MCP client.
    let connect = if graph.mcp_servers.is_empty() {
        quote!(rt::no_servers)
    } else {
        quote!(rt::connect_servers)
    };
    let file = options.display_path.as_deref();
    let transport_checks = graph
        .mcp_servers
        .iter()
        .filter_map(|s| transport_checks(s, file));
    // One `let` per tool, then the struct: each early return drops the
    // tools built before it along one shared chain. (Calls of `new()?` as
    // the struct's fields gave each return its own drops of every tool
    // before it: code, and optimizer time, growing with the square of the
    // number of tools; 40,000 drop calls for 200 tools.)
    let compiled_lets = modules
        .iter()
        .map(|m| quote!(let #m = #m::Compiled::new()?;));
    let run_arms = modules.iter().enumerate().map(|(i, m)| {
        let i = lit::index(i);
        quote!(#i => rt::Box::pin(#m::run(&compiled.#m, exec)))
    });

    let meta = &graph.server;
    let name = lit::string(&meta.name.value);
    let version = lit::string(&meta.version.value);
    let title = lit::string(meta.title.as_ref().map_or(&meta.name.value, |t| &t.value));
    let instructions = lit::option(meta.instructions.as_ref().map(|t| lit::string(&t.value)));
    let limits = &graph.limits;

    quote! {
        #(#transport_checks)*

        impl rt::Graph for Server {
            type Compiled = __McpgraphCompiled;

            const SERVER: rt::ServerMeta = rt::ServerMeta {
                name: #name,
                version: #version,
                title: #title,
                instructions: #instructions,
            };
            const TOOLS: &'static [rt::ToolMeta] = &[#(#tool_metas),*];
            fn servers() -> rt::Vec<rt::ServerSpec> {
                rt::owned::vec([#(#servers),*])
            }
            const CONNECT: rt::Connect = #connect;
            const LIMITS: rt::Limits = #limits;
            #lock
            #tests
            const MAP: rt::Option<&'static str> = rt::Some(#map);

            fn compile() -> rt::Result<Self::Compiled, rt::StartupError> {
                #(#compiled_lets)*
                rt::Ok(__McpgraphCompiled {
                    #(#modules,)*
                })
            }

            fn run<'a>(
                compiled: &'a Self::Compiled,
                tool: usize,
                exec: &'a mut rt::Execution,
            ) -> rt::RunFuture<'a> {
                match tool {
                    #(#run_arms,)*
                    _ => rt::Box::pin(async { rt::Err(rt::NodeError::call("no such tool")) }),
                }
            }
        }
    }
}

/// `rt::ToolMeta` of `tool`, whose schemas are checked as `schemas` says
/// and whose annotations derive from `lock`.
fn tool_meta(tool: &Tool, schemas: &schema::ToolSchemas<'_>, lock: Option<&Lock>) -> TokenStream {
    let name = lit::string(&tool.name.value);
    let description = lit::string(&tool.description);
    let input = lit::string(&tool.input_schema.to_string());
    let output = lit::option(
        tool.output_schema
            .as_ref()
            .map(|s| lit::string(&s.to_string())),
    );
    let input_check = schemas.input.path();
    let output_check = lit::option(schemas.output.as_ref().map(schema::Check::path));
    let content = lit::option(tool.exit_content.as_ref().map(|c| {
        let from = c.from.iter().map(|n| lit::string(&n.value));
        let types = c.types.iter().map(|t| lit::string(t));
        let json = c.json.value;
        quote!(rt::ContentMeta { from: &[#(#from),*], types: &[#(#types),*], json: #json })
    }));
    let annotations =
        lit::option(crate::annotations::listed(tool, lock).map(|a| lit::string(&a.to_string())));
    let icons = lit::option(
        (!tool.icons.is_empty())
            .then(|| lit::string(&serde_json::Value::from(tool.icons.clone()).to_string())),
    );
    let required_scopes = tool.required_scopes.iter().map(|s| lit::string(s));
    let task = &tool.task;
    quote! {
        rt::ToolMeta {
            name: #name,
            description: #description,
            input_schema: #input,
            output_schema: #output,
            input_check: #input_check,
            output_check: #output_check,
            content: #content,
            annotations: #annotations,
            icons: #icons,
            required_scopes: &[#(#required_scopes),*],
            task: #task,
        }
    }
}

/// For an HTTP server: items that fail the build when the runtime was
/// built without its `http-client` feature, or when the URL is `https://`
/// and it was built without `tls` (the runtime decides, and names only
/// the first that is missing), naming the server and where it is declared
/// (in `file`, when the front end knows it).
fn transport_checks(server: &McpServer, file: Option<&str>) -> Option<TokenStream> {
    let (kind, url) = match &server.spec.transport {
        Transport::StreamableHttp { url, .. } => ("http", url),
        Transport::Sse { url, .. } => ("sse", url),
        Transport::Stdio { .. } => return None,
    };
    let pos = server.pos;
    let at = match file {
        Some(file) => format!("{file}:{}:{}", pos.line, pos.column),
        None => format!("line {}, column {} of the graph file", pos.line, pos.column),
    };
    let message = lit::string(&format!(
        "{at}: server `{}` calls {url}, and https:// needs mcpgraph's `tls` feature, which \
         this build turned off (default-features = false)",
        server.name()
    ));
    let client_message = lit::string(&format!(
        "{at}: server `{}` is a `type: {kind}` server, and calling HTTP servers needs \
         mcpgraph's `http-client` feature, which this build turned off \
         (default-features = false; add features = [\"http-client\"])",
        server.name()
    ));
    let url = lit::string(url);
    Some(quote! {
        const _: () = rt::require_http_client(#client_message);
        const _: () = rt::require_tls(#url, #message);
    })
}

#[cfg(test)]
#[path = "expand_tests.rs"]
mod tests;
