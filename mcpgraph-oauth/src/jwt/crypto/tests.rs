use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{Jwk, ThumbprintHash};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use rustls_pki_types::PrivatePkcs8KeyDer;
use rustls_pki_types::pem::PemObject;

use super::pem::KeyError;
use super::signing_key;

const RSA: &str = include_str!("testdata/rsa_pkcs8.pem");
const RSA_PKCS1: &str = include_str!("testdata/rsa_pkcs1.pem");
const RSA_OTHER: &str = include_str!("testdata/rsa_other.pem");
const RSA_1024: &str = include_str!("testdata/rsa1024.pem");
const P256: &str = include_str!("testdata/p256.pem");
const P256_SEC1: &str = include_str!("testdata/p256_sec1.pem");
const P256_NO_PUBLIC: &str = include_str!("testdata/p256_nopub.pem");
const P384: &str = include_str!("testdata/p384.pem");
const ED25519: &str = include_str!("testdata/ed25519.pem");

fn jwk(text: &str) -> DecodingKey {
    let jwk: Jwk = serde_json::from_str(text).expect("test JWK");
    DecodingKey::from_jwk(&jwk).expect("test JWK")
}

fn rsa_jwk() -> DecodingKey {
    jwk(include_str!("testdata/rsa.jwk.json"))
}

fn key(pem: &str) -> EncodingKey {
    signing_key(pem).expect("test key").0
}

/// The Ed25519 key: client assertions refuse it, tokens in tests use it.
fn ed25519() -> EncodingKey {
    super::install();
    let der = PrivatePkcs8KeyDer::from_pem_slice(ED25519.as_bytes()).expect("test key");
    EncodingKey::from_ed_der(der.secret_pkcs8_der())
}

fn sign(alg: Algorithm, key: &EncodingKey) -> Result<String, ErrorKind> {
    super::install();
    let claims = serde_json::json!({"sub": "alice", "n": 7});
    jsonwebtoken::encode(&Header::new(alg), &claims, key).map_err(|e| e.into_kind())
}

fn check(token: &str, alg: Algorithm, key: &DecodingKey) -> Result<serde_json::Value, ErrorKind> {
    let mut validation = Validation::new(alg);
    validation.required_spec_claims.clear();
    validation.validate_exp = false;
    jsonwebtoken::decode::<serde_json::Value>(token, key, &validation)
        .map(|data| data.claims)
        .map_err(|e| e.into_kind())
}

fn round_trip(alg: Algorithm, signing: &EncodingKey, verifying: &DecodingKey) {
    let token = sign(alg, signing).unwrap_or_else(|e| panic!("{alg:?}: {e:?}"));
    let claims = check(&token, alg, verifying).unwrap_or_else(|e| panic!("{alg:?}: {e:?}"));
    assert_eq!(claims["sub"], "alice", "{alg:?}");
}

#[test]
fn every_algorithm_signs_and_verifies() {
    use Algorithm::*;
    for pem in [RSA, RSA_PKCS1] {
        for alg in [RS256, RS384, RS512, PS256, PS384, PS512] {
            round_trip(alg, &key(pem), &rsa_jwk());
        }
    }
    round_trip(
        ES256,
        &key(P256),
        &jwk(include_str!("testdata/p256.jwk.json")),
    );
    round_trip(
        ES384,
        &key(P384),
        &jwk(include_str!("testdata/p384.jwk.json")),
    );
    round_trip(
        EdDSA,
        &ed25519(),
        &jwk(include_str!("testdata/ed25519.jwk.json")),
    );
    let secret = b"a shared secret of 32 bytes or so";
    for alg in [HS256, HS384, HS512] {
        round_trip(
            alg,
            &EncodingKey::from_secret(secret),
            &DecodingKey::from_secret(secret),
        );
    }
}

/// Tokens signed by another implementation (OpenSSL, see
/// testdata/README.md) verify, and fail under the wrong key.
#[test]
fn tokens_signed_by_openssl_verify() {
    super::install();
    let tokens: serde_json::Value =
        serde_json::from_str(include_str!("testdata/openssl_tokens.json")).unwrap();
    let p256 = jwk(include_str!("testdata/p256.jwk.json"));
    let p384 = jwk(include_str!("testdata/p384.jwk.json"));
    let ed = jwk(include_str!("testdata/ed25519.jwk.json"));
    let rsa_other = jwk(include_str!("testdata/rsa_other.jwk.json"));
    use Algorithm::*;
    let cases = [
        ("RS256", RS256, rsa_jwk()),
        ("RS384", RS384, rsa_jwk()),
        ("RS512", RS512, rsa_jwk()),
        ("PS256", PS256, rsa_jwk()),
        ("PS384", PS384, rsa_jwk()),
        ("PS512", PS512, rsa_jwk()),
        ("ES256", ES256, p256),
        ("ES384", ES384, p384),
        ("EdDSA", EdDSA, ed),
    ];
    for (name, alg, key) in cases {
        let token = tokens[name].as_str().unwrap();
        let claims = check(token, alg, &key).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_eq!(claims["iss"], "openssl", "{name}");
    }
    let rs256 = tokens["RS256"].as_str().unwrap();
    assert!(matches!(
        check(rs256, RS256, &rsa_other),
        Err(ErrorKind::InvalidSignature)
    ));
}

#[test]
fn rsa_jwks_with_a_leading_zero_verify() {
    // Some issuers encode `n` as a DER integer, with a leading zero byte.
    let mut value: serde_json::Value =
        serde_json::from_str(include_str!("testdata/rsa.jwk.json")).unwrap();
    let n = value["n"].as_str().unwrap();
    let mut bytes = base64::Engine::decode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, n)
        .expect("test JWK");
    bytes.insert(0, 0);
    value["n"] =
        base64::Engine::encode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, bytes).into();
    round_trip(Algorithm::RS256, &key(RSA), &jwk(&value.to_string()));
}

#[test]
fn a_token_signed_by_another_key_is_refused() {
    let cases = [
        (Algorithm::RS256, key(RSA_OTHER), rsa_jwk()),
        (Algorithm::PS256, key(RSA_OTHER), rsa_jwk()),
        (
            Algorithm::ES256,
            key(P256),
            jwk(include_str!("testdata/p256_other.jwk.json")),
        ),
        (
            Algorithm::EdDSA,
            ed25519(),
            jwk(include_str!("testdata/ed25519_other.jwk.json")),
        ),
        (
            Algorithm::HS256,
            EncodingKey::from_secret(b"one"),
            DecodingKey::from_secret(b"two"),
        ),
    ];
    for (alg, signing, verifying) in cases {
        let token = sign(alg, &signing).unwrap();
        assert!(
            matches!(
                check(&token, alg, &verifying),
                Err(ErrorKind::InvalidSignature)
            ),
            "{alg:?}"
        );
    }
    // A changed payload under the right key.
    let token = sign(Algorithm::ES256, &key(P256)).unwrap();
    let mut parts: Vec<&str> = token.split('.').collect();
    parts[1] = "eyJzdWIiOiJtYWxsb3J5In0";
    let forged = parts.join(".");
    let p256 = jwk(include_str!("testdata/p256.jwk.json"));
    assert!(matches!(
        check(&forged, Algorithm::ES256, &p256),
        Err(ErrorKind::InvalidSignature)
    ));
}

#[test]
fn a_key_of_another_algorithm_is_refused() {
    use jsonwebtoken::crypto::{sign as raw_sign, verify as raw_verify};
    // Signing: the key's family or curve does not fit the algorithm.
    assert!(sign(Algorithm::ES256, &key(P384)).is_err());
    assert!(sign(Algorithm::ES384, &key(P256)).is_err());
    assert!(sign(Algorithm::RS256, &key(P256)).is_err());
    assert!(sign(Algorithm::ES256, &key(RSA)).is_err());
    assert!(sign(Algorithm::HS256, &key(RSA)).is_err());
    assert!(sign(Algorithm::EdDSA, &key(P256)).is_err());
    // Verifying: an RSA signature checked as another RSA algorithm, and
    // keys of another family.
    let message = b"header.payload";
    let signature = raw_sign(message, &key(RSA), Algorithm::RS256).unwrap();
    assert!(raw_verify(&signature, message, &rsa_jwk(), Algorithm::RS256).unwrap());
    for alg in [Algorithm::RS384, Algorithm::RS512, Algorithm::PS256] {
        assert!(
            !raw_verify(&signature, message, &rsa_jwk(), alg).unwrap(),
            "{alg:?}"
        );
    }
    let p256 = jwk(include_str!("testdata/p256.jwk.json"));
    let p384 = jwk(include_str!("testdata/p384.jwk.json"));
    let es256 = sign(Algorithm::ES256, &key(P256)).unwrap();
    assert!(check(&es256, Algorithm::ES256, &rsa_jwk()).is_err());
    assert!(check(&es256, Algorithm::ES256, &p384).is_err());
    assert!(raw_verify("AAAA", message, &p256, Algorithm::EdDSA).is_err());
    // An RSA key's components are no HMAC secret.
    assert!(raw_verify("AAAA", message, &rsa_jwk(), Algorithm::HS256).is_err());
}

/// The PEM forms a client assertion's key has been read in: PKCS#8 EC
/// and RSA keys, PKCS#1 RSA keys, the first key of the text.
#[test]
fn client_assertion_keys_in_pem() {
    assert_eq!(signing_key(RSA).unwrap().1, Algorithm::RS256);
    assert_eq!(signing_key(RSA_PKCS1).unwrap().1, Algorithm::RS256);
    assert_eq!(signing_key(P256).unwrap().1, Algorithm::ES256);
    // ES256 stays the default for any EC key (docs/FORMAT.md).
    assert_eq!(signing_key(P384).unwrap().1, Algorithm::ES256);
    let commented = format!("the client's key\n{P256}");
    assert_eq!(signing_key(&commented).unwrap().1, Algorithm::ES256);
    let two = format!("{P256}{RSA}");
    assert_eq!(signing_key(&two).unwrap().1, Algorithm::ES256);
}

#[test]
fn malformed_keys_give_errors_not_panics() {
    let truncated = {
        let lines: Vec<&str> = P256.lines().collect();
        format!("{}\n{}\n{}\n", lines[0], lines[1], lines[lines.len() - 1])
    };
    let cases = [
        ("", KeyError::NotPem),
        ("not a key", KeyError::NotPem),
        (
            "-----BEGIN PRIVATE KEY-----\n!!!!\n-----END PRIVATE KEY-----\n",
            KeyError::NotPem,
        ),
        (
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
            KeyError::Pkcs8,
        ),
        (truncated.as_str(), KeyError::Pkcs8),
        (P256_SEC1, KeyError::Sec1),
        (ED25519, KeyError::Pkcs8),
        (P256_NO_PUBLIC, KeyError::Pkcs8),
        (RSA_1024, KeyError::Pkcs8),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n",
            KeyError::Rsa("InvalidEncoding".into()),
        ),
    ];
    for (pem, expected) in cases {
        let error = signing_key(pem).expect_err(pem);
        assert_eq!(error, expected, "{pem}");
        let message = error.to_string();
        assert!(message.starts_with("`auth` private key: "), "{message}");
        for line in pem
            .lines()
            .filter(|l| !l.starts_with("-----") && l.len() > 8)
        {
            assert!(!message.contains(&line[..8]), "{message}");
        }
    }
    // DER that is no key of its family, behind jsonwebtoken's own
    // constructors.
    for bad in [
        EncodingKey::from_rsa_der(b"junk"),
        EncodingKey::from_ec_der(b"junk"),
    ] {
        for alg in [Algorithm::RS256, Algorithm::PS512, Algorithm::ES256] {
            assert!(sign(alg, &bad).is_err());
        }
    }
    assert!(sign(Algorithm::EdDSA, &EncodingKey::from_ed_der(b"")).is_err());
    // JWKs whose components are no key: every signature is refused.
    let token = sign(Algorithm::ES256, &key(P256)).unwrap();
    let short = jwk(r#"{"kty":"EC","crv":"P-256","x":"AAAA","y":"AAAA"}"#);
    assert!(matches!(
        check(&token, Algorithm::ES256, &short),
        Err(ErrorKind::InvalidSignature)
    ));
    let rs = sign(Algorithm::RS256, &key(RSA)).unwrap();
    for text in [
        r#"{"kty":"RSA","n":"AA","e":"AQAB"}"#,
        r#"{"kty":"RSA","n":"","e":""}"#,
    ] {
        assert!(matches!(
            check(&rs, Algorithm::RS256, &jwk(text)),
            Err(ErrorKind::InvalidSignature)
        ));
    }
    let ed = sign(Algorithm::EdDSA, &ed25519()).unwrap();
    let ed_short = jwk(r#"{"kty":"OKP","crv":"Ed25519","x":"AAAA"}"#);
    assert!(matches!(
        check(&ed, Algorithm::EdDSA, &ed_short),
        Err(ErrorKind::InvalidSignature)
    ));
    // Signatures of the wrong length.
    let p256 = jwk(include_str!("testdata/p256.jwk.json"));
    let (head, _) = token.rsplit_once('.').unwrap();
    for signature in ["", "AA", &"A".repeat(4000)] {
        let odd = format!("{head}.{signature}");
        assert!(check(&odd, Algorithm::ES256, &p256).is_err());
    }
}

#[test]
fn jwk_derivations_are_errors_and_thumbprints_work() {
    super::install();
    assert!(Jwk::from_encoding_key(&key(RSA), Algorithm::RS256).is_err());
    assert!(Jwk::from_encoding_key(&key(P256), Algorithm::ES256).is_err());
    assert!(Jwk::from_encoding_key(&ed25519(), Algorithm::EdDSA).is_err());
    // RFC 7638 §3.1's example key and thumbprint.
    let rfc: Jwk = serde_json::from_str(include_str!("testdata/rfc7638.jwk.json")).unwrap();
    assert_eq!(
        rfc.thumbprint(ThumbprintHash::SHA256).unwrap(),
        "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
    );
}
