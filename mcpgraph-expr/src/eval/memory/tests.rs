//! The accounting, with the counting allocator as this test binary's
//! global allocator.

use std::hint::black_box;

use super::*;

/// Net bytes: what is freed during the evaluation is given back, growth
/// past the budget cancels the token once, and nothing is counted before
/// arming or after disarming.
#[test]
fn net_allocations_past_the_budget_cancel_the_token() {
    let token = CancelToken::new();
    // Allocated before arming, freed while armed: room given back.
    let before = black_box(vec![0_u8; 1 << 20]);
    let armed = arm(4 << 20, Some(&token));
    for _ in 0..100 {
        // 3 MiB allocated and freed a hundred times: 3 MiB net at most.
        drop(black_box(vec![1_u8; 3 << 20]));
    }
    assert!(!token.is_cancelled(), "freed memory counted as held");
    drop(before);
    // 4 MiB + the 1 MiB given back: still within.
    let held = black_box(vec![2_u8; 5 << 20]);
    assert!(!token.is_cancelled(), "the room given back was not counted");
    let mut grown = black_box(Vec::<u8>::with_capacity(16));
    grown.extend_from_slice(&[3; 1 << 10]);
    assert!(token.is_cancelled(), "past the budget, not cancelled");
    assert!(armed.disarm());
    drop((held, grown));
    // Disarmed: nothing counts.
    let token = CancelToken::new();
    let armed = arm(1 << 20, Some(&token));
    drop(armed);
    drop(black_box(vec![0_u8; 8 << 20]));
    assert!(!token.is_cancelled());
}

/// Growth through `realloc` counts its difference; an evaluation without a
/// token is judged by `disarm`; a new arming starts a new count.
#[test]
fn realloc_counts_its_growth_and_disarm_reports_it() {
    let armed = arm(1 << 20, None);
    let mut grown = Vec::<u8>::new();
    for _ in 0..(2 << 10) {
        grown.extend_from_slice(black_box(&[0_u8; 1 << 10]));
    }
    assert!(armed.disarm(), "2 MiB grown under a 1 MiB budget");
    drop(grown);
    let armed = arm(1 << 20, None);
    drop(black_box(vec![0_u8; 512 << 10]));
    assert!(!armed.disarm(), "the last count leaked into this one");
}

/// Each thread counts its own allocations only.
#[test]
fn other_threads_do_not_count() {
    let token = CancelToken::new();
    let armed = arm(1 << 20, Some(&token));
    std::thread::spawn(|| drop(black_box(vec![0_u8; 8 << 20])))
        .join()
        .unwrap();
    assert!(!token.is_cancelled());
    assert!(!armed.disarm());
}

/// The figure the docs give (FORMAT.md, limits): a value in an array
/// takes 40 bytes of memory.
#[test]
fn a_value_in_an_array_takes_forty_bytes() {
    assert_eq!(std::mem::size_of::<jsonata_core::value::JValue>(), 40);
}
