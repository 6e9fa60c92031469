//! [`line`]: asks the CPU to bring one cache line toward its caches.
//!
//! A prefetch is a hint: it never faults, reads nothing the program sees
//! and changes no result, whatever the address (a dangling or wild pointer
//! included). Unlike a load that only warms a line, it is not ordered by
//! locked instructions: a load must complete before the next lock (the
//! block cache's shard mutex, a reference count) may run, so lines warmed
//! by loads between two locks are waited for one batch at a time, while
//! prefetches stay in flight across them. The batched lookups of a
//! multi-get rely on that (`db/read.rs`, `TablePass`).
//!
//! The engine's second audited `unsafe` spot (crate docs, "Unsafe code").

/// Prefetches the cache line holding `p` into every level of the CPU's
/// caches. On targets without a prefetch instruction this does nothing.
#[inline(always)]
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
pub(crate) fn line<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: SSE is part of the x86_64 baseline, and a prefetch never
        // faults and reads nothing the program observes, whatever the
        // address.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>()) }
    }
}

/// Prefetches every cache line of `s` (a few lines: a block's entry
/// directory, say).
#[inline]
pub(crate) fn slice<T>(s: &[T]) {
    let bytes = std::mem::size_of_val(s);
    if bytes == 0 {
        return;
    }
    let start = s.as_ptr().cast::<u8>();
    // Every 64th byte from the first, then the last byte, which an array
    // not aligned to a line can leave alone on one more line.
    let mut off = 0;
    while off < bytes {
        line(start.wrapping_add(off));
        off += 64;
    }
    line(start.wrapping_add(bytes - 1));
}
