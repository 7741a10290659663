//! A node's `retry`, `timeoutMs` and `onError` in the state machine: the
//! first two as an `rt::Resilience` constant handed to the runtime's call,
//! `onError` as a `match` on the node's result whose error arm records the
//! error ([`Execution::caught`]) and goes to the fallback node.
//!
//! [`Execution::caught`]: https://docs.rs/mcpgraph-runtime

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

use super::lit;
use crate::model::Resilience;

/// `&rt::Resilience { .. }` for a node with `retry` or `timeoutMs`
/// (a constant: promoted to a `'static`), `None` without either.
pub(super) fn constant(resilience: &Resilience) -> Option<TokenStream> {
    if resilience.retry.is_none() && resilience.timeout_ms.is_none() {
        return None;
    }
    let retry = lit::option(resilience.retry.as_ref().map(|r| {
        let r = r.value;
        let (attempts, backoff, max) = (
            lit::int(r.attempts),
            lit::int(r.backoff_ms),
            lit::int(r.max_backoff_ms),
        );
        quote!(rt::Retry { attempts: #attempts, backoff_ms: #backoff, max_backoff_ms: #max })
    }));
    let timeout = lit::option(resilience.timeout_ms.as_ref().map(|t| lit::int(t.value)));
    Some(quote!(&rt::Resilience { retry: #retry, timeout_ms: #timeout }))
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
