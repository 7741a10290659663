//! The `mcpgraph!` macro's logic, behind [`expand_invocation`], so that the
//! proc-macro crate is a shim (catching panics, converting tokens) and this
//! can be unit-tested: parsing the input (`"graph.yaml"`, `crate = path`,
//! `allow(check, ...)`), resolving the path against `CARGO_MANIFEST_DIR`,
//! and turning diagnostics into `compile_error!`s spanned on the path
//! literal. Stable proc macros cannot emit warnings, so the checks that are
//! warnings in the builder and the CLI are errors here unless allowed.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{LitStr, Token};

use crate::diag::{
    Diagnostic, FUNCTION_SIGNATURE, LITERAL_LOOKS_LIKE_EXPRESSION, OPERAND_TYPE,
    REFERENCE_BEFORE_RUN, Severity, UNKNOWN_FUNCTION, UNKNOWN_INPUT_FIELD,
};
use crate::expand::{ExpandOptions, skeleton};
use crate::generate::{display_path, generate_file};

/// The checks that are warnings in the builder and the CLI, and errors here
/// unless named in `allow(...)`.
const ALLOWABLE: &[&str] = &[
    REFERENCE_BEFORE_RUN,
    UNKNOWN_FUNCTION,
    FUNCTION_SIGNATURE,
    OPERAND_TYPE,
    LITERAL_LOOKS_LIKE_EXPRESSION,
    UNKNOWN_INPUT_FIELD,
    crate::lock::check::LOCK_COVERAGE,
    crate::lock::check::UNKNOWN_ARGUMENT,
    crate::lock::check::ARGUMENT_TYPE,
    crate::lock::check::UNKNOWN_OUTPUT_FIELD,
    crate::lock::check::RETRY_NOT_IDEMPOTENT,
];

/// `mcpgraph!("graph.yaml")`, optionally followed by `crate = path` and
/// `allow(check, ...)`, comma-separated, in any order.
struct Input {
    path: LitStr,
    krate: Option<syn::Path>,
    allow: Vec<syn::Ident>,
    require_lock: bool,
}

impl Parse for Input {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut out = Self {
            path: input.parse()?,
            krate: None,
            allow: Vec::new(),
            require_lock: false,
        };
        while input.parse::<Option<Token![,]>>()?.is_some() && !input.is_empty() {
            if input.peek(Token![crate]) {
                input.parse::<Token![crate]>()?;
                input.parse::<Token![=]>()?;
                out.krate = Some(if input.peek(LitStr) {
                    input.parse::<LitStr>()?.parse()?
                } else {
                    input.parse()?
                });
                continue;
            }
            let word: syn::Ident = input.parse()?;
            if word == "require_lock" {
                out.require_lock = true;
                continue;
            }
            if word != "allow" {
                return Err(syn::Error::new(
                    word.span(),
                    format!(
                        "unknown option `{word}`: expected `crate = path`, `allow(...)` or `require_lock`"
                    ),
                ));
            }
            let content;
            syn::parenthesized!(content in input);
            let names = content
                .parse_terminated(<syn::Ident as syn::ext::IdentExt>::parse_any, Token![,])?;
            for name in names {
                if !ALLOWABLE.contains(&name.to_string().as_str()) {
                    return Err(syn::Error::new(
                        name.span(),
                        format!(
                            "unknown check `{name}`: the checks that can be allowed are {}",
                            ALLOWABLE.join(", ")
                        ),
                    ));
                }
                out.allow.push(name);
            }
        }
        if !input.is_empty() {
            return Err(input.error(
                "expected `\"graph.yaml\"`, optionally followed by `, crate = path`, `, allow(...)` and `, require_lock`",
            ));
        }
        Ok(out)
    }
}

impl Input {
    fn krate(&self) -> syn::Path {
        self.krate
            .clone()
            .unwrap_or_else(|| syn::parse_quote!(::mcpgraph))
    }
}

/// Expands `mcpgraph!(input)`: the server's code, or every error of the
/// graph file as a `compile_error!` beside a skeleton of its items.
pub fn expand_invocation(input: TokenStream) -> TokenStream {
    let input = match syn::parse2::<Input>(input) {
        Ok(input) => input,
        Err(e) => return e.to_compile_error(),
    };
    expand_input(&input).0
}

/// The `graph_tests!` macro's logic: the graph compiled again inside a
/// `#[cfg(test)] mod graph_tests`, with one `#[test]` per case of its test
/// file (`<graph>.test.yaml`), each replaying the case's recording.
pub fn expand_tests_invocation(input: TokenStream) -> TokenStream {
    let input = match syn::parse2::<Input>(input) {
        Ok(input) => input,
        Err(e) => return e.to_compile_error(),
    };
    let (code, names) = expand_input(&input);
    if names.is_empty() && !code.to_string().contains("compile_error") {
        let message = format!(
            "`graph_tests!`: no test cases: write them in `{}` beside the graph",
            crate::cases::test_path(std::path::Path::new(&input.path.value())).display()
        );
        return syn::Error::new(input.path.span(), message).to_compile_error();
    }
    let krate = input.krate();
    let functions = crate::ident::unique(
        &names.iter().map(String::as_str).collect::<Vec<_>>(),
        crate::ident::snake,
        &["server"],
    );
    let tests = names.iter().zip(functions).map(|(name, function)| {
        quote! {
            #[test]
            fn #function() {
                #krate::__private::graph_tests::run_case(
                    #krate::__private::GraphDef::of::<Server>(),
                    #name,
                );
            }
        }
    });
    quote! {
        #[cfg(test)]
        mod graph_tests {
            #code
            #(#tests)*
        }
    }
}

/// The expansion of `input`'s graph, and the names of its test cases.
fn expand_input(input: &Input) -> (TokenStream, Vec<String>) {
    let base = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_default();
    let path = base.join(input.path.value());
    let track_path = std::fs::canonicalize(&path)
        .ok()
        .map(|p| p.to_string_lossy().into_owned());
    let options = ExpandOptions {
        krate: input.krate(),
        track_path,
        require_lock: input.require_lock,
        ..ExpandOptions::default()
    };
    let output = generate_file(&path, &display_path(&path), &options);
    let span = input.path.span();
    let diagnostics = &output.diagnostics;
    let errors = diagnostics.items.iter().filter_map(|d| {
        let message = match (d.severity, d.lint) {
            (Severity::Error, _) => diagnostics.render_body(d),
            (Severity::Warning, Some(lint)) if !input.allow.iter().any(|a| a == lint) => {
                diagnostics.render_body(&promoted(d, lint, &input.path.value()))
            }
            (Severity::Warning | Severity::Note, _) => return None,
        };
        Some(syn::Error::new(span, message).to_compile_error())
    });
    let test_errors = output.test_diagnostics.iter().flat_map(|diagnostics| {
        diagnostics
            .items
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| syn::Error::new(span, diagnostics.render_body(d)).to_compile_error())
    });
    let tokens = &output.tokens;
    (
        quote!(#(#errors)* #(#test_errors)* #tokens),
        output.test_names.clone(),
    )
}

/// What `mcpgraph!(input)` expands to when [`expand_invocation`] panicked:
/// an error saying so, and the skeleton, reaching the runtime through the
/// input's `crate = path` when it can be read.
pub fn expansion_after_panic(input: TokenStream) -> TokenStream {
    let error = syn::Error::new(
        Span::call_site(),
        "internal error: the mcpgraph generator panicked on this graph file; please report it with the file",
    )
    .to_compile_error();
    let krate = syn::parse2::<Input>(input)
        .map_or_else(|_| syn::parse_quote!(::mcpgraph), |input| input.krate());
    let skeleton = skeleton(&krate);
    quote!(#error #skeleton)
}

/// A warning reported as an error, with a note saying how to allow it.
fn promoted(d: &Diagnostic, lint: &str, path: &str) -> Diagnostic {
    let mut d = d.clone();
    d.notes.push(format!(
        "`mcpgraph!` reports this as an error (a macro cannot emit warnings); to accept it, write `mcpgraph!({path:?}, allow({lint}))`"
    ));
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A graph file in a directory of its own, whose first tool's only
    /// transform reads a node that cannot have run before it (a warning).
    fn graph_file(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("mcpgraph-inv-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("g.yaml");
        std::fs::write(
            &path,
            "version: '1'\nserver: {name: s, version: '1'}\ntools:\n  - name: t\n    description: d\n    inputSchema: {type: object}\n    nodes:\n      - {id: entry, type: entry, next: a}\n      - {id: a, type: transform, transform: {expr: '$.b'}, next: b}\n      - {id: b, type: transform, transform: {expr: '1'}, next: exit}\n      - {id: exit, type: exit}\n",
        )
        .unwrap();
        path
    }

    fn expand_text(input: TokenStream) -> String {
        expand_invocation(input).to_string()
    }

    #[test]
    fn warnings_are_errors_unless_allowed() {
        let path = graph_file("allow");
        let path = path.to_str().unwrap();
        let text = expand_text(quote!(#path));
        assert!(text.contains("compile_error"), "{text}");
        assert!(text.contains("allow(reference_before_run)"), "{text}");
        let text = expand_text(quote!(#path, allow(reference_before_run)));
        assert!(!text.contains("compile_error"), "{text}");
        assert!(text.contains("include_bytes"), "{text}");
        std::fs::remove_dir_all(std::path::Path::new(path).parent().unwrap()).unwrap();
    }

    #[test]
    fn the_crate_path_reaches_the_code_and_the_skeleton() {
        let path = graph_file("crate");
        let path = path.to_str().unwrap();
        let input = quote!(#path, crate = ::renamed, allow(reference_before_run));
        assert!(expand_text(input.clone()).contains(":: renamed :: __private"));
        let text = expansion_after_panic(input).to_string();
        assert!(text.contains("panicked"), "{text}");
        assert!(text.contains("use :: renamed :: __private as rt"), "{text}");
        let text = expansion_after_panic(quote!(#path, crate = "::quoted")).to_string();
        assert!(text.contains(":: quoted :: __private"), "{text}");
        assert!(
            expansion_after_panic(quote!(1))
                .to_string()
                .contains(":: mcpgraph :: __private")
        );
        std::fs::remove_dir_all(std::path::Path::new(path).parent().unwrap()).unwrap();
    }

    #[test]
    fn bad_input_is_one_error() {
        for (input, message) in [
            (quote!("g.yaml", colour = red), "unknown option `colour`"),
            (
                quote!("g.yaml", allow(everything)),
                "unknown check `everything`",
            ),
            (quote!("g.yaml" "h.yaml"), "expected `\\\"graph.yaml\\\"`"),
            (quote!(g), "expected string literal"),
        ] {
            let text = expand_text(input);
            assert!(text.starts_with(":: core :: compile_error !"), "{text}");
            assert!(text.contains(message), "{message}: {text}");
        }
    }

    #[test]
    fn a_missing_file_names_its_resolved_path() {
        let text = expand_text(quote!("no/such/graph.yaml"));
        assert!(text.contains("no/such/graph.yaml"), "{text}");
        assert!(text.contains("relative to the directory"), "{text}");
        assert!(text.contains("Placeholder"), "{text}");
    }
}
