//! Verifiers: a signature checked by ring against a public key (a JWK's
//! components) or a shared secret.

use jsonwebtoken::crypto::JwtVerifier;
use jsonwebtoken::errors::{ErrorKind, Result};
use jsonwebtoken::signature::{self, Verifier};
use jsonwebtoken::{Algorithm, DecodingKey, DecodingKeyKind};
use ring::hmac;
use ring::signature::{
    ECDSA_P256_SHA256_FIXED, ECDSA_P384_SHA384_FIXED, ED25519, RSA_PKCS1_2048_8192_SHA256,
    RSA_PKCS1_2048_8192_SHA384, RSA_PKCS1_2048_8192_SHA512, RSA_PSS_2048_8192_SHA256,
    RSA_PSS_2048_8192_SHA384, RSA_PSS_2048_8192_SHA512, RsaParameters, RsaPublicKeyComponents,
    UnparsedPublicKey, VerificationAlgorithm,
};

/// The verifier of `key` for `algorithm`: an error when the key is not of
/// the algorithm's family. The key itself is parsed when a signature is
/// checked: a malformed key refuses every signature.
pub(super) fn verifier(algorithm: &Algorithm, key: &DecodingKey) -> Result<Box<dyn JwtVerifier>> {
    let algorithm = *algorithm;
    if key.family() != algorithm.family() {
        return Err(ErrorKind::InvalidKeyFormat.into());
    }
    let check = match algorithm {
        Algorithm::HS256 => Check::Hmac(hmac::HMAC_SHA256),
        Algorithm::HS384 => Check::Hmac(hmac::HMAC_SHA384),
        Algorithm::HS512 => Check::Hmac(hmac::HMAC_SHA512),
        // A JWK's EC key is the uncompressed point (0x04 ‖ x ‖ y).
        Algorithm::ES256 => Check::Public(&ECDSA_P256_SHA256_FIXED),
        Algorithm::ES384 => Check::Public(&ECDSA_P384_SHA384_FIXED),
        Algorithm::EdDSA => Check::Public(&ED25519),
        Algorithm::RS256 => Check::Rsa(&RSA_PKCS1_2048_8192_SHA256),
        Algorithm::RS384 => Check::Rsa(&RSA_PKCS1_2048_8192_SHA384),
        Algorithm::RS512 => Check::Rsa(&RSA_PKCS1_2048_8192_SHA512),
        Algorithm::PS256 => Check::Rsa(&RSA_PSS_2048_8192_SHA256),
        Algorithm::PS384 => Check::Rsa(&RSA_PSS_2048_8192_SHA384),
        Algorithm::PS512 => Check::Rsa(&RSA_PSS_2048_8192_SHA512),
        _ => return Err(ErrorKind::UnsupportedAlgorithm.into()),
    };
    Ok(Box::new(RingVerifier {
        algorithm,
        check,
        key: key.clone(),
    }))
}

struct RingVerifier {
    algorithm: Algorithm,
    check: Check,
    key: DecodingKey,
}

enum Check {
    Hmac(hmac::Algorithm),
    Public(&'static dyn VerificationAlgorithm),
    Rsa(&'static RsaParameters),
}

impl Verifier<Vec<u8>> for RingVerifier {
    fn verify(&self, message: &[u8], sig: &Vec<u8>) -> std::result::Result<(), signature::Error> {
        let checked = match (&self.check, self.key.kind()) {
            (Check::Hmac(algorithm), DecodingKeyKind::SecretOrDer(secret)) => {
                hmac::verify(&hmac::Key::new(*algorithm, secret), message, sig)
            }
            (Check::Public(algorithm), DecodingKeyKind::SecretOrDer(public)) => {
                UnparsedPublicKey::new(*algorithm, public).verify(message, sig)
            }
            // PKCS#1 `RSAPublicKey` DER.
            (Check::Rsa(parameters), DecodingKeyKind::SecretOrDer(der)) => {
                UnparsedPublicKey::new(*parameters, der).verify(message, sig)
            }
            (Check::Rsa(parameters), DecodingKeyKind::RsaModulusExponent { n, e }) => {
                // ring wants no leading zeros; some issuers' JWKs have one.
                let components = RsaPublicKeyComponents {
                    n: unpadded(n),
                    e: unpadded(e),
                };
                components.verify(parameters, message, sig)
            }
            (_, DecodingKeyKind::RsaModulusExponent { .. }) => return Err(signature::Error::new()),
        };
        checked.map_err(|_| signature::Error::new())
    }
}

impl JwtVerifier for RingVerifier {
    fn algorithm(&self) -> Algorithm {
        self.algorithm
    }
}

/// A big-endian integer without its leading zero bytes.
fn unpadded(bytes: &[u8]) -> &[u8] {
    let zeros = bytes.iter().take_while(|&&b| b == 0).count();
    &bytes[zeros..]
}
