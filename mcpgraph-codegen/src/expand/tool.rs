//! One tool's module: `enum Node` (one variant per node, in file order),
//! `struct Compiled` (the tool's expressions, built once at start-up from
//! the trees the generator parsed) and
//! `async fn run`, a loop over `Node` that calls one runtime operation per
//! node, so that a reader follows the state machine top to bottom.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

use super::schema::{ToolSchemas, validator_module};
use super::{fanout, jsonata, lit, resilience, rule};
use crate::ident::{camel, snake, unique};
use crate::model::{Arg, Message, NodeKind, Routes, Tool};

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
    // Validation guarantees every target and the entry exist; the skeleton
    // after errors falls back to the first node.
    let variant_of = |id: &str| -> &Ident { &variants[tool.position(id).unwrap_or(0)] };
    let entry = variants[tool.entry().unwrap_or(0)].clone();

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
                quote!(Node::#variant => { exec.exit(); return rt::Ok(()); })
            }
            NodeKind::Transform { expr, next } => {
                let init = jsonata::expr(&expr.source);
                field_decls.push(quote!(#field: rt::Expr));
                field_inits.push(quote!(#field: #init));
                let next = variant_of(&next.value);
                quote!(Node::#variant => { exec.transform(&compiled.#field)?; Node::#next })
            }
            NodeKind::Mcp {
                server,
                tool: remote,
                args,
                next,
                resilience: r,
                ..
            } => {
                let (server, remote) = (lit::string(&server.value), lit::string(&remote.value));
                let args = expand_args(args);
                field_decls.push(quote!(#field: rt::Args));
                field_inits.push(quote!(#field: #args));
                let next = variant_of(&next.value);
                let run = match resilience::constant(r) {
                    Some(r) => quote!(exec.mcp_with(#server, #remote, &compiled.#field, #r)),
                    None => quote!(exec.mcp(#server, #remote, &compiled.#field)),
                };
                let fallback = r.on_error.as_ref().map(|to| variant_of(&to.value));
                let body = resilience::arm(run, next, fallback);
                quote!(Node::#variant => #body)
            }
            NodeKind::Parallel {
                branches,
                max_concurrency,
                next,
                resilience: r,
            } => {
                field_decls.push(quote!(#field: rt::Parallel));
                let init = fanout::parallel(branches, *max_concurrency, r, tools);
                field_inits.push(quote!(#field: #init));
                let next = variant_of(&next.value);
                let fallback = r.on_error.as_ref().map(|to| variant_of(&to.value));
                let body = resilience::arm(quote!(exec.parallel(&compiled.#field)), next, fallback);
                quote!(Node::#variant => #body)
            }
            NodeKind::ForEach {
                items,
                call,
                max_concurrency,
                next,
                resilience: r,
            } => {
                field_decls.push(quote!(#field: rt::ForEach));
                let init = fanout::for_each(items, call, *max_concurrency, r, tools);
                field_inits.push(quote!(#field: #init));
                let next = variant_of(&next.value);
                let fallback = r.on_error.as_ref().map(|to| variant_of(&to.value));
                let body = resilience::arm(quote!(exec.for_each(&compiled.#field)), next, fallback);
                quote!(Node::#variant => #body)
            }
            NodeKind::Elicit {
                message,
                schema,
                routes,
            } => {
                let (init, arms) = expand_elicit(message, schema, routes, &variant_of);
                field_decls.push(quote!(#field: rt::Elicit));
                field_inits.push(quote!(#field: #init));
                quote!(Node::#variant => match exec.elicit(&compiled.#field).await? { #(#arms,)* })
            }
            NodeKind::Switch { conditions, next } => {
                let rules = conditions.iter().map(|c| {
                    let rule::RewrittenRule {
                        json,
                        value,
                        vars,
                        needs_context,
                    } = rule::rewrite_rule(&c.rule);
                    let json = lit::string(&json);
                    let tree = rule::tree(&value);
                    let slots = vars.iter().map(|v| jsonata::expr(v));
                    quote! {
                        rt::Condition {
                            json: #json,
                            tree: { use rt::logic as l; #tree },
                            slots: rt::Vec::from([#(#slots),*]),
                            needs_context: #needs_context,
                        }
                    }
                });
                field_decls.push(quote!(#field: rt::Switch));
                field_inits
                    .push(quote!(#field: rt::Switch::compiled(rt::Vec::from([#(#rules),*]))?));
                // The doc attribute carries the rule as written to `pretty`,
                // which prints it as a `//` comment above the branch.
                let branches = conditions.iter().enumerate().map(|(i, c)| {
                    let target = variant_of(&c.next.value);
                    let written = format!(" {}", rule::written(&c.rule));
                    let i = lit::index(i);
                    quote!(#[doc = #written] rt::Some(#i) => Node::#target)
                });
                let default = variant_of(&next.value);
                quote! {
                    Node::#variant => {
                        let next = match exec.switch(&compiled.#field)? {
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

/// An `elicit` node: the initializer of its `rt::Elicit` (the message, the
/// form as JSON text, the answers that have a route) and the arms of the
/// match on its answer. The runtime ends the call on an answer without a
/// route, so the last arm, for those, is never taken.
fn expand_elicit<'v>(
    message: &Message,
    schema: &serde_json::Value,
    routes: &Routes,
    variant_of: &dyn Fn(&str) -> &'v Ident,
) -> (TokenStream, Vec<TokenStream>) {
    let message = match message {
        Message::Text(text) => {
            let text = lit::string(text);
            quote!(rt::Args::Literal(rt::serde_json::Value::from(#text)))
        }
        Message::Expr(expr) => jsonata::args(&expr.source),
    };
    let schema = lit::string(&schema.to_string());
    let answer = |name: &str| Ident::new(&camel(name), proc_macro2::Span::call_site());
    let routed = routes.iter().map(|(name, _)| {
        let answer = answer(name);
        quote!(rt::Answer::#answer)
    });
    let init = quote!(rt::Elicit::new(#message, #schema, &[#(#routed),*])?);
    let mut arms: Vec<TokenStream> = routes
        .iter()
        .map(|(name, to)| {
            let (answer, to) = (answer(name), variant_of(&to.value));
            quote!(rt::Answer::#answer => Node::#to)
        })
        .collect();
    if routes.iter().count() < 3 {
        arms.push(quote!(_ => return rt::Err(rt::NodeError::call("an answer without a route"))));
    }
    (init, arms)
}

/// The arguments of an `mcp` node: `rt::Args` built from arrays
/// (`rt::Vec::from([..])`, which prettyplease formats, unlike `vec![..]`).
pub(super) fn expand_args(arg: &Arg) -> TokenStream {
    match arg {
        Arg::Expr(expr) => jsonata::args(&expr.source),
        Arg::Object(fields) => {
            let fields = fields.iter().map(|(key, value)| {
                let (key, value) = (lit::string(&key.value), expand_args(value));
                quote!((#key, #value))
            });
            quote!(rt::Args::Object(rt::Vec::from([#(#fields),*])))
        }
        Arg::Array(items) => {
            let items = items.iter().map(expand_args);
            quote!(rt::Args::Array(rt::Vec::from([#(#items),*])))
        }
        Arg::Literal(value) => {
            let json = lit::string(&value.to_string());
            quote!(rt::Args::literal(#json)?)
        }
    }
}
