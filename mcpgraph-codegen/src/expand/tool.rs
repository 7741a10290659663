//! One tool's module: `enum Node` (one variant per node, in file order),
//! `struct Compiled` (the tool's expressions, built once at start-up from
//! the trees the generator parsed) and
//! `async fn run`, a loop over `Node` that calls one runtime operation per
//! node, so that a reader follows the state machine top to bottom.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

use super::lit;
use super::node::{self, Targets};
use super::schema::{ToolSchemas, validator_module};
use crate::ident::{camel, snake, unique};
use crate::model::{NodeKind, Tool};

/// The module of `tool`, named `module`, holding the schema validators
/// `schemas` assigns it; `tools`: the names of the graph's tools, in order.
pub(super) fn expand_tool(
    tool: &Tool,
    module: &Ident,
    schemas: &ToolSchemas<'_>,
    tools: &[&str],
    krate: &syn::Path,
) -> TokenStream {
    let ids: Vec<&str> = tool.nodes.iter().map(|n| n.id.value.as_str()).collect();
    let variants = unique(&ids, camel, &[]);
    let fields = unique(&ids, snake, &[]);
    let entry = variants[tool.entry().unwrap_or(0)].clone();

    let targets = Targets {
        tool,
        variants: &variants,
    };
    let mut field_decls = Vec::new();
    let mut field_inits = Vec::new();
    let mut arms = Vec::new();
    for ((node, variant), field) in tool.nodes.iter().zip(&variants).zip(&fields) {
        let code = node::code(&node.kind, field, &targets, tools);
        if let Some((ty, init)) = code.compiled {
            field_decls.push(quote!(#field: #ty));
            field_inits.push(quote!(#field: #init));
        }
        let arm = code.arm;
        arms.push(quote!(Node::#variant => #arm));
    }

    let node_enum = node_enum(tool, &variants);
    // A tool without expressions has nothing to read from `Compiled`.
    let compiled_param = if field_decls.is_empty() {
        quote!(_: &Compiled)
    } else {
        quote!(compiled: &Compiled)
    };
    let validators = schemas
        .modules
        .iter()
        .map(|(name, schema)| validator_module(schema, name, krate));
    let doc = format!(
        " The tool `{}`: its nodes and its state machine.",
        tool.name.value
    );
    quote! {
        #[doc = #doc]
        pub mod #module {
            use #krate::__private as rt;

            #node_enum

            /// The tool's expressions, built once at start-up.
            pub struct Compiled {
                #(#field_decls,)*
            }

            impl Compiled {
                /// Builds every expression of the tool from its parsed tree.
                pub fn new() -> rt::Result<Self, rt::StartupError> {
                    rt::Ok(Self {
                        #(#field_inits,)*
                    })
                }
            }

            /// Runs the tool's graph from its entry to its exit.
            pub async fn run(
                #compiled_param,
                exec: &mut rt::Execution,
            ) -> rt::Result<(), rt::NodeError> {
                let mut node = Node::#entry;
                loop {
                    exec.enter(node.id(), node.kind()).await?;
                    node = match node {
                        #(#arms)*
                    };
                }
            }

            #(#validators)*
        }
    }
}

/// `enum Node` of a tool (one variant per node, in file order) with its
/// `ALL`, `id()` and `kind()`; shared with the skeleton emitted on error.
/// Expects `rt` in scope.
pub(super) fn node_enum(tool: &Tool, variants: &[Ident]) -> TokenStream {
    let ids = tool.nodes.iter().map(|n| n.id.value.as_str());
    let id_arms = variants.iter().zip(ids).map(|(v, id)| {
        let id = lit::string(id);
        quote!(Node::#v => #id)
    });
    let kind_arms = variants.iter().zip(&tool.nodes).map(|(v, node)| {
        let kind = match node.kind {
            NodeKind::Entry { .. } => quote!(Entry),
            NodeKind::Exit => quote!(Exit),
            NodeKind::Mcp { .. } => quote!(Mcp),
            NodeKind::Transform { .. } => quote!(Transform),
            NodeKind::Switch { .. } => quote!(Switch),
            NodeKind::Elicit { .. } => quote!(Elicit),
            NodeKind::Parallel { .. } => quote!(Parallel),
            NodeKind::ForEach { .. } => quote!(ForEach),
        };
        quote!(Node::#v => rt::NodeType::#kind)
    });
    let count = lit::index(variants.len());
    quote! {
        /// One variant per node of the tool's graph.
        #[derive(rt::Clone, rt::Copy, rt::Debug, rt::PartialEq, rt::Eq, rt::Hash)]
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
            pub const fn kind(self) -> rt::NodeType {
                match self {
                    #(#kind_arms,)*
                }
            }
        }
    }
}
