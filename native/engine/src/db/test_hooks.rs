//! Test-only hooks (compiled in `cfg(test)` builds only): a test sets a
//! closure on its own thread for a named point of the engine, and that
//! thread's next pass through the point runs it once. Tests use them to make
//! another thread's work (a write, a flush) land exactly between two steps
//! that must not be separated, which no timing-based test can promise.
//!
//! Thread-safety: each point is a thread-local, so a hook never fires on
//! another thread, and tests running in parallel do not see each other's.

use std::cell::RefCell;
use std::thread::LocalKey;

/// One point's hook on one thread.
pub(crate) type Hook = RefCell<Option<Box<dyn FnOnce()>>>;

thread_local! {
    /// In a read, between loading its super version and its sequence
    /// number (`get`, `multi_get`, `iter`).
    pub(crate) static BETWEEN_READ_LOADS: Hook = const { RefCell::new(None) };
    /// In [`super::Db::snapshot`], after the new snapshot's sequence number
    /// is chosen and before the snapshot is registered (under the snapshot
    /// list's lock, where the number is chosen).
    pub(crate) static AFTER_CHOOSING_SNAPSHOT_SEQUENCE: Hook = const { RefCell::new(None) };
    /// In a write, once it has passed the write admission gate (holding a
    /// slot unless the gate let it through without one).
    pub(crate) static IN_WRITE_SLOT: Hook = const { RefCell::new(None) };
}

/// Makes this thread's next pass through `point` run `f`.
pub(crate) fn set(point: &'static LocalKey<Hook>, f: impl FnOnce() + 'static) {
    point.with(|h| *h.borrow_mut() = Some(Box::new(f)));
}

/// Runs this thread's hook at `point`, if one is set, and clears it.
pub(crate) fn run(point: &'static LocalKey<Hook>) {
    // Taken out before it runs: the hook may itself pass the point.
    if let Some(f) = point.with(|h| h.borrow_mut().take()) {
        f();
    }
}
