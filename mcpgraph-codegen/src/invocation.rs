//! The `mcpgraph!` macro's logic, behind [`expand_invocation`], so that the
//! proc-macro crate is a shim (catching panics, converting tokens) and this
//! can be unit-tested: parsing the input (`"graph.yaml"`, `crate = path`,
//! `allow(lint, ...)`, `deny(lint, ...)`, `require_lock`), resolving the
//! path against `CARGO_MANIFEST_DIR`, and turning diagnostics into
//! `compile_error!`s (errors, and warnings denied) and rustc warnings (the
//! rest, `rustc_warning`), all spanned on the path literal.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{LitStr, Token};

use crate::diag::{Diagnostics, Severity};
use crate::expand::{ExpandOptions, skeleton};
use crate::generate::{display_path, generate_file};
use crate::lints::{Level, LintLevels};

/// `mcpgraph!("graph.yaml")`, optionally followed by `crate = path`,
/// `allow(lint, ...)`, `deny(lint, ...)` and `require_lock`,
/// comma-separated, in any order.
struct Input {
    path: LitStr,
    krate: Option<syn::Path>,
    levels: LintLevels,
    require_lock: bool,
}

impl Parse for Input {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut out = Self {
            path: input.parse()?,
            krate: None,
            levels: LintLevels::default(),
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
            let level = match word.to_string().as_str() {
                "require_lock" => {
                    out.require_lock = true;
                    continue;
                }
                "allow" => Level::Allow,
                "deny" => Level::Deny,
                _ => {
                    return Err(syn::Error::new(
                        word.span(),
                        format!(
                            "unknown option `{word}`: expected `crate = path`, `allow(...)`, `deny(...)` or `require_lock`"
                        ),
                    ));
                }
            };
            let content;
            syn::parenthesized!(content in input);
            let names = content
                .parse_terminated(<syn::Ident as syn::ext::IdentExt>::parse_any, Token![,])?;
            for name in names {
                out.levels
                    .set(&name.to_string(), level)
                    .map_err(|e| syn::Error::new(name.span(), e))?;
            }
        }
        if !input.is_empty() {
            return Err(input.error(
                "expected `\"graph.yaml\"`, optionally followed by `, crate = path`, `, allow(...)`, `, deny(...)` and `, require_lock`",
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
    let mut output = generate_file(&path, &display_path(&path), &options);
    let span = input.path.span();
    let mut code = TokenStream::new();
    for diagnostics in std::iter::once(&mut output.diagnostics).chain(&mut output.test_diagnostics)
    {
        input.levels.apply(diagnostics, |name| {
            format!("denied by `deny({name})` in the macro call")
        });
        code.extend(errors(diagnostics, span));
        code.extend(crate::rustc_warning::warnings(diagnostics, span));
    }
    code.extend(output.tokens);
    (code, output.test_names)
}

/// A `compile_error!` per error of `diagnostics`, at `span`.
fn errors(diagnostics: &Diagnostics, span: Span) -> TokenStream {
    diagnostics
        .items
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| syn::Error::new(span, diagnostics.render_body(d)).to_compile_error())
        .collect()
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
    fn warnings_are_rustc_warnings_unless_denied_or_allowed() {
        let path = graph_file("allow");
        let path = path.to_str().unwrap();
        let text = expand_text(quote!(#path));
        assert!(!text.contains("compile_error"), "{text}");
        assert!(text.contains("# [warn (deprecated)]"), "{text}");
        assert!(
            text.contains(
                "# [deprecated (note = \"node `a` reads `b`, which cannot have run before it"
            ),
            "{text}"
        );
        assert!(
            text.contains("const reference_before_run : () = () ; let _ = reference_before_run ;"),
            "{text}"
        );
        assert!(
            text.contains("allow(reference_before_run)` in the macro call"),
            "{text}"
        );
        assert!(text.contains("include_bytes"), "{text}");
        for allowed in [
            quote!(#path, allow(reference_before_run)),
            quote!(#path, allow(warnings)),
            quote!(#path, deny(warnings), allow(reference_before_run)),
        ] {
            let text = expand_text(allowed);
            assert!(!text.contains("compile_error"), "{text}");
            assert!(!text.contains("deprecated"), "{text}");
        }
        for denied in [
            quote!(#path, deny(reference_before_run)),
            quote!(#path, deny(warnings)),
            quote!(#path, allow(reference_before_run), deny(reference_before_run)),
        ] {
            let text = expand_text(denied);
            assert!(text.contains("compile_error"), "{text}");
            assert!(text.contains("denied by `deny("), "{text}");
            assert!(!text.contains("deprecated"), "{text}");
        }
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
                "unknown lint `everything`",
            ),
            (
                quote!("g.yaml", deny(unknown_input_feild)),
                "did you mean `unknown_input_field`?",
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
