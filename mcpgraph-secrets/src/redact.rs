//! The secrets this process holds, and [`redact`], which puts a secret's
//! name in its place wherever it shows up in text bound for a caller, a
//! log line or an exported span.
//!
//! A secret is a value expanded from `${VAR}` in a downstream server's
//! settings (often a token in a header, URL or argument) or the token of
//! `--auth-token-env`. Such values come back in text we did not write: a
//! connection error quoting a URL, a downstream error message, a crashed
//! server's stderr. They come back encoded as often as not (a URL parser
//! percent-encodes `a b` as `a%20b`, JSON escapes `"`), so each secret is
//! looked for in every form it can take there: as it is, JSON-escaped, and
//! percent-encoded as a URL's path, query, userinfo or form data carries
//! it, or with every byte but letters and digits encoded. Each form is
//! replaced by `${NAME}`.
//!
//! Two kinds of secret are held. A configured secret (a `${VAR}` value,
//! a client secret, a state key: [`remember`]) stays for the life of the
//! process; there are as many as the settings name. A token an
//! authorization server issued ([`remember_token`]) stays while its
//! [`Remembered`] guard lives and until it expires, then [`GRACE`] more
//! (a reply in flight may still quote it), and at most [`MAX_TOKENS`] are
//! held: past that, the oldest token's forms leave first, never a
//! configured secret's. What has left is dropped at the registry's next
//! change (in practice, the token that replaces it).
//!
//! Redaction is one pass over the text: the last [`KEY_LEN`] bytes of
//! every form of every secret are the patterns of one Aho-Corasick
//! automaton, and where one is found the few forms ending in it are
//! checked whole, so its cost grows with the text, not with the number of
//! secrets. The automaton is rebuilt by whoever changes the registry,
//! outside the lock readers take: they clone the current snapshot's `Arc`
//! and never wait on a rebuild; keyed by 32 bytes a form, it is small
//! enough that the rebuild is no stall for the call that got a token.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use aho_corasick::{AhoCorasick, MatchKind};
use percent_encoding::{AsciiSet, CONTROLS, NON_ALPHANUMERIC, utf8_percent_encode};

/// Values at least this long are secrets to redact (shorter ones would
/// also hide ordinary words and numbers).
const MIN_LEN: usize = 4;

/// The most tokens held at once: twice the caller tokens token exchange
/// keeps (`downstream/oauth/exchange.rs`), so that every token still in
/// use is held with room for the ones just replaced.
pub(crate) const MAX_TOKENS: usize = 2048;

/// How long a token stays after it expired or its guard was dropped.
pub(crate) const GRACE: Duration = Duration::from_secs(60);

/// The URL spec's fragment percent-encode set.
const FRAGMENT: &AsciiSet = &CONTROLS.add(b' ').add(b'"').add(b'<').add(b'>').add(b'`');
/// Its query set.
const QUERY: &AsciiSet = &CONTROLS.add(b' ').add(b'"').add(b'#').add(b'<').add(b'>');
/// Its path set.
const PATH: &AsciiSet = &QUERY.add(b'?').add(b'`').add(b'{').add(b'}');
/// Its userinfo set.
const USERINFO: &AsciiSet = &PATH
    .add(b'/')
    .add(b':')
    .add(b';')
    .add(b'=')
    .add(b'@')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'|');
/// Its component set (JavaScript's `encodeURIComponent` but for `!'()~*`).
const COMPONENT: &AsciiSet = &USERINFO.add(b'$').add(b'%').add(b'&').add(b'+').add(b',');

/// The secrets of this process.
static REGISTRY: Registry = Registry::new();

/// Every secret, and the automaton that finds them.
struct Registry {
    /// What is held; writers take it in turn.
    entries: Mutex<Entries>,
    /// The automaton of what is held; swapped whole after a change.
    snapshot: RwLock<Option<Arc<Snapshot>>>,
    /// Whether there is any secret: the common case (none) costs one load.
    any: AtomicBool,
    /// Numbers the tokens, for their guards.
    next_id: AtomicU64,
    /// The most tokens held: [`MAX_TOKENS`].
    max_tokens: usize,
}

#[derive(Default)]
struct Entries {
    /// `(replacement, forms)` of each configured secret, in the order
    /// they came.
    configured: Vec<(String, Vec<String>)>,
    /// The tokens, oldest first.
    tokens: VecDeque<Token>,
}

struct Token {
    id: u64,
    replacement: String,
    forms: Vec<String>,
    /// When it leaves; `None`: when its guard is dropped or it is the
    /// oldest past [`MAX_TOKENS`].
    until: Option<Instant>,
}

/// How many bytes of a form the automaton holds: its last [`KEY_LEN`]
/// (all of a shorter one). Tokens are long (a JWT is about a kilobyte in
/// nine forms) and those of one issuer share their first bytes (the JWT
/// header), not their last (the signature): keyed by their ends, the
/// automaton of 2,048 tokens stays small and quick to build, and a key
/// found in text names one or two forms, checked whole.
const KEY_LEN: usize = 32;

/// One pass's worth of patterns.
struct Snapshot {
    /// Finds the keys (each form's last [`KEY_LEN`] bytes, distinct).
    matcher: AhoCorasick,
    /// The forms ending in each key, and in the shorter keys it starts
    /// with, by pattern index.
    forms: Vec<Vec<Form>>,
}

/// A form of a secret, as the automaton knows it.
#[derive(Clone)]
struct Form {
    text: Box<str>,
    /// The length of the key it ends in.
    key_len: usize,
    /// Its secret's `${NAME}`.
    replacement: Arc<str>,
}

/// Keeps a token in the registry: when the last clone is dropped, the
/// token leaves ([`GRACE`] later, at the registry's next change).
#[derive(Clone)]
#[doc(hidden)]
pub struct Remembered(Option<Arc<Guard>>);

struct Guard {
    registry: &'static Registry,
    id: u64,
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.registry.forget(self.id, Instant::now());
    }
}

impl Remembered {
    /// Lets the guard go without the token leaving: it stays until it
    /// expires or is the oldest past [`MAX_TOKENS`] (for a token whose
    /// holder is not ours, as rmcp's credential store is).
    #[doc(hidden)]
    pub fn until_expiry(self) {
        if let Some(guard) = self.0
            && let Ok(guard) = Arc::try_unwrap(guard)
        {
            std::mem::forget(guard);
        }
    }
}

impl std::fmt::Debug for Remembered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Remembered")
    }
}

/// Remembers `value`, known as `name`, as a configured secret, for the
/// life of the process (values shorter than four bytes are not).
pub fn remember(name: &str, value: &str) {
    REGISTRY.remember(name, value, Instant::now());
}

/// Remembers the token `value`, known as `name`, until the guard returned
/// (and all its clones) is dropped or `life` has passed, each [`GRACE`]
/// later; at most [`MAX_TOKENS`] tokens are held, the oldest leaving
/// first.
#[doc(hidden)]
pub fn remember_token(name: &str, value: &str, life: Option<Duration>) -> Remembered {
    REGISTRY.remember_token(name, value, life, Instant::now())
}

impl Registry {
    const fn new() -> Self {
        Self::holding(MAX_TOKENS)
    }

    /// A registry holding at most `max_tokens` tokens.
    const fn holding(max_tokens: usize) -> Self {
        Self {
            entries: Mutex::new(Entries {
                configured: Vec::new(),
                tokens: VecDeque::new(),
            }),
            snapshot: RwLock::new(None),
            any: AtomicBool::new(false),
            next_id: AtomicU64::new(0),
            max_tokens,
        }
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn remember(&self, name: &str, value: &str, now: Instant) {
        if value.len() < MIN_LEN {
            return;
        }
        let replacement = format!("${{{name}}}");
        let mut entries = self.entries();
        let forms = encodings(value);
        if entries
            .configured
            .iter()
            .any(|(r, f)| *r == replacement && *f == forms)
        {
            return;
        }
        entries.configured.push((replacement, forms));
        self.rebuild(&mut entries, now);
    }

    fn remember_token(
        &'static self,
        name: &str,
        value: &str,
        life: Option<Duration>,
        now: Instant,
    ) -> Remembered {
        if value.len() < MIN_LEN {
            return Remembered(None);
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut entries = self.entries();
        entries.tokens.push_back(Token {
            id,
            replacement: format!("${{{name}}}"),
            forms: encodings(value),
            until: life.map(|life| now + life + GRACE),
        });
        self.rebuild(&mut entries, now);
        Remembered(Some(Arc::new(Guard { registry: self, id })))
    }

    /// Token `id`'s guard is gone: it leaves [`GRACE`] from `now`.
    fn forget(&self, id: u64, now: Instant) {
        let mut entries = self.entries();
        if let Some(token) = entries.tokens.iter_mut().find(|t| t.id == id) {
            let leave = now + GRACE;
            token.until = Some(token.until.map_or(leave, |until| until.min(leave)));
        }
    }

    /// Drops what has left by `now` and the oldest tokens past the bound,
    /// then builds and publishes the automaton of the rest.
    fn rebuild(&self, entries: &mut Entries, now: Instant) {
        entries
            .tokens
            .retain(|t| t.until.is_none_or(|until| now < until));
        while entries.tokens.len() > self.max_tokens {
            entries.tokens.pop_front();
        }
        // Each form once: the first secret that has it names it
        // (configured secrets first, then tokens, oldest first).
        let mut keys: Vec<&[u8]> = Vec::new();
        let mut forms: Vec<Vec<Form>> = Vec::new();
        let mut key_index = std::collections::HashMap::new();
        let mut seen = std::collections::HashSet::new();
        let configured = entries.configured.iter().map(|(r, f)| (r, f));
        let tokens = entries.tokens.iter().map(|t| (&t.replacement, &t.forms));
        for (replacement, secret_forms) in configured.chain(tokens) {
            let replacement: Arc<str> = Arc::from(replacement.as_str());
            for form in secret_forms {
                if !seen.insert(form.as_str()) {
                    continue;
                }
                let key = &form.as_bytes()[form.len().saturating_sub(KEY_LEN)..];
                let index = *key_index.entry(key).or_insert_with(|| {
                    keys.push(key);
                    forms.push(Vec::new());
                    keys.len() - 1
                });
                forms[index].push(Form {
                    text: form.as_str().into(),
                    key_len: key.len(),
                    replacement: Arc::clone(&replacement),
                });
            }
        }
        let snapshot = if keys.is_empty() {
            None
        } else {
            // Where keys start at the same place, the longest is found:
            // the shorter ones (of forms shorter than KEY_LEN) are its
            // prefixes, and their forms are checked with its own.
            let short: Vec<(&[u8], Vec<Form>)> = keys
                .iter()
                .zip(&forms)
                .filter(|(key, _)| key.len() < KEY_LEN)
                .map(|(key, forms)| (*key, forms.clone()))
                .collect();
            for (key, forms) in keys.iter().zip(forms.iter_mut()) {
                for (prefix, shorter) in &short {
                    if prefix.len() < key.len() && key.starts_with(prefix) {
                        forms.extend(shorter.iter().cloned());
                    }
                }
            }
            match AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .build(&keys)
            {
                Ok(matcher) => Some(Arc::new(Snapshot { matcher, forms })),
                // Only past the automaton's size limits (far beyond
                // MAX_TOKENS): keep the last automaton, which holds every
                // configured secret.
                Err(e) => {
                    eprintln!("mcpgraph: the secrets to redact could not be indexed: {e}");
                    return;
                }
            }
        };
        self.any.store(snapshot.is_some(), Ordering::Release);
        *self.snapshot.write().unwrap_or_else(|e| e.into_inner()) = snapshot;
    }

    fn current(&self) -> Option<Arc<Snapshot>> {
        if !self.any.load(Ordering::Acquire) {
            return None;
        }
        self.snapshot
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let Some(snapshot) = self.current() else {
            return Cow::Borrowed(text);
        };
        // Every place a key starts, and each form ending in it, or in a
        // shorter key that starts there too, checked whole: the spans of
        // the forms found. The search goes on from the byte after each
        // key's start, so a key found where no form is hides no other.
        let bytes = text.as_bytes();
        let mut found: Vec<(usize, usize, &Arc<str>)> = Vec::new();
        let mut from = 0;
        while from < bytes.len() {
            let input = aho_corasick::Input::new(bytes).span(from..bytes.len());
            let Some(key) = snapshot.matcher.find(input) else {
                break;
            };
            let at = key.start();
            for form in &snapshot.forms[key.pattern().as_usize()] {
                let end = at + form.key_len;
                if let Some(start) = end.checked_sub(form.text.len())
                    && bytes.get(start..end) == Some(form.text.as_bytes())
                {
                    found.push((start, end, &form.replacement));
                }
            }
            from = at + 1;
        }
        if found.is_empty() {
            return Cow::Borrowed(text);
        }
        // Overlapping forms are replaced as one span, named by the one
        // that starts first (the longest of those): nothing of either
        // shows.
        found.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for (start, end, replacement) in found {
            if start < last {
                last = last.max(end);
                continue;
            }
            // Forms and text are UTF-8 and a form starts and ends on a
            // character boundary, so these slices do too.
            out.push_str(&text[last..start]);
            out.push_str(replacement);
            last = end;
        }
        out.push_str(&text[last..]);
        Cow::Owned(out)
    }
}

/// The distinct forms `value` can take in text.
fn encodings(value: &str) -> Vec<String> {
    let json = serde_json::to_string(value).unwrap_or_default();
    let mut forms = vec![
        value.to_owned(),
        json.get(1..json.len().saturating_sub(1))
            .unwrap_or_default()
            .to_owned(),
        url::form_urlencoded::byte_serialize(value.as_bytes()).collect(),
    ];
    for set in [FRAGMENT, QUERY, PATH, USERINFO, COMPONENT, NON_ALPHANUMERIC] {
        forms.push(utf8_percent_encode(value, set).to_string());
    }
    forms.sort();
    forms.dedup();
    forms.retain(|form| form.len() >= MIN_LEN);
    forms
}

/// `text` with every form of every secret replaced by `${NAME}`; borrowed
/// when there is nothing to replace.
pub fn redact(text: &str) -> Cow<'_, str> {
    REGISTRY.redact(text)
}

/// [`redact`] for bytes (a log event, a line of a child's stderr), read as
/// UTF-8 with invalid sequences replaced.
#[doc(hidden)]
pub fn redact_bytes(bytes: Vec<u8>) -> Vec<u8> {
    if !REGISTRY.any.load(Ordering::Acquire) {
        return bytes;
    }
    match redact(&String::from_utf8_lossy(&bytes)) {
        Cow::Borrowed(_) => bytes,
        Cow::Owned(text) => text.into_bytes(),
    }
}

/// Variables of ours that downstream servers never inherit: secrets of the
/// graph server itself, such as the bearer token `--auth-token-env` names.
static WITHHELD: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Keeps the environment variable `var` from the downstream servers
/// started from now on, even those whose `inheritEnv` names it (an
/// explicit `env` entry still sets it).
#[doc(hidden)]
pub fn withhold_from_children(var: &str) {
    let mut withheld = WITHHELD.lock().unwrap_or_else(|e| e.into_inner());
    if !withheld.iter().any(|v| v == var) {
        withheld.push(var.to_owned());
    }
}

/// The variables [`withhold_from_children`] names, locked while the guard
/// lives (the downstream client manager reads them when it starts a child).
#[doc(hidden)]
pub fn withheld_from_children() -> std::sync::MutexGuard<'static, Vec<String>> {
    WITHHELD.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_of_a_secret_is_redacted() {
        remember("MCPGRAPH_UNIT_TOKEN", "tok-123456");
        remember("MCPGRAPH_UNIT_SHORT", "abc");
        remember("MCPGRAPH_UNIT_SPACED", "sk live/42+ab\"cd");
        let text = "GET https://x/?key=tok-123456 failed (abc)";
        assert_eq!(
            redact(text),
            "GET https://x/?key=${MCPGRAPH_UNIT_TOKEN} failed (abc)"
        );
        for form in [
            "sk live/42+ab\"cd",
            "sk live/42+ab\\\"cd",
            "sk%20live/42+ab%22cd",
            "sk%20live%2F42%2Bab%22cd",
            "sk+live%2F42%2Bab%22cd",
        ] {
            assert_eq!(
                redact(&format!("<{form}>")),
                "<${MCPGRAPH_UNIT_SPACED}>",
                "{form}"
            );
        }
        assert_eq!(
            redact_bytes(b"x tok-123456 \xff".to_vec()),
            "x ${MCPGRAPH_UNIT_TOKEN} \u{fffd}".as_bytes()
        );
        assert_eq!(redact_bytes(b"plain \xff".to_vec()), b"plain \xff");
    }

    /// A registry of the test's own, with a `'static` life as the
    /// process's has.
    fn registry() -> &'static Registry {
        Box::leak(Box::new(Registry::new()))
    }

    #[test]
    fn a_token_leaves_when_its_guard_is_dropped_or_it_expires() {
        let registry = registry();
        let t0 = Instant::now();
        registry.remember("CONFIGURED", "configured-secret", t0);
        let replaced = registry.remember_token("A", "token-replaced", None, t0);
        let expiring =
            registry.remember_token("B", "token-expiring", Some(Duration::from_secs(5)), t0);
        let text = "token-replaced token-expiring configured-secret";
        assert_eq!(registry.redact(text), "${A} ${B} ${CONFIGURED}");
        // Replaced: its guard (and every clone) dropped. It stays for the
        // grace, then leaves at the next change.
        let clone = replaced.clone();
        drop(replaced);
        drop(clone);
        let _c = registry.remember_token("C", "ccc-token", None, t0 + Duration::from_secs(1));
        assert_eq!(registry.redact(text), "${A} ${B} ${CONFIGURED}");
        let later = Instant::now() + GRACE + Duration::from_secs(1);
        let _d = registry.remember_token("D", "ddd-token", None, later);
        assert_eq!(registry.redact(text), "token-replaced ${B} ${CONFIGURED}");
        // Expired (five seconds, then the grace) though its guard lives.
        let _e =
            registry.remember_token("E", "eee-token", None, t0 + Duration::from_secs(5) + GRACE);
        assert_eq!(
            registry.redact(text),
            "token-replaced token-expiring ${CONFIGURED}"
        );
        assert_eq!(
            registry.redact("ccc-token ddd-token eee-token"),
            "${C} ${D} ${E}"
        );
        drop(expiring);
        // A token whose holder is not ours stays until it expires.
        registry
            .remember_token("F", "fff-token", Some(Duration::from_secs(10)), t0)
            .until_expiry();
        assert_eq!(registry.redact("fff-token"), "${F}");
        let _g =
            registry.remember_token("G", "ggg-token", None, t0 + Duration::from_secs(10) + GRACE);
        assert_eq!(registry.redact("fff-token"), "fff-token");
    }

    #[test]
    fn the_registry_holds_its_bound_of_tokens_the_oldest_leaving_first() {
        const BOUND: usize = 64;
        assert_eq!(REGISTRY.max_tokens, MAX_TOKENS);
        let registry: &'static Registry = Box::leak(Box::new(Registry::holding(BOUND)));
        let now = Instant::now();
        registry.remember("CONFIGURED", "configured-secret", now);
        let extra = 10;
        let guards: Vec<Remembered> = (0..BOUND + extra)
            .map(|i| registry.remember_token(&format!("T{i}"), &format!("tok-{i:05}"), None, now))
            .collect();
        let entries = registry.entries();
        assert_eq!(entries.tokens.len(), BOUND);
        assert_eq!(entries.configured.len(), 1);
        drop(entries);
        for i in 0..extra {
            let token = format!("tok-{i:05}");
            assert_eq!(registry.redact(&token), token, "the oldest left");
        }
        for i in extra..BOUND + extra {
            assert_eq!(
                registry.redact(&format!("tok-{i:05}")),
                format!("${{T{i}}}")
            );
        }
        assert_eq!(registry.redact("configured-secret"), "${CONFIGURED}");
        drop(guards);
    }

    /// Every form of every secret, alone, inside other text and side by
    /// side, with a form of one secret containing another secret.
    /// A key found where its form is not (the text has a long secret's
    /// end without its start) hides neither a shorter secret starting at
    /// the same place nor one starting inside it.
    #[test]
    fn a_key_without_its_form_hides_no_other_secret() {
        let registry = registry();
        let now = Instant::now();
        let end = "kshort12-and-the-rest-of-the-end";
        assert_eq!(end.len(), KEY_LEN);
        registry.remember("LONG", &format!("start-of-a-long-one-{end}"), now);
        registry.remember("SHORT", "kshort12", now);
        registry.remember("INSIDE", "rest-of-the", now);
        assert_eq!(
            registry.redact(&format!("zz {end} zz")),
            "zz ${SHORT}-and-the-${INSIDE}-end zz"
        );
        assert_eq!(
            registry.redact(&format!("zz start-of-a-long-one-{end} zz")),
            "zz ${LONG} zz"
        );
    }

    #[test]
    fn every_form_of_every_secret_is_redacted_in_one_pass() {
        let registry = registry();
        let now = Instant::now();
        let values: Vec<String> = (0..60)
            .map(|i| format!("sk live/{i}+ab\"cd&e=f?g#h%i@j:k"))
            .collect();
        let mut guards = Vec::new();
        for (i, value) in values.iter().enumerate() {
            if i % 2 == 0 {
                registry.remember(&format!("S{i}"), value, now);
            } else {
                guards.push(registry.remember_token(&format!("S{i}"), value, None, now));
            }
        }
        registry.remember("INNER", "live/1", now);
        let mut all = String::new();
        let mut want = String::new();
        for (i, value) in values.iter().enumerate() {
            let forms = encodings(value);
            assert!(forms.len() >= 5, "{forms:?}");
            for form in forms {
                assert_eq!(
                    registry.redact(&format!("<{form}>")),
                    format!("<${{S{i}}}>"),
                    "{form}"
                );
                all.push_str(&form);
                all.push(' ');
                want.push_str(&format!("${{S{i}}} "));
            }
        }
        assert_eq!(registry.redact(&all), want);
        assert_eq!(registry.redact("a live/1 b"), "a ${INNER} b");
        assert!(matches!(registry.redact("nothing here"), Cow::Borrowed(_)));
    }
}
