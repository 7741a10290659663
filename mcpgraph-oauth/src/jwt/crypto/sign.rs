//! Signers: the key parsed by ring once per token, then one signature.

use jsonwebtoken::crypto::JwtSigner;
use jsonwebtoken::errors::{ErrorKind, Result};
use jsonwebtoken::signature::{self, Signer};
use jsonwebtoken::{Algorithm, EncodingKey};
use ring::hmac;
use ring::rand::SystemRandom;
use ring::signature::{
    ECDSA_P256_SHA256_FIXED_SIGNING, ECDSA_P384_SHA384_FIXED_SIGNING, EcdsaKeyPair,
    EcdsaSigningAlgorithm, Ed25519KeyPair, RSA_PKCS1_SHA256, RSA_PKCS1_SHA384, RSA_PKCS1_SHA512,
    RSA_PSS_SHA256, RSA_PSS_SHA384, RSA_PSS_SHA512, RsaEncoding, RsaKeyPair,
};

/// The signer of `key` for `algorithm`: an error when the key is not of
/// the algorithm's family or ring refuses it (EC and Ed25519 keys are
/// PKCS#8; RSA keys PKCS#8 or PKCS#1, 2048 to 4096 bits).
pub(super) fn signer(algorithm: &Algorithm, key: &EncodingKey) -> Result<Box<dyn JwtSigner>> {
    let algorithm = *algorithm;
    if key.family() != algorithm.family() {
        return Err(ErrorKind::InvalidKeyFormat.into());
    }
    let der = key.as_bytes();
    let key = match algorithm {
        Algorithm::HS256 => Key::Hmac(hmac::Key::new(hmac::HMAC_SHA256, der)),
        Algorithm::HS384 => Key::Hmac(hmac::Key::new(hmac::HMAC_SHA384, der)),
        Algorithm::HS512 => Key::Hmac(hmac::Key::new(hmac::HMAC_SHA512, der)),
        Algorithm::ES256 => Key::Ecdsa(ecdsa(&ECDSA_P256_SHA256_FIXED_SIGNING, der)?),
        Algorithm::ES384 => Key::Ecdsa(ecdsa(&ECDSA_P384_SHA384_FIXED_SIGNING, der)?),
        Algorithm::RS256 => Key::Rsa(rsa(der)?, &RSA_PKCS1_SHA256),
        Algorithm::RS384 => Key::Rsa(rsa(der)?, &RSA_PKCS1_SHA384),
        Algorithm::RS512 => Key::Rsa(rsa(der)?, &RSA_PKCS1_SHA512),
        Algorithm::PS256 => Key::Rsa(rsa(der)?, &RSA_PSS_SHA256),
        Algorithm::PS384 => Key::Rsa(rsa(der)?, &RSA_PSS_SHA384),
        Algorithm::PS512 => Key::Rsa(rsa(der)?, &RSA_PSS_SHA512),
        Algorithm::EdDSA => Key::Ed25519(
            Ed25519KeyPair::from_pkcs8_maybe_unchecked(der)
                .map_err(|_| ErrorKind::InvalidEddsaKey)?,
        ),
        _ => return Err(ErrorKind::UnsupportedAlgorithm.into()),
    };
    Ok(Box::new(RingSigner { algorithm, key }))
}

/// A PKCS#8 EC key on `curve`'s curve.
fn ecdsa(curve: &'static EcdsaSigningAlgorithm, pkcs8: &[u8]) -> Result<EcdsaKeyPair> {
    EcdsaKeyPair::from_pkcs8(curve, pkcs8, &SystemRandom::new())
        .map_err(|_| ErrorKind::InvalidEcdsaKey.into())
}

/// A PKCS#8 or PKCS#1 RSA key; ring's reason (a fixed text such as
/// `TooSmall`, never key material) when it is refused.
fn rsa(der: &[u8]) -> Result<RsaKeyPair> {
    RsaKeyPair::from_pkcs8(der)
        .or_else(|_| RsaKeyPair::from_der(der))
        .map_err(|rejected| ErrorKind::InvalidRsaKey(rejected.to_string()).into())
}

struct RingSigner {
    algorithm: Algorithm,
    key: Key,
}

enum Key {
    Hmac(hmac::Key),
    Ecdsa(EcdsaKeyPair),
    Ed25519(Ed25519KeyPair),
    Rsa(RsaKeyPair, &'static dyn RsaEncoding),
}

impl Signer<Vec<u8>> for RingSigner {
    fn try_sign(&self, message: &[u8]) -> std::result::Result<Vec<u8>, signature::Error> {
        match &self.key {
            Key::Hmac(key) => Ok(hmac::sign(key, message).as_ref().to_vec()),
            Key::Ed25519(pair) => Ok(pair.sign(message).as_ref().to_vec()),
            Key::Ecdsa(pair) => pair
                .sign(&SystemRandom::new(), message)
                .map(|s| s.as_ref().to_vec())
                .map_err(|_| signature::Error::new()),
            Key::Rsa(pair, padding) => {
                let mut out = vec![0; pair.public().modulus_len()];
                pair.sign(*padding, &SystemRandom::new(), message, &mut out)
                    .map_err(|_| signature::Error::new())?;
                Ok(out)
            }
        }
    }
}

impl JwtSigner for RingSigner {
    fn algorithm(&self) -> Algorithm {
        self.algorithm
    }
}
