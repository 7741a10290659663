//! JWT signatures with ring: the process's `jsonwebtoken` crypto provider,
//! and the PEM private keys of private-key JWT client assertions.
//!
//! ring is already in the tree (rustls uses it for TLS), so it signs and
//! verifies tokens too: jsonwebtoken's own backends would add RustCrypto
//! (RSA, P-256, P-384, Ed25519 and their DER/PEM parsers) or aws-lc. The
//! provider covers every algorithm jsonwebtoken names: HS256/384/512,
//! RS256/384/512, PS256/384/512 (RSA keys of 2048 bits or more, as RFC 7518
//! §3.3 and §3.5 require), ES256, ES384 and EdDSA (Ed25519). Keys are
//! ring's formats: a private key is PKCS#8 (RSA also PKCS#1), a public key
//! is a JWK's components (or, for RSA, PKCS#1 DER). Deriving a JWK from a
//! key is not supported (an error, never a panic).
//!
//! [`install`] makes it the provider before the first signature or
//! verification: `signing_key` and the issuer's key cache call it.

mod pem;
mod sign;
#[cfg(test)]
mod tests;
mod verify;

use jsonwebtoken::Algorithm;
use jsonwebtoken::crypto::{CryptoProvider, KeyUtils};
use jsonwebtoken::errors::{Error, ErrorKind, Result};
use jsonwebtoken::jwk::{EllipticCurve, ThumbprintHash};

pub use pem::signing_key;

/// The provider: ring's primitives behind jsonwebtoken's traits.
static PROVIDER: CryptoProvider = CryptoProvider {
    signer_factory: sign::signer,
    verifier_factory: verify::verifier,
    key_utils: KeyUtils {
        rsa_pub_components_from_private_key: no_rsa_components,
        rsa_pub_components_from_public_key: no_rsa_components,
        ec_pub_components_from_private_key: no_ec_components,
        ed_pub_components_from_private_key: no_ed_components,
        compute_digest,
    },
};

/// Makes ring jsonwebtoken's provider for this process. Idempotent; a
/// provider installed before (by whoever embeds the runtime) is kept.
pub fn install() {
    // `Err` only when a provider is installed already: that one is kept.
    let _ = PROVIDER.install_default();
}

/// A JWK's SHA-2 thumbprint digest (RFC 7638).
fn compute_digest(data: &[u8], hash: ThumbprintHash) -> Result<Vec<u8>> {
    let algorithm = match hash {
        ThumbprintHash::SHA256 => &ring::digest::SHA256,
        ThumbprintHash::SHA384 => &ring::digest::SHA384,
        ThumbprintHash::SHA512 => &ring::digest::SHA512,
        _ => return Err(ErrorKind::Provider("unknown thumbprint hash".to_owned()).into()),
    };
    Ok(ring::digest::digest(algorithm, data).as_ref().to_vec())
}

/// The error of the JWK derivations this provider does not offer (the
/// runtime never derives a JWK from a key).
fn unsupported() -> Error {
    ErrorKind::Provider("deriving a JWK from a key is not supported".to_owned()).into()
}

fn no_rsa_components(_: &[u8]) -> Result<(Vec<u8>, Vec<u8>)> {
    Err(unsupported())
}

fn no_ec_components(_: &[u8], _: Algorithm) -> Result<(EllipticCurve, Vec<u8>, Vec<u8>)> {
    Err(unsupported())
}

fn no_ed_components(_: &[u8], _: &EllipticCurve) -> Result<Vec<u8>> {
    Err(unsupported())
}
