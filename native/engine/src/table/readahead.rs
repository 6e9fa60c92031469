//! Readahead for a table iterator: one file read of many data blocks where
//! the iterator walks them in file order.
//!
//! A block not in the block cache costs a `pread` of its few KiB: a system
//! call, a walk of the page cache's tree for its page, and a copy. A scan
//! over a table larger than the cache pays that per block (profile of a
//! 20,000,000-row forward scan: the kernel's read path about a quarter of
//! the scan's samples). [`Readahead`] watches the blocks an iterator visits
//! and, once they run in file order, reads a *window* of the blocks ahead in
//! one `pread` into a buffer it owns; the next blocks the iterator misses in
//! the cache come out of that buffer (checksum and decompression as for a
//! block read alone), with no system call.
//!
//! When, with RocksDB's defaults for the same decisions
//! (`num_file_reads_for_auto_readahead` 2, `initial_auto_readahead_size`
//! 8 KiB, `max_auto_readahead_size` 256 KiB):
//! - A visit (a data block the iterator moves to, found in the cache or
//!   not) continues a *run* when the block starts where the previously
//!   visited one ended (trailer included), or — a run backwards — ends
//!   where it started. The first visit starts a run of 1; a visit that
//!   adjoins the last block on the other side than the run went starts a
//!   run of 2 the other way; any other visit a run of 1. A new run
//!   starts the window size over at 8 KiB.
//! - From the third visit of a run on, a block that is neither in the
//!   cache nor in the window is read with the `size` bytes after it
//!   (clipped to the end of the data and meta blocks), or in a run
//!   backwards the `size` bytes before it (clipped to the file's start);
//!   `size` doubles up to 256 KiB for the next window.
//!
//! RocksDB reads ahead forwards only; the backward windows are Talus's, so
//! that a reverse scan reads as few times as a forward one.
//!
//! With a `readahead_size` in the read options (RocksDB's explicit
//! readahead), every block missed is read with that many bytes beside it,
//! from the first, in the run's direction (forwards until a run goes
//! backwards); the size does not grow. It is capped at [`MAX_FIXED_SIZE`].
//!
//! RocksDB on a buffered file hands the same window to the kernel as a
//! `readahead(2)` hint and still reads each block with its own `pread`;
//! Talus reads the window itself, so that the reads after it are memory
//! copies. The bytes read are the same. A window costs its buffer: at most
//! 256 KiB plus one block per table an iterator has open (automatic
//! readahead), and, after the iterator is dropped, one buffer of at most
//! 512 KiB per thread kept for the next ([`SPARE`]). A window read that
//! fails is not an error: the block is then read alone, and that read
//! reports what is wrong.
//!
//! Thread-safety: one per [`super::TableIter`], used by one thread at a
//! time; the spare buffer is thread-local.

/// Sequential visits before a miss reads a window (RocksDB's
/// `num_file_reads_for_auto_readahead`): the window comes with the visit
/// after this many.
pub(crate) const SEQUENTIAL_VISITS: u32 = 2;
/// Bytes read ahead of the block with the first window (RocksDB's
/// `initial_auto_readahead_size`).
pub(crate) const INITIAL_SIZE: usize = 8 << 10;
/// Largest number of bytes read ahead of a block (RocksDB's
/// `max_auto_readahead_size`).
pub(crate) const MAX_SIZE: usize = 256 << 10;
/// Largest readahead an iterator's `readahead_size` gets: a window is one
/// buffer per table the iterator has open, and RocksDB sets no bound.
pub(crate) const MAX_FIXED_SIZE: usize = 64 << 20;
/// Largest buffer a thread keeps for its next readahead ([`SPARE`]):
/// automatic windows fit; those of a large `readahead_size` are freed.
const MAX_SPARE: usize = 2 * MAX_SIZE;

thread_local! {
    /// The window buffer of the last readahead this thread dropped: a short
    /// scan opens an iterator per call (seek + 50 `next`), and each would
    /// otherwise allocate and zero its window afresh (profile of seek + 50
    /// `next` over 20,000,000 rows: allocation and `memset` about 5% of
    /// samples). One per thread, at most [`MAX_SPARE`] bytes.
    static SPARE: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Visits, window and buffer of one table iterator (module docs).
pub(crate) struct Readahead {
    /// The last visited block's offset and end (offset + stored size with
    /// trailer); `None` before the first visit.
    last: Option<(u64, u64)>,
    /// The run's direction: towards higher offsets (true) or lower.
    forward: bool,
    /// Visits in the run, the last included.
    run: u32,
    /// Bytes read beside the block with the next window.
    size: usize,
    /// The iterator's `readahead_size` (at most [`MAX_FIXED_SIZE`]):
    /// `size` stays this, and every miss reads a window; `None`: automatic.
    fixed: Option<usize>,
    /// File bytes `[window_offset, window_offset + window_len)`, in
    /// `buf[..window_len]`.
    window_offset: u64,
    window_len: usize,
    /// Grows to the largest window and stays: a window's read overwrites
    /// its bytes, so they need no zeroing each time. Taken from the
    /// thread's spare at the first window and left there at drop
    /// ([`SPARE`]).
    buf: Vec<u8>,
}

impl Default for Readahead {
    fn default() -> Self {
        Readahead {
            last: None,
            forward: true,
            run: 0,
            size: INITIAL_SIZE,
            fixed: None,
            window_offset: 0,
            window_len: 0,
            buf: Vec::new(),
        }
    }
}

impl std::fmt::Debug for Readahead {
    // Without the buffer's bytes (a window's worth).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Readahead")
            .field("last", &self.last)
            .field("forward", &self.forward)
            .field("run", &self.run)
            .field("size", &self.size)
            .field("window", &(self.window_offset, self.window_len))
            .finish()
    }
}

impl Drop for Readahead {
    fn drop(&mut self) {
        if self.buf.is_empty() || self.buf.len() > MAX_SPARE {
            return;
        }
        let buf = std::mem::take(&mut self.buf);
        // Keep the larger of the two; `try_with`: nothing to keep once the
        // thread's locals are gone.
        let _ = SPARE.try_with(|s| {
            let spare = s.take();
            s.set(if spare.len() >= buf.len() { spare } else { buf });
        });
    }
}

impl Readahead {
    /// Automatic readahead for `readahead_size` 0, else windows of that
    /// many bytes (at most [`MAX_FIXED_SIZE`]) beside every block missed,
    /// from the first: RocksDB's `ReadOptions::readahead_size`.
    pub(crate) fn new(readahead_size: u64) -> Self {
        let fixed = (readahead_size > 0)
            .then(|| usize::try_from(readahead_size).unwrap_or(usize::MAX).min(MAX_FIXED_SIZE));
        let mut r = Readahead::default();
        r.fixed = fixed;
        r.size = r.first_size();
        r
    }

    /// The window size a new run starts with.
    fn first_size(&self) -> usize {
        self.fixed.unwrap_or(INITIAL_SIZE)
    }

    /// Blocks visited in a row in file order, in either direction, the
    /// last included (1 after a seek).
    pub(crate) fn run(&self) -> u32 {
        self.run
    }

    /// Records that the iterator moved to the block at `offset` whose
    /// stored size with trailer is `len`, whether or not it is cached.
    pub(crate) fn visit(&mut self, offset: u64, len: usize) {
        let end = offset.saturating_add(len as u64);
        let step = match self.last {
            Some((_, last_end)) if offset == last_end => Some(true),
            Some((last_start, _)) if end == last_start => Some(false),
            _ => None,
        };
        match step {
            Some(forward) if forward == self.forward || self.run <= 1 => {
                self.forward = forward;
                self.run = self.run.saturating_add(1);
            }
            Some(forward) => {
                // Turned around: this block and the last make a run of 2.
                self.forward = forward;
                self.run = 2;
                self.size = self.first_size();
            }
            None => {
                self.run = 1;
                self.size = self.first_size();
            }
        }
        self.last = Some((offset, end));
    }

    /// The stored bytes (with trailer) of the block at `offset`, `len`
    /// bytes, when the current window holds all of them.
    pub(crate) fn get(&self, offset: u64, len: usize) -> Option<&[u8]> {
        let start = usize::try_from(offset.checked_sub(self.window_offset)?).ok()?;
        self.buf[..self.window_len].get(start..start.checked_add(len)?)
    }

    /// For a block the iterator misses in the cache and the window
    /// (`offset`, `len` bytes with trailer), the window to read next, as
    /// its file offset and length (it holds the block): `None` while the
    /// run is too short (read the block alone). Windows stay below `limit`
    /// (the footer's start). Automatic readahead doubles the size for the
    /// window after.
    pub(crate) fn plan(&mut self, offset: u64, len: usize, limit: u64) -> Option<(u64, usize)> {
        if self.fixed.is_none() && self.run <= SEQUENTIAL_VISITS {
            return None;
        }
        let want = (len as u64).saturating_add(self.size as u64);
        let end = offset.checked_add(len as u64).filter(|&e| e <= limit)?;
        let (start, n) = if self.forward {
            (offset, want.min(limit - offset))
        } else {
            let start = end.saturating_sub(want);
            (start, end - start)
        };
        if self.fixed.is_none() {
            self.size = (self.size * 2).min(MAX_SIZE);
        }
        let n = usize::try_from(n).ok()?;
        (n > len).then_some((start, n))
    }

    /// A buffer of `n` bytes for the window starting at `offset`, which the
    /// caller fills with the file's bytes there, or, when that read fails,
    /// calls [`Self::failed`] so that nothing stale is served.
    pub(crate) fn buffer(&mut self, offset: u64, n: usize) -> &mut [u8] {
        self.window_offset = offset;
        if self.buf.is_empty() {
            self.buf = SPARE.with(|s| s.take());
        }
        if self.buf.len() < n {
            self.buf.resize(n, 0);
        }
        self.window_len = n;
        &mut self.buf[..n]
    }

    /// The read into [`Self::buffer`] failed: forget its bytes.
    pub(crate) fn failed(&mut self) {
        self.window_len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Visits blocks of `len` bytes laid end to end from `first`, `count` of
    /// them, asking for a plan at each: the planned window sizes (0 = none).
    fn walk(ra: &mut Readahead, first: u64, len: usize, count: usize, limit: u64) -> Vec<usize> {
        (0..count)
            .map(|i| {
                let off = first + (i * len) as u64;
                ra.visit(off, len);
                if ra.get(off, len).is_some() {
                    return 0;
                }
                match ra.plan(off, len, limit) {
                    Some((start, n)) => {
                        assert_eq!(start, off, "forward windows start at the block");
                        ra.buffer(start, n);
                        n
                    }
                    None => 0,
                }
            })
            .collect()
    }

    #[test]
    fn a_window_comes_with_the_third_sequential_visit_and_grows_to_the_maximum() {
        let mut ra = Readahead::default();
        let len = 4096 + 5;
        // Windows at visit 3 (len + 8 KiB, covering two more blocks only
        // partly: the third is read in the next window), then doubling.
        let got = walk(&mut ra, 0, len, 400, u64::MAX);
        let windows: Vec<usize> = got.iter().copied().filter(|&n| n > 0).collect();
        assert_eq!(got[..3], [0, 0, len + INITIAL_SIZE]);
        assert_eq!(
            windows[..7],
            [8, 16, 32, 64, 128, 256, 256].map(|k| len + (k << 10))
        );
        // Every block after the first two came out of a window or started one.
        let total: usize = windows.iter().sum();
        assert!(total >= 398 * len, "{total}");
    }

    #[test]
    fn a_jump_resets_the_count_and_the_size() {
        let mut ra = Readahead::default();
        let len = 1000;
        walk(&mut ra, 0, len, 50, u64::MAX);
        // A seek elsewhere: two visits without a window again, then 8 KiB.
        let got = walk(&mut ra, 1_000_000, len, 4, u64::MAX);
        assert_eq!(got, [0, 0, len + INITIAL_SIZE, 0]);
        // A block that adjoins neither side of the last one: a run of 1.
        ra.visit(5_000_000, len);
        ra.visit(5_000_000 + len as u64, len);
        assert_eq!(ra.plan(5_000_000 + len as u64, len, u64::MAX), None);
    }

    #[test]
    fn a_run_backwards_reads_windows_that_end_at_the_block() {
        let mut ra = Readahead::default();
        let len = 4096;
        let mut windows = Vec::new();
        for i in (0..100u64).rev() {
            let off = i * len as u64;
            ra.visit(off, len);
            if ra.get(off, len).is_some() {
                continue;
            }
            if let Some((start, n)) = ra.plan(off, len, u64::MAX) {
                assert_eq!(start + n as u64, off + len as u64, "block {i}");
                ra.buffer(start, n);
                windows.push(n);
            }
        }
        // Blocks 99 and 98 alone, then 8 KiB before block 97, doubling; the
        // last window stops at the file's start.
        assert_eq!(windows[0], len + INITIAL_SIZE);
        assert_eq!(windows[1], len + 2 * INITIAL_SIZE);
        assert_eq!(*windows.last().unwrap() % len, 0);
        assert!(windows.len() <= 8, "{windows:?}");
    }

    #[test]
    fn turning_around_is_a_run_of_two_the_other_way() {
        let mut ra = Readahead::default();
        let len = 1000;
        walk(&mut ra, 0, len, 20, u64::MAX);
        // Block 19 was last; back to 18 (run of 2), 17 (3: a window).
        ra.visit(18_000, len);
        assert_eq!(ra.plan(18_000, len, u64::MAX), None);
        ra.visit(17_000, len);
        assert_eq!(
            ra.plan(17_000, len, u64::MAX),
            Some((18_000 - (len + INITIAL_SIZE) as u64, len + INITIAL_SIZE))
        );
    }

    #[test]
    fn windows_stop_at_the_limit() {
        let mut ra = Readahead::default();
        let len = 4096;
        let limit = 4 * len as u64 + 100;
        let got = walk(&mut ra, 0, len, 4, limit);
        // Third visit: room for the rest (2 blocks + 100 bytes) < len + 8 KiB.
        assert_eq!(got[2], limit as usize - 2 * len);
        assert_eq!(got[3], 0, "the fourth block is in the window");
        // At the limit exactly: only the block itself fits, so no window.
        let mut ra = Readahead::default();
        for i in 0..3u64 {
            ra.visit(i * len as u64, len);
        }
        assert_eq!(ra.plan(2 * len as u64, len, 3 * len as u64), None);
        // Past the limit (a bad handle): no window either.
        assert_eq!(ra.plan(4 * len as u64, len, 3 * len as u64), None);
        // Backwards, the file's start clips: at block 0 only itself fits.
        let mut ra = Readahead::default();
        for i in (0..3u64).rev() {
            ra.visit(i * len as u64, len);
        }
        assert_eq!(ra.plan(0, len, u64::MAX), None);
    }

    #[test]
    fn an_explicit_size_reads_a_window_at_every_miss_from_the_first() {
        let len = 4096;
        let mut ra = Readahead::new(100_000);
        let got = walk(&mut ra, 0, len, 100, u64::MAX);
        // Every window is the block and 100,000 bytes; blocks inside a
        // window need no read.
        let windows: Vec<usize> = got.iter().copied().filter(|&n| n > 0).collect();
        assert_eq!(got[0], len + 100_000, "the first block starts one");
        assert!(windows.iter().all(|&n| n == len + 100_000), "{windows:?}");
        assert_eq!(windows.len(), 100usize.div_ceil(1 + 100_000 / len));
        // A jump keeps the size.
        ra.visit(10_000_000, len);
        assert_eq!(ra.plan(10_000_000, len, u64::MAX), Some((10_000_000, len + 100_000)));
        // Sizes above the cap read the cap.
        let mut ra = Readahead::new(u64::MAX);
        ra.visit(0, len);
        assert_eq!(ra.plan(0, len, u64::MAX), Some((0, len + MAX_FIXED_SIZE)));
        // 0 is automatic: nothing for the first two blocks.
        let mut ra = Readahead::new(0);
        assert_eq!(walk(&mut ra, 0, len, 3, u64::MAX)[..2], [0, 0]);
    }

    #[test]
    fn get_finds_only_whole_blocks_inside_the_window() {
        let mut ra = Readahead::default();
        ra.buffer(1000, 500).fill(7);
        assert_eq!(ra.get(1000, 500).map(<[u8]>::len), Some(500));
        assert_eq!(ra.get(1200, 300).map(<[u8]>::len), Some(300));
        assert!(ra.get(1200, 301).is_none(), "runs past the window");
        assert!(ra.get(999, 10).is_none(), "starts before it");
        assert!(ra.get(u64::MAX, 10).is_none());
        ra.failed();
        assert!(ra.get(1000, 1).is_none(), "a failed read leaves no window");
    }
}
