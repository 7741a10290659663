//! The issuer's signing keys: found through its metadata (RFC 8414, then
//! OpenID Connect discovery) unless `--oauth-jwks-url` names the JWKS,
//! fetched with bounds (10 s, 1 MiB, 100 keys) and kept by `kid`.
//!
//! A token whose `kid` is known costs no fetch. An unknown `kid` (the
//! issuer rotated its keys) fetches the set again, at most once per
//! [`MIN_REFETCH`] whatever the tokens say, so that a flood of made-up
//! `kid`s causes no fetch storm; concurrent lookups share one fetch. A set
//! older than [`MAX_AGE`] is fetched again in the background (keys the
//! issuer withdrew stop working). A failed fetch keeps the last good set.

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk};
use jsonwebtoken::{Algorithm, DecodingKey};

use super::fetch_error::FetchError;

/// The shortest time between two fetches of the key set.
pub(super) const MIN_REFETCH: Duration = Duration::from_secs(5);
/// The age after which the key set is fetched again in the background.
const MAX_AGE: Duration = Duration::from_secs(15 * 60);
/// How long one metadata or key set request may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest metadata document or key set read.
const MAX_BODY: usize = 1 << 20;
/// Keys kept at most (the first ones of the set).
const MAX_KEYS: usize = 100;

/// One verification key of the issuer.
pub(super) struct Key {
    kid: Option<String>,
    /// The JWK's `alg`, when it pins one.
    alg: Option<Algorithm>,
    /// What the key is: the algorithms it can verify.
    kind: KeyKind,
    pub(super) decoding: DecodingKey,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum KeyKind {
    Rsa,
    P256,
    P384,
    Ed25519,
}

impl Key {
    /// Whether this key may verify a token signed with `alg`: the key's
    /// type and curve fit it, and the JWK's own `alg`, if any, is it.
    pub(super) fn fits(&self, alg: Algorithm) -> bool {
        use Algorithm::*;
        let kind_fits = match self.kind {
            KeyKind::Rsa => matches!(alg, RS256 | RS384 | RS512 | PS256 | PS384 | PS512),
            KeyKind::P256 => alg == ES256,
            KeyKind::P384 => alg == ES384,
            KeyKind::Ed25519 => alg == EdDSA,
        };
        kind_fits && self.alg.is_none_or(|pinned| pinned == alg)
    }

    /// The key of JWK `value`, if it is a public signature key of a kind
    /// this server verifies (RSA, P-256, P-384, Ed25519; never a shared
    /// secret).
    fn from_jwk(value: &serde_json::Value) -> Option<Key> {
        if value.get("use").is_some_and(|u| u != "sig") {
            return None;
        }
        let jwk: Jwk = serde_json::from_value(value.clone()).ok()?;
        let kind = match &jwk.algorithm {
            AlgorithmParameters::RSA(_) => KeyKind::Rsa,
            AlgorithmParameters::EllipticCurve(p) => match p.curve {
                EllipticCurve::P256 => KeyKind::P256,
                EllipticCurve::P384 => KeyKind::P384,
                _ => return None,
            },
            AlgorithmParameters::OctetKeyPair(p) if p.curve == EllipticCurve::Ed25519 => {
                KeyKind::Ed25519
            }
            _ => return None,
        };
        let alg = match value.get("alg").and_then(|a| a.as_str()) {
            None => None,
            Some(name) => Some(name.parse::<Algorithm>().ok()?),
        };
        Some(Key {
            kid: jwk.common.key_id.clone(),
            alg,
            kind,
            decoding: DecodingKey::from_jwk(&jwk).ok()?,
        })
    }
}

/// Why no key was found for a token.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum KeyError {
    /// The set is known and has no key for the token.
    Unknown,
    /// No set could be fetched yet.
    Unavailable,
}

/// The issuer's keys, fetched on demand.
pub struct KeyCache {
    client: reqwest::Client,
    issuer: String,
    /// `--oauth-jwks-url`, else found by discovery (and kept).
    jwks_url: tokio::sync::Mutex<Option<String>>,
    state: RwLock<KeySet>,
}

#[derive(Default)]
struct KeySet {
    keys: Vec<Arc<Key>>,
    /// When the set was last fetched successfully.
    fetched: Option<Instant>,
    /// When a fetch was last started.
    attempted: Option<Instant>,
}

impl KeyCache {
    /// The keys of `issuer`, at `jwks_url` or found by discovery, fetched
    /// by a client of `client`'s settings (the caller's TLS provider
    /// installed) with this cache's timeouts and no redirects. Fetches
    /// nothing yet.
    pub fn new(
        issuer: &str,
        jwks_url: Option<String>,
        client: reqwest::ClientBuilder,
    ) -> Result<KeyCache, reqwest::Error> {
        // Every token is verified with a key of this cache.
        super::crypto::install();
        let client = client
            .connect_timeout(FETCH_TIMEOUT)
            .timeout(FETCH_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()?;
        Ok(KeyCache {
            client,
            issuer: issuer.to_owned(),
            jwks_url: tokio::sync::Mutex::new(jwks_url),
            state: RwLock::new(KeySet::default()),
        })
    }

    /// The key for a token with `kid` signed with `alg`: from the set held,
    /// else from the set fetched again (if [`MIN_REFETCH`] has passed).
    pub(super) async fn key(
        self: &Arc<Self>,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Result<Arc<Key>, KeyError> {
        if let Some(key) = self.find(kid, alg) {
            if self.read().fetched.is_some_and(|t| t.elapsed() > MAX_AGE) {
                let this = Arc::clone(self);
                tokio::spawn(async move { this.refresh().await });
            }
            return Ok(key);
        }
        self.refresh().await;
        self.find(kid, alg)
            .ok_or_else(|| match self.read().fetched {
                Some(_) => KeyError::Unknown,
                None => KeyError::Unavailable,
            })
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, KeySet> {
        self.state.read().unwrap_or_else(|e| e.into_inner())
    }

    /// The key named `kid` that fits `alg`; without a `kid`, the one key
    /// of the set that fits `alg`, if there is exactly one.
    fn find(&self, kid: Option<&str>, alg: Algorithm) -> Option<Arc<Key>> {
        let set = self.read();
        let mut fitting = set.keys.iter().filter(|k| k.fits(alg));
        match kid {
            Some(kid) => fitting.find(|k| k.kid.as_deref() == Some(kid)).cloned(),
            None => match (fitting.next(), fitting.next()) {
                (Some(only), None) => Some(Arc::clone(only)),
                _ => None,
            },
        }
    }

    /// Fetches the set again unless a fetch started less than
    /// `MIN_REFETCH` ago; keeps the last good set on failure. Callers
    /// that come during a fetch wait for it (the `jwks_url` lock).
    pub async fn refresh(&self) {
        let mut url = self.jwks_url.lock().await;
        {
            let mut set = self.state.write().unwrap_or_else(|e| e.into_inner());
            if set.attempted.is_some_and(|t| t.elapsed() < MIN_REFETCH) {
                return;
            }
            set.attempted = Some(Instant::now());
        }
        let fetched = async {
            if url.is_none() {
                *url = Some(self.discover().await?);
            }
            let jwks_url = url.as_deref().unwrap_or_default();
            self.fetch_keys(jwks_url).await
        };
        match fetched.await {
            Ok(keys) => {
                let mut set = self.state.write().unwrap_or_else(|e| e.into_inner());
                tracing::debug!(keys = keys.len(), "fetched the OAuth issuer's keys");
                set.keys = keys;
                set.fetched = Some(Instant::now());
            }
            Err(e) => {
                tracing::warn!(issuer = %self.issuer, "cannot fetch the OAuth issuer's keys: {e}")
            }
        }
    }

    /// The issuer's `jwks_uri`, from its metadata: RFC 8414 first, then
    /// OpenID Connect discovery. The metadata must name the same issuer.
    async fn discover(&self) -> Result<String, FetchError> {
        let mut misses = Vec::new();
        for url in metadata_urls(&self.issuer) {
            match self.get_json(&url).await {
                Ok(meta) if meta["issuer"] != self.issuer.as_str() => {
                    misses.push(FetchError::OtherIssuer {
                        url,
                        issuer: self.issuer.clone(),
                    });
                }
                Ok(meta) => match meta["jwks_uri"].as_str() {
                    Some(jwks) => return Ok(jwks.to_owned()),
                    None => misses.push(FetchError::NoJwksUri { url }),
                },
                Err(e) => misses.push(e),
            }
        }
        Err(FetchError::NoMetadata(misses))
    }

    async fn fetch_keys(&self, url: &str) -> Result<Vec<Arc<Key>>, FetchError> {
        let jwks = self.get_json(url).await?;
        let Some(items) = jwks["keys"].as_array() else {
            return Err(FetchError::NotAKeySet {
                url: url.to_owned(),
            });
        };
        Ok(items
            .iter()
            .take(MAX_KEYS)
            .filter_map(Key::from_jwk)
            .map(Arc::new)
            .collect())
    }

    /// `url`'s JSON body, read up to [`MAX_BODY`] bytes.
    async fn get_json(&self, url: &str) -> Result<serde_json::Value, FetchError> {
        let failed = |source| FetchError::Request {
            url: url.to_owned(),
            source,
        };
        let mut response = self
            .client
            .get(url)
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(failed)?;
        if !response.status().is_success() {
            return Err(FetchError::Status {
                url: url.to_owned(),
                status: response.status(),
            });
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(failed)? {
            if body.len() + chunk.len() > MAX_BODY {
                return Err(FetchError::TooLarge {
                    url: url.to_owned(),
                    limit: MAX_BODY,
                });
            }
            body.extend_from_slice(&chunk);
        }
        serde_json::from_slice(&body).map_err(|source| FetchError::NotJson {
            url: url.to_owned(),
            source,
        })
    }
}

/// Where `issuer`'s metadata may be, in the order tried: RFC 8414's
/// well-known URL (inserted before the issuer's path), OpenID Connect's
/// (appended to it), and OpenID Connect's inserted like RFC 8414's.
fn metadata_urls(issuer: &str) -> Vec<String> {
    let trimmed = issuer.trim_end_matches('/');
    let (origin, path) = match trimmed.find("://").map(|i| i + 3) {
        Some(start) => match trimmed[start..].find('/') {
            Some(slash) => trimmed.split_at(start + slash),
            None => (trimmed, ""),
        },
        None => (trimmed, ""),
    };
    let mut urls = vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{trimmed}/.well-known/openid-configuration"),
    ];
    if !path.is_empty() {
        urls.push(format!("{origin}/.well-known/openid-configuration{path}"));
    }
    urls
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_urls_follow_rfc_8414_then_oidc() {
        assert_eq!(
            metadata_urls("https://as.example.com"),
            [
                "https://as.example.com/.well-known/oauth-authorization-server",
                "https://as.example.com/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            metadata_urls("https://as.example.com/tenant/1/"),
            [
                "https://as.example.com/.well-known/oauth-authorization-server/tenant/1",
                "https://as.example.com/tenant/1/.well-known/openid-configuration",
                "https://as.example.com/.well-known/openid-configuration/tenant/1",
            ]
        );
    }

    #[test]
    fn keys_fit_only_their_algorithms() {
        let ec = serde_json::json!({"kty": "EC", "crv": "P-256", "kid": "a",
            "x": "sESMdfbEY-c5j-UTE3ugxjo4KoaXMC5aaDBu7DJDyi8",
            "y": "M3QDkgNEPw-wtrXIy3XKIV2vOEgDgZT2lZBjSRi4HLw"});
        let key = Key::from_jwk(&ec).expect("an EC key");
        assert!(key.fits(Algorithm::ES256));
        assert!(!key.fits(Algorithm::ES384) && !key.fits(Algorithm::RS256));
        assert!(!key.fits(Algorithm::HS256));
        let mut pinned = ec.clone();
        pinned["alg"] = "ES384".into();
        assert!(!Key::from_jwk(&pinned).unwrap().fits(Algorithm::ES256));
        let mut enc = ec.clone();
        enc["use"] = "enc".into();
        assert!(Key::from_jwk(&enc).is_none());
        let secret = serde_json::json!({"kty": "oct", "k": "c2VjcmV0", "kid": "s"});
        assert!(
            Key::from_jwk(&secret).is_none(),
            "shared secrets are never keys"
        );
    }
}
