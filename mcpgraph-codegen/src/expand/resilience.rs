//! A node's `retry`, `timeoutMs` and `onError` in the state machine: the
//! first two as an `rt::Resilience` constant handed to the runtime's call,
//! `onError` as a `match` on the node's result whose error arm records the
//! error ([`Execution::caught`]) and goes to the fallback node.
//!
//! [`Execution::caught`]: https://docs.rs/mcpgraph-runtime

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

use crate::model::Resilience;

/// `&rt::Resilience { .. }` for a node with `retry` or `timeoutMs`
/// (a constant: promoted to a `'static`), `None` without either.
pub(super) fn constant(resilience: &Resilience) -> Option<TokenStream> {
    let runtime = resilience.runtime();
    (!runtime.is_empty()).then(|| quote!(&#runtime))
}

/// The body of a node's arm: `run` (a future of `Result<(), NodeError>`)
/// awaited, then `next`; or, with `onError` (`fallback`), its error
/// recorded and `fallback`.
pub(super) fn arm(run: TokenStream, next: &Ident, fallback: Option<&Ident>) -> TokenStream {
    match fallback {
        None => quote!({ #run.await?; Node::#next }),
        Some(fallback) => quote! {
            match #run.await {
                rt::Ok(()) => Node::#next,
                rt::Err(error) => {
                    exec.caught(error)?;
                    Node::#fallback
                }
            }
        },
    }
}
