//! [`DbIter`]: the user-facing iterator. It walks a merged internal
//! iterator and shows, for each user key, the newest entry visible at its
//! snapshot — skipping newer entries, older versions, point tombstones and
//! entries deleted by range tombstones — within optional bounds.
//!
//! Positioning: moving forward, the inner iterator sits on the entry shown
//! (key and value are read from it, no copy). Moving backward, the inner
//! iterator sits just before all entries of the shown key, whose key and
//! value are kept in `saved_key`/`saved_value`.
//!
//! Merge operands: a key whose newest visible entry is an operand shows the
//! full merge of its operands over the value below them, if any
//! ([`crate::merge::Merger`]). Forward, the walk collects operands newest
//! first down to a value, a tombstone or the next key, and the merged value
//! is kept in `saved_value` (`merged`: key and value then come from
//! `saved_key`/`saved_value`, and the inner iterator may sit anywhere from
//! the key's base entry to the next key). Backward, entries of a key come
//! oldest first: operands are collected after the newest value or
//! tombstone, and merged when the walk passes to the previous key. A merge
//! that fails (no merge operator, or the operator refuses) leaves the
//! iterator invalid with the error in [`DbIter::status`], until the next
//! seek.
//!
//! # Prefix seek ([`PrefixSeek`])
//!
//! With a prefix extractor, a seek (or seek-for-prev) to a key that has a
//! prefix `P` may let tables whose prefix filter rules `P` out skip the
//! seek (they hold no key with `P`): always in RocksDB's prefix mode (no
//! `total_order_seek`, no `auto_prefix_mode`), and in auto mode only when
//! every key between the seek key and `iterate_upper_bound` has prefix `P`.
//! The iterator then stops at the end of `P`:
//!
//! - with `prefix_same_as_start`, always (after `seek_to_first` and
//!   `seek_to_last`, at the end of the first key's prefix; after
//!   `seek_to_last` with an upper bound, of the upper bound's, as RocksDB);
//! - in prefix mode without it, when a table did skip the seek: the keys
//!   outside `P` are then incomplete (RocksDB calls them undefined and may
//!   show them; Talus never does). When no table skipped, the iterator goes
//!   on in total order.
//!
//! Keys with one prefix are contiguous in key order (for the fixed and
//! capped extractors), so stopping at the first key outside `P` shows every
//! key of `P` in the direction of travel. Moves after the seek never skip:
//! a change of direction re-seeks every source in total order.

use std::cmp::Ordering;

use crate::error::{Error, Result};
use crate::iterator::InternalIterator;
use crate::key::{self, MAX_SEQUENCE, SequenceNumber, ValueKind};
use crate::merge::{Merger, Operands};
use crate::options::{PrefixExtractor, ReadOptions};
use crate::perf_context::{F, Laps, PerfLevel, PerfTimer};
use crate::range_del::RangeDelAggregator;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Forward,
    Reverse,
}

/// Counts of work done, read by the perf context and statistics.
#[derive(Clone, Copy, Debug, Default)]
pub struct IterCounters {
    /// Internal entries stepped over (older versions, tombstoned keys).
    pub internal_key_skipped: u64,
    /// Point or range tombstones met.
    pub internal_delete_skipped: u64,
    /// Entries newer than the snapshot stepped over.
    pub internal_recent_skipped: u64,
}

/// How an iterator uses a prefix extractor (module docs).
#[derive(Clone, Copy, Debug)]
pub struct PrefixSeek {
    /// The database's extractor.
    pub extractor: PrefixExtractor,
    /// RocksDB's prefix mode: every seek to a key with a prefix may skip
    /// tables by their prefix filter (neither `total_order_seek` nor
    /// `auto_prefix_mode`).
    pub prefix_mode: bool,
    /// `auto_prefix_mode`: seeks may skip tables only where the results
    /// cannot change.
    pub auto: bool,
    /// `prefix_same_as_start`.
    pub same_as_start: bool,
}

impl PrefixSeek {
    /// The prefix handling of a read with `ro` on a database with
    /// `extractor`; `None` without an extractor.
    pub fn of(extractor: Option<PrefixExtractor>, ro: &ReadOptions) -> Option<PrefixSeek> {
        extractor.map(|extractor| PrefixSeek {
            extractor,
            prefix_mode: !ro.total_order_seek && !ro.auto_prefix_mode,
            auto: ro.auto_prefix_mode && !ro.total_order_seek,
            same_as_start: ro.prefix_same_as_start,
        })
    }

    /// Whether a forward seek to `target` (prefix `prefix`) may skip tables
    /// by prefix with upper bound `upper`: in prefix mode always; in auto
    /// mode when every key in `[target, upper)` has `prefix` — the upper
    /// bound has it too, or (fixed-length prefixes) it is the prefix's
    /// immediate successor of the same length.
    fn may_skip(&self, prefix: &[u8], upper: Option<&[u8]>) -> bool {
        if self.prefix_mode {
            return true;
        }
        if !self.auto {
            return false;
        }
        let Some(upper) = upper else { return false };
        if self.extractor.prefix_of(upper) == Some(prefix) {
            return true;
        }
        // "ab" → "ac": every key ≥ a key starting with "ab" and < "ac"
        // starts with "ab". Only for a last byte below 0xff: "a\xff" → "b\0"
        // would let the one-byte key "b" (outside the domain) in between.
        matches!(self.extractor, PrefixExtractor::Fixed(n) if prefix.len() == n)
            && prefix
                .split_last()
                .zip(upper.split_last())
                .is_some_and(|((&pl, ph), (&ul, uh))| ph == uh && pl != 0xff && ul == pl + 1)
    }
}

/// A snapshot iterator over user keys. See the module docs.
pub struct DbIter<I: InternalIterator> {
    inner: I,
    snapshot: SequenceNumber,
    tombstones: RangeDelAggregator,
    lower: Option<Vec<u8>>,
    upper: Option<Vec<u8>>,
    dir: Direction,
    valid: bool,
    saved_key: Vec<u8>,
    saved_value: Vec<u8>,
    seek_buf: Vec<u8>,
    merger: Merger,
    /// Operands of the key being resolved, met newest first (forward) or
    /// oldest first (backward); reused.
    fwd_operands: Operands,
    back_operands: Operands,
    /// Forward and positioned on a merged value (see the module docs).
    merged: bool,
    /// A failed merge: the iterator is invalid until the next seek.
    error: Option<Error>,
    /// Prefix handling, with an extractor.
    prefix: Option<PrefixSeek>,
    /// The prefix the iterator stops at the end of, since the last seek.
    bound: Option<Vec<u8>>,
    /// Work counters since creation.
    pub counters: IterCounters,
}

impl<I: InternalIterator> DbIter<I> {
    /// Wraps `inner`, showing the state at `snapshot` within `[lower, upper)`
    /// and resolving merge operands with `merger`.
    pub fn new(
        inner: I,
        snapshot: SequenceNumber,
        tombstones: RangeDelAggregator,
        lower: Option<Vec<u8>>,
        upper: Option<Vec<u8>>,
        merger: Merger,
    ) -> Self {
        DbIter {
            inner,
            snapshot,
            tombstones,
            lower,
            upper,
            dir: Direction::Forward,
            valid: false,
            saved_key: Vec::new(),
            saved_value: Vec::new(),
            seek_buf: Vec::new(),
            merger,
            fwd_operands: Operands::newest_first(),
            back_operands: Operands::oldest_first(),
            merged: false,
            error: None,
            prefix: None,
            bound: None,
            counters: IterCounters::default(),
        }
    }

    /// Seeks by prefix as `prefix` says (module docs).
    pub fn with_prefix_seek(mut self, prefix: Option<PrefixSeek>) -> Self {
        self.prefix = prefix;
        self
    }

    /// False when `user_key` lies outside the prefix bound.
    #[inline]
    fn in_bound(&self, user_key: &[u8]) -> bool {
        match (&self.bound, &self.prefix) {
            (Some(b), Some(p)) => p.extractor.prefix_of(user_key) == Some(b.as_slice()),
            _ => true,
        }
    }

    /// After `seek_to_first`/`seek_to_last`: with `prefix_same_as_start`,
    /// bounds the iteration to the prefix of the key found.
    fn bound_to_found_key(&mut self) {
        if self.valid
            && let Some(p) = self.prefix.filter(|p| p.same_as_start)
        {
            self.bound = p.extractor.prefix_of(self.key()).map(<[u8]>::to_vec);
        }
    }

    /// True when positioned on an entry.
    pub fn valid(&self) -> bool {
        self.valid
    }

    /// The current user key. Precondition: `valid()`.
    pub fn key(&self) -> &[u8] {
        debug_assert!(self.valid);
        match self.dir {
            Direction::Forward if !self.merged => key::user_key(self.inner.key()),
            _ => &self.saved_key,
        }
    }

    /// The current value. Precondition: `valid()`.
    pub fn value(&self) -> &[u8] {
        debug_assert!(self.valid);
        match self.dir {
            Direction::Forward if !self.merged => self.inner.value(),
            _ => &self.saved_value,
        }
    }

    /// The first error met: a failed merge, else the underlying iterators'.
    pub fn status(&self) -> Result<()> {
        match &self.error {
            Some(e) => Err(e.clone()),
            None => self.inner.status(),
        }
    }

    fn seek_key(&mut self, user_key: &[u8], seq: SequenceNumber, kind: u8) -> &[u8] {
        self.seek_buf.clear();
        key::append_internal_key(&mut self.seek_buf, user_key, seq, kind);
        &self.seek_buf
    }

    fn above_upper(&self, user_key: &[u8]) -> bool {
        self.upper
            .as_deref()
            .is_some_and(|u| key::compare_user(user_key, u).is_ge())
    }

    fn below_lower(&self, user_key: &[u8]) -> bool {
        self.lower
            .as_deref()
            .is_some_and(|l| key::compare_user(user_key, l).is_lt())
    }

    /// Moves to the first entry.
    pub fn seek_to_first(&mut self) {
        self.error = None;
        match self.lower.clone() {
            Some(l) => self.seek(&l),
            None => {
                self.dir = Direction::Forward;
                self.bound = None;
                let mut laps = Laps::start(PerfLevel::EnableTimeExceptForMutex);
                self.inner.seek_to_first();
                laps.lap(F::seek_internal_seek_time);
                self.find_next_user_entry(false);
                laps.lap(F::find_next_user_entry_time);
                self.bound_to_found_key();
            }
        }
    }

    /// Moves to the last entry.
    pub fn seek_to_last(&mut self) {
        self.error = None;
        self.dir = Direction::Reverse;
        self.bound = None;
        match self.upper.clone() {
            Some(u) => {
                // As RocksDB, whose seek_to_last with an upper bound is a
                // seek-for-prev to it: with prefix_same_as_start, bounded to
                // the upper bound's prefix.
                if let Some(p) = self.prefix.filter(|p| p.same_as_start) {
                    self.bound = p.extractor.prefix_of(&u).map(<[u8]>::to_vec);
                }
                // The smallest internal key of `u`: everything before it is < u.
                let t = self.seek_key(&u, MAX_SEQUENCE, ValueKind::SEEK).to_vec();
                self.inner.seek_for_prev(&t);
                if self.inner.valid() && key::user_key(self.inner.key()) == u.as_slice() {
                    self.inner.prev();
                }
                self.find_prev_user_entry();
            }
            None => {
                self.inner.seek_to_last();
                self.find_prev_user_entry();
                self.bound_to_found_key();
            }
        }
    }

    /// Moves to the first key ≥ `target` (and ≥ the lower bound).
    pub fn seek(&mut self, target: &[u8]) {
        self.error = None;
        self.dir = Direction::Forward;
        self.bound = None;
        let t = match self.lower.as_deref() {
            Some(l) if target < l => l.to_vec(),
            _ => target.to_vec(),
        };
        let snap = self.snapshot;
        let ik = self.seek_key(&t, snap, ValueKind::SEEK).to_vec();
        let mut laps = Laps::start(PerfLevel::EnableTimeExceptForMutex);
        // The prefix is the target's, as RocksDB takes it (before the lower
        // bound raises the seek key).
        match self
            .prefix
            .and_then(|p| Some((p, p.extractor.prefix_of(target)?)))
        {
            Some((p, prefix)) => {
                let skipped = if p.may_skip(prefix, self.upper.as_deref()) {
                    self.inner.seek_prefix(&ik, prefix)
                } else {
                    self.inner.seek(&ik);
                    false
                };
                // In auto mode a skip changes no result: the bound is only
                // for the modes that promise no more than the prefix.
                if p.same_as_start || (skipped && p.prefix_mode) {
                    self.bound = Some(prefix.to_vec());
                }
            }
            None => self.inner.seek(&ik),
        }
        laps.lap(F::seek_internal_seek_time);
        self.find_next_user_entry(false);
        laps.lap(F::find_next_user_entry_time);
    }

    /// Moves to the last key ≤ `target` (and below the upper bound).
    pub fn seek_for_prev(&mut self, target: &[u8]) {
        if self.upper.as_deref().is_some_and(|u| target >= u) {
            self.seek_to_last();
            return;
        }
        self.error = None;
        self.dir = Direction::Reverse;
        self.bound = None;
        // The last internal key of `target`: entries ≤ it are ≤ target.
        let ik = self.seek_key(target, 0, 0).to_vec();
        match self
            .prefix
            .and_then(|p| Some((p, p.extractor.prefix_of(target)?)))
        {
            Some((p, prefix)) => {
                // Auto mode never skips here: its promise is about the
                // range up to the upper bound, not down to the lower one.
                let skipped = if p.prefix_mode {
                    self.inner.seek_for_prev_prefix(&ik, prefix)
                } else {
                    self.inner.seek_for_prev(&ik);
                    false
                };
                if p.same_as_start || skipped {
                    self.bound = Some(prefix.to_vec());
                }
            }
            None => self.inner.seek_for_prev(&ik),
        }
        self.find_prev_user_entry();
    }

    /// Moves to the next key. Precondition: `valid()`.
    pub fn next(&mut self) {
        self.next_at(crate::perf_context::level_u8());
    }

    /// [`Self::next`] for a caller that read the thread's perf level for
    /// its operation (`level`): times the skip without reading the
    /// thread-local again at `Disable`.
    pub fn next_at(&mut self, level: u8) {
        debug_assert!(self.valid);
        // After a merged entry the inner iterator is past the key's
        // operands already; after a plain one it is on the entry shown.
        let mut on_shown = false;
        if self.dir == Direction::Reverse {
            // The inner iterator is before the entries of the shown key: go to them.
            self.dir = Direction::Forward;
            let k = std::mem::take(&mut self.saved_key);
            let ik = self.seek_key(&k, MAX_SEQUENCE, ValueKind::SEEK).to_vec();
            self.inner.seek(&ik);
            self.saved_key = k;
        } else if !self.merged {
            self.saved_key.clear();
            self.saved_key
                .extend_from_slice(key::user_key(self.inner.key()));
            on_shown = true;
        }
        // Skip the rest of the shown key's entries.
        let _t = PerfTimer::start_at(level, F::find_next_user_entry_time);
        if on_shown {
            // The entry shown is a visible value of `saved_key`, in bounds:
            // the search below would parse it only to skip it as an entry
            // of `saved_key`, counting it as skipped. Step past it here
            // instead, with the same count, as RocksDB's `DBIter` does, so
            // that a step reads, parses and compares one key, not two.
            // Pinned by `random_operations_match_the_model_in_both_directions`
            // and the skip counts of `tests/perf_context.rs`
            // (`seeks_and_steps_count_memtable_child_and_skipped_entries`).
            self.inner.next();
            self.counters.internal_key_skipped += 1;
        }
        self.find_next_user_entry(true);
    }

    /// Moves to the previous key. Precondition: `valid()`.
    pub fn prev(&mut self) {
        debug_assert!(self.valid);
        if self.dir == Direction::Forward {
            // Step the inner iterator back before every entry of the shown key.
            if self.merged {
                // The inner iterator may be past the key (even off the end):
                // return to its first entry. The key's entries are still
                // there (the sources are pinned), so the seek lands on one.
                let k = std::mem::take(&mut self.saved_key);
                let ik = self.seek_key(&k, MAX_SEQUENCE, ValueKind::SEEK).to_vec();
                self.saved_key = k;
                self.inner.seek(&ik);
            } else {
                self.saved_key.clear();
                self.saved_key
                    .extend_from_slice(key::user_key(self.inner.key()));
            }
            while self.inner.valid() {
                self.inner.prev();
                if !self.inner.valid() {
                    break;
                }
                if key::user_key(self.inner.key()) < self.saved_key.as_slice() {
                    break;
                }
                self.counters.internal_key_skipped += 1;
            }
            self.dir = Direction::Reverse;
        }
        self.find_prev_user_entry();
    }

    /// Forward: stops on the next visible entry. With `skipping`, entries of
    /// `saved_key` are hidden.
    fn find_next_user_entry(&mut self, mut skipping: bool) {
        self.merged = false;
        while self.inner.valid() {
            let ik = self.inner.key();
            let Some(p) = key::parse_internal_key(ik) else {
                self.inner.next();
                continue;
            };
            if self.above_upper(p.user_key) || !self.in_bound(p.user_key) {
                break;
            }
            if p.seq > self.snapshot {
                self.counters.internal_recent_skipped += 1;
            } else if skipping && key::compare_user(p.user_key, &self.saved_key).is_le() {
                self.counters.internal_key_skipped += 1;
            } else {
                match p.kind {
                    ValueKind::Value if !self.tombstones.covers(p.user_key, p.seq) => {
                        self.valid = true;
                        return;
                    }
                    ValueKind::Merge if !self.tombstones.covers(p.user_key, p.seq) => {
                        self.saved_key.clear();
                        self.saved_key.extend_from_slice(p.user_key);
                        self.merge_forward();
                        return;
                    }
                    ValueKind::Value
                    | ValueKind::Merge
                    | ValueKind::Deletion
                    | ValueKind::SingleDeletion => {
                        // Hide older versions of this key.
                        self.counters.internal_delete_skipped += 1;
                        self.saved_key.clear();
                        self.saved_key.extend_from_slice(p.user_key);
                        skipping = true;
                    }
                    ValueKind::RangeDeletion => {}
                }
            }
            self.inner.next();
        }
        self.valid = false;
    }

    /// Forward, on a visible operand of `saved_key`: collects the key's
    /// operands down to its base entry and shows their merge (see the
    /// module docs). The inner iterator is left on the base entry or past
    /// the key.
    fn merge_forward(&mut self) {
        self.fwd_operands.clear();
        let mut base_at = false;
        while self.inner.valid() {
            let Some(p) = key::parse_internal_key(self.inner.key()) else {
                self.inner.next();
                continue;
            };
            if p.user_key != self.saved_key.as_slice() {
                break;
            }
            // Entries after the first visible one of a key are older: all
            // visible. A range tombstone that deletes one deletes the rest.
            if p.kind != ValueKind::RangeDeletion && self.tombstones.covers(p.user_key, p.seq) {
                break;
            }
            match p.kind {
                ValueKind::Merge => self.fwd_operands.push(p.seq, self.inner.value()),
                ValueKind::Value => {
                    base_at = true;
                    break;
                }
                ValueKind::Deletion | ValueKind::SingleDeletion => break,
                ValueKind::RangeDeletion => {}
            }
            self.inner.next();
        }
        let existing = base_at.then(|| self.inner.value());
        let r = self.merger.full_merge(
            &self.saved_key,
            existing,
            &self.fwd_operands,
            &mut self.saved_value,
        );
        self.merged = true;
        self.finish_merge(r);
    }

    /// Shows the merged value in `saved_value`, or stops on the error.
    fn finish_merge(&mut self, r: Result<()>) {
        match r {
            Ok(()) => self.valid = true,
            Err(e) => {
                self.valid = false;
                self.error = Some(e);
                self.saved_key.clear();
                self.saved_value.clear();
            }
        }
    }

    /// Backward: collects the newest visible entry of the previous user key.
    ///
    /// `kind` says what the entries of `saved_key` seen so far (oldest
    /// first) come to: `Deletion` (nothing visible), `Value` (its value in
    /// `saved_value`) or `Merge` (operands in `back_operands`, over the value in
    /// `saved_value` when `has_base`).
    fn find_prev_user_entry(&mut self) {
        self.merged = false;
        self.back_operands.clear();
        let mut kind = ValueKind::Deletion;
        let mut has_base = false;
        while self.inner.valid() {
            let ik = self.inner.key();
            if !self.in_bound(key::user_key(ik)) {
                // Below the prefix: the key found so far (if any) is the last.
                break;
            }
            if let Some(p) = key::parse_internal_key(ik)
                && p.seq <= self.snapshot
            {
                if kind != ValueKind::Deletion
                    && p.user_key.cmp(self.saved_key.as_slice()) == Ordering::Less
                {
                    // Moved past the entries of the key found.
                    break;
                }
                let covered = matches!(p.kind, ValueKind::Value | ValueKind::Merge)
                    && self.tombstones.covers(p.user_key, p.seq);
                let seen = if covered { ValueKind::Deletion } else { p.kind };
                match seen {
                    ValueKind::Value => {
                        kind = ValueKind::Value;
                        self.back_operands.clear();
                        self.saved_key.clear();
                        self.saved_key.extend_from_slice(p.user_key);
                        self.saved_value.clear();
                        self.saved_value.extend_from_slice(self.inner.value());
                    }
                    ValueKind::Merge => {
                        match kind {
                            // The value below the operands is the base.
                            ValueKind::Value => has_base = true,
                            ValueKind::Merge => {}
                            _ => {
                                has_base = false;
                                self.saved_key.clear();
                                self.saved_key.extend_from_slice(p.user_key);
                                self.saved_value.clear();
                            }
                        }
                        kind = ValueKind::Merge;
                        self.back_operands.push(p.seq, self.inner.value());
                    }
                    ValueKind::Deletion | ValueKind::SingleDeletion | ValueKind::RangeDeletion => {
                        if p.kind != ValueKind::RangeDeletion {
                            self.counters.internal_delete_skipped += 1;
                        }
                        kind = ValueKind::Deletion;
                        has_base = false;
                        self.back_operands.clear();
                        self.saved_key.clear();
                        self.saved_value.clear();
                    }
                }
            } else {
                self.counters.internal_recent_skipped += 1;
            }
            self.inner.prev();
        }
        let shown = kind != ValueKind::Deletion && !self.below_lower(&self.saved_key);
        if shown && kind == ValueKind::Merge {
            let mut out = Vec::new();
            let existing = has_base.then_some(self.saved_value.as_slice());
            let r =
                self.merger
                    .full_merge(&self.saved_key, existing, &self.back_operands, &mut out);
            self.saved_value = out;
            self.finish_merge(r);
        } else if shown {
            self.valid = true;
        } else {
            self.valid = false;
            self.saved_key.clear();
            self.saved_value.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iterator::VecIter;
    use crate::key::make_internal_key;
    use crate::memtable::RangeTombstone;
    use crate::range_del::FragmentedRangeTombstoneList;
    use rand::{Rng, SeedableRng};
    use std::collections::BTreeMap;

    /// Model: the visible state at `snap`.
    fn model(
        entries: &[(u32, u64, Option<u32>)],
        tombs: &[(u32, u32, u64)],
        snap: u64,
    ) -> BTreeMap<Vec<u8>, Vec<u8>> {
        let mut m = BTreeMap::new();
        let mut newest: BTreeMap<u32, (u64, Option<u32>)> = BTreeMap::new();
        for &(k, s, v) in entries {
            if s <= snap && newest.get(&k).is_none_or(|&(ns, _)| s > ns) {
                newest.insert(k, (s, v));
            }
        }
        for (k, (s, v)) in newest {
            let covered = tombs
                .iter()
                .any(|&(b, e, ts)| b <= k && k < e && ts <= snap && ts > s);
            if let (Some(v), false) = (v, covered) {
                m.insert(k.to_be_bytes().to_vec(), v.to_be_bytes().to_vec());
            }
        }
        m
    }

    #[test]
    fn random_operations_match_the_model_in_both_directions() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        for round in 0..200 {
            let mut entries = Vec::new();
            let mut tombs = Vec::new();
            let mut seq = 1u64;
            for _ in 0..rng.random_range(0..60) {
                let k = rng.random_range(0..20u32);
                if rng.random_bool(0.1) {
                    let e = k + rng.random_range(1..6);
                    tombs.push((k, e, seq));
                } else if rng.random_bool(0.25) {
                    entries.push((k, seq, None));
                } else {
                    entries.push((k, seq, Some(rng.random())));
                }
                seq += 1;
            }
            let snap = rng.random_range(0..=seq);
            let lower = rng.random_bool(0.3).then(|| rng.random_range(0..20u32));
            let upper = rng.random_bool(0.3).then(|| rng.random_range(0..22u32));
            let mut m = model(&entries, &tombs, snap);
            m.retain(|k, _| {
                lower.is_none_or(|l| k.as_slice() >= l.to_be_bytes().as_slice())
                    && upper.is_none_or(|u| k.as_slice() < u.to_be_bytes().as_slice())
            });
            let ivec: Vec<_> = entries
                .iter()
                .map(|&(k, s, v)| match v {
                    Some(v) => (
                        make_internal_key(&k.to_be_bytes(), s, ValueKind::Value),
                        v.to_be_bytes().to_vec(),
                    ),
                    None => (
                        make_internal_key(&k.to_be_bytes(), s, ValueKind::Deletion),
                        vec![],
                    ),
                })
                .collect();
            let tombs: Vec<RangeTombstone> = tombs
                .iter()
                .map(|&(b, e, s)| RangeTombstone {
                    begin: b.to_be_bytes().to_vec(),
                    end: e.to_be_bytes().to_vec(),
                    seq: s,
                })
                .collect();
            let mut ts = RangeDelAggregator::new(snap);
            ts.add(std::sync::Arc::new(
                FragmentedRangeTombstoneList::from_tombstones(&tombs),
            ));
            let mut it = DbIter::new(
                VecIter::new(ivec),
                snap,
                ts,
                lower.map(|l| l.to_be_bytes().to_vec()),
                upper.map(|u| u.to_be_bytes().to_vec()),
                Merger::default(),
            );
            // Full scans both ways.
            let mut fwd = Vec::new();
            it.seek_to_first();
            while it.valid() {
                fwd.push((it.key().to_vec(), it.value().to_vec()));
                it.next();
            }
            let want: Vec<_> = m.clone().into_iter().collect();
            assert_eq!(fwd, want, "round {round} forward");
            let mut back = Vec::new();
            it.seek_to_last();
            while it.valid() {
                back.push((it.key().to_vec(), it.value().to_vec()));
                it.prev();
            }
            back.reverse();
            assert_eq!(back, want, "round {round} backward");
            // Random walks with direction changes and seeks.
            let keys: Vec<Vec<u8>> = m.keys().cloned().collect();
            let mut pos: Option<usize> = None;
            for _ in 0..60 {
                match rng.random_range(0..6) {
                    0 => {
                        let t = rng.random_range(0..22u32).to_be_bytes().to_vec();
                        it.seek(&t);
                        pos = keys.iter().position(|k| *k >= t);
                    }
                    1 => {
                        let t = rng.random_range(0..22u32).to_be_bytes().to_vec();
                        it.seek_for_prev(&t);
                        pos = keys.iter().rposition(|k| *k <= t);
                    }
                    2 => {
                        it.seek_to_first();
                        pos = (!keys.is_empty()).then_some(0);
                    }
                    3 => {
                        it.seek_to_last();
                        pos = keys.len().checked_sub(1);
                    }
                    4 if it.valid() => {
                        it.next();
                        pos = pos.and_then(|p| (p + 1 < keys.len()).then_some(p + 1));
                    }
                    5 if it.valid() => {
                        it.prev();
                        pos = pos.and_then(|p| p.checked_sub(1));
                    }
                    _ => {}
                }
                assert_eq!(it.valid(), pos.is_some(), "round {round}");
                if let Some(p) = pos {
                    assert_eq!(it.key(), keys[p].as_slice(), "round {round}");
                    assert_eq!(it.value(), m[&keys[p]].as_slice());
                }
            }
        }
    }

    /// Checks `it` against `want` (the visible state): full scans both
    /// ways, then random seeks and steps with direction changes.
    fn check_walks(
        it: &mut DbIter<VecIter>,
        want: &BTreeMap<Vec<u8>, Vec<u8>>,
        rng: &mut impl Rng,
        targets: &[Vec<u8>],
        what: &str,
    ) {
        let mut fwd = Vec::new();
        it.seek_to_first();
        while it.valid() {
            fwd.push((it.key().to_vec(), it.value().to_vec()));
            it.next();
        }
        it.status().unwrap();
        let want_list: Vec<_> = want.clone().into_iter().collect();
        assert_eq!(fwd, want_list, "{what} forward");
        let mut back = Vec::new();
        it.seek_to_last();
        while it.valid() {
            back.push((it.key().to_vec(), it.value().to_vec()));
            it.prev();
        }
        back.reverse();
        assert_eq!(back, want_list, "{what} backward");
        let keys: Vec<Vec<u8>> = want.keys().cloned().collect();
        let mut pos: Option<usize> = None;
        for step in 0..60 {
            match rng.random_range(0..6) {
                0 => {
                    let t = &targets[rng.random_range(0..targets.len())];
                    it.seek(t);
                    pos = keys.iter().position(|k| k >= t);
                }
                1 => {
                    let t = &targets[rng.random_range(0..targets.len())];
                    it.seek_for_prev(t);
                    pos = keys.iter().rposition(|k| k <= t);
                }
                2 => {
                    it.seek_to_first();
                    pos = (!keys.is_empty()).then_some(0);
                }
                3 => {
                    it.seek_to_last();
                    pos = keys.len().checked_sub(1);
                }
                4 if it.valid() => {
                    it.next();
                    pos = pos.and_then(|p| (p + 1 < keys.len()).then_some(p + 1));
                }
                5 if it.valid() => {
                    it.prev();
                    pos = pos.and_then(|p| p.checked_sub(1));
                }
                _ => {}
            }
            assert_eq!(it.valid(), pos.is_some(), "{what} step {step}");
            if let Some(p) = pos {
                assert_eq!(it.key(), keys[p].as_slice(), "{what} step {step}");
                assert_eq!(it.value(), want[&keys[p]].as_slice(), "{what} step {step}");
            }
        }
    }

    /// Histories with merge operands (string append), single deletes,
    /// deletes and range tombstones: forward and backward walks, seeks and
    /// seeks for prev show each key's merge at the snapshot.
    #[test]
    fn merge_operands_resolve_in_both_directions() {
        use crate::db::merge_model::{Entry, random_history, view};
        let mut rng = rand::rngs::StdRng::seed_from_u64(33);
        let targets: Vec<Vec<u8>> = (b'a'..=b'h')
            .map(|c| vec![c])
            .chain([vec![], vec![b'c', 0]])
            .collect();
        for round in 0..600 {
            let n = rng.random_range(0..50);
            let (entries, tombs, next) = random_history(&mut rng, 6, n, 1);
            let snap = rng.random_range(0..=next);
            let lower = rng
                .random_bool(0.3)
                .then(|| targets[rng.random_range(0..targets.len())].clone());
            let upper = rng
                .random_bool(0.3)
                .then(|| targets[rng.random_range(0..targets.len())].clone());
            let mut want = view(&entries, &tombs, snap);
            want.retain(|k, _| {
                lower.as_ref().is_none_or(|l| k >= l) && upper.as_ref().is_none_or(|u| k < u)
            });
            let mut ts = RangeDelAggregator::new(snap);
            ts.add(std::sync::Arc::new(
                FragmentedRangeTombstoneList::from_tombstones(&tombs),
            ));
            let merger = Merger::new(
                Some(std::sync::Arc::new(
                    crate::merge::StringAppendOperator::default(),
                )),
                None,
            );
            let mut it = DbIter::new(
                VecIter::new(entries.iter().map(Entry::encoded).collect()),
                snap,
                ts,
                lower,
                upper,
                merger,
            );
            check_walks(
                &mut it,
                &want,
                &mut rng,
                &targets,
                &format!("round {round}: {entries:?} {tombs:?} at {snap}"),
            );
        }
    }

    #[test]
    fn an_operand_without_a_merge_operator_stops_the_iterator_with_invalid_argument() {
        let e = |k: &[u8], s, kind, v: &[u8]| (make_internal_key(k, s, kind), v.to_vec());
        let entries = vec![
            e(b"a", 1, ValueKind::Value, b"1"),
            e(b"b", 3, ValueKind::Merge, b"x"),
            e(b"b", 2, ValueKind::Value, b"2"),
            e(b"c", 4, ValueKind::Value, b"3"),
            e(b"d", 5, ValueKind::Merge, b"y"),
            e(b"d", 6, ValueKind::Value, b"4"),
        ];
        let mut it = DbIter::new(
            VecIter::new(entries),
            10,
            RangeDelAggregator::new(10),
            None,
            None,
            Merger::default(),
        );
        it.seek_to_first();
        assert_eq!(it.key(), b"a");
        it.next();
        assert!(!it.valid());
        let err = it.status().unwrap_err();
        assert_eq!(
            err,
            Error::InvalidArgument(crate::merge::NO_OPERATOR.into())
        );
        // A key whose newest entry is a value needs no operator; a seek
        // clears the error.
        it.seek(b"c");
        assert!(it.valid());
        it.status().unwrap();
        it.next();
        assert_eq!((it.key(), it.value()), (&b"d"[..], &b"4"[..]));
        it.seek_for_prev(b"b");
        assert!(!it.valid());
        assert!(it.status().is_err());
    }
}
