//! A graph file's warnings as rustc warnings, from a macro on stable Rust.
//!
//! A proc macro has no stable way to emit a warning, so it emits code that
//! draws one: a `#[deprecated(note = "...")]` constant, used at the macro's
//! path literal. rustc then prints "warning: use of deprecated constant
//! `...::mcpgraph::LINT`: MESSAGE" (the graph's message, position and
//! notes) at the call (the technique of the `proc-macro-warning` crate, in a few
//! lines of our own so that the lint level can be pinned, below).
//!
//! The items carry `#[warn(deprecated)]`, so a crate's
//! `#![allow(deprecated)]` does not hide the graph's warnings (the macro's
//! own `allow(...)` does); `-D warnings` and `#![deny(warnings)]` still make
//! them errors, as they do every warning. This module only emits; which
//! warnings there are is the checks' and `lints`' business.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::Ident;

use crate::diag::Diagnostics;
use crate::lints::WARNINGS;

/// The items drawing one rustc warning per warning of `diagnostics`, each
/// at `span` (the macro's path literal), with a note naming its lint and
/// how `allow(...)`/`deny(...)` in the macro call change it. Nothing when
/// there are no warnings.
pub(crate) fn warnings(diagnostics: &Diagnostics, span: Span) -> TokenStream {
    let blocks = diagnostics
        .items
        .iter()
        .filter(|d| d.severity == crate::diag::Severity::Warning)
        .map(|d| {
            let lint = d.lint.unwrap_or(WARNINGS);
            let mut d = d.clone();
            d.notes.push(format!(
                "`{lint}` is an mcpgraph lint: `allow({lint})` in the macro call drops this warning, `deny({lint})` makes it an error"
            ));
            let note = diagnostics.render_body(&d);
            let name = Ident::new(lint, span);
            quote! {
                {
                    #[deprecated(note = #note)]
                    #[allow(non_upper_case_globals)]
                    const #name: () = ();
                    let _ = #name;
                }
            }
        })
        .collect::<Vec<_>>();
    if blocks.is_empty() {
        return TokenStream::new();
    }
    let function = Ident::new("mcpgraph", span);
    quote! {
        const _: () = {
            #[allow(dead_code)]
            #[warn(deprecated)]
            fn #function() {
                #(#blocks)*
            }
        };
    }
}
