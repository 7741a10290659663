//! The values the generator compiles in, as the Rust expressions that
//! build them (the `tokens` feature). They name the types and helpers
//! through the generated code's `rt::` path (the runtime's `codegen`
//! module), so they compile under `no_implicit_prelude` and after a
//! rename of the facade dependency.

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{ToTokens, quote};

use crate::{
    Algorithm, Auth, Enterprise, Grant, Limits, Resilience, Retry, Server, TaskMode, TaskSupport,
    TokenStore, Transport,
};

/// An integer literal without a suffix.
fn int(n: impl Into<u64>) -> Literal {
    Literal::u64_unsuffixed(n.into())
}

/// `rt::Some(value)` or `rt::None`.
fn option(value: Option<impl ToTokens>) -> TokenStream {
    match value {
        Some(value) => quote!(rt::Some(#value)),
        None => quote!(rt::None),
    }
}

/// An owned string: `rt::owned::s("text")`.
fn owned(text: &str) -> TokenStream {
    let text = Literal::string(text);
    quote!(rt::owned::s(#text))
}

/// Owned strings: `rt::owned::strings(&[...])`.
fn strings(items: &[String]) -> TokenStream {
    let items = items.iter().map(|s| Literal::string(s));
    quote!(rt::owned::strings(&[#(#items),*]))
}

/// Owned pairs: `rt::owned::pairs(&[("key", "value"), ...])`.
fn pairs(items: &[(String, String)]) -> TokenStream {
    let items = items.iter().map(|(k, v)| {
        let (k, v) = (Literal::string(k), Literal::string(v));
        quote!((#k, #v))
    });
    quote!(rt::owned::pairs(&[#(#items),*]))
}

impl ToTokens for Limits {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        let fields = [
            ("max_node_executions", self.max_node_executions),
            ("max_execution_time_ms", self.max_execution_time_ms),
            ("max_expression_depth", self.max_expression_depth),
            ("max_expression_time_ms", self.max_expression_time_ms),
            ("max_value_bytes", self.max_value_bytes),
            ("max_history_bytes", self.max_history_bytes),
            ("max_value_depth", self.max_value_depth),
            ("max_call_depth", self.max_call_depth),
            ("max_questions", self.max_questions),
            ("max_answer_wait_ms", self.max_answer_wait_ms),
        ]
        .map(|(field, value)| {
            let (field, value) = (Ident::new(field, Span::call_site()), int(value));
            quote!(#field: #value)
        });
        tokens.extend(quote!(rt::Limits { #(#fields,)* }));
    }
}

impl ToTokens for TaskSupport {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        let mode = match self.mode {
            TaskMode::Allowed => quote!(rt::TaskMode::Allowed),
            TaskMode::Required => quote!(rt::TaskMode::Required),
            TaskMode::Never => quote!(rt::TaskMode::Never),
        };
        let ask_first = self.ask_first;
        tokens.extend(quote!(rt::TaskSupport { mode: #mode, ask_first: #ask_first }));
    }
}

impl ToTokens for Retry {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        let (attempts, backoff, max) = (
            int(self.attempts),
            int(self.backoff_ms),
            int(self.max_backoff_ms),
        );
        tokens.extend(
            quote!(rt::Retry { attempts: #attempts, backoff_ms: #backoff, max_backoff_ms: #max }),
        );
    }
}

impl ToTokens for Resilience {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        let retry = option(self.retry.as_ref());
        let timeout = option(self.timeout_ms.map(int));
        tokens.extend(quote!(rt::Resilience { retry: #retry, timeout_ms: #timeout }));
    }
}

impl ToTokens for Server {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        let name = owned(&self.name);
        let transport = &self.transport;
        let timeout = option(self.timeout_ms.map(int));
        let ping_timeout = option(self.ping_timeout_ms.map(int));
        let auth = option(self.auth.as_ref());
        tokens.extend(quote! {
            rt::ServerSpec {
                name: #name,
                transport: #transport,
                timeout_ms: #timeout,
                ping_timeout_ms: #ping_timeout,
                auth: #auth,
            }
        });
    }
}

impl ToTokens for Transport {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend(match self {
            Transport::Stdio {
                command,
                args,
                cwd,
                env,
                inherit_env,
            } => {
                let command = owned(command);
                let args = strings(args);
                let cwd = option(cwd.as_deref().map(owned));
                let env = pairs(env);
                let inherit_env = strings(inherit_env);
                quote! {
                    rt::TransportSpec::Stdio {
                        command: #command,
                        args: #args,
                        cwd: #cwd,
                        env: #env,
                        inherit_env: #inherit_env,
                    }
                }
            }
            Transport::StreamableHttp { url, headers } => {
                let (url, headers) = (owned(url), pairs(headers));
                quote!(rt::TransportSpec::StreamableHttp { url: #url, headers: #headers })
            }
            Transport::Sse { url, headers } => {
                let (url, headers) = (owned(url), pairs(headers));
                quote!(rt::TransportSpec::Sse { url: #url, headers: #headers })
            }
        });
    }
}

/// `key: rt::Some(rt::owned::s("value"))` for the keys given.
fn given<'a>(keys: impl IntoIterator<Item = (&'a str, &'a Option<String>)>) -> Vec<TokenStream> {
    keys.into_iter()
        .filter_map(|(key, value)| {
            let key = Ident::new(key, Span::call_site());
            let value = owned(value.as_deref()?);
            Some(quote!(#key: rt::Some(#value)))
        })
        .collect()
}

impl ToTokens for Auth {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        let grant = self.grant;
        let mut fields = given([
            ("client_id", &self.client_id),
            ("client_secret", &self.client_secret),
            ("client_secret_file", &self.client_secret_file),
            ("private_key", &self.private_key),
            ("private_key_file", &self.private_key_file),
            ("assertion", &self.assertion),
            ("assertion_file", &self.assertion_file),
        ]);
        if let Some(alg) = self.signing_algorithm {
            fields.push(quote!(signing_algorithm: rt::Some(#alg)));
        }
        fields.extend(given([
            ("client_metadata_url", &self.client_metadata_url),
            ("client_name", &self.client_name),
            ("issuer", &self.issuer),
        ]));
        if !self.scopes.is_empty() {
            let scopes = strings(&self.scopes);
            fields.push(quote!(scopes: #scopes));
        }
        if let Some(store) = self.token_store {
            fields.push(quote!(token_store: rt::Some(#store)));
        }
        if let Some(enterprise) = &self.enterprise {
            fields.push(quote!(enterprise: rt::Some(#enterprise)));
        }
        tokens.extend(quote! {
            rt::ServerAuth {
                grant: #grant,
                #(#fields,)*
                ..rt::ServerAuth::DEFAULT
            }
        });
    }
}

/// `rt::auth::TYPE::VARIANT`.
fn variant(ty: &str, name: &str) -> TokenStream {
    let (ty, name) = (
        Ident::new(ty, Span::call_site()),
        Ident::new(name, Span::call_site()),
    );
    quote!(rt::auth::#ty::#name)
}

impl ToTokens for Grant {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        let name = match self {
            Grant::AuthorizationCode => "AuthorizationCode",
            Grant::ClientCredentials => "ClientCredentials",
            Grant::Enterprise => "Enterprise",
            Grant::JwtBearer => "JwtBearer",
            Grant::TokenExchange => "TokenExchange",
        };
        tokens.extend(variant("Grant", name));
    }
}

impl ToTokens for Algorithm {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend(variant("Algorithm", self.name()));
    }
}

impl ToTokens for TokenStore {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        let name = match self {
            TokenStore::File => "File",
            TokenStore::Memory => "Memory",
        };
        tokens.extend(variant("TokenStore", name));
    }
}

impl ToTokens for Enterprise {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        let (issuer, endpoint, client_id) = (
            owned(&self.idp_issuer),
            owned(&self.idp_token_endpoint),
            owned(&self.idp_client_id),
        );
        let secret = option(self.idp_client_secret.as_deref().map(owned));
        let secret_file = option(self.idp_client_secret_file.as_deref().map(owned));
        let id_token = option(self.id_token.as_deref().map(owned));
        let id_token_file = option(self.id_token_file.as_deref().map(owned));
        tokens.extend(quote! {
            rt::auth::Enterprise {
                idp_issuer: #issuer,
                idp_token_endpoint: #endpoint,
                idp_client_id: #client_id,
                idp_client_secret: #secret,
                idp_client_secret_file: #secret_file,
                id_token: #id_token,
                id_token_file: #id_token_file,
            }
        });
    }
}
