//! The front-door API shared by the macro, the build.rs builder and the
//! CLI: load, validate and expand a file in one call.

use std::path::Path;

use proc_macro2::TokenStream;
use quote::quote;

use crate::expand::{ExpandOptions, expand};

/// Loads, validates and expands the graph file at `path`. On failure the
/// error is the rendered diagnostics (rustc style, every problem).
pub fn generate_file(path: &Path, krate: &syn::Path) -> Result<TokenStream, String> {
    let (graph, _source) = crate::load_file(path).map_err(|d| d.to_string())?;
    let track = std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .to_string_lossy()
        .into_owned();
    Ok(expand(
        &graph,
        &ExpandOptions {
            krate: krate.clone(),
            track_path: Some(track),
        },
    ))
}

/// The public items user code refers to, with no behaviour, emitted beside
/// a build error so that one mistake in the graph gives one error instead
/// of a cascade of unresolved names.
pub fn skeleton(krate: &syn::Path) -> TokenStream {
    let rt = quote!(#krate::__private);
    quote! {
        /// Placeholder emitted because the graph file has errors.
        #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
        pub struct Server;

        impl Server {
            /// Placeholder: the graph file has errors.
            pub fn main() -> ::std::process::ExitCode {
                ::std::process::ExitCode::FAILURE
            }
        }

        impl #rt::Graph for Server {
            type Compiled = ();
            const SERVER: #rt::ServerMeta = #rt::ServerMeta {
                name: "",
                version: "",
                title: "",
                instructions: ::core::option::Option::None,
            };
            const TOOLS: &'static [#rt::ToolMeta] = &[];
            const SERVERS: &'static [#rt::ServerDef] = &[];
            const LIMITS: #rt::Limits = #rt::Limits {
                max_node_executions: 1,
                max_execution_time_ms: 1,
                max_expression_depth: 1,
                max_expression_time_ms: 1,
            };
            fn compile() -> ::core::result::Result<(), #rt::StartupError> {
                ::core::result::Result::Ok(())
            }
            fn run<'a>(
                _: &'a (),
                _: usize,
                _: &'a mut #rt::Execution,
            ) -> #rt::RunFuture<'a> {
                ::std::boxed::Box::pin(async {
                    ::core::result::Result::Err(#rt::NodeError::call("the graph file has errors"))
                })
            }
        }
    }
}
