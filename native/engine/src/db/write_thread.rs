//! Group commit: a writer of one entry first copies it into the memtable
//! and finds its place there, in parallel with the other writers (see
//! [`MemTable::prepare`]); then writers queue up; the writer at the front becomes
//! the *leader*, takes a group of the writers behind it, writes all their
//! batches to the WAL in one append (and one sync if any asked for it),
//! inserts them into the memtable — itself for groups of small batches,
//! or by letting every member insert its own batch in parallel when the
//! group carries enough entries to be worth waking the members for — and
//! finally publishes the group's last sequence number.
//!
//! Invariants:
//! 1. At most one leader exists at a time: leadership passes from the front
//!    of the queue to the next writer only in [`WriteQueue::exit_or_combine`].
//! 2. A group is a prefix of the queue; its members stay in the queue until
//!    the leader exits, so arrivals never become leaders by mistake.
//! 3. A writer's state moves WAITING → (LEADER | INSERT → DONE | DONE) and
//!    is only changed by the leader (or by `exit_or_combine` for LEADER; a
//!    head whose group a leader combined goes WAITING → DONE like a
//!    follower); each change is a release store followed by an unpark of the
//!    writer's thread.
//! 4. A follower touches its own [`WriterData`] only while not WAITING; the
//!    leader touches it only while the follower is WAITING or INSERT-done, so
//!    the per-writer mutex is never contended.
//! 5. Handing leadership to a writer that has gone to sleep puts its wake-up
//!    (a futex wake, on a virtual machine often an inter-processor interrupt
//!    and tens of microseconds) on the serial path of every write. So when
//!    the next writer is a parked batch writer, the leader leads its group
//!    too, on its own thread, and wakes it with its result instead
//!    ([`WriteQueue::exit_or_combine`]); at most [`MAX_COMBINED_GROUPS`]
//!    groups, none started after [`MAX_COMBINING_TIME`], so that the
//!    leader's own call returns in bounded time. The queue stays non-empty
//!    while a leader combines, so no arriving writer becomes a second leader
//!    (invariant 1), and the head it leads for is WAITING, so invariant 4
//!    holds for it as for any follower.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::thread::Thread;

use parking_lot::Mutex;

use crate::error::Result;
use crate::memtable::{MemTable, Prepared};
use crate::options::WriteOptions;
use crate::write_batch::WriteBatch;

pub(crate) const WAITING: u8 = 0;
pub(crate) const LEADER: u8 = 1;
pub(crate) const INSERT: u8 = 2;
pub(crate) const DONE: u8 = 3;

/// The memtable insert phase shared by a group's members.
pub(crate) struct InsertGroup {
    pub(crate) mem: Arc<MemTable>,
    pending: AtomicUsize,
    leader: Thread,
}

impl InsertGroup {
    pub(crate) fn new(mem: Arc<MemTable>, members: usize) -> Self {
        InsertGroup {
            mem,
            pending: AtomicUsize::new(members),
            leader: std::thread::current(),
        }
    }

    /// Called by each member after inserting its batch.
    pub(crate) fn member_done(&self) {
        if self.pending.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.leader.unpark();
        }
    }

    /// Leader: waits until every member has inserted.
    pub(crate) fn wait_all(&self) {
        spin_then_park(|| self.pending.load(Ordering::Acquire) == 0, || {});
    }
}

/// What a queued writer asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WriteKind {
    /// Write a batch.
    Batch,
    /// Switch the memtable (flush, between groups) if it is not empty and
    /// holds writes of log `up_to_log` or an older one (a flush asks for
    /// the memtable active when it was called; another switch since has
    /// done its work); always leads alone.
    SwitchMemtable { cf: u32, up_to_log: u64 },
    /// `resume()`: replace a failed WAL and switch the memtable, between
    /// groups; always leads alone.
    Resume,
    /// An ingestion (`db::ingest`): its own thread runs the ingestion's
    /// critical section while it leads, alone, so no write group is in
    /// flight meanwhile; never led by another thread's `lead_group`.
    Exclusive,
}

/// What a writer carries through the queue.
pub(crate) struct WriterData {
    pub(crate) kind: WriteKind,
    pub(crate) batch: WriteBatch,
    pub(crate) opts: WriteOptions,
    pub(crate) result: Option<Result<()>>,
    pub(crate) group: Option<Arc<InsertGroup>>,
    /// The batch's one entry, already copied into the memtable of its
    /// family (the id beside it) that was current before the writer
    /// queued, with its place found ([`MemTable::prepare`]).
    pub(crate) prepared: Option<(u32, Prepared)>,
}

/// One pending write.
pub(crate) struct Writer {
    state: AtomicU8,
    /// Set once the writer has stopped spinning and sleeps (or is about to)
    /// waiting for its turn: a hint for the leader (invariant 5).
    parked: AtomicBool,
    thread: Thread,
    pub(crate) data: Mutex<WriterData>,
}

/// Waits for `ready`: a few hundred nanoseconds of spinning (cheap when
/// the wake-up is imminent and there is a spare core), then `before_park`
/// and parking. No `sched_yield`: with more writers than cores, yielding
/// threads steal the CPU from the leader they wait for (a profile of 8
/// writers on 2 cores spent a quarter of its time in `sched_yield`).
fn spin_then_park(mut ready: impl FnMut() -> bool, before_park: impl FnOnce()) {
    for _ in 0..SPIN_ROUNDS {
        if ready() {
            return;
        }
        std::hint::spin_loop();
    }
    before_park();
    while !ready() {
        std::thread::park();
    }
}

/// Spin iterations before parking.
const SPIN_ROUNDS: u32 = 64;

impl Writer {
    pub(crate) fn new(
        batch: WriteBatch,
        opts: WriteOptions,
        kind: WriteKind,
        prepared: Option<(u32, Prepared)>,
    ) -> Arc<Writer> {
        Arc::new(Writer {
            state: AtomicU8::new(WAITING),
            parked: AtomicBool::new(false),
            thread: std::thread::current(),
            data: Mutex::new(WriterData {
                kind,
                batch,
                opts,
                result: None,
                group: None,
                prepared,
            }),
        })
    }

    pub(crate) fn state(&self) -> u8 {
        self.state.load(Ordering::Acquire)
    }

    pub(crate) fn set_state(&self, s: u8) {
        self.state.store(s, Ordering::Release);
        self.thread.unpark();
    }

    /// Waits until the state differs from `from`; returns the new state.
    pub(crate) fn await_change(&self, from: u8) -> u8 {
        spin_then_park(
            || self.state() != from,
            || self.parked.store(true, Ordering::Relaxed),
        );
        self.state()
    }

    /// Leader: hands the result to a follower and wakes it.
    pub(crate) fn finish(&self, result: Result<()>) {
        self.data.lock().result = Some(result);
        self.set_state(DONE);
    }
}

/// The queue of writers. See the module docs.
#[derive(Default)]
pub(crate) struct WriteQueue {
    q: Mutex<VecDeque<Arc<Writer>>>,
}

/// Limit of a group's encoded bytes.
const MAX_GROUP_BYTES: usize = 1 << 20;
/// A small leader batch only waits for this many extra bytes.
const SMALL_LEADER_EXTRA: usize = 128 << 10;

impl WriteQueue {
    /// Enqueues `w` and waits until it leads or has been given work.
    pub(crate) fn join(&self, w: &Arc<Writer>) -> u8 {
        let lead = {
            let mut q = self.q.lock();
            q.push_back(w.clone());
            q.len() == 1
        };
        if lead {
            w.state.store(LEADER, Ordering::Release);
            return LEADER;
        }
        crate::perf_timer!(write_thread_wait_nanos);
        w.await_change(WAITING)
    }

    /// Leader: the group it leads — itself plus compatible writers behind it.
    /// Writers with a different `disable_wal` end the group.
    pub(crate) fn build_group(&self, leader: &Arc<Writer>) -> Vec<Arc<Writer>> {
        let (leader_bytes, leader_opts) = {
            let d = leader.data.lock();
            if d.kind != WriteKind::Batch {
                return vec![leader.clone()];
            }
            (d.batch.size_in_bytes(), d.opts)
        };
        let max = if leader_bytes <= SMALL_LEADER_EXTRA {
            leader_bytes + SMALL_LEADER_EXTRA
        } else {
            MAX_GROUP_BYTES
        };
        let q = self.q.lock();
        debug_assert!(Arc::ptr_eq(&q[0], leader));
        let mut group = vec![leader.clone()];
        let mut bytes = leader_bytes;
        for w in q.iter().skip(1) {
            let d = w.data.lock();
            // A group is uniform in the options that decide how it is written
            // and whether it may wait in a stall.
            if d.kind != WriteKind::Batch
                || d.opts.disable_wal != leader_opts.disable_wal
                || d.opts.no_slowdown != leader_opts.no_slowdown
                || d.opts.low_pri != leader_opts.low_pri
            {
                break;
            }
            bytes += d.batch.size_in_bytes();
            if bytes > max {
                break;
            }
            drop(d);
            group.push(w.clone());
        }
        group
    }

    /// Leader in a write stall: removes every queued writer that asked not
    /// to wait (`no_slowdown`) and fails it with `err`. Such writers are never
    /// in a waiting leader's group (groups are uniform in `no_slowdown`).
    pub(crate) fn fail_no_slowdown_waiters(&self, err: &crate::error::Error) {
        let failed: Vec<Arc<Writer>> = {
            let mut q = self.q.lock();
            let mut out = Vec::new();
            let mut i = 1;
            while i < q.len() {
                let ns = q[i].state() == WAITING && q[i].data.lock().opts.no_slowdown;
                if ns {
                    out.extend(q.remove(i));
                } else {
                    i += 1;
                }
            }
            out
        };
        for w in failed {
            w.finish(Err(err.clone()));
        }
    }

    /// Leader: removes its group of `n` from the queue. When `may_combine`
    /// and the next writer is a batch writer asleep in the queue, returns it
    /// still WAITING: the caller leads its group next (invariant 5).
    /// Otherwise makes the next writer leader and returns `None`.
    pub(crate) fn exit_or_combine(&self, n: usize, may_combine: bool) -> Option<Arc<Writer>> {
        let next = {
            let mut q = self.q.lock();
            q.drain(..n);
            q.front().cloned()
        }?;
        if may_combine && next.parked.load(Ordering::Relaxed) && next.state() == WAITING && {
            // A low-priority write may be delayed under compaction pressure
            // in any write condition: it leads its own group.
            let d = next.data.lock();
            d.kind == WriteKind::Batch && !d.opts.low_pri
        } {
            return Some(next);
        }
        next.set_state(LEADER);
        None
    }
}

/// Groups a leader leads beyond its own (invariant 5).
pub(crate) const MAX_COMBINED_GROUPS: usize = 8;
/// A leader starts no further combined group once this long has passed
/// since its own group was written (many times a normal group's time;
/// this bounds what a run of slow ones adds to the leader's own call).
pub(crate) const MAX_COMBINING_TIME: std::time::Duration = std::time::Duration::from_micros(200);

#[cfg(test)]
mod tests {
    use super::*;

    fn writer(kind: WriteKind) -> Arc<Writer> {
        writer_with(kind, WriteOptions::default())
    }

    fn writer_with(kind: WriteKind, opts: WriteOptions) -> Arc<Writer> {
        Writer::new(WriteBatch::new(), opts, kind, None)
    }

    /// Starts a thread that queues a writer of `kind` with `opts` (made on
    /// that thread, which its wake-ups unpark) and returns the writer once it
    /// is queued.
    fn queue_with(
        q: &Arc<WriteQueue>,
        kind: WriteKind,
        opts: WriteOptions,
    ) -> (Arc<Writer>, std::thread::JoinHandle<u8>) {
        let (tx, rx) = std::sync::mpsc::channel();
        let q2 = q.clone();
        let h = std::thread::spawn(move || {
            let w = writer_with(kind, opts);
            tx.send(w.clone()).unwrap();
            q2.join(&w)
        });
        let w = rx.recv().unwrap();
        while !q.q.lock().iter().any(|x| Arc::ptr_eq(x, &w)) {
            std::thread::yield_now();
        }
        (w, h)
    }

    /// As [`queue_with`], and returns once the writer sleeps.
    fn queue_sleeping_with(
        q: &Arc<WriteQueue>,
        kind: WriteKind,
        opts: WriteOptions,
    ) -> (Arc<Writer>, std::thread::JoinHandle<u8>) {
        let (w, h) = queue_with(q, kind, opts);
        while !w.parked.load(Ordering::Relaxed) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        (w, h)
    }

    #[test]
    fn a_leader_combines_a_sleeping_batch_writer_and_wakes_it_done() {
        let q = Arc::new(WriteQueue::default());
        let leader = writer(WriteKind::Batch);
        assert_eq!(q.join(&leader), LEADER);
        let (next, h) = queue_sleeping_with(&q, WriteKind::Batch, WriteOptions::default());
        let combined = q
            .exit_or_combine(1, true)
            .expect("a sleeping batch writer is combined");
        assert!(Arc::ptr_eq(&combined, &next));
        // Still waiting and still the queue's head: an arriving writer
        // must not lead while the combined group is written.
        assert_eq!(next.state(), WAITING);
        let (arrival, arrival_thread) = queue_with(&q, WriteKind::Batch, WriteOptions::default());
        assert_eq!(arrival.state(), WAITING);
        // The combined group is done: its head wakes with its result, and
        // the arrival is made leader (not combined: `may_combine` is false).
        assert!(q.exit_or_combine(1, false).is_none());
        next.finish(Ok(()));
        assert_eq!(h.join().unwrap(), DONE);
        assert_eq!(
            next.data.lock().result.take().map(|r| r.is_ok()),
            Some(true)
        );
        assert_eq!(arrival_thread.join().unwrap(), LEADER);
        assert!(
            q.exit_or_combine(1, true).is_none(),
            "an empty queue has no next"
        );
    }

    /// Behind a leader, a sleeping writer of `kind` with `opts` is made
    /// leader when the leader exits with `may_combine`, not combined.
    fn assert_handed_leadership(kind: WriteKind, opts: WriteOptions, may_combine: bool) {
        let q = Arc::new(WriteQueue::default());
        let leader = writer(WriteKind::Batch);
        assert_eq!(q.join(&leader), LEADER);
        let (_, h) = queue_sleeping_with(&q, kind, opts);
        assert!(q.exit_or_combine(1, may_combine).is_none());
        assert_eq!(h.join().unwrap(), LEADER);
    }

    #[test]
    fn a_sleeping_memtable_switch_is_handed_leadership_not_combined() {
        let switch = WriteKind::SwitchMemtable {
            cf: 0,
            up_to_log: 1,
        };
        assert_handed_leadership(switch, WriteOptions::default(), true);
    }

    #[test]
    fn without_may_combine_a_sleeping_writer_is_made_leader() {
        assert_handed_leadership(WriteKind::Batch, WriteOptions::default(), false);
    }

    #[test]
    fn a_sleeping_low_priority_writer_is_made_leader_not_combined() {
        let low_pri = WriteOptions {
            low_pri: true,
            ..WriteOptions::default()
        };
        assert_handed_leadership(WriteKind::Batch, low_pri, true);
    }
}
