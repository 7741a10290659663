//! The forms a secret takes in text: as it is, JSON-escaped, and
//! percent-encoded as each part of a URL carries it.

use percent_encoding::{AsciiSet, CONTROLS, NON_ALPHANUMERIC, utf8_percent_encode};

/// Values at least this long are secrets to redact (shorter ones would
/// also hide ordinary words and numbers).
pub(super) const MIN_LEN: usize = 4;

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

/// The distinct forms `value` can take in text.
pub(super) fn encodings(value: &str) -> Vec<String> {
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
