//! The private key of a private-key JWT client assertion (RFC 7523), read
//! from PEM: a PKCS#8 P-256, P-384 or RSA key (`PRIVATE KEY`), or a PKCS#1
//! RSA key (`RSA PRIVATE KEY`). The first private key of the text counts.

use std::fmt;

use jsonwebtoken::{Algorithm, EncodingKey};
use ring::rand::SystemRandom;
use ring::signature::{
    ECDSA_P256_SHA256_FIXED_SIGNING, ECDSA_P384_SHA384_FIXED_SIGNING, EcdsaKeyPair, RsaKeyPair,
};
use rustls_pki_types::PrivateKeyDer;
use rustls_pki_types::pem::PemObject;

/// Why a private key is refused. The message never holds the key.
#[derive(Debug, Clone, PartialEq, Eq)]
#[doc(hidden)]
pub enum KeyError {
    /// No private key section in PEM.
    NotPem,
    /// A SEC1 `EC PRIVATE KEY` (ring reads EC keys in PKCS#8 only).
    Sec1,
    /// A PKCS#1 `RSA PRIVATE KEY` ring refuses, with ring's reason (a fixed
    /// text such as `TooSmall`).
    Rsa(String),
    /// A PKCS#8 key that is no P-256, P-384 or RSA key ring accepts.
    Pkcs8,
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`auth` private key: ")?;
        match self {
            KeyError::NotPem => f.write_str("not an EC or RSA key in PEM"),
            KeyError::Sec1 => f.write_str(
                "an `EC PRIVATE KEY` (SEC1) is not read; convert it to PKCS#8 \
                 with `openssl pkcs8 -topk8 -nocrypt`",
            ),
            KeyError::Rsa(reason) => write!(
                f,
                "not an RSA key this server signs with ({reason}; RSA keys have \
                 2048 to 4096 bits)"
            ),
            KeyError::Pkcs8 => f.write_str(
                "not a P-256, P-384 or RSA (2048 to 4096 bits) key; an EC key must \
                 hold its public key (`openssl pkcs8 -topk8 -nocrypt` writes one)",
            ),
        }
    }
}

impl std::error::Error for KeyError {}

/// The signing key of PEM text `pem` and its default algorithm: ES256 for
/// an EC key, RS256 for an RSA key. Makes ring jsonwebtoken's provider.
pub fn signing_key(pem: &str) -> Result<(EncodingKey, Algorithm), KeyError> {
    super::install();
    let der = PrivateKeyDer::from_pem_slice(pem.as_bytes()).map_err(|_| KeyError::NotPem)?;
    match der {
        PrivateKeyDer::Pkcs1(der) => {
            let der = der.secret_pkcs1_der();
            RsaKeyPair::from_der(der).map_err(|rejected| KeyError::Rsa(rejected.to_string()))?;
            Ok((EncodingKey::from_rsa_der(der), Algorithm::RS256))
        }
        PrivateKeyDer::Pkcs8(der) => {
            let der = der.secret_pkcs8_der();
            let rng = SystemRandom::new();
            let ec = |curve| EcdsaKeyPair::from_pkcs8(curve, der, &rng).is_ok();
            if ec(&ECDSA_P256_SHA256_FIXED_SIGNING) || ec(&ECDSA_P384_SHA384_FIXED_SIGNING) {
                Ok((EncodingKey::from_ec_der(der), Algorithm::ES256))
            } else if RsaKeyPair::from_pkcs8(der).is_ok() {
                Ok((EncodingKey::from_rsa_der(der), Algorithm::RS256))
            } else {
                Err(KeyError::Pkcs8)
            }
        }
        PrivateKeyDer::Sec1(_) => Err(KeyError::Sec1),
        _ => Err(KeyError::NotPem),
    }
}
