//! The fan-out nodes of a tool's module: a `parallel` node becomes an
//! `rt::Parallel` (its branches, each an `rt::CallSpec`), a `forEach` node
//! an `rt::ForEach`; a call of the graph's own tool names it by its index
//! in `Graph::TOOLS`, fixed here. Each call carries its `retry` (its own or
//! its node's) and its own `timeoutMs`; the node its whole `timeoutMs`.

use proc_macro2::TokenStream;
use quote::quote;

use super::args::expand_args;
use super::{lit, resilience};
use crate::model::{Call, Resilience};

/// `rt::CallSpec` of `call`, a call of a node with `node`'s resilience;
/// `tools`: the graph's tool names, in order.
fn call_spec(call: &Call, node: &Resilience, tools: &[&str]) -> TokenStream {
    let spec = bare_call_spec(call, tools);
    let own = Resilience {
        retry: call.retry(node).cloned(),
        timeout_ms: call.resilience.timeout_ms.clone(),
        on_error: None,
    };
    match resilience::constant(&own) {
        Some(r) => quote!(#spec.with(#r)),
        None => spec,
    }
}

/// `rt::CallSpec` of `call` without retry or time limit.
fn bare_call_spec(call: &Call, tools: &[&str]) -> TokenStream {
    let args = expand_args(&call.args);
    let tool = lit::string(&call.tool.value);
    match &call.server {
        Some(server) => {
            let server = lit::string(&server.value);
            quote!(rt::CallSpec::server(#server, #tool, #args))
        }
        None => {
            // Validation guarantees the tool exists; the skeleton after
            // errors never gets here.
            let index = tools
                .iter()
                .position(|t| *t == call.tool.value)
                .unwrap_or(0);
            let index = lit::index(index);
            quote!(rt::CallSpec::tool(#index, #tool, #args))
        }
    }
}

/// The initializer of a `parallel` node's `rt::Parallel`.
pub(super) fn parallel(
    branches: &[(crate::model::Sp<String>, Call)],
    max_concurrency: Option<u64>,
    node: &Resilience,
    tools: &[&str],
) -> TokenStream {
    let branches = branches.iter().map(|(name, call)| {
        let (name, call) = (lit::string(&name.value), call_spec(call, node, tools));
        quote!((#name, #call))
    });
    let max =
        lit::option(max_concurrency.map(|m| lit::index(usize::try_from(m).unwrap_or(usize::MAX))));
    let timeout = node_timeout(node);
    quote!(rt::Parallel::new(rt::Vec::from([#(#branches),*]), #max)#timeout)
}

/// `.timeout_ms(..)` for a node with `timeoutMs`.
fn node_timeout(node: &Resilience) -> TokenStream {
    match &node.timeout_ms {
        Some(ms) => {
            let ms = lit::int(ms.value);
            quote!(.timeout_ms(#ms))
        }
        None => TokenStream::new(),
    }
}

/// The initializer of a `forEach` node's `rt::ForEach`.
pub(super) fn for_each(
    items: &crate::model::Expr,
    call: &Call,
    max_concurrency: u64,
    node: &Resilience,
    tools: &[&str],
) -> TokenStream {
    let items = super::jsonata::expr(&items.source);
    let call = call_spec(call, node, tools);
    let max = lit::index(usize::try_from(max_concurrency).unwrap_or(usize::MAX));
    let timeout = node_timeout(node);
    quote!(rt::ForEach::new(#items, #call, #max)#timeout)
}
