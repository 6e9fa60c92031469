//! [`CompactionIter`]: the policy deciding which input entries a flush or
//! compaction writes out.
//!
//! Snapshots split each key's history into *stripes*: stripe `i` holds
//! sequence numbers in `(snapshots[i-1], snapshots[i]]`, and the last stripe
//! everything newer than the newest snapshot. A reader at any snapshot sees
//! at most the newest entry of each stripe, so within a stripe only the
//! newest entry of a key is kept. In addition:
//! - an entry deleted by a range tombstone of the same stripe is dropped;
//! - at the bottommost level, a point tombstone in the oldest stripe (older
//!   than every snapshot) is dropped together with what it deletes, because
//!   nothing older can exist below it.
//!
//! Merge operands. When the newest entry of a stripe is an operand, the
//! reader of that stripe needs every operand below it in the stripe and the
//! entry they rest on, so the stripe's operands are collected (newest
//! first) and:
//! - when they rest on a value, a point tombstone or an entry a range
//!   tombstone deletes, all in the stripe, or the key's entries end and
//!   [`Below`] says no older entry of the key exists outside the job, they
//!   are *fully merged* into one value at the newest operand's sequence
//!   number, and what they rested on is dropped;
//! - otherwise (the stripe ends at a snapshot, or older entries may exist
//!   below the job's output) two or more are *partially merged* into one
//!   operand at the newest one's sequence number, when the operator can.
//!   Operands never merge across a snapshot: a reader of an older stripe
//!   would see what it must not, or miss what it must see.
//!
//! What cannot be merged (no merge operator in this session, an operator
//! that declines to fold, or a merge that fails) is written out unchanged,
//! with the entry the operands rest on, so that a read with the right
//! operator still finds everything (`crate::merge`).
//!
//! Single deletes. A single delete on top of its stripe deletes the put
//! right below it; that put is dropped (as any entry hidden in its stripe).
//! The single delete itself is dropped too when it provably deletes nothing
//! else: no older entry of the key in the job's input after that put and
//! none outside the job ([`Below`]). Otherwise it is kept and acts as a
//! delete, so a single delete used against RocksDB's contract (over
//! several puts, or a merge) never brings an older value back; RocksDB
//! leaves that case undefined.
//!
//! Sequence numbers at the bottom. With [`CompactionIter::zero_bottom_seqnos`]
//! (a bottommost job writing below L0), a value in the oldest stripe is
//! written at sequence number 0, as RocksDB does: every reader sees it, and
//! nothing older of its key exists anywhere, so no reader can tell. The
//! eight trailer bytes of almost every row at the last level are then the
//! same, which the block codec compresses away (about 3% of the table bytes
//! of 48/160-byte rows under LZ4). Only values: operands, single deletes
//! kept and the entry operands rest on keep their numbers' order, since the
//! value is the oldest entry of its key and any entry kept above it is
//! newer. Not for outputs to L0 (universal and FIFO order L0 files by
//! sequence number) nor with `allow_ingest_behind` (the caller passes
//! `bottommost` false then: files ingested behind may lie under any output).
//! Pinned by `zeroes_values_at_the_bottom_in_the_oldest_stripe_only` and the
//! model test below.
//!
//! Range tombstones themselves are not produced by this iterator; the job
//! writes them with [`keep_range_tombstone`].

use std::collections::VecDeque;
use std::sync::Arc;

use crate::iterator::InternalIterator;
use crate::key::{self, SequenceNumber, ValueKind, make_internal_key};
use crate::memtable::RangeTombstone;
use crate::merge::{Merger, Operands};
use crate::range_del::{FragmentedRangeTombstoneList, Hint};
use crate::version::Version;

/// Why entries were dropped (RocksDB's `compaction.key.drop.*` tickers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DropCounts {
    /// Shadowed by a newer entry of the same key in the same stripe.
    pub newer_entry: u64,
    /// Point tombstones (and what they hid) dropped at the bottommost level,
    /// and single deletes that deleted nothing else.
    pub obsolete: u64,
    /// Entries deleted by a range tombstone.
    pub range_del: u64,
    /// Operands, and the entries they rested on, folded into a merged entry
    /// (each merge writes one entry for all of them).
    pub merged: u64,
}

impl DropCounts {
    /// All drops.
    pub fn total(&self) -> u64 {
        self.newer_entry + self.obsolete + self.range_del + self.merged
    }
}

/// The drops of several jobs' parts (subcompactions) summed, field by field.
impl std::ops::AddAssign for DropCounts {
    fn add_assign(&mut self, o: DropCounts) {
        self.newer_entry += o.newer_entry;
        self.obsolete += o.obsolete;
        self.range_del += o.range_del;
        self.merged += o.merged;
    }
}

/// Where older entries of a key may exist outside what a job reads: this
/// decides whether the end of a key's entries in the input is the bottom
/// of its history (full merges of operands without a base, single deletes
/// with nothing left to delete).
#[derive(Clone, Debug)]
pub enum Below {
    /// Nowhere: the job's output level is the bottom of the key range.
    Nothing,
    /// Possibly anywhere (recovery writes memtables before their tables
    /// are in a version).
    Unknown,
    /// In the tables of the version at the given level and below (0: every
    /// table). The version is the current one when the job started: older
    /// data of the job's keys never moves above the job's output meanwhile.
    Levels(Arc<Version>, usize),
}

impl Below {
    /// False only when no table outside the job may hold `user_key`.
    pub fn may_hold(&self, user_key: &[u8]) -> bool {
        match self {
            Below::Nothing => false,
            Below::Unknown => true,
            Below::Levels(v, from) => (*from..v.num_levels()).any(|l| {
                if l == 0 {
                    v.l0_files_for_key(user_key).next().is_some()
                } else {
                    !v.files_for_key(l, user_key).is_empty()
                }
            }),
        }
    }
}

/// What [`CompactionIter::visit`] made of the input's current entry.
enum Visit {
    /// Write the input's current entry.
    Keep,
    /// Write what was queued in `out`.
    Queued,
    /// Write nothing.
    Drop,
}

/// How the operands of a stripe end ([`CompactionIter::merge_stripe`]).
enum Rest {
    /// The key's entries in the input end.
    KeyEnd,
    /// A snapshot boundary (or an entry that cannot be read as a key).
    Boundary,
    /// A value of the stripe; the input is on it.
    Value,
    /// A point tombstone of the stripe (consumed): its internal key.
    Tombstone(Vec<u8>),
    /// An entry of the stripe a range tombstone deletes (consumed).
    Covered,
}

/// Filters a merged input. See the module docs.
pub struct CompactionIter<I: InternalIterator> {
    input: I,
    snapshots: Vec<SequenceNumber>,
    bottommost: bool,
    tombstones: FragmentedRangeTombstoneList,
    /// Where the last tombstone lookup landed: keys come in order.
    hint: Hint,
    merger: Merger,
    below: Below,
    current_key: Vec<u8>,
    has_current: bool,
    last_stripe: usize,
    started: bool,
    /// A look-ahead left the input on an entry not yet visited.
    at_next: bool,
    /// Entries to write before reading on (internal key, value).
    out: VecDeque<(Vec<u8>, Vec<u8>)>,
    /// The entry being written when it is not the input's.
    current: Option<(Vec<u8>, Vec<u8>)>,
    operands: Operands,
    /// Drop counts so far.
    pub drops: DropCounts,
    /// Input entries seen so far.
    pub entries_in: u64,
    /// Write values of the oldest stripe at sequence number 0 (module docs).
    zero_bottom: bool,
    /// The current entry's key with its sequence number zeroed, when
    /// `zeroed` says the current entry is one.
    zeroed_key: Vec<u8>,
    zeroed: bool,
    /// Sequence number and kind of the input entry `visit` looked at last
    /// (`None` when its key did not parse), for `zero_current`.
    kept: Option<(SequenceNumber, ValueKind)>,
}

/// Index of the stripe holding `seq` given ascending `snapshots`.
#[inline]
pub fn stripe_of(snapshots: &[SequenceNumber], seq: SequenceNumber) -> usize {
    snapshots.partition_point(|&s| s < seq)
}

/// True when a range tombstone must be written to the output: always,
/// except at the bottommost level once no snapshot can see below it.
pub fn keep_range_tombstone(
    t: &RangeTombstone,
    snapshots: &[SequenceNumber],
    bottommost: bool,
) -> bool {
    !(bottommost && stripe_of(snapshots, t.seq) == 0)
}

impl<I: InternalIterator> CompactionIter<I> {
    /// `snapshots` ascending; `tombstones` are all range tombstones of the
    /// inputs; `merger` resolves operands; `below` says where older entries
    /// may be (`Below::Nothing` when `bottommost`).
    pub fn new(
        mut input: I,
        mut snapshots: Vec<SequenceNumber>,
        bottommost: bool,
        tombstones: FragmentedRangeTombstoneList,
        merger: Merger,
        below: Below,
    ) -> Self {
        snapshots.sort_unstable();
        snapshots.dedup();
        input.seek_to_first();
        CompactionIter {
            input,
            snapshots,
            bottommost,
            tombstones,
            hint: Hint::default(),
            merger,
            below: if bottommost { Below::Nothing } else { below },
            current_key: Vec::new(),
            has_current: false,
            last_stripe: 0,
            started: false,
            at_next: false,
            out: VecDeque::new(),
            current: None,
            operands: Operands::newest_first(),
            drops: DropCounts::default(),
            entries_in: 0,
            zero_bottom: false,
            zeroed_key: Vec::new(),
            zeroed: false,
            kept: None,
        }
    }

    /// Writes the values of the oldest stripe at sequence number 0 when the
    /// job is bottommost (module docs); the caller asks only for outputs
    /// below L0.
    pub fn zero_bottom_seqnos(mut self, on: bool) -> Self {
        self.zero_bottom = on && self.bottommost;
        self
    }

    /// After [`advance`](Self::advance) found an entry: its zeroed key, if
    /// it is a value of the oldest stripe at the bottom.
    fn zero_current(&mut self) {
        self.zeroed = false;
        if !self.zero_bottom {
            return;
        }
        // A queued entry (a merge result, a single delete) is parsed here; an
        // entry kept straight from the input was parsed by `visit`.
        let (user_key, seq, kind) = match &self.current {
            Some((k, _)) => match key::parse_internal_key(k) {
                Some(p) => (p.user_key, p.seq, p.kind),
                None => return,
            },
            None => match self.kept {
                Some((seq, kind)) => (key::user_key(self.input.key()), seq, kind),
                None => return,
            },
        };
        if kind != ValueKind::Value || seq == 0 || stripe_of(&self.snapshots, seq) != 0 {
            return;
        }
        self.zeroed_key.clear();
        key::append_internal_key(&mut self.zeroed_key, user_key, 0, ValueKind::Value as u8);
        self.zeroed = true;
    }

    /// The underlying iterator (for its status).
    pub fn input(&self) -> &I {
        &self.input
    }

    /// Advances to the next entry to keep; `false` at the end.
    /// The entry is then available from [`key`](Self::key) and [`value`](Self::value).
    pub fn advance(&mut self) -> bool {
        let found = self.advance_inner();
        if found {
            self.zero_current();
        }
        found
    }

    fn advance_inner(&mut self) -> bool {
        self.current = self.out.pop_front();
        if self.current.is_some() {
            return true;
        }
        if self.started && !self.at_next {
            self.input.next();
        }
        self.started = true;
        self.at_next = false;
        while self.input.valid() {
            match self.visit() {
                Visit::Keep => return true,
                Visit::Queued => {
                    self.current = self.out.pop_front();
                    if self.current.is_some() {
                        return true;
                    }
                }
                Visit::Drop => {}
            }
            if self.at_next {
                self.at_next = false;
            } else {
                self.input.next();
            }
        }
        false
    }

    /// The stripe top of `stripe`: the snapshot bounding it from above.
    fn stripe_top(&self, stripe: usize) -> SequenceNumber {
        self.snapshots
            .get(stripe)
            .copied()
            .unwrap_or(key::MAX_SEQUENCE)
    }

    /// True when the input is on an entry of `current_key`.
    fn input_on_current_key(&self) -> bool {
        self.input.valid() && {
            let ik = self.input.key();
            ik.len() >= key::TRAILER_LEN && key::user_key(ik) == self.current_key.as_slice()
        }
    }

    fn visit(&mut self) -> Visit {
        self.entries_in += 1;
        let ik = self.input.key();
        let Some(p) = key::parse_internal_key(ik) else {
            // Unknown kinds cannot be reasoned about: keep them.
            self.kept = None;
            return Visit::Keep;
        };
        let (seq, kind) = (p.seq, p.kind);
        self.kept = Some((seq, kind));
        let stripe = stripe_of(&self.snapshots, seq);
        if self.has_current && self.current_key.as_slice() == p.user_key {
            if stripe == self.last_stripe {
                self.drops.newer_entry += 1;
                return Visit::Drop;
            }
        } else {
            self.current_key.clear();
            self.current_key.extend_from_slice(p.user_key);
            self.has_current = true;
        }
        self.last_stripe = stripe;
        if kind == ValueKind::RangeDeletion {
            return Visit::Keep;
        }
        // Deleted for the newest reader of its stripe (and so for every
        // reader that could see it): a tombstone of the same stripe covers it.
        // The newest covering tombstone is not enough to ask about: it may
        // be in a newer stripe while an older one deletes the entry here,
        // and at the bottommost level that older one is not written out.
        let stripe_top = self.stripe_top(stripe);
        if self
            .tombstones
            .deletes_near(&self.current_key, seq, stripe_top, &mut self.hint)
        {
            self.drops.range_del += 1;
            return Visit::Drop;
        }
        match kind {
            ValueKind::Deletion | ValueKind::SingleDeletion if self.bottommost && stripe == 0 => {
                self.drops.obsolete += 1;
                Visit::Drop
            }
            ValueKind::SingleDeletion => self.single_delete(stripe),
            ValueKind::Merge => self.merge_stripe(seq, stripe),
            _ => Visit::Keep,
        }
    }

    /// A single delete on top of its stripe (see the module docs).
    fn single_delete(&mut self, stripe: usize) -> Visit {
        let sd = self.input.key().to_vec();
        self.input.next();
        self.at_next = true;
        if self.input_on_current_key()
            && let Some(p) = key::parse_internal_key(self.input.key())
            && p.kind == ValueKind::Value
            && stripe_of(&self.snapshots, p.seq) == stripe
        {
            let (seq, top) = (p.seq, self.stripe_top(stripe));
            if !self
                .tombstones
                .deletes_near(&self.current_key, seq, top, &mut self.hint)
            {
                // The put this single delete deletes: hidden in the stripe
                // whatever becomes of the single delete.
                self.entries_in += 1;
                self.drops.newer_entry += 1;
                self.input.next();
            }
        }
        if !self.input_on_current_key() && !self.below.may_hold(&self.current_key) {
            // Nothing older of the key anywhere: the single delete deletes nothing.
            self.drops.obsolete += 1;
            return Visit::Drop;
        }
        self.out.push_back((sd, Vec::new()));
        Visit::Queued
    }

    /// An operand on top of its stripe: collects the stripe's operands and
    /// merges them as far as the module docs allow.
    fn merge_stripe(&mut self, top_seq: SequenceNumber, stripe: usize) -> Visit {
        let top = self.stripe_top(stripe);
        self.operands.clear();
        self.operands.push(top_seq, self.input.value());
        self.input.next();
        self.at_next = true;
        let rest = loop {
            if !self.input_on_current_key() {
                break Rest::KeyEnd;
            }
            let Some(p) = key::parse_internal_key(self.input.key()) else {
                break Rest::Boundary;
            };
            if p.kind == ValueKind::RangeDeletion || stripe_of(&self.snapshots, p.seq) != stripe {
                break Rest::Boundary;
            }
            let (seq, kind) = (p.seq, p.kind);
            self.entries_in += 1;
            if self
                .tombstones
                .deletes_near(&self.current_key, seq, top, &mut self.hint)
            {
                self.drops.range_del += 1;
                self.input.next();
                break Rest::Covered;
            }
            match kind {
                ValueKind::Merge => self.operands.push(seq, self.input.value()),
                ValueKind::Value => break Rest::Value,
                _ => {
                    let tomb = self.input.key().to_vec();
                    self.input.next();
                    break Rest::Tombstone(tomb);
                }
            }
            self.input.next();
        };
        let bottom = match rest {
            Rest::KeyEnd => !self.below.may_hold(&self.current_key),
            Rest::Boundary => false,
            _ => true,
        };
        let mut merged = Vec::new();
        if bottom {
            let existing = matches!(rest, Rest::Value).then(|| self.input.value());
            if self
                .merger
                .full_merge(&self.current_key, existing, &self.operands, &mut merged)
                .is_ok()
            {
                let rested = !matches!(rest, Rest::KeyEnd | Rest::Covered);
                self.drops.merged += self.operands.len() as u64 - 1 + u64::from(rested);
                if matches!(rest, Rest::Value) {
                    self.input.next();
                }
                let k = make_internal_key(&self.current_key, top_seq, ValueKind::Value);
                self.out.push_back((k, merged));
                return Visit::Queued;
            }
        } else if self
            .merger
            .partial_merge(&self.current_key, &self.operands, &mut merged)
        {
            self.drops.merged += self.operands.len() as u64 - 1;
            let k = make_internal_key(&self.current_key, top_seq, ValueKind::Merge);
            self.out.push_back((k, merged));
            return Visit::Queued;
        }
        // Unchanged: the operands, and what they rest on.
        for i in 0..self.operands.len() {
            let (seq, op) = self.operands.get(i);
            let k = make_internal_key(&self.current_key, seq, ValueKind::Merge);
            self.out.push_back((k, op.to_vec()));
        }
        match rest {
            Rest::Value => {
                let e = (self.input.key().to_vec(), self.input.value().to_vec());
                self.out.push_back(e);
                self.input.next();
            }
            Rest::Tombstone(_) if self.bottommost && stripe == 0 => self.drops.obsolete += 1,
            Rest::Tombstone(k) => self.out.push_back((k, Vec::new())),
            Rest::KeyEnd | Rest::Boundary | Rest::Covered => {}
        }
        Visit::Queued
    }

    /// Current internal key.
    pub fn key(&self) -> &[u8] {
        if self.zeroed {
            return &self.zeroed_key;
        }
        match &self.current {
            Some((k, _)) => k,
            None => self.input.key(),
        }
    }

    /// Current value.
    pub fn value(&self) -> &[u8] {
        match &self.current {
            Some((_, v)) => v,
            None => self.input.value(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iterator::VecIter;

    fn e(k: &str, seq: u64, kind: ValueKind) -> (Vec<u8>, Vec<u8>) {
        (
            make_internal_key(k.as_bytes(), seq, kind),
            format!("{k}{seq}").into_bytes(),
        )
    }

    fn run(
        entries: Vec<(Vec<u8>, Vec<u8>)>,
        snaps: Vec<u64>,
        bottom: bool,
        tombs: Vec<RangeTombstone>,
    ) -> (Vec<(String, u64)>, DropCounts) {
        let (out, drops) = run_with(entries, snaps, bottom, tombs, false);
        (out.into_iter().map(|(k, seq, _)| (k, seq)).collect(), drops)
    }

    /// As [`run`], with [`CompactionIter::zero_bottom_seqnos`] set to
    /// `zero`; each entry with its value.
    fn run_with(
        entries: Vec<(Vec<u8>, Vec<u8>)>,
        snaps: Vec<u64>,
        bottom: bool,
        tombs: Vec<RangeTombstone>,
        zero: bool,
    ) -> (Vec<(String, u64, String)>, DropCounts) {
        let ts = FragmentedRangeTombstoneList::from_tombstones(&tombs);
        let mut it = CompactionIter::new(
            VecIter::new(entries),
            snaps,
            bottom,
            ts,
            Merger::default(),
            Below::Unknown,
        )
        .zero_bottom_seqnos(zero);
        let mut out = Vec::new();
        while it.advance() {
            let p = key::parse_internal_key(it.key()).unwrap();
            out.push((
                String::from_utf8(p.user_key.to_vec()).unwrap(),
                p.seq,
                String::from_utf8(it.value().to_vec()).unwrap(),
            ));
        }
        (out, it.drops)
    }

    #[test]
    fn keeps_newest_per_stripe() {
        use ValueKind::*;
        let input = vec![
            e("a", 9, Value),
            e("a", 7, Value),
            e("a", 4, Value),
            e("a", 2, Value),
            e("b", 1, Value),
        ];
        let (out, d) = run(input.clone(), vec![], false, vec![]);
        assert_eq!(out, vec![("a".into(), 9), ("b".into(), 1)]);
        assert_eq!(d.newer_entry, 3);
        // Snapshot 5 needs a@4; snapshot 7 needs a@7.
        let (out, _) = run(input, vec![5, 7], false, vec![]);
        assert_eq!(
            out,
            vec![
                ("a".into(), 9),
                ("a".into(), 7),
                ("a".into(), 4),
                ("b".into(), 1)
            ]
        );
    }

    #[test]
    fn bottommost_drops_old_tombstones_and_what_they_hide() {
        use ValueKind::*;
        let input = vec![
            e("a", 8, Deletion),
            e("a", 3, Value),
            e("b", 6, Deletion),
            e("b", 2, Value),
        ];
        let (out, d) = run(input.clone(), vec![], true, vec![]);
        assert!(out.is_empty(), "{out:?}");
        assert_eq!(d.obsolete, 2);
        // Not bottommost: the tombstones must stay to hide older data below.
        let (out, _) = run(input.clone(), vec![], false, vec![]);
        assert_eq!(out, vec![("a".into(), 8), ("b".into(), 6)]);
        // A snapshot at 5 still sees b@2 and a@3.
        let (out, _) = run(input, vec![5], true, vec![]);
        assert_eq!(
            out,
            vec![
                ("a".into(), 8),
                ("a".into(), 3),
                ("b".into(), 6),
                ("b".into(), 2)
            ]
        );
    }

    #[test]
    fn zeroes_values_at_the_bottom_in_the_oldest_stripe_only() {
        use ValueKind::*;
        let input = vec![
            e("a", 9, Value),
            e("a", 4, Value),
            e("b", 8, Merge),
            e("b", 3, Value),
            e("c", 2, Value),
        ];
        let zeroed = |bottom: bool, on: bool, snaps: Vec<u64>| {
            run_with(input.clone(), snaps, bottom, vec![], on).0
        };
        let t = |k: &str, seq: u64, v: &str| (k.to_string(), seq, v.to_string());
        // A snapshot at 5: a@9 is in a newer stripe and keeps its number; the
        // operand b@8 too, and the value it rests on is zeroed below it.
        assert_eq!(
            zeroed(true, true, vec![5]),
            vec![
                t("a", 9, "a9"),
                t("a", 0, "a4"),
                t("b", 8, "b8"),
                t("b", 0, "b3"),
                t("c", 0, "c2")
            ]
        );
        // Not bottommost, or not asked: numbers unchanged.
        for (bottom, on) in [(false, true), (true, false)] {
            assert_eq!(
                zeroed(bottom, on, vec![5]),
                vec![
                    t("a", 9, "a9"),
                    t("a", 4, "a4"),
                    t("b", 8, "b8"),
                    t("b", 3, "b3"),
                    t("c", 2, "c2")
                ]
            );
        }
    }

    #[test]
    fn range_tombstones_drop_covered_entries_in_their_stripe() {
        use ValueKind::*;
        let t = RangeTombstone {
            begin: b"a".to_vec(),
            end: b"c".to_vec(),
            seq: 10,
        };
        let input = vec![
            e("a", 12, Value),
            e("a", 5, Value),
            e("b", 3, Value),
            e("c", 4, Value),
        ];
        let (out, d) = run(input.clone(), vec![], false, vec![t.clone()]);
        assert_eq!(out, vec![("a".into(), 12), ("c".into(), 4)]);
        assert_eq!(d.range_del, 1);
        assert_eq!(d.newer_entry, 1);
        // A snapshot at 7 still needs a@5 and b@3.
        let (out, _) = run(input, vec![7], false, vec![t.clone()]);
        assert_eq!(
            out,
            vec![
                ("a".into(), 12),
                ("a".into(), 5),
                ("b".into(), 3),
                ("c".into(), 4)
            ]
        );
        assert!(keep_range_tombstone(&t, &[7], true));
        assert!(!keep_range_tombstone(&t, &[], true));
        assert!(!keep_range_tombstone(&t, &[11], true));
        assert!(keep_range_tombstone(&t, &[], false));
    }

    #[test]
    fn entry_deleted_by_an_older_tombstone_of_its_stripe_is_dropped_with_it() {
        use ValueKind::*;
        let t = |seq| RangeTombstone {
            begin: b"a".to_vec(),
            end: b"z".to_vec(),
            seq,
        };
        // Snapshot 2 sees k@1 deleted by the tombstone at 2; the tombstone
        // at 3 is newer than the snapshot. At the bottom, the tombstone at 2
        // is not written, so k@1 must go too.
        let (out, d) = run(vec![e("k", 1, Value)], vec![2], true, vec![t(2), t(3)]);
        assert!(out.is_empty(), "{out:?}");
        assert_eq!(d.range_del, 1);
        assert!(!keep_range_tombstone(&t(2), &[2], true));
        assert!(keep_range_tombstone(&t(3), &[2], true));
    }

    fn string_append() -> Merger {
        Merger::new(
            Some(std::sync::Arc::new(
                crate::merge::StringAppendOperator::default(),
            )),
            None,
        )
    }

    fn ev(k: &str, seq: u64, kind: ValueKind, v: &str) -> (Vec<u8>, Vec<u8>) {
        (
            make_internal_key(k.as_bytes(), seq, kind),
            v.as_bytes().to_vec(),
        )
    }

    /// Runs a job (not bottommost) over `input`; returns (key, seq, kind,
    /// value) written.
    fn job(
        input: Vec<(Vec<u8>, Vec<u8>)>,
        snaps: Vec<u64>,
        merger: Merger,
        below: Below,
    ) -> (Vec<(String, u64, ValueKind, String)>, DropCounts) {
        let ts = FragmentedRangeTombstoneList::from_tombstones(&[]);
        let mut it = CompactionIter::new(VecIter::new(input), snaps, false, ts, merger, below);
        let mut out = Vec::new();
        while it.advance() {
            let p = key::parse_internal_key(it.key()).unwrap();
            out.push((
                String::from_utf8(p.user_key.to_vec()).unwrap(),
                p.seq,
                p.kind,
                String::from_utf8(it.value().to_vec()).unwrap(),
            ));
        }
        (out, it.drops)
    }

    #[test]
    fn a_single_delete_and_its_put_cancel_when_nothing_older_can_exist() {
        use ValueKind::*;
        let input = vec![
            ev("k", 5, SingleDeletion, ""),
            ev("k", 4, Value, "v"),
            ev("z", 1, Value, "z"),
        ];
        let (out, d) = job(input.clone(), vec![], Merger::default(), Below::Unknown);
        // Older puts may exist below the output: the single delete stays.
        assert_eq!(
            out,
            vec![
                ("k".into(), 5, SingleDeletion, "".into()),
                ("z".into(), 1, Value, "z".into())
            ]
        );
        assert_eq!(d.newer_entry, 1);
        // Nothing below (the flushed keys are in no table): both go.
        let (out, d) = job(input.clone(), vec![], Merger::default(), Below::Nothing);
        assert_eq!(out, vec![("z".into(), 1, Value, "z".into())]);
        assert_eq!((d.newer_entry, d.obsolete), (1, 1));
        // A snapshot between them keeps both: it sees the put.
        let (out, _) = job(input, vec![4], Merger::default(), Below::Nothing);
        assert_eq!(
            out,
            vec![
                ("k".into(), 5, SingleDeletion, "".into()),
                ("k".into(), 4, Value, "v".into()),
                ("z".into(), 1, Value, "z".into())
            ]
        );
    }

    #[test]
    fn a_single_delete_over_several_puts_stays_a_delete() {
        use ValueKind::*;
        // RocksDB's contract broken: two puts under one single delete.
        // Dropping the pair would bring k@2 back; Talus keeps the delete.
        let input = vec![
            ev("k", 5, SingleDeletion, ""),
            ev("k", 4, Value, "new"),
            ev("k", 2, Value, "old"),
        ];
        let (out, d) = job(input.clone(), vec![], Merger::default(), Below::Nothing);
        assert_eq!(out, vec![("k".into(), 5, SingleDeletion, "".into())]);
        assert_eq!(d.newer_entry, 2);
        // The older put seen by a snapshot stays, under the single delete.
        let (out, _) = job(input, vec![3], Merger::default(), Below::Nothing);
        assert_eq!(
            out,
            vec![
                ("k".into(), 5, SingleDeletion, "".into()),
                ("k".into(), 2, Value, "old".into())
            ]
        );
    }

    #[test]
    fn operands_merge_within_a_stripe_never_across_a_snapshot() {
        use ValueKind::*;
        let input = vec![
            ev("k", 5, Merge, "c"),
            ev("k", 4, Merge, "b"),
            ev("k", 3, Value, "a"),
        ];
        let (out, d) = job(input.clone(), vec![], string_append(), Below::Unknown);
        assert_eq!(out, vec![("k".into(), 5, Value, "a,b,c".into())]);
        assert_eq!(d.merged, 2);
        // A snapshot at 4 sees "a,b"; the newest reader "a,b,c".
        let (out, _) = job(input.clone(), vec![4], string_append(), Below::Unknown);
        assert_eq!(
            out,
            vec![
                ("k".into(), 5, Merge, "c".into()),
                ("k".into(), 4, Value, "a,b".into())
            ]
        );
        // Without a merge operator everything stays.
        let (out, d) = job(input, vec![], Merger::default(), Below::Unknown);
        assert_eq!(out.len(), 3);
        assert_eq!(d.total(), 0);
    }

    #[test]
    fn operands_without_a_base_fold_or_merge_fully_at_the_bottom() {
        use ValueKind::*;
        let input = vec![ev("k", 5, Merge, "b"), ev("k", 4, Merge, "a")];
        // Older entries may be below: fold into one operand.
        let (out, _) = job(input.clone(), vec![], string_append(), Below::Unknown);
        assert_eq!(out, vec![("k".into(), 5, Merge, "a,b".into())]);
        // Nothing older anywhere: a value.
        let (out, _) = job(input.clone(), vec![], string_append(), Below::Nothing);
        assert_eq!(out, vec![("k".into(), 5, Value, "a,b".into())]);
        // A tombstone under them is a base of nothing.
        let mut deleted = input;
        deleted.push(ev("k", 3, Deletion, ""));
        deleted.push(ev("k", 2, Value, "gone"));
        let (out, d) = job(deleted, vec![], string_append(), Below::Unknown);
        assert_eq!(out, vec![("k".into(), 5, Value, "a,b".into())]);
        assert_eq!((d.merged, d.newer_entry), (2, 1));
    }

    /// Random histories with merges, single deletes, range tombstones and
    /// snapshots, with or without older data below the job and with or
    /// without a merge operator: every snapshot (and the newest reader) sees
    /// the same values in the output as in the input.
    #[test]
    fn random_jobs_keep_what_every_snapshot_sees() {
        use crate::db::merge_model::{Entry, random_history, view};
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(32);
        for round in 0..4000 {
            let has_below = rng.random_bool(0.3);
            let (below, below_tombs, first) = if has_below {
                let n = rng.random_range(1..12);
                random_history(&mut rng, 4, n, 1)
            } else {
                (Vec::new(), Vec::new(), 1)
            };
            let n = rng.random_range(0..30);
            let (entries, tombs, next) = random_history(&mut rng, 4, n, first);
            let mut snaps: Vec<u64> = (1..next).filter(|_| rng.random_bool(0.15)).collect();
            let bottommost = !has_below && rng.random_bool(0.5);
            let below_arg = if has_below || rng.random_bool(0.3) {
                Below::Unknown
            } else {
                Below::Nothing
            };
            let with_op = rng.random_bool(0.85);
            let merger = if with_op {
                string_append()
            } else {
                Merger::default()
            };
            let input: Vec<_> = entries.iter().map(Entry::encoded).collect();
            let frag = FragmentedRangeTombstoneList::from_tombstones(&tombs);
            let mut it = CompactionIter::new(
                VecIter::new(input),
                snaps.clone(),
                bottommost,
                frag,
                merger,
                below_arg,
            )
            .zero_bottom_seqnos(rng.random_bool(0.5));
            let mut out: Vec<Entry> = Vec::new();
            let mut last: Option<Vec<u8>> = None;
            while it.advance() {
                if let Some(l) = &last {
                    assert!(
                        key::compare_internal(l, it.key()).is_lt(),
                        "round {round}: output out of order"
                    );
                }
                last = Some(it.key().to_vec());
                out.push(Entry::decode(it.key(), it.value()));
            }
            assert!(out.len() as u64 <= it.entries_in, "round {round}");
            assert_eq!(
                it.entries_in - it.drops.total(),
                out.len() as u64,
                "round {round}: every input entry is written or counted dropped"
            );
            let kept: Vec<RangeTombstone> = tombs
                .iter()
                .filter(|t| keep_range_tombstone(t, &snaps, bottommost))
                .cloned()
                .collect();
            snaps.push(key::MAX_SEQUENCE);
            let all_in: Vec<Entry> = below.iter().chain(&entries).cloned().collect();
            let all_out: Vec<Entry> = below.iter().chain(&out).cloned().collect();
            let tombs_in: Vec<_> = below_tombs.iter().chain(&tombs).cloned().collect();
            let tombs_out: Vec<_> = below_tombs.iter().chain(&kept).cloned().collect();
            for &snap in &snaps {
                assert_eq!(
                    view(&all_out, &tombs_out, snap),
                    view(&all_in, &tombs_in, snap),
                    "round {round} at {snap}: operator {with_op}, bottommost {bottommost}, \
                     below {below:?}\ninput {entries:?}\ntombs {tombs:?}\noutput {out:?}"
                );
            }
        }
    }
}
