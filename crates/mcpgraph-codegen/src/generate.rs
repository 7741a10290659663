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
    let _ = krate;
    quote! {
        /// Placeholder emitted because the graph file has errors.
        pub struct Server;

        impl Server {
            /// Placeholder: the graph file has errors.
            pub fn main() -> ::std::process::ExitCode {
                ::std::process::ExitCode::FAILURE
            }
        }
    }
}
