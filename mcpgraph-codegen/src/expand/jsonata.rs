//! A JSONata expression as the Rust that builds its prepared tree: the
//! generator parses each expression (with the same `jsonata-core` as the
//! runtime, pinned to one release), applies the rewrites the runtime would
//! (`mcpgraph_expr::prepare`: regex literals, size guards, jsonata-js's
//! behaviour) and writes the result out, so a server's start-up neither
//! parses nor rewrites. In debug builds the runtime checks the tree against
//! a parse and a rewrite of the source (`Expr::from_ast`). A tree deeper
//! than [`MAX_DEPTH`] nodes is left to a parse at start-up: writing it out
//! would nest the Rust as deep, past what the compiler (and this writer's
//! own stack) takes gladly.

use jsonata_core::ast::{AstNode, PathStep, Stage};
use mcpgraph_expr::is_plain_step as is_plain;
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{ToTokens, quote};

use super::lit;

/// The deepest tree written out as Rust.
const MAX_DEPTH: usize = 24;

/// `rt::Expr::from_ast(source, tree, helpers)`, or `rt::Expr::parse(source)?`
/// if the expression does not parse or rewrite (validation reports that
/// first) or is too deep.
pub(super) fn expr(source: &str) -> TokenStream {
    built(source, quote!(rt::Expr::from_ast), quote!(rt::Expr::parse))
}

/// `rt::Args::expr_ast(source, tree, helpers)`, or `rt::Args::expr(source)?`,
/// as [`expr`].
pub(super) fn args(source: &str) -> TokenStream {
    built(source, quote!(rt::Args::expr_ast), quote!(rt::Args::expr))
}

/// `from_ast(source, tree, helpers)` when the tree can be written out,
/// else `parse(source)?`.
fn built(source: &str, from_ast: TokenStream, parse: TokenStream) -> TokenStream {
    let text = lit::string(source);
    match tree(source) {
        Some((ast, helpers)) => {
            let helpers = match helpers.bits() {
                0 => quote!(rt::Helpers::NONE),
                bits => {
                    let bits = Literal::u8_unsuffixed(bits);
                    quote!(rt::Helpers::from_bits(#bits))
                }
            };
            quote!(#from_ast(#text, #ast, #helpers))
        }
        None => quote!(#parse(#text)?),
    }
}

/// The block building `source`'s prepared tree, and the helpers it calls;
/// `None` if it does not parse or rewrite, or is deeper than
/// [`MAX_DEPTH`].
pub(super) fn tree(source: &str) -> Option<(TokenStream, mcpgraph_expr::Helpers)> {
    let mut ast = jsonata_core::parser::parse(source).ok()?;
    let helpers = mcpgraph_expr::prepare(&mut ast).ok()?;
    let mut writer = Writer {
        depth: 0,
        too_deep: false,
    };
    let node = writer.node(&ast);
    if writer.too_deep {
        return None;
    }
    let block = quote!({
        use rt::ast as j;
        #node
    });
    Some((block, helpers))
}

/// Writes a tree out, counting how deep it is.
struct Writer {
    depth: usize,
    too_deep: bool,
}

impl Writer {
    fn node(&mut self, ast: &AstNode) -> TokenStream {
        if self.depth >= MAX_DEPTH {
            self.too_deep = true;
            return TokenStream::new();
        }
        self.depth += 1;
        let tokens = self.write(ast);
        self.depth -= 1;
        tokens
    }

    fn boxed(&mut self, ast: &AstNode) -> TokenStream {
        let inner = self.node(ast);
        quote!(j::b(#inner))
    }

    /// The nodes of `items`, for an array or a `Vec` (see [`vec_of`]).
    fn list(&mut self, items: &[AstNode]) -> Vec<TokenStream> {
        items.iter().map(|item| self.node(item)).collect()
    }

    /// `(key, value)` per pair, as [`Writer::list`].
    fn pairs(&mut self, pairs: &[(AstNode, AstNode)]) -> Vec<TokenStream> {
        pairs
            .iter()
            .map(|(k, v)| {
                let (k, v) = (self.node(k), self.node(v));
                quote!((#k, #v))
            })
            .collect()
    }

    fn write(&mut self, ast: &AstNode) -> TokenStream {
        match ast {
            AstNode::String(text) => {
                let text = lit::string(text);
                quote!(j::string(#text))
            }
            AstNode::Name(text) => {
                let text = lit::string(text);
                quote!(j::name(#text))
            }
            AstNode::Number(n) => {
                let n = number(*n);
                quote!(j::AstNode::Number(#n))
            }
            AstNode::Boolean(v) => quote!(j::AstNode::Boolean(#v)),
            AstNode::Null => quote!(j::AstNode::Null),
            AstNode::Undefined => quote!(j::AstNode::Undefined),
            AstNode::Placeholder => quote!(j::AstNode::Placeholder),
            AstNode::Wildcard => quote!(j::AstNode::Wildcard),
            AstNode::Descendant => quote!(j::AstNode::Descendant),
            AstNode::Regex { pattern, flags } => {
                let (pattern, flags) = (s(pattern), s(flags));
                quote!(j::AstNode::Regex { pattern: #pattern, flags: #flags })
            }
            AstNode::Variable(name) => {
                let name = lit::string(name);
                quote!(j::var(#name))
            }
            AstNode::ParentVariable(name) => {
                let name = s(name);
                quote!(j::AstNode::ParentVariable(#name))
            }
            AstNode::Parent(label) => {
                let label = s(label);
                quote!(j::AstNode::Parent(#label))
            }
            AstNode::Path { steps } => {
                if let Some((var, names)) = plain_names(steps) {
                    let var = lit::option(var.map(lit::string));
                    let names = names.into_iter().map(lit::string);
                    return quote!(j::names(#var, &[#(#names),*]));
                }
                let steps: Vec<TokenStream> = steps.iter().map(|st| self.step(st)).collect();
                quote!(j::path([#(#steps),*]))
            }
            AstNode::Binary { op, lhs, rhs } => {
                let op = variant(op);
                let (lhs, rhs) = (self.node(lhs), self.node(rhs));
                quote!(j::binary(j::BinaryOp::#op, #lhs, #rhs))
            }
            AstNode::Unary { op, operand } => {
                let op = variant(op);
                let operand = self.boxed(operand);
                quote!(j::AstNode::Unary { op: j::UnaryOp::#op, operand: #operand })
            }
            AstNode::Function {
                name,
                args,
                is_builtin,
            } => {
                let (name, args) = (lit::string(name), self.list(args));
                quote!(j::function(#name, [#(#args),*], #is_builtin))
            }
            AstNode::Call { procedure, args } => {
                let (procedure, args) = (self.boxed(procedure), vec_of(self.list(args)));
                quote!(j::AstNode::Call { procedure: #procedure, args: #args })
            }
            AstNode::Lambda {
                params,
                body,
                signature,
                thunk,
            } => {
                let params = vec_of(params.iter().map(|p| s(p)).collect());
                let body = self.boxed(body);
                let signature = lit::option(signature.as_deref().map(s));
                quote!(j::AstNode::Lambda {
                    params: #params,
                    body: #body,
                    signature: #signature,
                    thunk: #thunk,
                })
            }
            AstNode::Array(items) => {
                let items = self.list(items);
                quote!(j::array([#(#items),*]))
            }
            AstNode::Object(fields) => {
                let fields = self.pairs(fields);
                quote!(j::object([#(#fields),*]))
            }
            AstNode::ObjectTransform { input, pattern } => {
                let (input, pattern) = (self.boxed(input), vec_of(self.pairs(pattern)));
                quote!(j::AstNode::ObjectTransform { input: #input, pattern: #pattern })
            }
            AstNode::Block(items) => {
                let items = vec_of(self.list(items));
                quote!(j::AstNode::Block(#items))
            }
            AstNode::Conditional {
                condition,
                then_branch,
                else_branch,
            } => {
                let (condition, then_branch) = (self.boxed(condition), self.boxed(then_branch));
                let else_branch = lit::option(else_branch.as_deref().map(|e| self.boxed(e)));
                quote!(j::AstNode::Conditional {
                    condition: #condition,
                    then_branch: #then_branch,
                    else_branch: #else_branch,
                })
            }
            AstNode::ArrayGroup(items) => {
                let items = vec_of(self.list(items));
                quote!(j::AstNode::ArrayGroup(#items))
            }
            AstNode::FunctionApplication(inner) => {
                let inner = self.boxed(inner);
                quote!(j::AstNode::FunctionApplication(#inner))
            }
            AstNode::Sort { input, terms } => {
                let input = self.boxed(input);
                let terms: Vec<TokenStream> = terms
                    .iter()
                    .map(|(term, descending)| {
                        let term = self.node(term);
                        quote!((#term, #descending))
                    })
                    .collect();
                let terms = vec_of(terms);
                quote!(j::AstNode::Sort { input: #input, terms: #terms })
            }
            AstNode::Transform {
                location,
                update,
                delete,
            } => {
                let (location, update) = (self.boxed(location), self.boxed(update));
                let delete = lit::option(delete.as_deref().map(|d| self.boxed(d)));
                quote!(j::AstNode::Transform { location: #location, update: #update, delete: #delete })
            }
        }
    }

    fn step(&mut self, step: &PathStep) -> TokenStream {
        let PathStep {
            node: inner,
            stages,
            focus,
            index_var,
            ancestor_label,
            is_tuple,
            inner_tuple,
            id: _,
        } = step;
        let inner = self.node(inner);
        if is_plain(step) {
            return quote!(j::plain(#inner));
        }
        let stages: Vec<TokenStream> = stages
            .iter()
            .map(|stage| match stage {
                Stage::Filter(filter) => {
                    let filter = self.node(filter);
                    quote!(j::Stage::Filter(j::b(#filter)))
                }
                Stage::KeepArray => quote!(j::Stage::KeepArray),
                Stage::Index(name) => {
                    let name = s(name);
                    quote!(j::Stage::Index(#name))
                }
            })
            .collect();
        let stages = vec_of(stages);
        let text = |v: &Option<String>| lit::option(v.as_deref().map(lit::string));
        let (focus, index_var, ancestor_label) =
            (text(focus), text(index_var), text(ancestor_label));
        quote!(j::step(#inner, #stages, #focus, #index_var, #ancestor_label, #is_tuple, #inner_tuple))
    }
}

/// A path whose steps are only their nodes: a variable first (`$`, `$x`)
/// or not, then field names. `None` for any other path.
fn plain_names(steps: &[PathStep]) -> Option<(Option<&str>, Vec<&str>)> {
    let (var, rest) = match steps.split_first() {
        Some((first, rest)) => match &first.node {
            AstNode::Variable(name) if is_plain(first) => (Some(name.as_str()), rest),
            _ => (None, steps),
        },
        None => return None,
    };
    let names = rest
        .iter()
        .map(|step| match &step.node {
            AstNode::Name(name) if is_plain(step) => Some(name.as_str()),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some((var, names))
}

/// `j::s("text")`: an owned string.
fn s(text: &str) -> TokenStream {
    let text = lit::string(text);
    quote!(j::s(#text))
}

/// `rt::Vec::new()` or `rt::Vec::from([..])`.
fn vec_of(items: Vec<TokenStream>) -> TokenStream {
    if items.is_empty() {
        quote!(rt::Vec::new())
    } else {
        quote!(rt::Vec::from([#(#items),*]))
    }
}

/// An operator's variant name, as `jsonata-core` spells it.
fn variant(op: &impl std::fmt::Debug) -> Ident {
    Ident::new(&format!("{op:?}"), Span::call_site())
}

/// An `f64` written so that it reads back exactly: as a literal when its
/// shortest form does (Rust prints the shortest form that round-trips),
/// else by its bits.
pub(super) fn number(n: f64) -> TokenStream {
    if n.is_finite() && n >= 0.0 && !(n == 0.0 && n.is_sign_negative()) {
        Literal::f64_unsuffixed(n).into_token_stream()
    } else if n.is_finite() && n < 0.0 {
        let abs = Literal::f64_unsuffixed(-n);
        quote!(-#abs)
    } else {
        let bits = Literal::u64_suffixed(n.to_bits());
        quote!(<f64>::from_bits(#bits))
    }
}

#[cfg(test)]
mod tests;
