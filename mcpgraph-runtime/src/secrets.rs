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

use std::borrow::Cow;
use std::sync::RwLock;
use std::sync::atomic::{AtomicBool, Ordering};

use percent_encoding::{AsciiSet, CONTROLS, NON_ALPHANUMERIC, utf8_percent_encode};

/// Values at least this long are secrets to redact (shorter ones would
/// also hide ordinary words and numbers).
const MIN_LEN: usize = 4;

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

/// `(form, replacement)` of every secret, longest form first, so that a
/// form containing another is replaced whole.
static FORMS: RwLock<Vec<(String, String)>> = RwLock::new(Vec::new());
/// Whether there is any: the common case (no secret) costs one load.
static ANY: AtomicBool = AtomicBool::new(false);

/// Remembers `value`, known as `name`, as a secret (values shorter than
/// four bytes are not).
pub(crate) fn remember(name: &str, value: &str) {
    if value.len() < MIN_LEN {
        return;
    }
    let replacement = format!("${{{name}}}");
    let mut forms = FORMS.write().unwrap_or_else(|e| e.into_inner());
    for form in encodings(value) {
        if !forms.iter().any(|(f, r)| *f == form && *r == replacement) {
            forms.push((form, replacement.clone()));
        }
    }
    forms.sort_by_key(|(form, _)| std::cmp::Reverse(form.len()));
    ANY.store(true, Ordering::Release);
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
pub(crate) fn redact(text: &str) -> Cow<'_, str> {
    if !ANY.load(Ordering::Acquire) {
        return Cow::Borrowed(text);
    }
    let forms = FORMS.read().unwrap_or_else(|e| e.into_inner());
    let mut text = Cow::Borrowed(text);
    for (form, replacement) in forms.iter() {
        if text.contains(form.as_str()) {
            text = Cow::Owned(text.replace(form.as_str(), replacement));
        }
    }
    text
}

/// [`redact`] for bytes (a log event, a line of a child's stderr), read as
/// UTF-8 with invalid sequences replaced.
pub(crate) fn redact_bytes(bytes: Vec<u8>) -> Vec<u8> {
    if !ANY.load(Ordering::Acquire) {
        return bytes;
    }
    match redact(&String::from_utf8_lossy(&bytes)) {
        Cow::Borrowed(_) => bytes,
        Cow::Owned(text) => text.into_bytes(),
    }
}

/// `tracing::warn!` about the downstream server `$server`, its message
/// [`redact`]ed: text a server sent and settings expanded from `${VAR}`
/// reach the log as `${VAR}`, as the server's forwarded stderr does.
macro_rules! warn_redacted {
    ($server:expr, $($message:tt)+) => {
        ::tracing::warn!(
            server = $server,
            "{}",
            $crate::secrets::redact(&format!($($message)+))
        )
    };
}
pub(crate) use warn_redacted;

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
}
