//! One node's part of its tool's module: its arm of `run`'s match and,
//! for a node with expressions, its field of `Compiled`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

use super::args::expand_args;
use super::{fanout, jsonata, lit, resilience, rule};
use crate::ident::camel;
use crate::model::{Condition, Message, NodeKind, Resilience, Routes, Sp, Tool};

/// Where a tool's node ids jump to: the `Node` variant of each.
pub(super) struct Targets<'t> {
    pub(super) tool: &'t Tool,
    pub(super) variants: &'t [Ident],
}

impl<'t> Targets<'t> {
    /// The variant of the node `id`. Validation guarantees every target
    /// exists; the skeleton after errors falls back to the first node.
    fn of(&self, id: &str) -> &'t Ident {
        &self.variants[self.tool.position(id).unwrap_or(0)]
    }
}

/// What one node adds to its tool's module.
pub(super) struct NodeCode {
    /// The type and the initialiser of its field of `Compiled`, if it
    /// has expressions.
    pub(super) compiled: Option<(TokenStream, TokenStream)>,
    /// The body of its arm in `run`: the next node.
    pub(super) arm: TokenStream,
}

/// The code of a node of kind `kind` whose field of `Compiled` is
/// `field`; `tools`: the names of the graph's tools, in order.
pub(super) fn code(kind: &NodeKind, field: &Ident, to: &Targets<'_>, tools: &[&str]) -> NodeCode {
    let plain = |arm| NodeCode {
        compiled: None,
        arm,
    };
    match kind {
        NodeKind::Entry { next } => {
            let next = to.of(&next.value);
            plain(quote!({ exec.entry()?; Node::#next }))
        }
        NodeKind::Exit => plain(quote!({
            exec.exit();
            return rt::Ok(());
        })),
        NodeKind::Transform { expr, next } => {
            let next = to.of(&next.value);
            NodeCode {
                compiled: Some((quote!(rt::Expr), jsonata::expr(&expr.source))),
                arm: quote!({ exec.transform(&compiled.#field)?; Node::#next }),
            }
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
            let run = match resilience::constant(r) {
                Some(r) => quote!(exec.mcp_with(#server, #remote, &compiled.#field, #r)),
                None => quote!(exec.mcp(#server, #remote, &compiled.#field)),
            };
            guarded((quote!(rt::Args), expand_args(args)), run, next, r, to)
        }
        NodeKind::Parallel {
            branches,
            max_concurrency,
            next,
            resilience: r,
        } => {
            let init = fanout::parallel(branches, *max_concurrency, r, tools);
            let run = quote!(exec.parallel(&compiled.#field));
            guarded((quote!(rt::Parallel), init), run, next, r, to)
        }
        NodeKind::ForEach {
            items,
            call,
            max_concurrency,
            next,
            resilience: r,
        } => {
            let init = fanout::for_each(items, call, *max_concurrency, r, tools);
            let run = quote!(exec.for_each(&compiled.#field));
            guarded((quote!(rt::ForEach), init), run, next, r, to)
        }
        NodeKind::Elicit {
            message,
            schema,
            routes,
        } => {
            let (init, arms) = elicit(message, schema, routes, to);
            NodeCode {
                compiled: Some((quote!(rt::Elicit), init)),
                arm: quote!(match exec.elicit(&compiled.#field).await? { #(#arms,)* }),
            }
        }
        NodeKind::Switch { conditions, next } => switch(conditions, next, field, to),
    }
}

/// A node that calls out (`mcp`, `parallel`, `forEach`): `run` awaited,
/// then `next`, or the node's `onError` target when it fails.
fn guarded(
    compiled: (TokenStream, TokenStream),
    run: TokenStream,
    next: &Sp<String>,
    r: &Resilience,
    to: &Targets<'_>,
) -> NodeCode {
    let fallback = r.on_error.as_ref().map(|target| to.of(&target.value));
    NodeCode {
        compiled: Some(compiled),
        arm: resilience::arm(run, to.of(&next.value), fallback),
    }
}

/// A `switch` node: its rules compiled once, and a match on the first
/// that holds, each branch with the rule as written above it.
fn switch(
    conditions: &[Condition],
    next: &Sp<String>,
    field: &Ident,
    to: &Targets<'_>,
) -> NodeCode {
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
    // The doc attribute carries the rule as written to `pretty`, which
    // prints it as a `//` comment above the branch.
    let branches = conditions.iter().enumerate().map(|(i, c)| {
        let target = to.of(&c.next.value);
        let written = format!(" {}", rule::written(&c.rule));
        let i = lit::index(i);
        quote!(#[doc = #written] rt::Some(#i) => Node::#target)
    });
    let default = to.of(&next.value);
    NodeCode {
        compiled: Some((
            quote!(rt::Switch),
            quote!(rt::Switch::compiled(rt::Vec::from([#(#rules),*]))?),
        )),
        arm: quote! {
            {
                let next = match exec.switch(&compiled.#field)? {
                    #(#branches,)*
                    _ => Node::#default,
                };
                exec.switched(next.id())?;
                next
            }
        },
    }
}

/// An `elicit` node: the initializer of its `rt::Elicit` (the message, the
/// form as JSON text, the answers that have a route) and the arms of the
/// match on its answer. The runtime ends the call on an answer without a
/// route, so the last arm, for those, is never taken.
fn elicit(
    message: &Message,
    schema: &serde_json::Value,
    routes: &Routes,
    to: &Targets<'_>,
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
        .map(|(name, target)| {
            let (answer, to) = (answer(name), to.of(&target.value));
            quote!(rt::Answer::#answer => Node::#to)
        })
        .collect();
    if routes.iter().count() < 3 {
        arms.push(quote!(_ => return rt::Err(rt::NodeError::call("an answer without a route"))));
    }
    (init, arms)
}
