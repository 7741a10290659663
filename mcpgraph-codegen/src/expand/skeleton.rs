//! The skeleton emitted beside a build error: the public items user code
//! refers to (`Server`, and a module per tool that could be read with its
//! `Node`, `Compiled` and `run`), with no behaviour, so that one mistake in
//! the graph gives one error instead of a cascade of unresolved names.

use proc_macro2::TokenStream;
use quote::quote;

use super::{ExpandOptions, tool_modules, track};
use crate::ident::{camel, unique};
use crate::model::Tool;

/// The public items user code refers to, with no behaviour: `Server` only.
/// [`generate_str`](crate::generate_str) adds one module per tool it could
/// read.
pub fn skeleton(krate: &syn::Path) -> TokenStream {
    skeleton_of(
        &[],
        &ExpandOptions {
            krate: krate.clone(),
            ..ExpandOptions::default()
        },
    )
}

/// The skeleton of a file whose readable tools are `tools`.
pub(crate) fn skeleton_of(tools: &[&Tool], options: &ExpandOptions) -> TokenStream {
    let krate = &options.krate;
    let track = track(options);
    let modules = tool_modules(tools);
    let tool_modules = tools
        .iter()
        .zip(&modules)
        .map(|(tool, module)| tool_skeleton(tool, module, krate));
    quote! {
        #track

        /// Placeholder emitted because the graph file has errors.
        #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
        pub struct Server;

        impl Server {
            /// Placeholder: the graph file has errors.
            pub fn main() -> ::std::process::ExitCode {
                ::std::process::ExitCode::FAILURE
            }
        }

        const _: () = {
            use #krate::__private as rt;

            impl rt::Graph for Server {
                type Compiled = ();
                const SERVER: rt::ServerMeta = rt::ServerMeta {
                    name: "",
                    version: "",
                    title: "",
                    instructions: rt::None,
                };
                const TOOLS: &'static [rt::ToolMeta] = &[];
                fn servers() -> rt::Vec<rt::ServerSpec> {
                    rt::Vec::new()
                }
                const CONNECT: rt::Connect = rt::connect_servers;
                const LIMITS: rt::Limits = rt::Limits {
                    max_node_executions: 1,
                    max_execution_time_ms: 1,
                    max_expression_depth: 1,
                    max_expression_time_ms: 1,
                    max_value_bytes: 1,
                    max_history_bytes: 1,
                    max_value_depth: 1,
                    max_call_depth: 1,
                    max_questions: 1,
                    max_answer_wait_ms: 1,
                };
                fn compile() -> rt::Result<(), rt::StartupError> {
                    rt::Ok(())
                }
                fn run<'a>(_: &'a (), _: usize, _: &'a mut rt::Execution) -> rt::RunFuture<'a> {
                    rt::Box::pin(async { rt::Err(rt::NodeError::call("the graph file has errors")) })
                }
            }
        };

        #(#tool_modules)*
    }
}

/// A tool module with the items `expand` gives it (`Node` with `ALL`, `id`
/// and `kind`; `Compiled`; `run`), for the nodes that could be read.
fn tool_skeleton(tool: &Tool, module: &syn::Ident, krate: &syn::Path) -> TokenStream {
    let ids: Vec<&str> = tool.nodes.iter().map(|n| n.id.value.as_str()).collect();
    let variants = unique(&ids, camel, &[]);
    let node_enum = super::tool::node_enum(tool, &variants);
    quote! {
        /// Placeholder emitted because the graph file has errors.
        pub mod #module {
            use #krate::__private as rt;

            #node_enum

            /// Placeholder: the graph file has errors.
            pub struct Compiled;

            impl Compiled {
                /// Placeholder: the graph file has errors.
                pub fn new() -> rt::Result<Self, rt::StartupError> {
                    rt::Ok(Self)
                }
            }

            /// Placeholder: the graph file has errors.
            pub async fn run(_: &Compiled, _: &mut rt::Execution) -> rt::Result<(), rt::NodeError> {
                rt::Err(rt::NodeError::call("the graph file has errors"))
            }
        }
    }
}
