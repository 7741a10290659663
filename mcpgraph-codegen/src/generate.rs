//! The front-door API shared by the macro, the build.rs builder and the
//! CLI: read, load, validate and expand a file in one call, and on error a
//! skeleton of the public items so that user code still resolves.
//!
//! Policy stays with the front doors: which warnings are errors (the macro
//! cannot emit warnings), how diagnostics are printed, where code is
//! written. Nothing here panics on any input.

use std::path::Path;

use proc_macro2::TokenStream;
use quote::quote;

use crate::diag::Diagnostics;
use crate::expand::{ExpandOptions, expand};
use crate::ident::{camel, snake, unique};
use crate::model::{Pos, Tool};
use crate::yaml::LineIndex;

/// What a generation gives back.
pub struct Output {
    /// The generated code when the file has no errors; otherwise a skeleton
    /// of its public items (module per tool with its `Node` enum, `Server`)
    /// with no behaviour.
    pub tokens: TokenStream,
    /// Every error and warning, in file order.
    pub diagnostics: Diagnostics,
}

impl Output {
    /// Whether `tokens` is the real code: the file has no errors.
    pub fn is_ok(&self) -> bool {
        self.diagnostics.error_count() == 0
    }
}

/// Loads, validates and expands a graph file's text. `display_path` names
/// the file in messages.
///
/// ```
/// let src = "version: '1'\nserver: {name: s, version: '1'}\ntools: []\n";
/// let out = mcpgraph_codegen::generate_str(src, "g.yaml", &Default::default());
/// assert!(out.is_ok());
/// assert!(out.tokens.to_string().contains("struct Server"));
/// ```
pub fn generate_str(source: &str, display_path: &str, options: &ExpandOptions) -> Output {
    let (lowered, diagnostics) = crate::load_lowered(source, display_path);
    match lowered {
        Some(lowered) if diagnostics.error_count() == 0 => Output {
            tokens: expand(&lowered.file, options),
            diagnostics,
        },
        lowered => {
            let tools: Vec<&Tool> = lowered.as_ref().map_or_else(Vec::new, |l| {
                l.file
                    .tools
                    .iter()
                    .zip(&l.tools)
                    .filter(|(_, info)| !info.name_missing)
                    .map(|(tool, _)| tool)
                    .collect()
            });
            Output {
                tokens: skeleton_of(&tools, options),
                diagnostics,
            }
        }
    }
}

/// Reads the file at `path`, then as [`generate_str`]. A file that cannot
/// be read is an error naming its absolute path; a file that is not UTF-8
/// is an error at the first invalid byte.
pub fn generate_file(path: &Path, display_path: &str, options: &ExpandOptions) -> Output {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            let resolved = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
            let mut diagnostics = Diagnostics::io_error(
                display_path,
                &format!("cannot read the graph file `{}`: {e}", resolved.display()),
            );
            if let Some(item) = diagnostics.items.first_mut() {
                item.help = Some(
                    "the path is relative to the directory of the crate's `Cargo.toml`".to_owned(),
                );
            }
            // Not tracked: a file that does not exist cannot be included.
            let options = ExpandOptions {
                track_path: None,
                ..options.clone()
            };
            return Output {
                tokens: skeleton_of(&[], &options),
                diagnostics,
            };
        }
    };
    match String::from_utf8(bytes) {
        Ok(text) => generate_str(&text, display_path, options),
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let prefix = String::from_utf8_lossy(&e.as_bytes()[..valid]).into_owned();
            let pos = LineIndex::new(&prefix).pos(valid);
            let mut diagnostics = Diagnostics::new(display_path, &text);
            diagnostics
                .error(
                    Pos { offset: 0, ..pos },
                    "the graph file is not UTF-8 text: invalid byte here",
                )
                .help("save the file as UTF-8");
            Output {
                tokens: skeleton_of(&[], options),
                diagnostics,
            }
        }
    }
}

/// `path` as messages should show it: relative to the current directory
/// when it is inside it (rustc's own paths are relative to the directory
/// cargo runs it in), absolute otherwise.
pub fn display_path(path: &Path) -> String {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    std::env::current_dir()
        .ok()
        .and_then(|cwd| absolute.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or(absolute)
        .display()
        .to_string()
}

/// Pretty-prints generated tokens as a Rust file (prettyplease).
pub fn pretty(tokens: &TokenStream) -> Result<String, syn::Error> {
    let file: syn::File = syn::parse2(tokens.clone())?;
    Ok(prettyplease::unparse(&file))
}

/// The public items user code refers to, with no behaviour: `Server` only.
/// [`generate_str`] adds one module per tool it could read.
pub fn skeleton(krate: &syn::Path) -> TokenStream {
    skeleton_of(
        &[],
        &ExpandOptions {
            krate: krate.clone(),
            track_path: None,
        },
    )
}

/// The skeleton, emitted beside a build error so that one mistake in the
/// graph gives one error instead of a cascade of unresolved names.
fn skeleton_of(tools: &[&Tool], options: &ExpandOptions) -> TokenStream {
    let krate = &options.krate;
    let rt = quote!(#krate::__private);
    let track = options.track_path.as_ref().map(|path| {
        quote!(
            const _: &[u8] = ::core::include_bytes!(#path);
        )
    });
    let names: Vec<&str> = tools.iter().map(|t| t.name.value.as_str()).collect();
    let modules = unique(&names, snake, &["server", "__mcpgraph_compiled"]);
    let tool_modules = tools
        .iter()
        .zip(&modules)
        .map(|(tool, module)| tool_skeleton(tool, module, &rt));
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
                max_value_bytes: 1,
                max_history_bytes: 1,
                max_value_depth: 1,
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

        #(#tool_modules)*
    }
}

/// A tool module with the items `expand` gives it (`Node` with `ALL`, `id`
/// and `kind`; `Compiled`; `run`), for the nodes that could be read.
fn tool_skeleton(tool: &Tool, module: &syn::Ident, rt: &TokenStream) -> TokenStream {
    let ids: Vec<&str> = tool.nodes.iter().map(|n| n.id.value.as_str()).collect();
    let variants = unique(&ids, camel, &[]);
    let node_enum = crate::expand::node_enum(tool, &variants, rt);
    quote! {
        /// Placeholder emitted because the graph file has errors.
        pub mod #module {
            #node_enum

            /// Placeholder: the graph file has errors.
            pub struct Compiled;

            impl Compiled {
                /// Placeholder: the graph file has errors.
                pub fn new() -> ::core::result::Result<Self, #rt::StartupError> {
                    ::core::result::Result::Ok(Self)
                }
            }

            /// Placeholder: the graph file has errors.
            pub async fn run(
                _: &Compiled,
                _: &mut #rt::Execution,
            ) -> ::core::result::Result<(), #rt::NodeError> {
                ::core::result::Result::Err(#rt::NodeError::call("the graph file has errors"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skeleton_keeps_the_tools_that_could_be_read() {
        let src = "version: '1'\nserver: {name: s, version: '1'}\ntools:\n  - name: count_files\n    description: d\n    inputSchema: {type: object}\n    nodes:\n      - {id: entry, type: entry, next: nope}\n      - {id: list_dir, type: exit}\n";
        let out = generate_str(src, "g.yaml", &ExpandOptions::default());
        assert!(!out.is_ok());
        let text = pretty(&out.tokens).unwrap();
        assert!(text.contains("pub mod count_files"), "{text}");
        assert!(text.contains("ListDir"), "{text}");
        assert!(text.contains("pub struct Server"), "{text}");
    }

    #[test]
    fn unreadable_and_non_utf8_files() {
        let out = generate_file(
            Path::new("no/such.yaml"),
            "no/such.yaml",
            &ExpandOptions::default(),
        );
        let text = out.diagnostics.to_string();
        let abs = std::env::current_dir().unwrap().join("no/such.yaml");
        assert!(text.contains(&abs.display().to_string()), "{text}");
        let dir = std::env::temp_dir().join(format!("mcpgraph-gen-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bin.yaml");
        std::fs::write(&path, b"version: '1'\nserver: \xff\xfe\n").unwrap();
        let out = generate_file(&path, "bin.yaml", &ExpandOptions::default());
        let item = &out.diagnostics.items[0];
        assert_eq!((item.pos.line, item.pos.column), (2, 9));
        assert!(item.message.contains("not UTF-8"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
