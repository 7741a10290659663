//! The keys that seal and open states ([`StateKeys`]): read once at
//! start-up from `--state-key-file PATH` or `--state-key-env VAR` (never
//! from a flag's value, which `ps` shows), or made up for this process.
//!
//! Both hold the same text: entries `kid=<base64 of 32 random bytes>`,
//! one a line (or several on a line, separated by commas); `#` starts a
//! comment, blank lines are skipped. The first entry seals, every entry
//! opens. Keys read so go to [`crate::remember`], so that they are
//! redacted wherever they could show up; no key goes into an error, a log
//! line or `Debug` output: errors name the line and the key id, never the
//! key.

use std::fmt;
use std::path::Path;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::{
    STANDARD, STANDARD_NO_PAD, STANDARD_PAD_INDIFFERENT, URL_SAFE, URL_SAFE_NO_PAD,
    URL_SAFE_PAD_INDIFFERENT,
};
use chacha20poly1305::aead::{Generate, KeyInit};
use chacha20poly1305::{Key, XChaCha20Poly1305};
use zeroize::Zeroizing;

use super::{Binding, StateError, is_kid, open_with, parse, seal_with};

/// Why the state keys cannot be read: the place they were to come from
/// (a flag and its file or variable) and what is wrong there, naming a
/// line and a key id, never a key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeysError {
    /// `--state-key-file PATH` or `--state-key-env VAR`.
    place: String,
    /// What is wrong there.
    problem: String,
}

impl KeysError {
    fn new(place: &str, problem: String) -> Self {
        Self {
            place: place.to_owned(),
            problem,
        }
    }
}

impl fmt::Display for KeysError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.place, self.problem)
    }
}

impl std::error::Error for KeysError {}

/// A key's length: XChaCha20-Poly1305 takes 32 bytes.
const KEY_LEN: usize = 32;

/// How to make a key, in error messages.
const KEY_HINT: &str = "a key is 32 random bytes in base64, e.g. from `openssl rand -base64 32`";

/// The keys of this process: the first seals, all open.
#[doc(hidden)]
pub struct StateKeys {
    /// `(key id, cipher)`, the sealing key first. The ciphers zero their
    /// key when dropped.
    keys: Vec<(String, XChaCha20Poly1305)>,
    /// Made up at start-up (no key configured).
    ephemeral: bool,
}

impl fmt::Debug for StateKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateKeys")
            .field("kids", &self.kids().collect::<Vec<_>>())
            .field("ephemeral", &self.ephemeral)
            .finish_non_exhaustive()
    }
}

impl StateKeys {
    /// The keys `--state-key-env VAR` (`env`) or `--state-key-file PATH`
    /// (`file`) give, or with neither, a random key for this process. A
    /// variable that is unset, a file that cannot be read or is writable
    /// by other users, text with no key or a bad entry fail with a
    /// message naming the place (never the key). A file readable by every
    /// user is used, with a warning.
    pub fn load(env: Option<&str>, file: Option<&Path>) -> Result<Self, KeysError> {
        let keys = match (env, file) {
            (Some(_), Some(_)) => {
                return Err(KeysError::new(
                    "--state-key-env and --state-key-file",
                    "give one of them".to_owned(),
                ));
            }
            (Some(var), None) => from_env(var)?,
            (None, Some(path)) => from_file(path)?,
            (None, None) => return Ok(Self::ephemeral()),
        };
        tracing::info!(
            sealing = keys.sealing_kid(),
            opening = ?keys.kids().collect::<Vec<_>>(),
            "state keys loaded"
        );
        Ok(keys)
    }

    /// A random key for this process alone: states it seals open only
    /// here, and only until it exits. Its key id is random too, so a
    /// state sealed elsewhere is refused as sealed with an unknown key.
    ///
    /// Panics only if the operating system has no random source (where
    /// std's `HashMap` panics as well).
    pub fn ephemeral() -> Self {
        let key = Zeroizing::new(<[u8; KEY_LEN]>::generate());
        let kid = format!("proc-{}", URL_SAFE_NO_PAD.encode(<[u8; 6]>::generate()));
        // Not told to redaction: no text from outside can hold a key that
        // never left this process, and redaction stays free without secrets.
        Self {
            keys: vec![(kid, cipher(&key))],
            ephemeral: true,
        }
    }

    /// Whether the key was made up at start-up (no key configured).
    pub fn is_ephemeral(&self) -> bool {
        self.ephemeral
    }

    /// The id of the key that seals.
    pub fn sealing_kid(&self) -> &str {
        &self.keys[0].0
    }

    /// Every key id, the sealing one first.
    pub fn kids(&self) -> impl Iterator<Item = &str> {
        self.keys.iter().map(|(kid, _)| kid.as_str())
    }

    /// Seals `plaintext` with the first key, bound to `binding` (the
    /// graph, who calls, the call), valid for `ttl`. Fails if the token
    /// would be over [`MAX_TOKEN_BYTES`](super::MAX_TOKEN_BYTES).
    pub fn seal(
        &self,
        plaintext: &[u8],
        binding: &Binding,
        ttl: Duration,
    ) -> Result<String, StateError> {
        let (kid, cipher) = &self.keys[0];
        seal_with(kid, cipher, plaintext, binding, ttl)
    }

    /// Opens a token sealed with any of these keys for `binding`, if it
    /// has not expired.
    pub fn open(&self, token: &str, binding: &Binding) -> Result<Vec<u8>, StateError> {
        let (kid, sealed) = parse(token)?;
        let (kid, cipher) =
            self.keys
                .iter()
                .find(|(k, _)| k == kid)
                .ok_or_else(|| StateError::UnknownKey {
                    kid: kid.to_owned(),
                })?;
        open_with(kid, cipher, &sealed, binding)
    }

    /// The keys in `text` (the format in the module comment); `place`
    /// names where it came from in errors, `name` what secrets' redaction
    /// puts in their place (`None`: `state-key:<kid>`).
    pub(super) fn parse(text: &str, place: &str, name: Option<&str>) -> Result<Self, KeysError> {
        let fail = |problem: String| Err(KeysError::new(place, problem));
        let mut keys: Vec<(String, XChaCha20Poly1305)> = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let line_no = index + 1;
            let content = line.split('#').next().unwrap_or_default();
            for entry in content.split(',').map(str::trim).filter(|e| !e.is_empty()) {
                // The entry is not echoed: without its `kid=`, it may be a key.
                let Some((kid, encoded)) = entry
                    .split_once('=')
                    .map(|(kid, encoded)| (kid.trim(), encoded.trim()))
                    .filter(|(kid, _)| is_kid(kid))
                else {
                    return fail(format!(
                        "line {line_no}: expected `kid=<key in base64>`, the key id being \
                         1 to 32 letters, digits, `-` or `_` ({KEY_HINT})"
                    ));
                };
                if keys.iter().any(|(k, _)| k == kid) {
                    return fail(format!("line {line_no}: key id `{kid}` is given twice"));
                }
                let key = decode(encoded).ok_or_else(|| {
                    KeysError::new(
                        place,
                        format!("line {line_no}: key `{kid}` is not base64 ({KEY_HINT})"),
                    )
                })?;
                let Ok(key) = <&[u8; KEY_LEN]>::try_from(key.as_slice()) else {
                    return fail(format!(
                        "line {line_no}: key `{kid}` is {} bytes, not {KEY_LEN} ({KEY_HINT})",
                        key.len()
                    ));
                };
                let name = name.map_or_else(|| format!("state-key:{kid}"), str::to_owned);
                remember(&name, encoded, key);
                keys.push((kid.to_owned(), cipher(key)));
            }
        }
        if keys.is_empty() {
            return fail(format!(
                "no key (expected lines `kid=<key in base64>`; {KEY_HINT})"
            ));
        }
        Ok(Self {
            keys,
            ephemeral: false,
        })
    }
}

/// `--state-key-env VAR`: the variable is kept from downstream servers.
fn from_env(var: &str) -> Result<StateKeys, KeysError> {
    let place = format!("--state-key-env {var}");
    let text = match std::env::var(var) {
        Ok(text) => Zeroizing::new(text),
        Err(std::env::VarError::NotPresent) => {
            return Err(KeysError::new(
                &place,
                format!("environment variable `{var}` is not set"),
            ));
        }
        Err(std::env::VarError::NotUnicode(_)) => {
            return Err(KeysError::new(
                &place,
                format!("environment variable `{var}` is not UTF-8 text"),
            ));
        }
    };
    crate::withhold_from_children(var);
    crate::remember(var, text.trim());
    StateKeys::parse(&text, &place, Some(var))
}

/// `--state-key-file PATH`: refused when other users can write it (they
/// could add a key and forge states), used with a warning when every user
/// can read it.
fn from_file(path: &Path) -> Result<StateKeys, KeysError> {
    let place = format!("--state-key-file {}", path.display());
    let cannot_read = |e: std::io::Error| KeysError::new(&place, format!("cannot read it: {e}"));
    let metadata = std::fs::metadata(path).map_err(cannot_read)?;
    if !metadata.is_file() {
        return Err(KeysError::new(&place, "not a file".to_owned()));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = metadata.permissions().mode() & 0o777;
        if mode & 0o022 != 0 {
            return Err(KeysError::new(
                &place,
                format!(
                    "other users than its owner can write it (mode {mode:03o}), \
                     and so add a key and forge states; `chmod 600` it"
                ),
            ));
        }
        if mode & 0o004 != 0 {
            tracing::warn!(
                "{place}: every user can read it (mode {mode:03o}), and so read and forge \
                 states; `chmod 600` it (a Kubernetes secret volume: defaultMode 0400)"
            );
        }
    }
    let text = Zeroizing::new(std::fs::read_to_string(path).map_err(cannot_read)?);
    StateKeys::parse(&text, &place, None)
}

/// The cipher for `key` (borrowed, so no copy of it is left behind).
fn cipher(key: &[u8; KEY_LEN]) -> XChaCha20Poly1305 {
    XChaCha20Poly1305::new(<&Key>::from(key))
}

/// `encoded` as base64, standard or URL-safe, padded or not.
fn decode(encoded: &str) -> Option<Zeroizing<Vec<u8>>> {
    STANDARD_PAD_INDIFFERENT
        .decode(encoded)
        .or_else(|_| URL_SAFE_PAD_INDIFFERENT.decode(encoded))
        .ok()
        .map(Zeroizing::new)
}

/// Tells [`crate::remember`] about `key`, known as `name`: the text it was
/// `written` as, and each base64 form it could be written in.
fn remember(name: &str, written: &str, key: &[u8]) {
    crate::remember(name, written);
    for engine in [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD] {
        crate::remember(name, &Zeroizing::new(engine.encode(key)));
    }
}
