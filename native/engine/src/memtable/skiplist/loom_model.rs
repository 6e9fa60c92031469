//! Loom model test of the skiplist's insert/read protocol (contracts 1, 2
//! and 4 of the parent module), on the real [`SkipList`].
//!
//! Built only with `--cfg loom`, in a target directory of its own: the
//! flag changes the build of every crate, so it needs a full build of the
//! dependencies apart from the normal one, which is why `./gradlew check`
//! does not run it. The command:
//!
//! ```text
//! CARGO_TARGET_DIR=target/loom RUSTFLAGS="--cfg loom" \
//!     cargo test -p talus --release --lib loom_model
//! ```
//!
//! `LOOM_MAX_PREEMPTIONS` (2 by default here) bounds the thread switches
//! per interleaving that loom forces; 3 explores many more interleavings.
//!
//! # Why loom can run the real list
//!
//! Under `cfg(all(loom, test))` the parent module takes `AtomicPtr` and
//! `AtomicUsize` from loom, one 8-byte word like the standard ones (a
//! compile-time assertion there checks it), so the node layout and every
//! line of the link and search code are the ones the engine runs. Two
//! things differ, both outside the protocol: tower heights come from a
//! per-thread script ([`scripted_height`]), as loom replays interleavings
//! and needs the same choices every time; and the relaxed loads whose value
//! is only a prefetch hint are not made (`hint_load`), as each would be one
//! more branch point of every search step. The arena's stripe mutex is not
//! modelled: it guards only the bump pointer, and no atomic of the protocol
//! is touched while it is held.
//!
//! # What fails a model
//!
//! Loom lets every load return any store the memory model allows (a relaxed
//! load an older one), and fails a thread that reads an atomic whose
//! creation does not happen-before the read ("causality violation"). A
//! node's `next` slots are created with its bytes, before the release
//! compare-and-swap that links it, so a reader that reaches a node it is
//! not synchronised with, a half-linked node, fails. The models assert the
//! rest: a reader's `lower_bound` never returns a node below its target,
//! its scans are sorted with each entry's own value, and after the joins
//! every key is found, each level sorted, each node above level 0 also
//! linked below.
//!
//! Each of these changes to the list fails at least one model: a release
//! compare-and-swap in `link`, or an acquire load in `find_at_level` or
//! `Search::step`, weakened to relaxed; `lower_bound` reloading the `next`
//! of the node its search stopped at (the regression pinned by the test
//! `lower_bound_never_returns_a_node_below_the_target_while_inserts_land_before_it`).
//!
//! The readers are spawned threads, started after the writers, and the
//! main thread only joins: loom runs a thread until it blocks unless its
//! partial-order reduction sees a race, and it compares each access with
//! the object's last one only, so a writer's own load before its
//! compare-and-swap hides an earlier reader's load of the same slot. A
//! reader on the main thread ran before the writers in every interleaving
//! and the `lower_bound` regression went unseen; run after them, it is
//! given the older and newer stores of each slot to read.

use std::cell::RefCell;

use loom::sync::Arc;
use loom::thread;

use super::*;
use crate::key::{ValueKind, make_internal_key};

loom::thread_local! {
    static HEIGHTS: RefCell<Vec<usize>> = RefCell::new(Vec::new());
}

/// The next height of the calling thread's script (1 when it is empty).
pub(super) fn scripted_height() -> usize {
    HEIGHTS.with(|h| h.borrow_mut().pop()).unwrap_or(1)
}

/// Makes the calling thread's next nodes `heights` tall, in order.
fn script(heights: &[usize]) {
    HEIGHTS.with(|h| *h.borrow_mut() = heights.iter().rev().copied().collect());
}

fn ik(user: &[u8], seq: u64) -> Vec<u8> {
    make_internal_key(user, seq, ValueKind::Value)
}

/// The value every model stores for `ikey`, so a reader can tell a node
/// with the wrong bytes.
fn value_of(ikey: &[u8]) -> Vec<u8> {
    [b"v:", ikey].concat()
}

fn model(f: impl Fn() + Send + Sync + 'static) {
    let mut b = loom::model::Builder::new();
    if b.preemption_bound.is_none() {
        b.preemption_bound = Some(2);
    }
    b.check(f);
}

/// A scan of level 0 as a reader sees it mid-insert: sorted, each entry one
/// of `possible` with its own value.
fn scan(l: &SkipList, possible: &[Vec<u8>]) {
    let mut c = l.front();
    let mut last: Option<&[u8]> = None;
    while let Some(k) = l.key(c) {
        assert!(possible.iter().any(|p| p == k), "unknown key {k:?}");
        assert_eq!(l.value(c), Some(value_of(k).as_slice()));
        if let Some(p) = last {
            assert_eq!(
                compare_internal(p, k),
                Ordering::Less,
                "level 0 out of order"
            );
        }
        last = Some(k);
        c = l.next(c);
    }
}

/// After the joins: every key of `all` is found, in order, on every level.
fn check_final(l: &SkipList, all: &[Vec<u8>]) {
    for k in all {
        assert_eq!(l.key(l.lower_bound(k)), Some(k.as_slice()));
        assert_eq!(l.value(l.lower_bound(k)), Some(value_of(k).as_slice()));
    }
    let mut n = 0;
    let mut c = l.front();
    while l.key(c).is_some() {
        n += 1;
        c = l.next(c);
    }
    assert_eq!(n, all.len());
    // Every level sorted, and each node above level 0 also linked below.
    let mut below: Option<Vec<usize>> = None;
    for level in 0..MAX_HEIGHT {
        let mut at = Vec::new();
        // SAFETY: the head has every level; a node reached on a level has a
        // tower that reaches it (contract 2); all threads are joined.
        let mut x = unsafe { Node::next_slot(l.head, level).load(AtomicOrdering::Acquire) };
        while !x.is_null() {
            at.push(x as usize);
            // SAFETY: as above.
            x = unsafe { Node::next_slot(x, level).load(AtomicOrdering::Acquire) };
        }
        if let Some(b) = &below {
            assert!(
                at.iter().all(|x| b.contains(x)),
                "level {level} skips level {}",
                level - 1
            );
        }
        below = Some(at);
    }
}

/// Two inserters link nodes just before the target, the first two levels
/// tall, racing for the same `next` slots, while a reader looks the target
/// up: `lower_bound` must return the target itself, never a node linked
/// before it meanwhile (the regression of `lower_bound` reloading `next`).
#[test]
fn loom_model_inserts_race_before_a_target_a_reader_looks_up() {
    model(|| {
        let l = Arc::new(SkipList::new());
        let target = ik(b"m", 1);
        l.insert_at(1, &target, &value_of(&target));
        let (a, b) = (ik(b"k", 2), ik(b"l", 3));
        let writers: Vec<_> = [(a.clone(), 2), (b.clone(), 1)]
            .into_iter()
            .map(|(k, height)| {
                let l = l.clone();
                thread::spawn(move || {
                    l.insert_at(height, &k, &value_of(&k));
                })
            })
            .collect();
        let all = vec![a, b, target.clone()];
        let reader = {
            let (l, all) = (l.clone(), all.clone());
            thread::spawn(move || {
                assert_eq!(l.key(l.lower_bound(&target)), Some(target.as_slice()));
                scan(&l, &all);
            })
        };
        for w in writers {
            w.join().unwrap();
        }
        reader.join().unwrap();
        check_final(&l, &all);
    });
}

/// A node prepared (neighbours found) before another writer links a newer
/// version of the same user key between those neighbours: its link must
/// find the neighbours again. A reader at a snapshot between the versions
/// must never get the prepared node, whose number is above its snapshot.
#[test]
fn loom_model_prepared_node_links_after_a_racing_insert() {
    model(|| {
        let l = Arc::new(SkipList::new());
        let old = ik(b"m", 1);
        l.insert_at(2, &old, &value_of(&old));
        let racing = ik(b"m", 5);
        let prepared = ik(b"m", 10);
        let writer = {
            let (l, racing) = (l.clone(), racing.clone());
            thread::spawn(move || l.insert_at(2, &racing, &value_of(&racing)))
        };
        let preparer = {
            let (l, prepared) = (l.clone(), prepared.clone());
            thread::spawn(move || {
                script(&[2]);
                let p = l.prepare(b"m", &value_of(&prepared));
                // Sequence numbers are handed out after prepare() (its
                // precondition): 10 is above every entry linked before.
                l.insert_prepared(p, key::trailer(&prepared)).unwrap();
            })
        };
        let reader = {
            let (l, racing, old) = (l.clone(), racing.clone(), old.clone());
            let all = [prepared.clone(), racing.clone(), old.clone()];
            thread::spawn(move || {
                let at_7 = l.key(l.lower_bound(&ik(b"m", 7)));
                assert!(
                    at_7 == Some(racing.as_slice()) || at_7 == Some(old.as_slice()),
                    "snapshot 7 read {at_7:?}"
                );
                // A scan meets the prepared node only once linked, so with
                // its final trailer: before, its key ends in the seek
                // trailer and is none of these.
                scan(&l, &all);
            })
        };
        writer.join().unwrap();
        preparer.join().unwrap();
        reader.join().unwrap();
        check_final(&l, &[prepared, racing, old]);
    });
}

/// `insert_many`'s interleaved searches and a single insert link nodes on
/// both sides of one another, while a reader searches for each of them.
#[test]
fn loom_model_insert_many_races_an_insert() {
    model(|| {
        let l = Arc::new(SkipList::new());
        let (a, b, c) = (ik(b"a", 1), ik(b"b", 2), ik(b"c", 3));
        let many = {
            let (l, a, c) = (l.clone(), a.clone(), c.clone());
            thread::spawn(move || {
                script(&[2, 1]);
                let (va, vc) = (value_of(&a), value_of(&c));
                let user = |k: &[u8]| key::user_key(k).to_vec();
                let (ua, uc) = (user(&a), user(&c));
                l.insert_many(&[(&ua, key::trailer(&a), &va), (&uc, key::trailer(&c), &vc)]);
            })
        };
        let single = {
            let (l, b) = (l.clone(), b.clone());
            thread::spawn(move || l.insert_at(2, &b, &value_of(&b)))
        };
        let all = vec![a, b, c];
        let reader = {
            let (l, all) = (l.clone(), all.clone());
            thread::spawn(move || {
                // The middle key: present or not yet, never a key below it.
                let k = &all[1];
                let got = l.key(l.lower_bound(k));
                assert!(
                    got.is_none_or(|g| compare_internal(g, k) != Ordering::Less),
                    "lower_bound({k:?}) returned {got:?}, below it"
                );
                scan(&l, &all);
            })
        };
        many.join().unwrap();
        single.join().unwrap();
        reader.join().unwrap();
        check_final(&l, &all);
    });
}
