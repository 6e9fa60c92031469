//! Write admission: at most as many writer threads use the write path at
//! once as the machine has cores (`max_concurrent_writers`); the others
//! sleep here and take turns, first come first served, a quantum each.
//!
//! Why: a put is almost all CPU (finding the entry's place in the memtable,
//! the group commit), so writer threads beyond the core count only lengthen
//! the kernel's run queue. With more writers (and compactions and flushes)
//! than cores, a writer preempted inside its put waits for the rest of the
//! run queue to have its turn, a scheduler tick each, and the writers
//! queued behind it in the group commit wait with it: the slowest puts of
//! a bulk import. The same import with as many writer threads as cores
//! makes the same rows per second without those puts
//! (docs/results/bulk-import.md, "Write admission"). The gate gives any
//! number of writers that shape: `limit` of them hold a *slot* and write,
//! the others sleep here, out of the run queue, until a slot is theirs. It
//! is InnoDB's `innodb_thread_concurrency`, with time in place of tickets.
//!
//! Slots are leased to threads, not to single puts: a thread keeps its slot
//! from one put to the next (a compare-and-swap on entry and a store on
//! exit, no sleeping), so turns change once per [`QUANTUM`], not once per
//! put; a first version that passed the slot on at every put woke a
//! sleeping thread per put and cost the import far more CPU. A thread whose
//! turn is over when it leaves a put, while others wait, hands its slot to
//! the first waiter and joins the back of the line at its next put. The
//! quantum trades the wait for a turn (about `waiters / limit` quanta)
//! against the share of puts that wait at all (one per turn) and the slot
//! time lost while the next thread wakes; the quantum was chosen by
//! measuring the bulk import with several (docs/results/bulk-import.md,
//! "Write admission").
//!
//! A thread keeps its lease while it is outside the engine (between puts,
//! or gone to do something else: an explicit flush, a back-pressure sleep,
//! or done writing). So that this never holds the others up for long, nor
//! forever (a thread that holds a slot and waits for one that waits here
//! would otherwise deadlock), the first waiter takes any slot whose holder
//! has been outside the engine for [`IDLE_STEAL`]: it sleeps until the
//! first such slot would qualify, or for [`STEAL_POLL`] while every holder
//! is inside a put or between two. A slot is never taken from a thread inside a put. A
//! thread remembers its leases in the last [`LEASES`] gates it wrote
//! through, so one that writes to a few databases in turn keeps a slot in
//! each.
//!
//! Slot state, one `u64`: `token << 1 | inside`; `token` names the lease
//! (unique among all gates, never reused), `inside` is set while its holder
//! is in a put; 0 is a slot never leased. Invariant: at most `limit`
//! threads are inside. The state changes only by the holder's own enter (a
//! compare-and-swap from its token, outside) and leave (a store, made while
//! inside, when nobody else may change it), and by a taker's
//! compare-and-swap from a state it saw outside, under the queue lock.
//!
//! Writes that must not wait in the engine's own queues are never held
//! here (see `DbInner::write`): `no_slowdown` writes (they fail fast in a
//! write stall, which a writer held behind a stalled one could not),
//! `low_pri` writes (they are the ones delayed under compaction pressure;
//! one asleep in its delay inside a slot would hold back the writes it
//! exists to make way for) and `sync` writes (their group commit shares
//! one WAL sync among every writer in flight; holding them back would
//! shrink those groups, and a writer waiting for the disk takes no CPU).
//!
//! A write made by a thread already inside a write (from a callback the
//! engine makes meanwhile, such as a user logger) passes the gate: it must
//! not wait for the slot it holds.
//!
//! Thread safety: the lease fast path touches only the thread's own slot
//! (its cache line is not shared with other slots); the waiters' line is a
//! mutex taken once per turn, not per put.

use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::thread::Thread;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// A thread's turn: it hands its slot on when it leaves a put this long
/// after its turn began, if another thread waits.
pub(crate) const QUANTUM: Duration = Duration::from_millis(1);
/// A slot whose holder has been outside the engine this long may be taken
/// by the first waiter.
pub(crate) const IDLE_STEAL: Duration = Duration::from_micros(200);
/// How often the first waiter looks for such a slot while every holder is
/// inside a put.
pub(crate) const STEAL_POLL: Duration = Duration::from_millis(1);
/// The first waiter's shortest sleep.
const MIN_POLL: Duration = Duration::from_micros(50);
/// A holder outside the engine for less than this is taken to be between
/// two puts (see `WriteGate::next_poll`).
const BUSY_GAP: Duration = Duration::from_micros(50);

const INSIDE: u64 = 1;

/// Tokens of leases, unique across gates so that a thread's lease can
/// never be mistaken for a lease of another gate or an earlier turn.
static NEXT_TOKEN: AtomicU64 = AtomicU64::new(1);
/// Gate ids, for the same reason.
static NEXT_GATE: AtomicU64 = AtomicU64::new(1);

fn new_token() -> u64 {
    NEXT_TOKEN.fetch_add(1, Ordering::Relaxed)
}

/// A thread's lease in one gate: (gate id, slot index, token).
type Lease = (u64, usize, u64);

/// Leases a thread remembers: a thread that writes to a few databases in
/// turn keeps its slot in each.
const LEASES: usize = 4;

thread_local! {
    /// This thread's leases, most recent first; gate id 0 is no lease.
    static LEASES_HELD: Cell<[Lease; LEASES]> = const { Cell::new([(0, 0, 0); LEASES]) };
}

/// This thread's lease in gate `id`, if it remembers one.
fn lease_in(id: u64) -> Option<(usize, u64)> {
    LEASES_HELD
        .get()
        .iter()
        .find(|l| l.0 == id)
        .map(|&(_, slot, token)| (slot, token))
}

/// Remembers this thread's lease in gate `id` (`None`: forgets it).
fn set_lease(id: u64, lease: Option<(usize, u64)>) {
    let mut out = [(0, 0, 0); LEASES];
    let mut n = 0;
    if let Some((slot, token)) = lease {
        out[0] = (id, slot, token);
        n = 1;
    }
    for l in LEASES_HELD.get() {
        if l.0 != 0 && l.0 != id && n < LEASES {
            out[n] = l;
            n += 1;
        }
    }
    LEASES_HELD.set(out);
}

/// One slot, on its own cache line: only its holder touches it per put.
#[repr(align(128))]
struct Slot {
    state: AtomicU64,
    /// Nanoseconds since the gate's epoch: when the current turn began.
    turn_began: AtomicU64,
    /// Nanoseconds since the gate's epoch: when the holder last left a put.
    left: AtomicU64,
}

struct Waiter {
    /// `usize::MAX` until a slot is handed to this waiter, then its index.
    slot: AtomicUsize,
    /// The lease's token, set before `slot`.
    token: AtomicU64,
    thread: Thread,
}

/// See the module docs.
pub(crate) struct WriteGate {
    id: u64,
    epoch: Instant,
    quantum: u64,
    slots: Box<[Slot]>,
    queue: Mutex<VecDeque<Arc<Waiter>>>,
    /// The queue's length, read without its lock when a put ends.
    waiting: AtomicUsize,
}

/// A writer's slot for the length of one put.
pub(crate) struct Admission<'a> {
    gate: &'a WriteGate,
    slot: usize,
    token: u64,
}

impl WriteGate {
    /// A gate of `limit` slots and turns of `quantum`; 0 slots lets every
    /// writer in.
    pub(crate) fn new(limit: usize, quantum: Duration) -> Self {
        WriteGate {
            id: NEXT_GATE.fetch_add(1, Ordering::Relaxed),
            epoch: Instant::now(),
            quantum: quantum.as_nanos() as u64,
            slots: (0..limit)
                .map(|_| Slot {
                    state: AtomicU64::new(0),
                    turn_began: AtomicU64::new(0),
                    left: AtomicU64::new(0),
                })
                .collect(),
            queue: Mutex::new(VecDeque::new()),
            waiting: AtomicUsize::new(0),
        }
    }

    /// The gate of the option `max_concurrent_writers`: -1 gives a slot per
    /// core this process may run on, 0 no gate.
    pub(crate) fn for_option(max_concurrent_writers: i32) -> Self {
        let limit = usize::try_from(max_concurrent_writers)
            .unwrap_or_else(|_| std::thread::available_parallelism().map_or(1, |n| n.get()));
        Self::new(limit, QUANTUM)
    }

    /// Slots of the gate (0: no gate).
    pub(crate) fn limit(&self) -> usize {
        self.slots.len()
    }

    /// Threads waiting for a slot.
    #[cfg(test)]
    pub(crate) fn waiting(&self) -> usize {
        self.queue.lock().len()
    }

    fn now(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    /// Waits for a slot (module docs). `None` when the gate is off.
    pub(crate) fn enter(&self) -> Option<Admission<'_>> {
        if self.slots.is_empty() {
            return None;
        }
        if let Some((slot, token)) = lease_in(self.id) {
            match self.slots[slot].state.compare_exchange(
                token << 1,
                token << 1 | INSIDE,
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    return Some(Admission {
                        gate: self,
                        slot,
                        token,
                    });
                }
                // This thread is inside already (a write from a callback
                // the engine made during its own write): it must not wait
                // for a slot it holds.
                Err(st) if st == token << 1 | INSIDE => return None,
                // Taken while this thread was outside the engine.
                Err(_) => set_lease(self.id, None),
            }
        }
        Some(self.enter_slow())
    }

    fn enter_slow(&self) -> Admission<'_> {
        let me = {
            let mut q = self.queue.lock();
            if q.is_empty()
                && let Some(a) = self.take_free_or_idle_slot()
            {
                return a;
            }
            let me = Arc::new(Waiter {
                slot: AtomicUsize::new(usize::MAX),
                token: AtomicU64::new(0),
                thread: std::thread::current(),
            });
            q.push_back(me.clone());
            self.waiting.store(q.len(), Ordering::Relaxed);
            me
        };
        crate::perf_timer!(write_thread_wait_nanos);
        loop {
            let slot = me.slot.load(Ordering::Acquire);
            if slot != usize::MAX {
                let token = me.token.load(Ordering::Relaxed);
                set_lease(self.id, Some((slot, token)));
                return Admission {
                    gate: self,
                    slot,
                    token,
                };
            }
            let first = self
                .queue
                .lock()
                .front()
                .is_some_and(|f| Arc::ptr_eq(f, &me));
            if first {
                std::thread::park_timeout(self.next_poll());
                let mut q = self.queue.lock();
                // A slot handed to this waiter is set under this lock.
                if me.slot.load(Ordering::Acquire) == usize::MAX
                    && let Some(a) = self.take_free_or_idle_slot()
                {
                    self.pop_first(&mut q);
                    return a;
                }
            } else {
                std::thread::park();
            }
        }
    }

    /// Under the queue lock `q`: removes the first waiter, and wakes the
    /// next one, which polls from now on ([`Self::next_poll`]).
    fn pop_first(&self, q: &mut VecDeque<Arc<Waiter>>) -> Option<Arc<Waiter>> {
        let first = q.pop_front()?;
        self.waiting.store(q.len(), Ordering::Relaxed);
        if let Some(next) = q.front() {
            next.thread.unpark();
        }
        Some(first)
    }

    /// How long the first waiter sleeps before it looks for an idle slot
    /// again: until the first slot whose holder has been outside the engine
    /// for [`BUSY_GAP`] reaches [`IDLE_STEAL`] (at least [`MIN_POLL`]), else
    /// [`STEAL_POLL`]. A holder outside for less is between two puts, as
    /// the holders of a busy gate nearly always are when not inside; a
    /// holder leaving at its turn's end wakes the waiter sooner.
    fn next_poll(&self) -> Duration {
        let now = self.now();
        let idle = IDLE_STEAL.as_nanos() as u64;
        let mut wait = STEAL_POLL;
        for s in self.slots.iter() {
            if s.state.load(Ordering::Acquire) & INSIDE == 0 {
                let since = now.saturating_sub(s.left.load(Ordering::Relaxed));
                if since >= BUSY_GAP.as_nanos() as u64 {
                    wait = wait.min(Duration::from_nanos(idle.saturating_sub(since)));
                }
            }
        }
        wait.max(MIN_POLL)
    }

    /// Under the queue lock: a slot never leased, or one whose holder has
    /// been outside the engine for [`IDLE_STEAL`], now this thread's.
    fn take_free_or_idle_slot(&self) -> Option<Admission<'_>> {
        let now = self.now();
        for (i, s) in self.slots.iter().enumerate() {
            let st = s.state.load(Ordering::Acquire);
            let free = st == 0;
            let idle = st & INSIDE == 0
                && now.saturating_sub(s.left.load(Ordering::Relaxed))
                    >= IDLE_STEAL.as_nanos() as u64;
            if !(free || idle) {
                continue;
            }
            let token = new_token();
            if s.state
                .compare_exchange(
                    st,
                    token << 1 | INSIDE,
                    Ordering::Acquire,
                    Ordering::Relaxed,
                )
                .is_ok()
            {
                s.turn_began.store(now, Ordering::Relaxed);
                set_lease(self.id, Some((i, token)));
                return Some(Admission {
                    gate: self,
                    slot: i,
                    token,
                });
            }
        }
        None
    }

    /// The holder of `slot` leaves a put: keeps its lease, or, when its
    /// turn is over and a thread waits, hands the slot to that thread.
    fn leave(&self, slot: usize, token: u64) {
        let s = &self.slots[slot];
        let now = self.now();
        if self.waiting.load(Ordering::Relaxed) > 0
            && now.saturating_sub(s.turn_began.load(Ordering::Relaxed)) >= self.quantum
        {
            let mut q = self.queue.lock();
            if let Some(next) = self.pop_first(&mut q) {
                let t = new_token();
                // This thread is inside the slot: nobody else may change it.
                s.turn_began.store(now, Ordering::Relaxed);
                s.state.store(t << 1 | INSIDE, Ordering::Release);
                next.token.store(t, Ordering::Relaxed);
                next.slot.store(slot, Ordering::Release);
                next.thread.unpark();
                drop(q);
                set_lease(self.id, None);
                return;
            }
        }
        s.left.store(now, Ordering::Relaxed);
        s.state.store(token << 1, Ordering::Release);
    }
}

impl Drop for Admission<'_> {
    fn drop(&mut self) {
        self.gate.leave(self.slot, self.token);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    /// Runs `threads` threads of `puts` gated puts each; returns the most
    /// threads seen inside at once.
    fn hammer(gate: &Arc<WriteGate>, threads: usize, puts: usize) -> usize {
        let inside = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let (gate, inside, most) = (gate.clone(), inside.clone(), most.clone());
                std::thread::spawn(move || {
                    for _ in 0..puts {
                        let _a = gate.enter().expect("the gate is on");
                        let n = inside.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(n, Ordering::SeqCst);
                        for _ in 0..50 {
                            std::hint::spin_loop();
                        }
                        inside.fetch_sub(1, Ordering::SeqCst);
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        most.load(Ordering::SeqCst)
    }

    #[test]
    fn never_more_threads_inside_than_slots_and_every_put_gets_in() {
        let gate = Arc::new(WriteGate::new(2, Duration::from_micros(50)));
        let most = hammer(&gate, 8, 5_000);
        assert!(most <= 2, "{most} threads inside at once");
        assert!(gate.queue.lock().is_empty());
    }

    /// Threads that leave while holding leases (the pool's threads end) do
    /// not hold the next threads up: their slots are taken once idle.
    #[test]
    fn leases_of_threads_that_stopped_writing_are_taken_by_new_threads() {
        let gate = Arc::new(WriteGate::new(2, QUANTUM));
        assert!(hammer(&gate, 2, 10) <= 2);
        // Both slots are leased to threads that have ended.
        let t = Instant::now();
        assert!(hammer(&gate, 3, 10) <= 2);
        assert!(t.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_thread_waiting_outside_the_engine_does_not_deadlock_one_waiting_at_the_gate() {
        // Thread A holds the only slot and waits, outside the engine, for
        // thread B, which must get past the gate first.
        let gate = Arc::new(WriteGate::new(1, QUANTUM));
        let b_done = Arc::new(AtomicBool::new(false));
        drop(gate.enter());
        let (g2, done2) = (gate.clone(), b_done.clone());
        let b = std::thread::spawn(move || {
            drop(g2.enter());
            done2.store(true, Ordering::SeqCst);
        });
        while !b_done.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(1));
        }
        b.join().unwrap();
        // A's lease was taken: its next put waits its turn and gets in.
        drop(gate.enter());
    }

    #[test]
    fn waiters_get_in_in_arrival_order() {
        let gate = Arc::new(WriteGate::new(1, Duration::ZERO));
        let held = gate.enter().expect("the gate is on");
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut threads = Vec::new();
        for i in 0..4 {
            let (g, o) = (gate.clone(), order.clone());
            threads.push(std::thread::spawn(move || {
                let a = g.enter();
                o.lock().push(i);
                drop(a);
            }));
            while gate.queue.lock().len() < i + 1 {
                std::thread::yield_now();
            }
        }
        // Leaving inside the slot hands it down the line in order.
        drop(held);
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(*order.lock(), vec![0, 1, 2, 3]);
    }

    #[test]
    fn a_thread_writing_to_two_databases_in_turn_keeps_its_lease_in_each() {
        let (a, b) = (WriteGate::new(1, QUANTUM), WriteGate::new(1, QUANTUM));
        drop(a.enter());
        drop(b.enter());
        let (la, lb) = (lease_in(a.id), lease_in(b.id));
        assert!(la.is_some() && lb.is_some());
        for _ in 0..3 {
            drop(a.enter());
            drop(b.enter());
        }
        assert_eq!(
            (lease_in(a.id), lease_in(b.id)),
            (la, lb),
            "the same leases"
        );
        // Forgetting one keeps the other.
        set_lease(a.id, None);
        assert_eq!((lease_in(a.id), lease_in(b.id)), (None, lb));
    }

    #[test]
    fn a_thread_inside_that_enters_again_does_not_wait_for_itself() {
        let gate = WriteGate::new(1, QUANTUM);
        let outer = gate.enter().expect("the gate is on");
        assert!(gate.enter().is_none(), "a nested write passes the gate");
        drop(outer);
        drop(gate.enter().expect("the lease is still this thread's"));
    }

    #[test]
    fn a_gate_of_no_slots_lets_every_writer_in() {
        let gate = WriteGate::new(0, QUANTUM);
        let a: Vec<_> = (0..100).map(|_| gate.enter()).collect();
        assert!(a.iter().all(Option::is_none));
    }
}
