//! The registry of secrets: what is held, and the automaton that finds
//! every form of every secret in one pass (see the parent module).

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use aho_corasick::{AhoCorasick, MatchKind};

use super::forms::{MIN_LEN, encodings};

/// The most tokens held at once: twice the caller tokens token exchange
/// keeps (`downstream/oauth/exchange.rs`), so that every token still in
/// use is held with room for the ones just replaced.
pub(super) const MAX_TOKENS: usize = 2048;

/// How long a token stays after it expired or its guard was dropped.
pub(super) const GRACE: Duration = Duration::from_secs(60);

/// Every secret, and the automaton that finds them.
pub(super) struct Registry {
    /// What is held; writers take it in turn.
    entries: Mutex<Entries>,
    /// The automaton of what is held; swapped whole after a change.
    snapshot: RwLock<Option<Arc<Snapshot>>>,
    /// Whether there is any secret: the common case (none) costs one load.
    pub(super) any: AtomicBool,
    /// Numbers the tokens, for their guards.
    next_id: AtomicU64,
    /// The most tokens held: [`MAX_TOKENS`].
    pub(super) max_tokens: usize,
}

#[derive(Default)]
pub(super) struct Entries {
    /// `(replacement, forms)` of each configured secret, in the order
    /// they came.
    pub(super) configured: Vec<(String, Vec<String>)>,
    /// The tokens, oldest first.
    pub(super) tokens: VecDeque<Token>,
}

pub(super) struct Token {
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
pub(super) const KEY_LEN: usize = 32;

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

impl Registry {
    pub(super) const fn new() -> Self {
        Self::holding(MAX_TOKENS)
    }

    /// A registry holding at most `max_tokens` tokens.
    pub(super) const fn holding(max_tokens: usize) -> Self {
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

    pub(super) fn entries(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn remember(&self, name: &str, value: &str, now: Instant) {
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

    pub(super) fn remember_token(
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

    pub(super) fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
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
