//! What the store tests share: the contract, a redis-server of their own.

pub(crate) mod contract;
pub(crate) mod server;
