//! The memory budget of one evaluation (`maxValueBytes`), counted by the
//! global allocator.
//!
//! jsonata-core has no allocation hook, and a value can grow without any
//! one built-in building much: a string doubled step after step (`&` in a
//! `$reduce`), an `$append` loop, a path that builds a value per item
//! (`$.items.($$.big & $$.big)`). So the allocator counts: while an
//! evaluation runs, [`CountingAllocator`] keeps, for its thread, the net
//! bytes allocated since the evaluation was armed (allocations minus
//! deallocations); once they pass the budget it cancels the evaluation's
//! cancel token (one atomic store), and the evaluation stops at its next
//! step with the same "Value limit exceeded" error (`limit.value_bytes`)
//! as any other value over `maxValueBytes`.
//!
//! What an evaluation may hold is the heap memory it allocated, which is
//! more than the JSON text of its values: a number in an array takes 40
//! bytes in memory and two or more as text, a string 56 plus its length
//! (its text: the length plus two quotes). Memory freed that was allocated before the
//! evaluation (none usually) counts as room given back.
//!
//! **Overshoot.** An allocation is never refused (that would abort the
//! process): the one that passes the budget succeeds, and so do the others
//! of the same step, until the evaluator looks at its token (at each node
//! evaluated, at each item a higher-order built-in hands its callback, at
//! each step of the runtime's bounded built-ins). A step builds its result
//! from values already built, each within the budget, so the most an
//! evaluation holds is about the budget plus one step's allocations, which
//! for the operators that copy (`&`, `$append`, `$string`) is at most a
//! few times the budget: measured peaks are listed in `docs/FORMAT.md`.
//!
//! **Opt-in.** A program has one global allocator, chosen by the binary,
//! so the runtime cannot install this one itself: a server's `main.rs`
//! declares it with `mcpgraph::allocator!()` (over the system allocator,
//! or over another: `mcpgraph::allocator!(mimalloc::MiMalloc)`). Without
//! it nothing is counted, and an evaluation that grows a value step by
//! step is stopped by `maxExpressionTimeMs` only.
//!
//! Nothing in the allocator allocates, locks or panics: its state is
//! per-thread `Cell`s, const-initialized and without destructors (so
//! reading them never allocates, not even on a thread's first use).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::marker::PhantomData;

use jsonata_core::evaluator::CancelToken;

/// A global allocator that counts what the running evaluation of its
/// thread allocates, and stops that evaluation past `maxValueBytes`.
/// Declare it with `mcpgraph::allocator!()` in the binary (a program has
/// one global allocator); `A` is the allocator that does the work.
#[derive(Debug, Default)]
pub struct CountingAllocator<A = System> {
    inner: A,
}

impl<A> CountingAllocator<A> {
    /// Counts over `inner` (`std::alloc::System`, or another global
    /// allocator such as mimalloc's or jemalloc's).
    pub const fn new(inner: A) -> Self {
        Self { inner }
    }
}

/// One thread's count, while an evaluation is armed.
struct Meter {
    armed: Cell<bool>,
    /// Bytes the evaluation may still allocate, net; below zero it is over.
    left: Cell<isize>,
    /// Set once the evaluation has passed its budget.
    over: Cell<bool>,
    /// The token that stops the evaluation (null: nothing to stop, the
    /// caller looks at [`Armed::disarm`] afterwards).
    cancel: Cell<*const CancelToken>,
}

thread_local! {
    static METER: Meter = const {
        Meter {
            armed: Cell::new(false),
            left: Cell::new(0),
            over: Cell::new(false),
            cancel: Cell::new(std::ptr::null()),
        }
    };
}

/// Counts `bytes` allocated by this thread.
#[inline]
fn charge(bytes: usize) {
    // `try_with` never fails for a value without a destructor; it is used
    // so that nothing here can panic.
    let _ = METER.try_with(|meter| {
        if !meter.armed.get() {
            return;
        }
        let left = meter
            .left
            .get()
            .saturating_sub(isize::try_from(bytes).unwrap_or(isize::MAX));
        meter.left.set(left);
        if left < 0 && !meter.over.get() {
            meter.over.set(true);
            let cancel = meter.cancel.get();
            if !cancel.is_null() {
                // SAFETY: `cancel` is set by `arm` from a reference that
                // outlives the `Armed` guard, which clears it when dropped
                // (on this thread: the meter is thread-local).
                unsafe { (*cancel).cancel() };
            }
        }
    });
}

/// Counts `bytes` freed by this thread.
#[inline]
fn refund(bytes: usize) {
    let _ = METER.try_with(|meter| {
        if meter.armed.get() {
            let bytes = isize::try_from(bytes).unwrap_or(isize::MAX);
            meter.left.set(meter.left.get().saturating_add(bytes));
        }
    });
}

// SAFETY: every call is forwarded to `inner` unchanged; the counting
// around it touches thread-local cells only (no allocation, lock or panic).
unsafe impl<A: GlobalAlloc> GlobalAlloc for CountingAllocator<A> {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let ptr = unsafe { self.inner.alloc(layout) };
        if !ptr.is_null() {
            charge(layout.size());
        }
        ptr
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let ptr = unsafe { self.inner.alloc_zeroed(layout) };
        if !ptr.is_null() {
            charge(layout.size());
        }
        ptr
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { self.inner.dealloc(ptr, layout) };
        refund(layout.size());
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let new = unsafe { self.inner.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            if new_size >= layout.size() {
                charge(new_size - layout.size());
            } else {
                refund(layout.size() - new_size);
            }
        }
        new
    }
}

/// An evaluation armed on this thread: counting stops when it is disarmed
/// or dropped.
pub struct Armed<'a> {
    /// The token the meter may cancel is borrowed for as long as it is
    /// armed; not `Send`, as the meter is this thread's.
    _cancel: PhantomData<&'a CancelToken>,
    _thread: PhantomData<*const ()>,
}

/// Starts counting this thread's allocations against `budget` bytes; past
/// it, `cancel` is cancelled. Evaluations do not nest: arming while armed
/// starts a new count.
pub fn arm(budget: u64, cancel: Option<&CancelToken>) -> Armed<'_> {
    let _ = METER.try_with(|meter| {
        meter
            .left
            .set(isize::try_from(budget).unwrap_or(isize::MAX));
        meter.over.set(false);
        meter
            .cancel
            .set(cancel.map_or(std::ptr::null(), std::ptr::from_ref));
        meter.armed.set(true);
    });
    Armed {
        _cancel: PhantomData,
        _thread: PhantomData,
    }
}

impl Armed<'_> {
    /// Stops counting: whether the evaluation passed its budget.
    pub fn disarm(self) -> bool {
        stop()
    }
}

impl Drop for Armed<'_> {
    fn drop(&mut self) {
        stop();
    }
}

fn stop() -> bool {
    METER
        .try_with(|meter| {
            meter.armed.set(false);
            meter.cancel.set(std::ptr::null());
            meter.over.replace(false)
        })
        .unwrap_or(false)
}

/// The error message of an evaluation stopped by its budget.
pub(crate) fn over_budget_message(budget: u64) -> String {
    format!(
        "Value limit exceeded: the expression allocated more than maxValueBytes ({budget} bytes) while it ran"
    )
}

#[cfg(test)]
#[global_allocator]
static COUNTING: CountingAllocator = CountingAllocator::new(System);

#[cfg(test)]
mod tests;
