//! An access token's checks (OAuth 2.1 §5.2, RFC 9068): a JWT whose `alg`
//! is on the allowlist (never `none`, never a shared secret), whose `typ`
//! is `at+jwt` or `JWT` (or absent), signed by a key of the issuer's that
//! fits that `alg`, with this server's issuer, one of its audiences, and
//! `exp`/`nbf` within the leeway. What passes is the caller's [`Claims`].

use std::collections::HashSet;
use std::sync::Arc;

use jsonwebtoken::{Algorithm, Validation};
use serde::Deserialize;

use super::jwks::{KeyCache, KeyError};

/// Default of `serve --oauth-algorithms`: the asymmetric ones.
pub const DEFAULT_ALGORITHMS: &[Algorithm] = &[
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// The caller a valid access token names, as the request's extensions
/// carry it.
#[derive(Clone, Debug)]
pub struct Claims {
    /// `iss` (checked to be the server's `--oauth-issuer`).
    pub issuer: String,
    /// `sub`.
    pub subject: Option<String>,
    /// `client_id`.
    pub client_id: Option<String>,
    /// The scopes granted: `scope` (space-separated) or `scp` (a list).
    pub scopes: HashSet<String>,
    /// The token itself, for servers that pass the caller's identity on.
    pub token: mcpgraph_runtime::host::CallerToken,
}

#[derive(Deserialize)]
struct RawClaims {
    sub: Option<String>,
    client_id: Option<String>,
    scope: Option<String>,
    scp: Option<Scp>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Scp {
    List(Vec<String>),
    Text(String),
}

/// Why a token was refused (for the log; the client only learns
/// `invalid_token`).
#[derive(Debug, PartialEq, Eq)]
pub enum Invalid {
    /// Not a JWT, or a header this server does not accept (`alg`, `typ`).
    Malformed(&'static str),
    /// No key of the issuer's fits it.
    UnknownKey,
    /// The issuer's keys could not be fetched yet.
    KeysUnavailable,
    /// Signature, issuer, audience or lifetime.
    Rejected(String),
}

/// What a token must satisfy.
pub struct Policy {
    /// `alg`s accepted.
    pub algorithms: Vec<Algorithm>,
    /// `iss` required.
    pub issuer: String,
    /// `aud` values accepted (one is enough).
    pub audiences: Vec<String>,
    /// Clock skew allowed on `exp` and `nbf`.
    pub leeway_secs: u64,
}

/// `token`'s claims once every check passed.
pub async fn verify(token: &str, policy: &Policy, keys: &Arc<KeyCache>) -> Result<Claims, Invalid> {
    let header = jsonwebtoken::decode_header(token)
        .map_err(|_| Invalid::Malformed("not a JWT with a supported `alg`"))?;
    if !policy.algorithms.contains(&header.alg) {
        return Err(Invalid::Malformed("`alg` not allowed"));
    }
    if header.typ.as_deref().is_some_and(|typ| {
        !["at+jwt", "application/at+jwt", "jwt"]
            .iter()
            .any(|ok| typ.eq_ignore_ascii_case(ok))
    }) {
        return Err(Invalid::Malformed("`typ` is neither at+jwt nor JWT"));
    }
    let key = keys
        .key(header.kid.as_deref(), header.alg)
        .await
        .map_err(|e| match e {
            KeyError::Unknown => Invalid::UnknownKey,
            KeyError::Unavailable => Invalid::KeysUnavailable,
        })?;
    let mut validation = Validation::new(header.alg);
    validation.algorithms = vec![header.alg];
    validation.leeway = policy.leeway_secs;
    validation.validate_nbf = true;
    validation.set_issuer(&[&policy.issuer]);
    validation.set_audience(&policy.audiences);
    validation.set_required_spec_claims(&["exp", "iss", "aud"]);
    let data = jsonwebtoken::decode::<RawClaims>(token, &key.decoding, &validation)
        .map_err(|e| Invalid::Rejected(format!("{:?}", e.kind())))?;
    let raw = data.claims;
    let scopes = match (raw.scope, raw.scp) {
        (Some(scope), _) | (None, Some(Scp::Text(scope))) => scope
            .split(' ')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        (None, Some(Scp::List(list))) => list.into_iter().collect(),
        (None, None) => HashSet::new(),
    };
    Ok(Claims {
        issuer: policy.issuer.clone(),
        subject: raw.sub,
        client_id: raw.client_id,
        token: mcpgraph_runtime::host::CallerToken::new(token, scopes.iter().cloned()),
        scopes,
    })
}

/// The access token of an `Authorization` header: `Bearer` (in any case),
/// one or more spaces, then a `b64token` (RFC 6750 §2.1). `None` for any
/// other header.
pub fn bearer_token(header: &[u8]) -> Option<&str> {
    const SCHEME: &[u8] = b"Bearer";
    let (scheme, rest) = header.split_at_checked(SCHEME.len())?;
    let spaces = rest.iter().take_while(|&&b| b == b' ').count();
    if !scheme.eq_ignore_ascii_case(SCHEME) || spaces == 0 {
        return None;
    }
    let token = &rest[spaces..];
    let b64token = |b: &u8| b.is_ascii_alphanumeric() || b"-._~+/=".contains(b);
    (!token.is_empty() && token.iter().all(b64token))
        .then(|| std::str::from_utf8(token).ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::bearer_token;

    #[test]
    fn bearer_tokens_are_read_from_rfc_6750_headers_only() {
        assert_eq!(bearer_token(b"Bearer a.b.c"), Some("a.b.c"));
        assert_eq!(bearer_token(b"bearer   a-b_c"), Some("a-b_c"));
        for bad in [
            &b"Basic a.b.c"[..],
            b"Bearer",
            b"Bearer ",
            b"Bearera.b",
            b"Bearer a b",
            b"",
        ] {
            assert_eq!(
                bearer_token(bad),
                None,
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
