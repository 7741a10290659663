//! A tool's `inputSchema` and `outputSchema` as Rust: one validator module
//! per schema, written at build time by jsonschema's own compile-time
//! generator (`jsonschema-macros-core`, the code behind
//! `#[jsonschema::validator]`), so a server never compiles a schema and
//! does not link jsonschema's schema compiler (about 4 MiB of resident
//! memory and 3 MB of binary that a run-time validator cost).
//!
//! The generator's attribute macro finds the `jsonschema` crate among the
//! *user's* dependencies, which a graph's crate does not have; its
//! `bench` entry point takes the schema as a value and leaves the crate to
//! the scope, where each module imports it from the runtime. The schema was
//! compiled once already by `lower::schema` (with the positions of its
//! errors), so generation does not fail on a schema that got here.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

/// `pub mod <module>` holding `struct Validator` for `schema` and
/// `fn check(&Value) -> Option<String>`, the first way a value breaks it
/// (`rt::schema_violation`'s wording). Expects `rt` in the parent scope.
pub(super) fn validator_module(
    schema: &serde_json::Value,
    module: &Ident,
    krate: &syn::Path,
) -> TokenStream {
    let input = jsonschema_macros_core::bench::prepare(schema.clone());
    let body = jsonschema_macros_core::bench::generate(&input);
    quote! {
        #[doc(hidden)]
        #[allow(unused_imports, unused_qualifications, clippy::all, clippy::pedantic)]
        pub mod #module {
            // The generated code is written against the standard prelude
            // and a `jsonschema` in scope.
            use ::std::prelude::rust_2021::*;
            use ::std::{self as std, matches, vec};
            use #krate::__private as rt;
            use rt::jsonschema;

            /// The schema's validator.
            pub struct Validator;

            #body

            /// The first way `value` breaks the schema, or `None`.
            pub fn check(value: &rt::serde_json::Value) -> rt::Option<rt::String> {
                if Validator::is_valid(value) {
                    return rt::None;
                }
                rt::schema_violation(Validator::validate(value))
            }
        }
    }
}
