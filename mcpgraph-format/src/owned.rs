//! What generated code builds owned values with, under
//! `no_implicit_prelude` (where `String::from` is out of scope): reached as
//! `rt::owned::...`. Not an API.

/// An owned string.
pub fn s(text: &str) -> String {
    text.to_owned()
}

/// Owned strings.
pub fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|item| (*item).to_owned()).collect()
}

/// Owned pairs of strings, in order.
pub fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

/// A vector of `items` (`vec!`, whose arguments a pretty-printer leaves
/// as they are).
pub fn vec<T, const N: usize>(items: [T; N]) -> Vec<T> {
    Vec::from(items)
}
