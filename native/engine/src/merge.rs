//! Merge operators, and the one place merge operands are resolved.
//!
//! A merge (`Db::merge`, [`crate::WriteBatch::merge`]) writes an *operand*
//! ([`ValueKind::Merge`](crate::key::ValueKind::Merge)) instead of a value.
//! The key's value is what the database's [`MergeOperator`] makes of the
//! key's newest value, if any, and the operands written after it, oldest
//! first: a *full merge*. Reads (`get`, multi-get, iterators in both
//! directions) run it when they meet operands; flushes and compactions run
//! it when they reach the bottom of a key's history within what one
//! snapshot sees (a value, a tombstone, or the end of the key's data), and
//! otherwise may fold a run of operands into one with a *partial merge*.
//! Operands a snapshot sees are never folded into a value that snapshot
//! cannot see (`db::compaction_iter`).
//!
//! Everything that resolves operands calls [`Merger`]: it holds the
//! operator (or its absence), runs it, records the statistics
//! (`MERGE_OPERATION_TOTAL_TIME`, `NUMBER_MERGE_FAILURES`) and turns a
//! missing operator or a failed merge into the error RocksDB returns.
//! [`Operands`] holds one key's operands as a walk meets them.
//!
//! Without a merge operator, merges are refused when written (RocksDB's
//! errors: `NotSupported` from `merge`, `InvalidArgument` for a batch
//! holding one), and operands already in the database — written by a
//! session that had one — are kept as they are by flushes and compactions;
//! a read that needs one fails with `InvalidArgument` ("merge_operator is
//! not properly initialized."), never returning a value that ignores them.
//!
//! The built-in operators are RocksDB's, by the names its
//! `MergeOperator::CreateFromString` accepts ([`from_name`]):
//! `stringappend` ([`StringAppendOperator`]), `uint64add`
//! ([`UInt64AddOperator`]), `put` and `put_v1` ([`PutOperator`]) and `max`
//! ([`MaxOperator`]). Each can fold operands (partial merge).

use std::sync::Arc;
use std::time::Instant;

use crate::error::{Error, Result};
use crate::key::SequenceNumber;
use crate::statistics::{Histogram, Statistics, Ticker};

/// The error text of a read that needs a merge operator the database does
/// not have (RocksDB's, with `InvalidArgument`).
pub const NO_OPERATOR: &str = "merge_operator is not properly initialized.";

/// How the operands of a key combine. Implementations must be
/// deterministic: the same inputs always give the same output, whether a
/// read, a flush or a compaction runs them, and whether operands were
/// folded by [`MergeOperator::partial_merge`] first.
pub trait MergeOperator: Send + Sync {
    /// The operator's name, RocksDB's class name for the built-ins (e.g.
    /// `StringAppendOperator`). Shown in the info log.
    fn name(&self) -> &str;

    /// Sets `out` (empty on entry) to the result of applying `operands`
    /// (oldest first, at least one) to `existing` (the key's value; `None`
    /// when the key has none or was deleted). False when the operands
    /// cannot be merged: the read fails with `Corruption`.
    fn full_merge(
        &self,
        key: &[u8],
        existing: Option<&[u8]>,
        operands: &[&[u8]],
        out: &mut Vec<u8>,
    ) -> bool;

    /// Sets `out` (empty on entry) to one operand equivalent to `operands`
    /// (oldest first, at least two) over any existing value, and returns
    /// true; false (the default) when the operator cannot fold operands,
    /// and the compaction keeps them as they are.
    fn partial_merge(&self, key: &[u8], operands: &[&[u8]], out: &mut Vec<u8>) -> bool {
        let _ = (key, operands, out);
        false
    }
}

impl std::fmt::Debug for dyn MergeOperator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// RocksDB's `StringAppendOperator`: the operands appended to the existing
/// value, each after the delimiter (no delimiter before the first piece).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StringAppendOperator {
    delimiter: Vec<u8>,
}

impl StringAppendOperator {
    /// An operator joining with `delimiter` (RocksDB's default is `,`; any
    /// bytes, possibly none).
    pub fn new(delimiter: impl Into<Vec<u8>>) -> Self {
        StringAppendOperator {
            delimiter: delimiter.into(),
        }
    }

    /// The delimiter.
    pub fn delimiter(&self) -> &[u8] {
        &self.delimiter
    }

    fn join<'a>(&self, pieces: impl Iterator<Item = &'a [u8]>, out: &mut Vec<u8>) {
        for (i, p) in pieces.enumerate() {
            if i > 0 {
                out.extend_from_slice(&self.delimiter);
            }
            out.extend_from_slice(p);
        }
    }
}

impl Default for StringAppendOperator {
    /// Delimiter `,`, as RocksDB's.
    fn default() -> Self {
        Self::new(*b",")
    }
}

impl MergeOperator for StringAppendOperator {
    fn name(&self) -> &str {
        "StringAppendOperator"
    }

    fn full_merge(
        &self,
        _key: &[u8],
        existing: Option<&[u8]>,
        operands: &[&[u8]],
        out: &mut Vec<u8>,
    ) -> bool {
        let total = existing.map_or(0, <[u8]>::len)
            + operands
                .iter()
                .map(|o| o.len() + self.delimiter.len())
                .sum::<usize>();
        out.reserve(total);
        self.join(existing.into_iter().chain(operands.iter().copied()), out);
        true
    }

    fn partial_merge(&self, _key: &[u8], operands: &[&[u8]], out: &mut Vec<u8>) -> bool {
        // Appending "a" then "b" is appending "a<delim>b": the delimiter
        // before the first piece is added by the full merge either way.
        self.join(operands.iter().copied(), out);
        true
    }
}

/// RocksDB's `UInt64AddOperator`: values and operands are unsigned 64-bit
/// integers in 8 little-endian bytes, added with wrap-around. As in
/// RocksDB, a value or operand that is not exactly 8 bytes counts as 0 (the
/// merge does not fail), and the result is always 8 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UInt64AddOperator;

impl UInt64AddOperator {
    /// The integer of `b`, 0 unless it has exactly 8 bytes.
    pub fn decode(b: &[u8]) -> u64 {
        b.try_into().map_or(0, u64::from_le_bytes)
    }

    fn sum<'a>(items: impl Iterator<Item = &'a [u8]>) -> u64 {
        items.fold(0u64, |acc, b| acc.wrapping_add(Self::decode(b)))
    }
}

impl MergeOperator for UInt64AddOperator {
    fn name(&self) -> &str {
        "UInt64AddOperator"
    }

    fn full_merge(
        &self,
        _key: &[u8],
        existing: Option<&[u8]>,
        operands: &[&[u8]],
        out: &mut Vec<u8>,
    ) -> bool {
        let n = Self::sum(existing.into_iter().chain(operands.iter().copied()));
        out.extend_from_slice(&n.to_le_bytes());
        true
    }

    fn partial_merge(&self, _key: &[u8], operands: &[&[u8]], out: &mut Vec<u8>) -> bool {
        out.extend_from_slice(&Self::sum(operands.iter().copied()).to_le_bytes());
        true
    }
}

/// RocksDB's `PutOperator` (names `put` and `put_v1`): the newest operand
/// replaces the value, as a put would.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PutOperator;

impl MergeOperator for PutOperator {
    fn name(&self) -> &str {
        "PutOperator"
    }

    fn full_merge(
        &self,
        _key: &[u8],
        _existing: Option<&[u8]>,
        operands: &[&[u8]],
        out: &mut Vec<u8>,
    ) -> bool {
        out.extend_from_slice(operands.last().copied().unwrap_or_default());
        true
    }

    fn partial_merge(&self, _key: &[u8], operands: &[&[u8]], out: &mut Vec<u8>) -> bool {
        out.extend_from_slice(operands.last().copied().unwrap_or_default());
        true
    }
}

/// RocksDB's `MaxOperator`: the bytewise largest of the value and the
/// operands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MaxOperator;

impl MergeOperator for MaxOperator {
    fn name(&self) -> &str {
        "MaxOperator"
    }

    fn full_merge(
        &self,
        _key: &[u8],
        existing: Option<&[u8]>,
        operands: &[&[u8]],
        out: &mut Vec<u8>,
    ) -> bool {
        let max = existing
            .into_iter()
            .chain(operands.iter().copied())
            .max()
            .unwrap_or_default();
        out.extend_from_slice(max);
        true
    }

    fn partial_merge(&self, _key: &[u8], operands: &[&[u8]], out: &mut Vec<u8>) -> bool {
        out.extend_from_slice(operands.iter().copied().max().unwrap_or_default());
        true
    }
}

/// The names [`from_name`] accepts.
pub const NAMES: &[&str] = &[
    "stringappend",
    "StringAppendOperator",
    "uint64add",
    "UInt64AddOperator",
    "put",
    "put_v1",
    "PutOperator",
    "max",
    "MaxOperator",
];

/// The built-in operator named `name` (RocksDB's `CreateFromString` names,
/// [`NAMES`]; `stringappend` joins with `,`). Unlike RocksDB, which leaves
/// the operator unset for a name it does not know, an unknown name is an
/// `InvalidArgument` error naming the accepted ones.
pub fn from_name(name: &str) -> Result<Arc<dyn MergeOperator>> {
    Ok(match name {
        "stringappend" | "StringAppendOperator" => Arc::new(StringAppendOperator::default()),
        "uint64add" | "UInt64AddOperator" => Arc::new(UInt64AddOperator),
        "put" | "put_v1" | "PutOperator" => Arc::new(PutOperator),
        "max" | "MaxOperator" => Arc::new(MaxOperator),
        _ => {
            return Err(Error::InvalidArgument(format!(
                "unknown merge operator name {name:?}; Talus has {}",
                NAMES.join(", ")
            )));
        }
    })
}

/// The operands of one key, in the order a walk meets them, each with its
/// sequence number. One buffer holds them all, so collecting allocates only
/// as the buffer grows, and a cleared collector is reused for the next key.
#[derive(Clone, Debug, Default)]
pub struct Operands {
    bytes: Vec<u8>,
    /// End of each operand in `bytes`, in push order.
    ends: Vec<usize>,
    seqs: Vec<SequenceNumber>,
    /// Pushes go from newest to oldest (forward walks, point lookups,
    /// compactions); false: oldest to newest (backward walks).
    newest_first: bool,
}

impl Operands {
    /// A collector for a walk that meets newer operands first.
    pub fn newest_first() -> Self {
        Operands {
            newest_first: true,
            ..Operands::default()
        }
    }

    /// A collector for a walk that meets older operands first.
    pub fn oldest_first() -> Self {
        Operands::default()
    }

    /// Forgets every operand (keeps the memory).
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
        self.seqs.clear();
    }

    /// Adds the next operand met.
    pub fn push(&mut self, seq: SequenceNumber, operand: &[u8]) {
        self.bytes.extend_from_slice(operand);
        self.ends.push(self.bytes.len());
        self.seqs.push(seq);
    }

    /// Number of operands.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The `i`-th operand pushed, with its sequence number.
    pub fn get(&self, i: usize) -> (SequenceNumber, &[u8]) {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        (self.seqs[i], &self.bytes[start..self.ends[i]])
    }

    /// The newest operand's sequence number. Precondition: not empty.
    pub fn newest_seq(&self) -> SequenceNumber {
        if self.newest_first {
            self.seqs[0]
        } else {
            self.seqs[self.seqs.len() - 1]
        }
    }

    /// The operands oldest first, the order merge operators take.
    pub fn oldest_to_newest(&self) -> Vec<&[u8]> {
        let mut v: Vec<&[u8]> = (0..self.len()).map(|i| self.get(i).1).collect();
        if self.newest_first {
            v.reverse();
        }
        v
    }
}

/// A database's merge operator (or its absence) and the statistics its
/// merges are recorded in. Cheap to clone; shared by every read and job.
#[derive(Clone, Default)]
pub struct Merger {
    op: Option<Arc<dyn MergeOperator>>,
    statistics: Option<Arc<Statistics>>,
}

impl std::fmt::Debug for Merger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Merger")
            .field("op", &self.op.as_ref().map(|o| o.name().to_string()))
            .finish()
    }
}

impl Merger {
    /// A merger running `op`, recording into `statistics`.
    pub fn new(op: Option<Arc<dyn MergeOperator>>, statistics: Option<Arc<Statistics>>) -> Self {
        Merger { op, statistics }
    }

    /// True when the database has a merge operator.
    pub fn has_operator(&self) -> bool {
        self.op.is_some()
    }

    /// Sets `out` to the full merge of `operands` over `existing`.
    /// `InvalidArgument` ([`NO_OPERATOR`]) without an operator; `Corruption`
    /// (and `NUMBER_MERGE_FAILURES`) when the operator fails.
    pub fn full_merge(
        &self,
        key: &[u8],
        existing: Option<&[u8]>,
        operands: &Operands,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let Some(op) = &self.op else {
            return Err(Error::InvalidArgument(NO_OPERATOR.into()));
        };
        out.clear();
        let list = operands.oldest_to_newest();
        let started = self.statistics.as_ref().map(|_| Instant::now());
        let ok = op.full_merge(key, existing, &list, out);
        self.record(started, ok);
        if ok {
            Ok(())
        } else {
            Err(Error::corruption(
                format!("merge operator {}", op.name()),
                0,
                format!(
                    "could not merge {} operands of key b\"{}\"",
                    list.len(),
                    key.escape_ascii()
                ),
            ))
        }
    }

    /// Sets `out` to one operand folding `operands` (at least two) and
    /// returns true; false without an operator, when it cannot fold, or
    /// when there is nothing to fold.
    pub fn partial_merge(&self, key: &[u8], operands: &Operands, out: &mut Vec<u8>) -> bool {
        let Some(op) = &self.op else {
            return false;
        };
        if operands.len() < 2 {
            return false;
        }
        out.clear();
        let list = operands.oldest_to_newest();
        let started = self.statistics.as_ref().map(|_| Instant::now());
        let ok = op.partial_merge(key, &list, out);
        // A declined fold is not a failure: the operands stay as they are.
        self.record(started, true);
        ok
    }

    /// Records the number of operands a point lookup merged
    /// (`READ_NUM_MERGE_OPERANDS`).
    pub fn record_read_operands(&self, n: usize) {
        if let Some(s) = &self.statistics {
            s.record_in_histogram(Histogram::ReadNumMergeOperands, n as u64);
        }
    }

    fn record(&self, started: Option<Instant>, ok: bool) {
        if let (Some(s), Some(t)) = (&self.statistics, started) {
            s.record_tick(
                Ticker::MergeOperationTotalTime,
                t.elapsed().as_nanos() as u64,
            );
            if !ok {
                s.record_tick(Ticker::NumberMergeFailures, 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full(op: &dyn MergeOperator, existing: Option<&[u8]>, ops: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        assert!(op.full_merge(b"k", existing, ops, &mut out));
        out
    }

    fn partial(op: &dyn MergeOperator, ops: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        assert!(op.partial_merge(b"k", ops, &mut out));
        out
    }

    #[test]
    fn string_append_joins_with_its_delimiter() {
        let comma = StringAppendOperator::default();
        assert_eq!(full(&comma, None, &[b"a"]), b"a");
        assert_eq!(full(&comma, None, &[b"a", b"b", b"c"]), b"a,b,c");
        assert_eq!(full(&comma, Some(b"v"), &[b"a", b"b"]), b"v,a,b");
        assert_eq!(full(&comma, Some(b""), &[b""]), b",");
        let long = StringAppendOperator::new(*b"--");
        assert_eq!(full(&long, Some(b"v"), &[b"a"]), b"v--a");
        let none = StringAppendOperator::new(Vec::new());
        assert_eq!(full(&none, Some(b"v"), &[b"a", b"b"]), b"vab");
    }

    #[test]
    fn uint64_add_sums_little_endian_and_counts_malformed_as_zero() {
        let op = UInt64AddOperator;
        let n = |x: u64| x.to_le_bytes();
        assert_eq!(full(&op, None, &[&n(5)]), n(5));
        assert_eq!(full(&op, Some(&n(10)), &[&n(5), &n(7)]), n(22));
        // Wrong lengths count as 0, the merge still succeeds, 8 bytes out.
        assert_eq!(full(&op, Some(b"abc"), &[&n(5), b"", b"123456789"]), n(5));
        assert_eq!(full(&op, None, &[b"x"]), n(0));
        assert_eq!(full(&op, Some(&n(u64::MAX)), &[&n(2)]), n(1), "wraps");
    }

    #[test]
    fn put_takes_the_newest_operand_and_max_the_largest() {
        assert_eq!(full(&PutOperator, Some(b"old"), &[b"a", b"b"]), b"b");
        assert_eq!(full(&MaxOperator, Some(b"m"), &[b"a", b"z", b"b"]), b"z");
        assert_eq!(full(&MaxOperator, Some(b"zz"), &[b"a"]), b"zz");
        assert_eq!(full(&MaxOperator, None, &[b""]), b"");
    }

    /// Folding any run of operands first gives the same full merge, for
    /// every built-in operator: compactions may fold, reads never do.
    #[test]
    fn partial_merges_agree_with_full_merges() {
        let ops: Vec<Arc<dyn MergeOperator>> = vec![
            Arc::new(StringAppendOperator::default()),
            Arc::new(StringAppendOperator::new(Vec::new())),
            Arc::new(UInt64AddOperator),
            Arc::new(PutOperator),
            Arc::new(MaxOperator),
        ];
        let operands: Vec<Vec<u8>> = vec![
            3u64.to_le_bytes().to_vec(),
            b"xy".to_vec(),
            9u64.to_le_bytes().to_vec(),
            b"".to_vec(),
            b"q".to_vec(),
        ];
        for op in &ops {
            for existing in [None, Some(&b"base"[..]), Some(&7u64.to_le_bytes()[..])] {
                for from in 0..operands.len() {
                    for to in from + 2..=operands.len() {
                        let all: Vec<&[u8]> = operands.iter().map(Vec::as_slice).collect();
                        let want = full(&**op, existing, &all);
                        let folded = partial(&**op, &all[from..to]);
                        let mut list: Vec<&[u8]> = all[..from].to_vec();
                        list.push(&folded);
                        list.extend_from_slice(&all[to..]);
                        assert_eq!(
                            full(&**op, existing, &list),
                            want,
                            "{} folding {from}..{to} over {existing:?}",
                            op.name()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn names_are_rocksdbs() {
        for name in NAMES {
            assert!(from_name(name).is_ok(), "{name}");
        }
        assert_eq!(
            from_name("stringappend").unwrap().name(),
            "StringAppendOperator"
        );
        assert_eq!(from_name("uint64add").unwrap().name(), "UInt64AddOperator");
        assert_eq!(from_name("put").unwrap().name(), "PutOperator");
        let e = from_name("bytesxor").unwrap_err();
        assert!(
            matches!(&e, Error::InvalidArgument(m) if m.contains("bytesxor") && m.contains("uint64add")),
            "{e}"
        );
    }

    #[test]
    fn operands_keep_order_and_sequence_numbers() {
        let mut ops = Operands::newest_first();
        ops.push(9, b"c");
        ops.push(7, b"b");
        ops.push(3, b"a");
        assert_eq!(ops.len(), 3);
        assert_eq!(ops.get(1), (7, &b"b"[..]));
        assert_eq!(ops.newest_seq(), 9);
        assert_eq!(ops.oldest_to_newest(), vec![&b"a"[..], b"b", b"c"]);
        let mut back = Operands::oldest_first();
        back.push(3, b"a");
        back.push(9, b"c");
        assert_eq!(back.newest_seq(), 9);
        assert_eq!(back.oldest_to_newest(), vec![&b"a"[..], b"c"]);
        ops.clear();
        assert!(ops.is_empty());
    }

    #[test]
    fn a_merger_without_an_operator_refuses_like_rocksdb() {
        let m = Merger::default();
        let mut ops = Operands::newest_first();
        ops.push(1, b"x");
        let mut out = Vec::new();
        let e = m.full_merge(b"k", None, &ops, &mut out).unwrap_err();
        assert_eq!(e, Error::InvalidArgument(NO_OPERATOR.into()));
        ops.push(0, b"y");
        assert!(!m.partial_merge(b"k", &ops, &mut out));
    }

    #[test]
    fn a_failing_operator_is_corruption_and_counted() {
        struct Refuses;
        impl MergeOperator for Refuses {
            fn name(&self) -> &str {
                "Refuses"
            }
            fn full_merge(&self, _: &[u8], _: Option<&[u8]>, _: &[&[u8]], _: &mut Vec<u8>) -> bool {
                false
            }
        }
        let stats = Statistics::new();
        let m = Merger::new(Some(Arc::new(Refuses)), Some(stats.clone()));
        let mut ops = Operands::newest_first();
        ops.push(1, b"x");
        ops.push(0, b"y");
        let mut out = Vec::new();
        let e = m.full_merge(b"k", None, &ops, &mut out).unwrap_err();
        assert!(e.is_corruption(), "{e}");
        assert_eq!(stats.ticker_count(Ticker::NumberMergeFailures), 1);
        assert!(
            !m.partial_merge(b"k", &ops, &mut out),
            "the default declines"
        );
        assert_eq!(stats.ticker_count(Ticker::NumberMergeFailures), 1);
    }
}
