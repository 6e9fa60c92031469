//! Test model of a key history with merge operands: what a reader at a
//! sequence number sees, computed the slow, obvious way (every entry and
//! range tombstone of the key, newest first, operands appended with `,` as
//! [`crate::merge::StringAppendOperator`] does). Shared by the unit tests
//! of `compaction_iter` and `db_iter`.

use std::collections::BTreeMap;

use rand::Rng;

use crate::key::{SequenceNumber, ValueKind, make_internal_key, parse_internal_key};
use crate::memtable::RangeTombstone;

/// One point entry: user key, sequence number, kind, value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) key: Vec<u8>,
    pub(crate) seq: SequenceNumber,
    pub(crate) kind: ValueKind,
    pub(crate) value: Vec<u8>,
}

impl Entry {
    /// The entry as an internal key and value.
    pub(crate) fn encoded(&self) -> (Vec<u8>, Vec<u8>) {
        (
            make_internal_key(&self.key, self.seq, self.kind),
            self.value.clone(),
        )
    }

    /// The entry of an internal key and value.
    pub(crate) fn decode(ikey: &[u8], value: &[u8]) -> Entry {
        let p = parse_internal_key(ikey).expect("internal key");
        Entry {
            key: p.user_key.to_vec(),
            seq: p.seq,
            kind: p.kind,
            value: value.to_vec(),
        }
    }
}

/// The value of `key` a reader at `snap` sees, given `entries` (any order)
/// and range tombstones; `None` when absent.
pub(crate) fn resolve(
    entries: &[Entry],
    tombs: &[RangeTombstone],
    key: &[u8],
    snap: SequenceNumber,
) -> Option<Vec<u8>> {
    let covering = tombs
        .iter()
        .filter(|t| t.covers(key, snap))
        .map(|t| t.seq)
        .max();
    let mut mine: Vec<&Entry> = entries
        .iter()
        .filter(|e| e.key == key && e.seq <= snap)
        .collect();
    mine.sort_by_key(|e| std::cmp::Reverse(e.seq));
    let mut ops: Vec<&[u8]> = Vec::new();
    let mut base = None;
    for e in mine {
        if covering.is_some_and(|t| t >= e.seq) {
            break;
        }
        match e.kind {
            ValueKind::Value => {
                base = Some(e.value.as_slice());
                break;
            }
            ValueKind::Merge => ops.push(&e.value),
            _ => break,
        }
    }
    if ops.is_empty() {
        return base.map(<[u8]>::to_vec);
    }
    ops.reverse();
    let mut out: Vec<u8> = Vec::new();
    for (i, p) in base.into_iter().chain(ops).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(p);
    }
    Some(out)
}

/// Every key's value at `snap`.
pub(crate) fn view(
    entries: &[Entry],
    tombs: &[RangeTombstone],
    snap: SequenceNumber,
) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut keys: Vec<&Vec<u8>> = entries.iter().map(|e| &e.key).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter_map(|k| resolve(entries, tombs, k, snap).map(|v| (k.clone(), v)))
        .collect()
}

/// A random history over `keys` keys (one-byte names from `a`): puts,
/// deletes, single deletes, merges and range tombstones, with consecutive
/// sequence numbers from `first_seq`. Returns the entries, the tombstones
/// and the next free sequence number.
pub(crate) fn random_history(
    rng: &mut impl Rng,
    keys: u8,
    n: usize,
    first_seq: SequenceNumber,
) -> (Vec<Entry>, Vec<RangeTombstone>, SequenceNumber) {
    let mut entries = Vec::new();
    let mut tombs = Vec::new();
    let mut seq = first_seq;
    for _ in 0..n {
        let k = b'a' + rng.random_range(0..keys);
        let roll = rng.random_range(0..100);
        if roll < 6 {
            let end = k + rng.random_range(1..4);
            tombs.push(RangeTombstone {
                begin: vec![k],
                end: vec![end],
                seq,
            });
        } else {
            let kind = match roll {
                6..20 => ValueKind::Deletion,
                20..30 => ValueKind::SingleDeletion,
                30..70 => ValueKind::Merge,
                _ => ValueKind::Value,
            };
            let value = match kind {
                ValueKind::Value | ValueKind::Merge => format!("{}{seq}", k as char).into_bytes(),
                _ => Vec::new(),
            };
            entries.push(Entry {
                key: vec![k],
                seq,
                kind,
                value,
            });
        }
        seq += 1;
    }
    (entries, tombs, seq)
}
