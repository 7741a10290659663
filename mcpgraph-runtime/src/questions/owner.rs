//! Who a caller is ([`Owner`]), for its share of what the server holds for
//! callers.

use std::sync::Arc;

/// Who a caller is, for its share of what the server holds for callers
/// (parked calls): its authenticated principal, else its session, else its
/// peer address.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[doc(hidden)]
pub struct Owner(Arc<str>);

impl Owner {
    /// The name of the one client of a graph served over stdio.
    pub const STDIO: &'static str = "stdio";

    /// The owner named `name` (`principal:…`, `session:…`, `peer:…`).
    pub fn new(name: &str) -> Self {
        Self(Arc::from(name))
    }

    /// The owner's name, as [`Owner::new`] was given it.
    pub fn name(&self) -> &str {
        &self.0
    }

    /// Whether this is the client of a graph served over stdio (named
    /// `stdio` by `serving::handler`): the only caller, so its share of
    /// what is held for callers protects nobody.
    #[doc(hidden)]
    pub fn is_sole_client(&self) -> bool {
        &*self.0 == Self::STDIO
    }
}
