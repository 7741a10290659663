//! Sealed state: what a call hands its client to keep (MCP 2026-07-28's
//! `requestState`), sealed so that only a server holding the same key can
//! read it, nobody can change it unseen, and it opens only in the graph,
//! for the caller, tool and arguments it was made for, until it expires.
//!
//! A token is `mgs2.<kid>.<base64url(nonce ‖ ciphertext)>`: XChaCha20-Poly1305
//! (RustCrypto's `chacha20poly1305`) under the key `kid`, with a random
//! 24-byte nonce from the operating system; the associated data is
//! `mgs2.<kid>.`, so a token relabelled with another key id or version
//! does not open. The plaintext is the expiry (milliseconds since the
//! Unix epoch, 8 bytes big-endian), the three digests of its [`Binding`]
//! (the graph, the principal, the call: 32 bytes each), then the caller's
//! bytes. The binding is inside the sealed bytes, not in the associated
//! data, so that once a token opens, a refusal can say which part differs
//! (another graph sharing the key, another principal, another call),
//! which the tag alone cannot tell. The first key seals; every key opens
//! (rotation). Keys come from a file or an environment variable
//! ([`keys`]); what the state holds is the caller's business, not this
//! module's.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chacha20poly1305::aead::{Aead, Generate, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};

mod keys;
#[cfg(test)]
mod tests;

pub use keys::{KeysError, StateKeys};

/// The largest token [`StateKeys::seal`] makes and [`StateKeys::open`]
/// reads, in bytes (1 MiB). The token goes to the client in a result and
/// comes back in the retry's request body, beside the arguments and the
/// answers, and `--max-body-bytes` (4 MiB by default; rmcp's own body
/// limit follows it) bounds that body: a quarter of it leaves the rest
/// room. It also bounds what one waiting call can make a client carry
/// and a replica decrypt.
pub const MAX_TOKEN_BYTES: usize = 1 << 20;

/// The token format's version, first in every token and in its
/// associated data (`mgs1` had the binding in the associated data).
const VERSION: &str = "mgs2";
const NONCE_LEN: usize = 24;
const TAG_LEN: usize = 16;
const EXPIRY_LEN: usize = 8;
const DIGEST_LEN: usize = 32;
/// The expiry and the binding's three digests.
const HEADER_LEN: usize = EXPIRY_LEN + 3 * DIGEST_LEN;

/// What a state is bound to, each part a SHA-256 digest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The graph: its server's name and version.
    graph: [u8; DIGEST_LEN],
    /// Who calls: the principal of an OAuth access token (issuer and
    /// subject), else the digest of the credential, else no one.
    principal: [u8; DIGEST_LEN],
    /// The call: the tool, and its arguments' digest.
    call: [u8; DIGEST_LEN],
}

impl Binding {
    /// The binding of `graph`, `principal` and `call`'s bytes (each
    /// hashed on its own).
    pub fn new(graph: &[u8], principal: &[u8], call: &[u8]) -> Self {
        use sha2::Digest as _;
        let digest = |bytes: &[u8]| -> [u8; DIGEST_LEN] { sha2::Sha256::digest(bytes).into() };
        Self {
            graph: digest(graph),
            principal: digest(principal),
            call: digest(call),
        }
    }
}

/// Why a token does not open, or a state cannot be sealed. The messages
/// are written for the client that sent the token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateError {
    /// Not a token of this format (`reason` says which part is wrong).
    Malformed {
        /// What is wrong, e.g. "it does not start with `mgs1.`".
        reason: &'static str,
    },
    /// Sealed under a key id this server does not hold.
    UnknownKey {
        /// The token's key id (checked to be 1 to 32 letters, digits,
        /// `-` or `_`).
        kid: String,
    },
    /// Changed since it was sealed (authentication failed), or sealed
    /// under a key of the same id but other bytes.
    Tampered,
    /// Sealed by another graph (another server name or version) holding
    /// the same key.
    ForeignGraph,
    /// Sealed for another principal (another OAuth subject or issuer, or
    /// another credential).
    OtherPrincipal,
    /// Sealed for another tool or other arguments.
    OtherCall,
    /// Its time is up.
    Expired {
        /// How long ago it expired.
        ago: Duration,
    },
    /// Over [`MAX_TOKEN_BYTES`] (at sealing: the token it would make).
    TooLarge {
        /// The token's length in bytes.
        size: usize,
        /// [`MAX_TOKEN_BYTES`].
        limit: usize,
    },
    /// The operating system gave no random bytes for a nonce.
    Random,
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Malformed { reason } => write!(
                f,
                "requestState is not a state this server issued: {reason} \
                 (call the tool again without it)"
            ),
            Self::UnknownKey { kid } => write!(
                f,
                "requestState was sealed with key `{kid}`, which this server does not hold \
                 (a retired key, or a replica without the deployment's shared state key); \
                 call the tool again without it"
            ),
            Self::Tampered => f.write_str(
                "requestState does not verify: it was altered, or sealed with another key of \
                 the same id; call the tool again without it",
            ),
            Self::ForeignGraph => f.write_str(
                "requestState was issued by another graph (another server name or version \
                 sharing this state key); call the tool again without it",
            ),
            Self::OtherPrincipal => f.write_str(
                "requestState was issued to another caller (another principal or \
                 credential); call the tool again without it",
            ),
            Self::OtherCall => f.write_str(
                "requestState was issued for another tool or other arguments; call the tool \
                 again without it",
            ),
            Self::Expired { ago } => write!(
                f,
                "requestState expired {} s ago; call the tool again without it",
                ago.as_secs()
            ),
            Self::TooLarge { size, limit } => write!(
                f,
                "requestState of {size} bytes is over the limit of {limit} bytes"
            ),
            Self::Random => f.write_str(
                "cannot seal the requestState: the operating system gave no random bytes",
            ),
        }
    }
}

impl std::error::Error for StateError {}

/// Whether `kid` is a key id: 1 to 32 ASCII letters, digits, `-` or `_`
/// (nothing that needs escaping in a token, a log line or a file).
pub(super) fn is_kid(kid: &str) -> bool {
    (1..=32).contains(&kid.len())
        && kid
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The associated data: `mgs2.<kid>.`.
fn associated_data(kid: &str) -> Vec<u8> {
    format!("{VERSION}.{kid}.").into_bytes()
}

/// The length of the token for a plaintext of `len` bytes under `kid`.
fn token_len(kid: &str, len: usize) -> usize {
    let sealed = NONCE_LEN + HEADER_LEN + len + TAG_LEN;
    VERSION.len() + 1 + kid.len() + 1 + (4 * sealed).div_ceil(3)
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Seals `plaintext` under `cipher` (key `kid`): see the module comment.
pub(super) fn seal_with(
    kid: &str,
    cipher: &XChaCha20Poly1305,
    plaintext: &[u8],
    binding: &Binding,
    ttl: Duration,
) -> Result<String, StateError> {
    let size = token_len(kid, plaintext.len());
    if size > MAX_TOKEN_BYTES {
        return Err(StateError::TooLarge {
            size,
            limit: MAX_TOKEN_BYTES,
        });
    }
    let ttl_ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
    let expiry = now_ms().saturating_add(ttl_ms);
    let mut message = zeroize::Zeroizing::new(Vec::with_capacity(HEADER_LEN + plaintext.len()));
    message.extend_from_slice(&expiry.to_be_bytes());
    message.extend_from_slice(&binding.graph);
    message.extend_from_slice(&binding.principal);
    message.extend_from_slice(&binding.call);
    message.extend_from_slice(plaintext);
    let nonce = XNonce::try_generate().map_err(|_| StateError::Random)?;
    let ad = associated_data(kid);
    let ciphertext = cipher
        .encrypt(
            &nonce,
            Payload {
                msg: &message,
                aad: &ad,
            },
        )
        // Only for messages beyond 256 GiB, far over the size checked above.
        .map_err(|_| StateError::TooLarge {
            size,
            limit: MAX_TOKEN_BYTES,
        })?;
    let mut sealed = Vec::with_capacity(NONCE_LEN + ciphertext.len());
    sealed.extend_from_slice(&nonce);
    sealed.extend_from_slice(&ciphertext);
    let mut token = String::with_capacity(size);
    token.push_str(VERSION);
    token.push('.');
    token.push_str(kid);
    token.push('.');
    URL_SAFE_NO_PAD.encode_string(&sealed, &mut token);
    debug_assert_eq!(token.len(), size);
    Ok(token)
}

/// A token's parts: its key id and its sealed bytes (nonce ‖ ciphertext).
pub(super) fn parse(token: &str) -> Result<(&str, Vec<u8>), StateError> {
    if token.len() > MAX_TOKEN_BYTES {
        return Err(StateError::TooLarge {
            size: token.len(),
            limit: MAX_TOKEN_BYTES,
        });
    }
    let malformed = |reason| StateError::Malformed { reason };
    let rest = token
        .strip_prefix(VERSION)
        .and_then(|rest| rest.strip_prefix('.'))
        .ok_or_else(|| {
            if token.starts_with("mgs") {
                malformed("its format version is not `mgs2`")
            } else {
                malformed("it does not start with `mgs2.`")
            }
        })?;
    let (kid, data) = rest
        .split_once('.')
        .ok_or_else(|| malformed("it has no `.` after its key id"))?;
    if !is_kid(kid) {
        return Err(malformed(
            "its key id is not 1 to 32 letters, digits, `-` or `_`",
        ));
    }
    let sealed = URL_SAFE_NO_PAD
        .decode(data)
        .map_err(|_| malformed("its data is not base64url without padding"))?;
    if sealed.len() < NONCE_LEN + TAG_LEN + HEADER_LEN {
        return Err(malformed("its data is too short"));
    }
    Ok((kid, sealed))
}

/// Opens `sealed` (nonce ‖ ciphertext of a token of key `kid`) with
/// `cipher`, checks its binding part by part (the graph, the principal,
/// the call) and its expiry, and gives the caller's plaintext.
pub(super) fn open_with(
    kid: &str,
    cipher: &XChaCha20Poly1305,
    sealed: &[u8],
    binding: &Binding,
) -> Result<Vec<u8>, StateError> {
    let too_short = StateError::Malformed {
        reason: "its data is too short",
    };
    let (nonce, ciphertext) = sealed
        .split_at_checked(NONCE_LEN)
        .ok_or(too_short.clone())?;
    let nonce = XNonce::try_from(nonce).map_err(|_| too_short)?;
    let ad = associated_data(kid);
    let mut message = cipher
        .decrypt(
            &nonce,
            Payload {
                msg: ciphertext,
                aad: &ad,
            },
        )
        .map_err(|_| StateError::Tampered)?;
    let refused = |message: &mut Vec<u8>, error| {
        zeroize::Zeroize::zeroize(message);
        Err(error)
    };
    let Some(header) = message.get(..HEADER_LEN) else {
        return refused(&mut message, StateError::Tampered);
    };
    let (expiry, digests) = header.split_at(EXPIRY_LEN);
    let expiry = u64::from_be_bytes(expiry.try_into().unwrap_or_default());
    let (graph, rest) = digests.split_at(DIGEST_LEN);
    let (principal, call) = rest.split_at(DIGEST_LEN);
    let differs = if graph != binding.graph {
        Some(StateError::ForeignGraph)
    } else if principal != binding.principal {
        Some(StateError::OtherPrincipal)
    } else if call != binding.call {
        Some(StateError::OtherCall)
    } else {
        None
    };
    if let Some(error) = differs {
        return refused(&mut message, error);
    }
    let now = now_ms();
    if now > expiry {
        return refused(
            &mut message,
            StateError::Expired {
                ago: Duration::from_millis(now - expiry),
            },
        );
    }
    message.drain(..HEADER_LEN);
    Ok(message)
}
