//! JWTs: signed and verified with ring (`crypto`: jsonwebtoken's crypto
//! provider, the PEM private keys of client assertions), and inbound
//! access tokens validated against the issuer's keys.
//!
//! - `crypto`: the provider and the PEM keys;
//! - `jwks`: the issuer's keys, found through its metadata and kept by
//!   `kid` ([`KeyCache`]);
//! - `claims`: an access token's checks ([`verify`]), what passes is the
//!   caller's [`Claims`];
//! - `fetch_error`: why the issuer's metadata or keys could not be fetched.

mod claims;
mod crypto;
mod fetch_error;
mod jwks;

pub use claims::{Claims, DEFAULT_ALGORITHMS, Invalid, Policy, bearer_token, verify};
pub use crypto::{install, signing_key};
pub use jsonwebtoken::Algorithm;
pub use jwks::KeyCache;
