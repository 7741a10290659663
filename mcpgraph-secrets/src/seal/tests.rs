//! Sealing and opening states, and reading keys.

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};

use super::{Binding, MAX_TOKEN_BYTES, StateError, StateKeys};

const HOUR: Duration = Duration::from_secs(3600);

/// The binding every test seals and opens with.
fn binding() -> Binding {
    Binding::new(b"graph\x001.0.0", b"caller", b"tool\0args-digest")
}

/// A key entry `kid=<base64>` whose 32 bytes are all `byte`.
fn entry(kid: &str, byte: u8) -> String {
    format!("{kid}={}", STANDARD.encode([byte; 32]))
}

fn keys(text: &str) -> StateKeys {
    StateKeys::parse(text, "test keys", None).expect("valid keys")
}

fn parse_err(text: &str) -> String {
    StateKeys::parse(text, "--state-key-file k.txt", None)
        .expect_err("refused")
        .to_string()
}

/// The token with its sealed bytes changed by `change`, re-encoded.
fn with_sealed(token: &str, change: impl FnOnce(&mut Vec<u8>)) -> String {
    let (head, data) = token.rsplit_once('.').expect("a token");
    let mut sealed = URL_SAFE_NO_PAD.decode(data).expect("base64url");
    change(&mut sealed);
    format!("{head}.{}", URL_SAFE_NO_PAD.encode(sealed))
}

#[test]
fn a_sealed_state_opens_to_what_was_sealed() {
    let keys = keys(&entry("k1", 1));
    for plaintext in [&b""[..], b"x", &[0u8; 1000], "{\"é\":1}".as_bytes()] {
        let token = keys.seal(plaintext, &binding(), HOUR).expect("sealed");
        assert!(token.starts_with("mgs2.k1."), "{token}");
        assert_eq!(keys.open(&token, &binding()).as_deref(), Ok(plaintext));
    }
    // Random nonces: the same state never seals to the same token.
    let a = keys.seal(b"same", &binding(), HOUR).expect("sealed");
    let b = keys.seal(b"same", &binding(), HOUR).expect("sealed");
    assert_ne!(a, b);
    // Nothing of the plaintext shows through.
    let token = keys
        .seal(b"secret-history-value", &binding(), HOUR)
        .expect("sealed");
    assert!(!token.contains("secret"), "{token}");
}

/// A token is its prefix and the base64url of 144 bytes more than the
/// state (nonce 24, expiry 8, the binding's three digests 96, tag 16):
/// 10 KiB of state make 13,854 bytes.
#[test]
fn a_token_is_a_third_larger_than_its_state_and_its_overhead() {
    let keys = keys(&entry("k1", 1));
    for len in [0, 1, 2, 3, 10 * 1024] {
        let token = keys
            .seal(&vec![b'x'; len], &binding(), HOUR)
            .expect("sealed");
        assert_eq!(
            token.len(),
            "mgs2.k1.".len() + (4 * (len + 144)).div_ceil(3)
        );
    }
    let token = keys
        .seal(&[b'x'; 10 * 1024], &binding(), HOUR)
        .expect("sealed");
    assert_eq!(token.len(), 13_854);
}

#[test]
fn the_first_key_seals_and_every_key_opens() {
    let old = keys(&entry("old", 1));
    let sealed_old = old.seal(b"state", &binding(), HOUR).expect("sealed");
    // Rotation: the new key put first, the old one kept after it.
    let rotated = keys(&format!("{}\n{}\n", entry("new", 2), entry("old", 1)));
    assert_eq!(rotated.sealing_kid(), "new");
    assert_eq!(
        rotated.open(&sealed_old, &binding()).as_deref(),
        Ok(&b"state"[..])
    );
    let sealed_new = rotated.seal(b"state", &binding(), HOUR).expect("sealed");
    assert!(sealed_new.starts_with("mgs2.new."), "{sealed_new}");
    // A replica not yet rotated cannot open what the new key sealed.
    assert_eq!(
        old.open(&sealed_new, &binding()),
        Err(StateError::UnknownKey {
            kid: "new".to_owned()
        })
    );
    // The old key retired: its states are refused by name.
    let retired = keys(&entry("new", 2));
    assert_eq!(
        retired.open(&sealed_old, &binding()),
        Err(StateError::UnknownKey {
            kid: "old".to_owned()
        })
    );
}

#[test]
fn an_unknown_key_id_is_named() {
    let token = keys(&entry("k1", 1))
        .seal(b"s", &binding(), HOUR)
        .expect("sealed");
    let err = keys(&entry("k2", 1))
        .open(&token, &binding())
        .expect_err("refused");
    assert_eq!(
        err,
        StateError::UnknownKey {
            kid: "k1".to_owned()
        }
    );
    assert!(err.to_string().contains("key `k1`"), "{err}");
    // A random per-process key is unknown to another process.
    let here = StateKeys::ephemeral();
    let there = StateKeys::ephemeral();
    assert_ne!(here.sealing_kid(), there.sealing_kid());
    let token = here.seal(b"s", &binding(), HOUR).expect("sealed");
    assert!(matches!(
        there.open(&token, &binding()),
        Err(StateError::UnknownKey { .. })
    ));
}

#[test]
fn a_byte_changed_anywhere_is_refused() {
    let keys = keys(&entry("k1", 1));
    let token = keys
        .seal(b"{\"node\":\"ask\"}", &binding(), HOUR)
        .expect("sealed");
    let len = URL_SAFE_NO_PAD
        .decode(token.rsplit_once('.').unwrap().1)
        .unwrap()
        .len();
    for i in 0..len {
        for flip in [0x01, 0x80] {
            let changed = with_sealed(&token, |sealed| sealed[i] ^= flip);
            assert_eq!(
                keys.open(&changed, &binding()),
                Err(StateError::Tampered),
                "byte {i}"
            );
        }
    }
    let truncated = with_sealed(&token, |sealed| {
        sealed.pop();
    });
    assert_eq!(keys.open(&truncated, &binding()), Err(StateError::Tampered));
    let extended = with_sealed(&token, |sealed| sealed.push(0));
    assert_eq!(keys.open(&extended, &binding()), Err(StateError::Tampered));
    // Relabelled with another key id that the server holds under the same
    // key bytes: the key id is authenticated too.
    let twin = self::keys(&format!("{}\n{}", entry("k1", 1), entry("k2", 1)));
    let relabelled = token.replacen("mgs2.k1.", "mgs2.k2.", 1);
    assert_eq!(
        twin.open(&relabelled, &binding()),
        Err(StateError::Tampered)
    );
}

#[test]
fn a_state_opens_only_for_its_binding_and_a_refusal_says_which_part_differs() {
    let keys = keys(&entry("k1", 1));
    let token = keys.seal(b"s", &binding(), HOUR).expect("sealed");
    for (other, want, words) in [
        (
            Binding::new(b"other-graph\x001.0.0", b"caller", b"tool\0args-digest"),
            StateError::ForeignGraph,
            "another graph",
        ),
        (
            Binding::new(b"graph\x001.0.1", b"caller", b"tool\0args-digest"),
            StateError::ForeignGraph,
            "another graph",
        ),
        (
            Binding::new(b"graph\x001.0.0", b"other-caller", b"tool\0args-digest"),
            StateError::OtherPrincipal,
            "another caller",
        ),
        (
            Binding::new(b"graph\x001.0.0", b"", b"tool\0args-digest"),
            StateError::OtherPrincipal,
            "another caller",
        ),
        (
            Binding::new(b"graph\x001.0.0", b"caller", b"other_tool\0args-digest"),
            StateError::OtherCall,
            "another tool or other arguments",
        ),
        (
            Binding::new(b"graph\x001.0.0", b"caller", b"tool\0other-digest"),
            StateError::OtherCall,
            "another tool or other arguments",
        ),
    ] {
        let err = keys.open(&token, &other).expect_err("refused");
        assert_eq!(err, want);
        assert!(err.to_string().contains(words), "{err}");
    }
    // An expired state of another graph is refused as another graph's.
    let expired = keys.seal(b"s", &binding(), Duration::ZERO).expect("sealed");
    std::thread::sleep(Duration::from_millis(5));
    let other = Binding::new(b"other-graph\x001.0.0", b"caller", b"tool\0args-digest");
    assert_eq!(keys.open(&expired, &other), Err(StateError::ForeignGraph));
}

#[test]
fn an_expired_state_is_refused() {
    let keys = keys(&entry("k1", 1));
    let token = keys.seal(b"s", &binding(), Duration::ZERO).expect("sealed");
    std::thread::sleep(Duration::from_millis(5));
    let err = keys.open(&token, &binding()).expect_err("expired");
    assert!(matches!(err, StateError::Expired { .. }), "{err:?}");
    assert!(err.to_string().contains("expired"), "{err}");
    // The expiry is inside the sealed bytes: no way to extend it unseen.
    let long = keys.seal(b"s", &binding(), Duration::MAX).expect("sealed");
    assert_eq!(keys.open(&long, &binding()).as_deref(), Ok(&b"s"[..]));
}

#[test]
fn malformed_tokens_say_what_is_wrong() {
    let keys = keys(&entry("k1", 1));
    let token = keys.seal(b"s", &binding(), HOUR).expect("sealed");
    let data = token.strip_prefix("mgs2.k1.").unwrap();
    for (bad, why) in [
        (String::new(), "does not start with `mgs2.`"),
        ("garbage".to_owned(), "does not start with `mgs2.`"),
        (format!("mgs1.k1.{data}"), "format version is not `mgs2`"),
        (format!("MGS1.k1.{data}"), "does not start with `mgs2.`"),
        ("mgs2.k1".to_owned(), "no `.` after its key id"),
        (format!("mgs2..{data}"), "key id is not"),
        (format!("mgs2.k 1.{data}"), "key id is not"),
        (format!("mgs2.k1.{data}="), "not base64url"),
        (
            format!("mgs2.k1.{}", data.replace(['-', '_'], "+")),
            "not base64url",
        ),
        (format!("mgs2.k1.{data}!"), "not base64url"),
        ("mgs2.k1.AAAA".to_owned(), "too short"),
    ] {
        // The base64url-alphabet case changes nothing when the token has
        // neither `-` nor `_` (random bytes: sometimes).
        if bad == token {
            continue;
        }
        match keys.open(&bad, &binding()) {
            Err(e @ StateError::Malformed { .. }) => {
                assert!(e.to_string().contains(why), "{bad:?}: {e}");
            }
            other => panic!("{bad:?}: {other:?}"),
        }
    }
}

#[test]
fn too_large_states_are_refused_at_sealing_and_opening() {
    let keys = keys(&entry("k1", 1));
    // The largest plaintext that fits: the token is exactly at the limit.
    let fits = (MAX_TOKEN_BYTES - "mgs2.k1.".len()) * 3 / 4 - 24 - 8 - 96 - 16;
    let token = keys.seal(&vec![7; fits], &binding(), HOUR).expect("fits");
    assert!(token.len() <= MAX_TOKEN_BYTES, "{}", token.len());
    assert_eq!(keys.open(&token, &binding()).map(|p| p.len()), Ok(fits));
    let err = keys
        .seal(&vec![7; fits + 3], &binding(), HOUR)
        .expect_err("too large");
    assert!(
        matches!(err, StateError::TooLarge { size, limit } if size > limit && limit == MAX_TOKEN_BYTES),
        "{err:?}"
    );
    assert!(err.to_string().contains("over the limit"), "{err}");
    let huge = format!("mgs2.k1.{}", "A".repeat(MAX_TOKEN_BYTES));
    assert!(matches!(
        keys.open(&huge, &binding()),
        Err(StateError::TooLarge { .. })
    ));
}

#[test]
fn key_text_has_comments_blank_lines_and_both_base64_alphabets() {
    let url_safe = format!("k3={}", URL_SAFE_NO_PAD.encode([0xfb; 32]));
    let text = format!(
        "# state keys\n\n  {}  # the new one\n{} , {url_safe}\n",
        entry("k2", 2),
        entry("k1", 1)
    );
    let keys = keys(&text);
    assert_eq!(keys.kids().collect::<Vec<_>>(), ["k2", "k1", "k3"]);
    assert!(!keys.is_ephemeral());
    assert!(StateKeys::ephemeral().is_ephemeral());
}

#[test]
fn bad_key_text_fails_with_a_message_that_never_shows_a_key() {
    let key = STANDARD.encode([9u8; 32]);
    let short = STANDARD.encode([9u8; 16]);
    for (text, want) in [
        ("", "no key"),
        ("# only a comment\n\n", "no key"),
        (key.as_str(), "line 1: expected `kid=<key in base64>`"),
        (&format!("{}\nk2 {key}", entry("k1", 1)), "line 2: expected"),
        (
            &format!("={key}"),
            "line 1: expected `kid=<key in base64>`, the key id being",
        ),
        (&format!("k.1={key}"), "line 1: expected `kid="),
        (
            &format!("{}={key}", "k".repeat(33)),
            "line 1: expected `kid=",
        ),
        (
            &format!("{}\n{}", entry("k1", 1), entry("k1", 2)),
            "line 2: key id `k1` is given twice",
        ),
        ("k1=not base64!", "line 1: key `k1` is not base64"),
        (
            &format!("k1={short}"),
            "line 1: key `k1` is 16 bytes, not 32",
        ),
        ("k1=", "key `k1` is 0 bytes, not 32"),
    ] {
        let err = parse_err(text);
        assert!(err.starts_with("--state-key-file k.txt: "), "{err}");
        assert!(err.contains(want), "{text:?}: {err}");
        for secret in [&key, &short] {
            assert!(!err.contains(secret.as_str()), "{err}");
        }
    }
}

#[test]
fn keys_never_show_in_debug_and_are_redacted() {
    let key = STANDARD.encode([0x5a; 32]);
    let keys = keys(&format!("dbg={key}"));
    let debug = format!("{keys:?}");
    assert!(debug.contains("dbg") && !debug.contains(&key), "{debug}");
    assert_eq!(
        crate::redact(&format!("leaked {key}")),
        "leaked ${state-key:dbg}"
    );
    let url_form = URL_SAFE_NO_PAD.encode([0x5a; 32]);
    assert!(!crate::redact(&url_form).contains(&url_form));
}
