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
//! or done writing). A lease is a fast path for a thread that writes again
//! soon, not a reservation: a slot whose holder has been outside the engine
//! for [`IDLE_STEAL`] is *idle*, and a writer without a lease takes it.
//! Writers of a bulk import are outside for the few microseconds between two
//! puts, so their slots are never idle while they write; a service's request
//! threads each write once and go elsewhere for milliseconds, so their slots
//! are idle almost at once. Who takes an idle slot ([`on_arrival`]):
//!
//! - A writer arriving without a lease, when nobody waits, takes an idle (or
//!   never leased) slot and writes at once: while writers do not queue, the
//!   gate only bounds how many are inside. Without this, a service's puts
//!   queued behind slots leased to threads long gone, each waiting for the
//!   first waiter's next look at the slots, and at a quarter of the
//!   saturated rate the gate alone made the p99 of puts many milliseconds
//!   (docs/write-stalls.md, "Write admission").
//! - A writer arriving while others wait hands each idle slot to the first
//!   waiter in line (waking it), then joins the back of the line: arrivals
//!   drain the line at the rate they come, in arrival order, without
//!   anyone polling.
//! - The first waiter also looks for an idle slot itself: every
//!   [`STEAL_POLL`] while every holder is inside or between two puts (so a
//!   thread that holds a slot and waits, outside the engine, for one that
//!   waits here cannot deadlock: its slot goes idle and is taken), sooner
//!   when a slot is idle already.
//!
//! - A writer that has waited in line for [`MAX_WAIT`] leaves the line and
//!   writes without a slot, so the gate's delay is bounded. A line stands
//!   still that long only when slot holders are descheduled inside their
//!   puts because other work on the machine has the cores: on a shared
//!   machine the gate otherwise held every writer behind them, for as long
//!   as the scheduler kept them off a core.
//!
//! A slot is never taken from a thread inside a put. A thread remembers its
//! leases in the last [`LEASES`] gates it wrote through, so one that writes
//! to a few databases in turn keeps a slot in each.
//!
//! The decisions are pure functions of what the gate saw ([`SlotSeen`]):
//! [`is_idle`], [`on_arrival`], [`hands_on`] and [`first_waiter_sleep`],
//! tested from tables of cases for both shapes of load.
//!
//! Slot state, one `u64`: `token << 1 | inside`; `token` names the lease
//! (unique among all gates, never reused), `inside` is set while its holder
//! is in a put; 0 is a slot never leased. Invariant: at most `limit`
//! slot holders are inside (writers that waited [`MAX_WAIT`] come in
//! besides them, without a slot). The state changes only by the holder's own enter (a
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
/// A slot whose holder has been outside the engine this long is idle: a
/// writer without a lease may take it. Far above the gap between two puts of
/// a thread that writes flat out (row generation, a few microseconds), far
/// below the gap of a thread that writes now and then.
pub(crate) const IDLE_STEAL: Duration = Duration::from_micros(50);
/// How often the first waiter looks for an idle slot while none is.
pub(crate) const STEAL_POLL: Duration = Duration::from_millis(1);
/// The longest a writer waits in line: then it writes without a slot. A
/// line that does not move for this long is not writers taking turns on
/// the cores but slot holders descheduled inside their puts (the machine's
/// other work has the cores); holding the line behind them would only add
/// their wait to every writer's.
pub(crate) const MAX_WAIT: Duration = Duration::from_millis(8);
/// The first waiter's sleep when a slot is idle already (it lost the race
/// for it, or was woken before taking it).
const MIN_POLL: Duration = Duration::from_micros(50);

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

/// What the gate saw of one slot when deciding: the input of the pure
/// policies below.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SlotSeen {
    /// Leased to a thread at some point (a slot never leased is free).
    pub leased: bool,
    /// Its holder is inside a put.
    pub inside: bool,
    /// How long its holder has been outside the engine (meaningless when
    /// inside or never leased).
    pub outside: Duration,
}

/// A slot a writer without a lease may take: never leased, or its holder
/// has been outside the engine for [`IDLE_STEAL`] (module docs).
pub(crate) fn is_idle(s: SlotSeen) -> bool {
    !s.leased || (!s.inside && s.outside >= IDLE_STEAL)
}

/// What a writer arriving without a lease does (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Arrival {
    /// Take slot `i` and write now.
    Take(usize),
    /// Hand slot `i` to the first waiter, then decide again.
    HandOn(usize),
    /// Join the back of the line.
    Wait,
}

/// The arrival's decision, given how many threads wait and the slots.
pub(crate) fn on_arrival(waiting: usize, slots: impl IntoIterator<Item = SlotSeen>) -> Arrival {
    match slots.into_iter().position(is_idle) {
        Some(i) if waiting == 0 => Arrival::Take(i),
        Some(i) => Arrival::HandOn(i),
        None => Arrival::Wait,
    }
}

/// Whether a holder leaving a put hands its slot to the first waiter: when
/// someone waits and its turn (begun `turn` ago) has lasted a `quantum`.
pub(crate) fn hands_on(waiting: usize, turn: Duration, quantum: Duration) -> bool {
    waiting > 0 && turn >= quantum
}

/// Whether a writer that has waited in line for `waited` stops waiting and
/// writes without a slot, the gate's longest wait being `max_wait`
/// ([`MAX_WAIT`]).
pub(crate) fn bypasses(waited: Duration, max_wait: Duration) -> bool {
    waited >= max_wait
}

/// How long the first waiter sleeps before it looks at the slots again.
pub(crate) fn first_waiter_sleep(slots: impl IntoIterator<Item = SlotSeen>) -> Duration {
    if slots.into_iter().any(is_idle) {
        MIN_POLL
    } else {
        STEAL_POLL
    }
}

/// See the module docs.
pub(crate) struct WriteGate {
    id: u64,
    epoch: Instant,
    quantum: Duration,
    /// The longest wait in line ([`MAX_WAIT`]).
    max_wait: Duration,
    slots: Box<[Slot]>,
    queue: Mutex<VecDeque<Arc<Waiter>>>,
    /// The queue's length, read without its lock when a put ends.
    waiting: AtomicUsize,
    /// Writers that joined the line, ever (tests).
    #[cfg(test)]
    queued: AtomicUsize,
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
        Self::with_max_wait(limit, quantum, MAX_WAIT)
    }

    /// [`Self::new`] with a longest wait in line of `max_wait`.
    pub(crate) fn with_max_wait(limit: usize, quantum: Duration, max_wait: Duration) -> Self {
        WriteGate {
            id: NEXT_GATE.fetch_add(1, Ordering::Relaxed),
            epoch: Instant::now(),
            quantum,
            max_wait,
            slots: (0..limit)
                .map(|_| Slot {
                    state: AtomicU64::new(0),
                    turn_began: AtomicU64::new(0),
                    left: AtomicU64::new(0),
                })
                .collect(),
            queue: Mutex::new(VecDeque::new()),
            waiting: AtomicUsize::new(0),
            #[cfg(test)]
            queued: AtomicUsize::new(0),
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
        self.enter_slow()
    }

    fn enter_slow(&self) -> Option<Admission<'_>> {
        let me = {
            let mut q = self.queue.lock();
            // Each round takes or hands on a slot, or ends: a slot that
            // changed since it was seen idle is seen anew.
            loop {
                match on_arrival(q.len(), self.seen()) {
                    Arrival::Take(i) => {
                        if let Some(a) = self.take(i) {
                            return Some(a);
                        }
                    }
                    Arrival::HandOn(i) => self.hand_to_first(&mut q, i),
                    Arrival::Wait => break,
                }
            }
            let me = Arc::new(Waiter {
                slot: AtomicUsize::new(usize::MAX),
                token: AtomicU64::new(0),
                thread: std::thread::current(),
            });
            q.push_back(me.clone());
            self.waiting.store(q.len(), Ordering::Relaxed);
            #[cfg(test)]
            self.queued.fetch_add(1, Ordering::Relaxed);
            me
        };
        crate::perf_timer!(write_thread_wait_nanos);
        let queued = Instant::now();
        loop {
            let slot = me.slot.load(Ordering::Acquire);
            if slot != usize::MAX {
                let token = me.token.load(Ordering::Relaxed);
                set_lease(self.id, Some((slot, token)));
                return Some(Admission {
                    gate: self,
                    slot,
                    token,
                });
            }
            let waited = queued.elapsed();
            if bypasses(waited, self.max_wait) {
                let mut q = self.queue.lock();
                // A slot handed to this waiter is set under this lock: if
                // none was, leave the line and write without a slot.
                if me.slot.load(Ordering::Acquire) == usize::MAX {
                    if let Some(at) = q.iter().position(|w| Arc::ptr_eq(w, &me)) {
                        q.remove(at);
                        self.waiting.store(q.len(), Ordering::Relaxed);
                        if at == 0
                            && let Some(next) = q.front()
                        {
                            next.thread.unpark();
                        }
                    }
                    return None;
                }
                continue;
            }
            let left = self.max_wait.saturating_sub(waited);
            let first = self
                .queue
                .lock()
                .front()
                .is_some_and(|f| Arc::ptr_eq(f, &me));
            if first {
                std::thread::park_timeout(first_waiter_sleep(self.seen()).min(left));
                let mut q = self.queue.lock();
                // A slot handed to this waiter is set under this lock.
                if me.slot.load(Ordering::Acquire) == usize::MAX
                    && let Some(i) = self.seen().position(is_idle)
                    && let Some(a) = self.take(i)
                {
                    self.pop_first(&mut q);
                    return Some(a);
                }
            } else {
                std::thread::park_timeout(left);
            }
        }
    }

    /// Under the queue lock `q`: removes the first waiter, and wakes the
    /// next one, which polls from now on ([`first_waiter_sleep`]).
    fn pop_first(&self, q: &mut VecDeque<Arc<Waiter>>) -> Option<Arc<Waiter>> {
        let first = q.pop_front()?;
        self.waiting.store(q.len(), Ordering::Relaxed);
        if let Some(next) = q.front() {
            next.thread.unpark();
        }
        Some(first)
    }

    /// What the policies see of slot `s` whose state is `st`, at `now`.
    fn see(s: &Slot, st: u64, now: u64) -> SlotSeen {
        SlotSeen {
            leased: st != 0,
            inside: st & INSIDE != 0,
            outside: Duration::from_nanos(now.saturating_sub(s.left.load(Ordering::Relaxed))),
        }
    }

    /// What the policies see of the slots now, in slot order.
    fn seen(&self) -> impl Iterator<Item = SlotSeen> + '_ {
        let now = self.now();
        self.slots
            .iter()
            .map(move |s| Self::see(s, s.state.load(Ordering::Acquire), now))
    }

    /// The state of slot `i` if it is idle now ([`is_idle`]), to
    /// compare-and-swap from.
    fn idle_state(&self, i: usize) -> Option<u64> {
        let s = &self.slots[i];
        let st = s.state.load(Ordering::Acquire);
        is_idle(Self::see(s, st, self.now())).then_some(st)
    }

    /// Under the queue lock: slot `i`, if still idle, now this thread's.
    fn take(&self, i: usize) -> Option<Admission<'_>> {
        let st = self.idle_state(i)?;
        let token = new_token();
        let s = &self.slots[i];
        s.state
            .compare_exchange(
                st,
                token << 1 | INSIDE,
                Ordering::Acquire,
                Ordering::Relaxed,
            )
            .ok()?;
        s.turn_began.store(self.now(), Ordering::Relaxed);
        set_lease(self.id, Some((i, token)));
        Some(Admission {
            gate: self,
            slot: i,
            token,
        })
    }

    /// Under the queue lock `q`, with a thread waiting: slot `i`, if still
    /// idle, handed to the first waiter (woken).
    fn hand_to_first(&self, q: &mut VecDeque<Arc<Waiter>>, i: usize) {
        // Nobody to hand to: the slot must not be marked inside for nobody.
        if q.is_empty() {
            return;
        }
        let Some(st) = self.idle_state(i) else {
            return;
        };
        let t = new_token();
        let s = &self.slots[i];
        if s.state
            .compare_exchange(st, t << 1 | INSIDE, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return;
        }
        s.turn_began.store(self.now(), Ordering::Relaxed);
        if let Some(next) = self.pop_first(q) {
            next.token.store(t, Ordering::Relaxed);
            next.slot.store(i, Ordering::Release);
            next.thread.unpark();
        }
    }

    /// The holder of `slot` leaves a put: keeps its lease, or, when its
    /// turn is over and a thread waits, hands the slot to that thread.
    fn leave(&self, slot: usize, token: u64) {
        let s = &self.slots[slot];
        let now = self.now();
        let turn = Duration::from_nanos(now.saturating_sub(s.turn_began.load(Ordering::Relaxed)));
        if hands_on(self.waiting.load(Ordering::Relaxed), turn, self.quantum) {
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
    /// slot holders seen inside at once.
    fn hammer(gate: &Arc<WriteGate>, threads: usize, puts: usize) -> usize {
        let inside = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let (gate, inside, most) = (gate.clone(), inside.clone(), most.clone());
                std::thread::spawn(move || {
                    for _ in 0..puts {
                        // A writer that waited MAX_WAIT comes in without a
                        // slot; the invariant is about slot holders.
                        let Some(_a) = gate.enter() else { continue };
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

    /// A longest wait no test reaches: tests of the line's order.
    const FOREVER: Duration = Duration::from_secs(3600);

    #[test]
    fn a_writer_waits_in_line_at_most_max_wait() {
        #[rustfmt::skip]
        let rows: &[(&str, Duration, bool)] = &[
            ("import: a turn's wait", QUANTUM * 3, false),
            ("just under", MAX_WAIT - Duration::from_micros(1), false),
            ("holders descheduled inside their puts", MAX_WAIT, true),
            ("service on a loaded machine", MAX_WAIT * 20, true),
        ];
        for &(what, waited, want) in rows {
            assert_eq!(bypasses(waited, MAX_WAIT), want, "{what}");
        }
    }

    /// Regression: on a machine whose cores were busy with other work, slot
    /// holders descheduled inside their puts held every writer in line for
    /// as long as the scheduler kept them off a core.
    #[test]
    fn regression_a_line_behind_a_holder_that_does_not_leave_is_bounded() {
        let gate = Arc::new(WriteGate::with_max_wait(
            1,
            QUANTUM,
            Duration::from_millis(20),
        ));
        // This thread holds the slot, inside a put, until the others are in.
        let held = gate.enter().expect("the gate is on");
        let done = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..3)
            .map(|_| {
                let (g, d) = (gate.clone(), done.clone());
                std::thread::spawn(move || {
                    assert!(g.enter().is_none(), "wrote without a slot");
                    d.fetch_add(1, Ordering::SeqCst);
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(done.load(Ordering::SeqCst), 3);
        assert!(gate.queue.lock().is_empty(), "the line is left clean");
        drop(held);
        drop(gate.enter().expect("the holder's lease is still its own"));
    }

    fn slot(leased: bool, inside: bool, outside_us: u64) -> SlotSeen {
        SlotSeen {
            leased,
            inside,
            outside: Duration::from_micros(outside_us),
        }
    }
    const FREE: SlotSeen = SlotSeen {
        leased: false,
        inside: false,
        outside: Duration::ZERO,
    };

    /// The arrival policy, for both shapes of load: a bulk import (threads
    /// writing flat out, a few microseconds outside between puts, a line of
    /// waiters) and a service (request threads writing once and leaving for
    /// milliseconds, rarely a line).
    #[test]
    fn arrivals_take_idle_slots_hand_them_on_or_wait() {
        let inside = slot(true, true, 0);
        let between_puts = slot(true, false, 3);
        let gone = slot(true, false, 2_000);
        let just_idle = slot(true, false, IDLE_STEAL.as_micros() as u64);
        #[rustfmt::skip]
        let rows: &[(&str, usize, &[SlotSeen], Arrival)] = &[
            ("new gate", 0, &[FREE, FREE], Arrival::Take(0)),
            ("import: both holders inside", 6, &[inside, inside], Arrival::Wait),
            ("import: holders between puts", 6, &[between_puts, inside], Arrival::Wait),
            ("import: holders between puts, no line", 0, &[between_puts, between_puts], Arrival::Wait),
            ("import: a holder preempted outside the engine", 6, &[inside, gone], Arrival::HandOn(1)),
            ("service: holders gone, no line", 0, &[gone, gone], Arrival::Take(0)),
            ("service: one inside, one gone", 0, &[inside, gone], Arrival::Take(1)),
            ("service: idle from IDLE_STEAL on", 0, &[inside, just_idle], Arrival::Take(1)),
            ("service: both inside", 0, &[inside, inside], Arrival::Wait),
            ("service burst: a line, a slot gone idle", 3, &[gone, inside], Arrival::HandOn(0)),
            ("service burst: a line, a slot never leased", 1, &[inside, FREE], Arrival::HandOn(1)),
        ];
        for &(what, waiting, slots, want) in rows {
            assert_eq!(on_arrival(waiting, slots.iter().copied()), want, "{what}");
        }
    }

    #[test]
    fn a_holder_hands_on_only_at_its_turns_end_and_only_to_a_waiter() {
        let q = QUANTUM;
        #[rustfmt::skip]
        let rows: &[(&str, usize, Duration, bool)] = &[
            ("import: turn not over", 6, q / 2, false),
            ("import: turn over", 6, q, true),
            ("service: nobody waits, long turn", 0, q * 50, false),
            ("service: one waits, first put of the turn", 1, Duration::ZERO, false),
        ];
        for &(what, waiting, turn, want) in rows {
            assert_eq!(hands_on(waiting, turn, q), want, "{what}");
        }
    }

    #[test]
    fn the_first_waiter_looks_again_soon_only_when_a_slot_is_idle() {
        #[rustfmt::skip]
        let rows: &[(&str, &[SlotSeen], Duration)] = &[
            ("import: inside and between puts", &[slot(true, true, 0), slot(true, false, 3)], STEAL_POLL),
            ("a holder waiting outside the engine", &[slot(true, false, 5_000)], MIN_POLL),
            ("a free slot", &[slot(true, true, 0), FREE], MIN_POLL),
        ];
        for &(what, slots, want) in rows {
            assert_eq!(first_waiter_sleep(slots.iter().copied()), want, "{what}");
        }
    }

    /// Regression: request threads that each write once and then do other
    /// work left their slots leased, and the next request thread queued
    /// until the first waiter's next look at the slots: in a service, the
    /// gate alone made puts wait for many milliseconds.
    #[test]
    fn regression_writers_that_write_now_and_then_never_queue_behind_idle_leases() {
        let gate = Arc::new(WriteGate::with_max_wait(2, QUANTUM, FOREVER));
        for round in 0..40 {
            let g = gate.clone();
            std::thread::spawn(move || drop(g.enter().expect("the gate is on")))
                .join()
                .unwrap();
            // The thread is gone; its lease idles.
            std::thread::sleep(IDLE_STEAL * 2);
            assert_eq!(gate.queued.load(Ordering::Relaxed), 0, "round {round}");
        }
        assert!(gate.queue.lock().is_empty());
    }

    /// Arrivals hand idle slots to the line in order, and every waiter gets in.
    #[test]
    fn arrivals_drain_the_line_when_leases_go_idle() {
        let gate = Arc::new(WriteGate::with_max_wait(1, QUANTUM, FOREVER));
        // Holder A stays outside the engine (its lease idles) while B waits.
        let a = gate.enter();
        let g = gate.clone();
        let b = std::thread::spawn(move || drop(g.enter()));
        while gate.waiting() == 0 {
            std::thread::yield_now();
        }
        drop(a);
        // C arrives without a lease: once A's slot is idle, B (first in line)
        // gets it, then C.
        let g = gate.clone();
        let c = std::thread::spawn(move || drop(g.enter()));
        b.join().unwrap();
        c.join().unwrap();
        assert!(gate.queue.lock().is_empty());
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
        let gate = Arc::new(WriteGate::with_max_wait(1, Duration::ZERO, FOREVER));
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
