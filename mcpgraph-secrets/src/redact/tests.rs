//! Redaction of every form, the registry's tokens and their bound.

use std::borrow::Cow;
use std::time::{Duration, Instant};

use super::forms::encodings;
use super::registry::{GRACE, KEY_LEN, MAX_TOKENS, Registry, Remembered};
use super::{REGISTRY, redact, redact_bytes, remember};

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
    let expiring = registry.remember_token("B", "token-expiring", Some(Duration::from_secs(5)), t0);
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
    let _e = registry.remember_token("E", "eee-token", None, t0 + Duration::from_secs(5) + GRACE);
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
    let _g = registry.remember_token("G", "ggg-token", None, t0 + Duration::from_secs(10) + GRACE);
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
