//! The arguments of a call (an `mcp` node's, a fan-out's calls'): the
//! `rt::Args` tree of literals and expressions the runtime builds them from.

use proc_macro2::TokenStream;
use quote::quote;

use super::{jsonata, lit};
use crate::model::Arg;

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
