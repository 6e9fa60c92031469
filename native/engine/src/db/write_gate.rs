//! Write admission: while more writer threads write continuously than the
//! machine has cores (`max_concurrent_writers`), at most that many use the
//! write path at once; the others sleep here and take turns, first come
//! first served, a quantum each. While they do not, the gate is open: a put
//! takes no slot and never sleeps here.
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
//! # When the gate engages
//!
//! A service is another shape: many request threads, each writing now and
//! then. Their puts rarely overlap, and making them take slots only costs
//! them: a slot leased to a thread that wrote once sits idle until it is
//! taken, a waiter sleeps and must be woken (on a busy machine, a scheduler
//! tick or more per wake-up, paid in turn by every waiter in line), and a
//! holder descheduled inside its put holds every waiter up with it
//! (docs/results/reads.md, the service workload). So the gate engages only
//! while the demand it exists for is there, judged by [`next_demand`], a
//! pure function of samples:
//!
//! - A thread is *continuous* at a put when that put ends a streak of
//!   [`CONTINUOUS_AFTER`] puts through this gate, each begun less than
//!   [`HOT_GAP`] after the end of the one before: a bulk writer. A request
//!   thread working through a short backlog makes a few such puts, not
//!   enough; and waiting at an engaged gate makes a service's threads late,
//!   so counting those few would keep the gate engaged by the backlog it
//!   made.
//! - A continuous thread is *long-running* at a put when its streak has
//!   reached [`LONG_STREAK`] puts: an import's writer after a few hundred
//!   milliseconds; a service's request thread only while its backlog lasts
//!   that long.
//! - The *demand* is the number of continuous threads in the write path
//!   (inside a put or waiting here) at a sample, and the *long demand* the
//!   number of those that are long-running. Each continuous put counts
//!   itself (and whether it is long-running) in one of [`STRIPES`]
//!   counters, picked by thread, on its own cache line; a put that is not
//!   continuous touches none.
//! - At most once per [`SAMPLE_PERIOD`], the put that finds the period over
//!   sums the counters and feeds the sums to [`next_demand`]: the gate
//!   engages after [`ENGAGE_AFTER`] samples in a row with a demand above
//!   `limit` and at most [`MAX_DEMAND_PER_SLOT`] times it, or after
//!   [`ENGAGE_AFTER_LONG`] in a row with such a demand of which more than
//!   `limit` threads are long-running; it disengages after
//!   [`DISENGAGE_AFTER`] in a row outside that range. On disengaging it
//!   lets every waiter through without a slot.
//! - Why so long a run to engage (at least half a second of samples): a
//!   service's request threads become continuous too, in bursts, whenever
//!   a slow put or a descheduling leaves them a backlog to work off, and at
//!   half its saturated rate such bursts put the demand in range about one
//!   sample in five. With a run of 8 samples (under a millisecond) the gate
//!   engaged dozens of times a second for 10–40 ms each, the service's
//!   threads slept in line, their lateness grew, and its put p99 with
//!   them. Measured with the gate observing only (demand traces): a
//!   service's runs in range (64–512 request threads, 25–90% of its
//!   saturated rate, with and without reads) lasted at most 3,570 samples
//!   (about 360 ms); a bulk import's eight writers stay in range for tens
//!   of thousands of samples in a row, broken only by a few samples that do
//!   not disengage it (docs/results/reads.md, "Write admission for
//!   services").
//! - Why the second, shorter run: with the first alone an import wrote
//!   ungated until its first run of [`ENGAGE_AFTER`] samples, 0.6–0.8 s
//!   after it started, and its slowest puts of that time were those the
//!   gate exists to prevent (at 2,000,000 rows they made its put p99 four
//!   times higher). What an import's writers have and a service's request
//!   threads lack is a long streak: in the same traces, now with each
//!   thread's streak, an import had more than `limit` long-running writers
//!   in range 0.36–0.4 s after it started and from then on nearly always;
//!   the services never had more than `limit` threads of [`LONG_STREAK`]
//!   puts in range at any sample, but 64 request threads at 90% of their
//!   saturated rate had 3 of 2,048-put streaks in range for up to 70
//!   samples in a row, hence a streak twice that long and a run of samples
//!   too (docs/results/reads.md, "long-running writers engage the gate
//!   sooner").
//! - Why an upper bound: the line rotates once per `demand / limit` quanta.
//!   A few writers too many (an import's eight on two cores) wait a few
//!   quanta for a turn, much less than a put preempted in the run queue;
//!   hundreds (a service's request threads, all late) would each wait a
//!   hundred quanta or more, longer than the run queue makes them wait,
//!   and their lateness keeps them continuous, so the gate would keep
//!   itself engaged.
//!
//! The fast path of a put while the gate is open: the thread's own
//! thread-local record, a clock reading at entry and at exit, a load of
//! the gate's state (a line written once per sample period at most) and,
//! for a continuous thread, an increment and a decrement of its stripe
//! (shared only with the threads of the same stripe). No sleeping, no
//! slot, no queue lock.
//!
//! # While engaged
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
//! Only a thread whose put began within [`HOT_GAP`] of its last one keeps
//! its lease when it leaves the put: another (a request thread of a service
//! sharing the database with an import, or a writer back from a pause)
//! hands its slot to the first waiter, or frees it, at once, since it is
//! not likely to be back soon.
//!
//! A thread keeps its lease while it is outside the engine (between puts,
//! or gone to do something else: an explicit flush, a back-pressure sleep,
//! or done writing). So that this never holds the others up for long, nor
//! forever (a thread that holds a slot and waits for one that waits here
//! would otherwise deadlock), the first waiter takes any slot whose holder
//! has been outside the engine for [`IDLE_STEAL`]: it sleeps until the
//! first such slot would qualify, or for [`STEAL_POLL`] while every holder
//! is inside a put or between two. A slot is never taken from a thread
//! inside a put. A thread remembers its records (lease, last put) of the
//! last [`LEASES`] gates it wrote through, so one that writes to a few
//! databases in turn keeps a slot in each.
//!
//! Slot state, one `u64`: `token << 1 | inside`; `token` names the lease
//! (unique among all gates, never reused), `inside` is set while its holder
//! is in a put; 0 is a free slot. Invariants:
//!
//! 1. At most `limit` threads are inside a slot. The state changes only by
//!    the holder's own enter (a compare-and-swap from its token, outside)
//!    and leave (a store, made while inside, when nobody else may change
//!    it), and by a taker's compare-and-swap from a state it saw outside,
//!    under the queue lock.
//! 2. While the gate is engaged, every put (but those below) holds a slot;
//!    puts that entered while it was open, or that were let through when
//!    it disengaged, finish without one: a change of state bounds the
//!    writers only from the next puts on.
//! 3. A waiter is never left behind by a disengage: a thread joins the line
//!    only under the queue lock after seeing the gate engaged there, and
//!    disengaging clears the state before it empties the line under the
//!    same lock.
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
//! A write made by a thread already inside a write through this gate (from
//! a callback the engine makes meanwhile, such as a user logger) passes the
//! gate: it must not wait for the slot it holds.
//!
//! Thread safety: the lease fast path touches only the thread's own slot
//! (its cache line is not shared with other slots) and its stripe; the
//! waiters' line is a mutex taken once per turn, not per put; the policy's
//! state is a mutex taken by one sampling put per period.
//!
//! Tests: the policy's table (`next_demand_*`); occasional writers never
//! wait (`occasional_writers_never_wait_at_the_gate`); saturating writers
//! engage it (`saturating_writers_engage_the_gate_and_never_exceed_its_slots`).

use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::thread::Thread;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::perf_context::clock;

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
/// A put begun less than this after the end of its thread's previous put
/// through the gate continues that thread's streak (module docs), and the
/// thread keeps its lease; the time after which an idle slot may be taken,
/// too.
pub(crate) const HOT_GAP: Duration = IDLE_STEAL;
/// The shortest time between two samples of the demand.
pub(crate) const SAMPLE_PERIOD: Duration = Duration::from_micros(100);
/// Samples in a row with a demand in range (above the limit, at most
/// [`MAX_DEMAND_PER_SLOT`] per slot) that engage the gate: at least half a
/// second, samples being [`SAMPLE_PERIOD`] apart or more; 1.4 times the
/// longest such run of a service's bursts measured (module docs).
pub(crate) const ENGAGE_AFTER: u32 = 5_000;
/// Samples in a row with a demand in range of which more than the limit are
/// long-running threads ([`LONG_STREAK`]) that engage the gate (module
/// docs).
pub(crate) const ENGAGE_AFTER_LONG: u32 = 32;
/// Puts in a row, as for [`CONTINUOUS_AFTER`], that make a thread
/// long-running (module docs): about a sixth of a second of an import
/// writer's puts on two cores.
pub(crate) const LONG_STREAK: u32 = 4_096;
/// Samples in a row with a demand out of range that disengage it: enough
/// that a bulk writer descheduled between two puts, or a single sample
/// taken while most writers were, does not open the gate to the others
/// (it would take [`ENGAGE_AFTER`] samples to engage again).
pub(crate) const DISENGAGE_AFTER: u32 = 16;
/// Puts in a row, each begun within [`HOT_GAP`] of the end of the one
/// before, that make a thread continuous: a service's request thread
/// working through a short backlog makes a few, a bulk writer thousands.
pub(crate) const CONTINUOUS_AFTER: u32 = 16;
/// The most continuous threads per slot the gate engages for: with more,
/// a turn comes round only after `demand / limit` quanta (a line of 256
/// request threads on two slots: over a hundred), so every waiter's put is
/// slow anyway and the gate only adds the wait; it stays open, as with
/// the option 0.
pub(crate) const MAX_DEMAND_PER_SLOT: usize = 8;
/// Counters of continuous threads in the write path.
pub(crate) const STRIPES: usize = 16;

const INSIDE: u64 = 1;
/// `Waiter::slot` before a slot is handed to the waiter.
const NO_SLOT: usize = usize::MAX;
/// `Waiter::slot` of a waiter let through without a slot (the gate
/// disengaged).
const PASS: usize = usize::MAX - 1;

/// Gate states.
const OPEN: u8 = 0;
const ENGAGED: u8 = 1;
/// Engaged for good (tests of the mechanism).
#[cfg(test)]
const PINNED: u8 = 2;

/// The policy's state (module docs, "When the gate engages").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Demand {
    pub(crate) engaged: bool,
    /// Samples in a row that point the other way.
    pub(crate) run: u32,
    /// While open: samples in a row with a demand in range and more than
    /// the limit long-running threads in it.
    pub(crate) long_run: u32,
}

/// What one sample counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Sample {
    /// Continuous threads in the write path.
    pub(crate) demand: usize,
    /// Those of them that are long-running ([`LONG_STREAK`]).
    pub(crate) long: usize,
}

/// The policy: the state after a sample of the write path of a gate of
/// `limit` slots. Pure; the table of cases is `next_demand_*` in the tests.
pub(crate) fn next_demand(d: Demand, s: Sample, limit: usize) -> Demand {
    let over = s.demand > limit && s.demand <= limit.saturating_mul(MAX_DEMAND_PER_SLOT);
    if over == d.engaged {
        return Demand {
            engaged: d.engaged,
            ..Demand::default()
        };
    }
    let run = d.run + 1;
    if d.engaged {
        return if run >= DISENGAGE_AFTER {
            Demand::default()
        } else {
            Demand {
                engaged: true,
                run,
                long_run: 0,
            }
        };
    }
    let long_run = if s.long > limit { d.long_run + 1 } else { 0 };
    if run >= ENGAGE_AFTER || long_run >= ENGAGE_AFTER_LONG {
        Demand {
            engaged: true,
            ..Demand::default()
        }
    } else {
        Demand {
            engaged: false,
            run,
            long_run,
        }
    }
}

/// Tokens of leases, unique across gates so that a thread's lease can
/// never be mistaken for a lease of another gate or an earlier turn.
static NEXT_TOKEN: AtomicU64 = AtomicU64::new(1);
/// Gate ids, for the same reason.
static NEXT_GATE: AtomicU64 = AtomicU64::new(1);
/// Stripes are given to threads in turn.
static NEXT_STRIPE: AtomicUsize = AtomicUsize::new(0);

fn new_token() -> u64 {
    NEXT_TOKEN.fetch_add(1, Ordering::Relaxed)
}

/// A thread's record of one gate.
#[derive(Clone, Copy)]
struct Record {
    /// The gate's id; 0: an empty record.
    gate: u64,
    /// Puts in a row through the gate, up to the last one, each begun
    /// within [`HOT_GAP`] of the end of the one before.
    streak: u32,
    /// This thread's lease in the gate: (slot index, token).
    lease: Option<(usize, u64)>,
    /// When this thread's last put through the gate ended, in nanoseconds
    /// since the gate's epoch.
    left: Option<u64>,
    /// This thread is in a put through the gate.
    inside: bool,
}

const EMPTY: Record = Record {
    gate: 0,
    streak: 0,
    lease: None,
    left: None,
    inside: false,
};

/// Records a thread remembers: a thread that writes to a few databases in
/// turn keeps its slot in each.
const LEASES: usize = 4;

thread_local! {
    /// This thread's records, most recent first.
    static RECORDS: [Cell<Record>; LEASES] = const { [const { Cell::new(EMPTY) }; LEASES] };
    /// This thread's stripe.
    static STRIPE: usize = NEXT_STRIPE.fetch_add(1, Ordering::Relaxed) % STRIPES;
}

/// This thread's record of gate `id` (an empty one for `id` if none).
fn record(id: u64) -> Record {
    RECORDS.with(|rs| {
        rs.iter()
            .map(Cell::get)
            .find(|r| r.gate == id)
            .unwrap_or(Record { gate: id, ..EMPTY })
    })
}

/// Stores `r` as this thread's most recent record (the oldest other one
/// is forgotten when all are in use).
fn set_record(r: Record) {
    RECORDS.with(|rs| {
        // The common case: the gate of the last write.
        if rs[0].get().gate == r.gate {
            rs[0].set(r);
            return;
        }
        // Shift the others down over `r`'s old place (or the oldest).
        let at = rs
            .iter()
            .position(|c| c.get().gate == r.gate)
            .unwrap_or(LEASES - 1);
        for i in (1..=at).rev() {
            rs[i].set(rs[i - 1].get());
        }
        rs[0].set(r);
    });
}

/// This thread's lease in gate `id`, if it remembers one.
#[cfg(test)]
fn lease_in(id: u64) -> Option<(usize, u64)> {
    record(id).lease
}

/// Remembers (or, `None`, forgets) this thread's lease in gate `id`.
fn set_lease(id: u64, lease: Option<(usize, u64)>) {
    set_record(Record {
        lease,
        ..record(id)
    });
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

/// Continuous threads of one stripe in the write path, on its own line:
/// their number in the low 32 bits, the long-running ones' in the high.
#[repr(align(128))]
struct Stripe(AtomicU64);

/// What a continuous put adds to its stripe while in the write path.
fn stripe_count(long: bool) -> u64 {
    1 | u64::from(long) << 32
}

impl Sample {
    /// The sample a sum of stripe counts ([`stripe_count`]) stands for.
    /// Each half holds at most one count per thread, so a sum over the
    /// stripes never carries from the low half into the high one.
    fn of_stripes(sum: u64) -> Sample {
        Sample {
            demand: (sum & u64::from(u32::MAX)) as usize,
            long: (sum >> 32) as usize,
        }
    }
}

/// What every put reads, on its own line: written once per sample period
/// at most.
#[repr(align(128))]
struct Control {
    /// `OPEN` or `ENGAGED` (or, in tests, `PINNED`).
    state: AtomicU8,
    /// Nanoseconds since the gate's epoch: the next sample is due.
    next_sample: AtomicU64,
}

struct Waiter {
    /// `NO_SLOT` until a slot is handed to this waiter, then its index
    /// (or `PASS`).
    slot: AtomicUsize,
    /// The lease's token, set before `slot`.
    token: AtomicU64,
    thread: Thread,
}

/// See the module docs.
pub(crate) struct WriteGate {
    id: u64,
    /// A raw reading of the perf context's clock when the gate was made.
    epoch: u64,
    quantum: u64,
    control: Control,
    stripes: Box<[Stripe]>,
    slots: Box<[Slot]>,
    /// The policy's state: taken by the sampling put only.
    demand: Mutex<Demand>,
    queue: Mutex<VecDeque<Arc<Waiter>>>,
    /// The queue's length, read without its lock when a put ends.
    waiting: AtomicUsize,
    /// Threads that joined the line (tests).
    #[cfg(test)]
    queued: AtomicU64,
    /// Times the gate engaged (tests).
    #[cfg(test)]
    engagements: AtomicU64,
}

/// A writer's passage through the gate for the length of one put.
pub(crate) struct Admission<'a> {
    gate: &'a WriteGate,
    /// Its slot and lease token; none while the gate is open.
    slot: Option<(usize, u64)>,
    /// The stripe it counts itself in while continuous, and what it added.
    stripe: Option<(usize, u64)>,
    /// This put began within [`HOT_GAP`] of the thread's last one.
    back: bool,
    /// This put's sample engaged the gate.
    engaged_gate: bool,
    /// How long this put slept in line for a slot, if it did.
    waited: Option<Duration>,
}

impl Admission<'_> {
    /// This put's sample engaged the gate (`WRITE_ADMISSION_ENGAGEMENTS`).
    pub(crate) fn engaged_gate(&self) -> bool {
        self.engaged_gate
    }

    /// How long this put slept in line for a slot, if it did
    /// (`WRITE_ADMISSION_WAITS`, `WRITE_ADMISSION_WAIT_MICROS`).
    pub(crate) fn waited(&self) -> Option<Duration> {
        self.waited
    }
}

impl WriteGate {
    /// A gate of `limit` slots and turns of `quantum`; 0 slots lets every
    /// writer in.
    pub(crate) fn new(limit: usize, quantum: Duration) -> Self {
        WriteGate {
            id: NEXT_GATE.fetch_add(1, Ordering::Relaxed),
            epoch: clock::now(),
            quantum: quantum.as_nanos() as u64,
            control: Control {
                state: AtomicU8::new(OPEN),
                next_sample: AtomicU64::new(0),
            },
            stripes: (0..STRIPES).map(|_| Stripe(AtomicU64::new(0))).collect(),
            slots: (0..limit)
                .map(|_| Slot {
                    state: AtomicU64::new(0),
                    turn_began: AtomicU64::new(0),
                    left: AtomicU64::new(0),
                })
                .collect(),
            demand: Mutex::new(Demand::default()),
            queue: Mutex::new(VecDeque::new()),
            waiting: AtomicUsize::new(0),
            #[cfg(test)]
            queued: AtomicU64::new(0),
            #[cfg(test)]
            engagements: AtomicU64::new(0),
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

    /// Engages the gate for good, whatever the demand: tests of the
    /// engaged mechanism.
    #[cfg(test)]
    pub(crate) fn pin_engaged(&self) {
        self.control.state.store(PINNED, Ordering::Release);
    }

    /// Threads waiting for a slot.
    #[cfg(test)]
    pub(crate) fn waiting(&self) -> usize {
        self.queue.lock().len()
    }

    /// Threads that have waited for a slot since the gate was made.
    #[cfg(test)]
    pub(crate) fn waits(&self) -> u64 {
        self.queued.load(Ordering::SeqCst)
    }

    /// Nanoseconds since the gate was made, through the perf context's
    /// clock, as statistics' histogram timers read it
    /// ([`crate::statistics::HistogramTimer`] says why): a put reads it
    /// twice. Readings on cores whose counters disagree are compared with
    /// saturating subtractions throughout.
    fn now(&self) -> u64 {
        clock::nanos_since(self.epoch)
    }

    fn engaged(&self) -> bool {
        self.control.state.load(Ordering::Acquire) != OPEN
    }

    /// Passes the gate for one put: waits for a slot while the gate is
    /// engaged (module docs). `None` when the gate is off or this thread
    /// is inside a put through it already.
    pub(crate) fn enter(&self) -> Option<Admission<'_>> {
        if self.slots.is_empty() {
            return None;
        }
        let mut rec = record(self.id);
        // A write from a callback the engine made during this thread's own
        // write: it must not wait for a slot it holds.
        if rec.inside {
            return None;
        }
        let now = self.now();
        let back = rec
            .left
            .is_some_and(|l| now.saturating_sub(l) < HOT_GAP.as_nanos() as u64);
        rec.streak = if back {
            rec.streak.saturating_add(1)
        } else {
            0
        };
        let continuous = rec.streak >= CONTINUOUS_AFTER;
        let stripe = continuous.then(|| {
            let i = STRIPE.with(|s| *s);
            let count = stripe_count(rec.streak >= LONG_STREAK);
            self.stripes[i].0.fetch_add(count, Ordering::Relaxed);
            (i, count)
        });
        rec.inside = true;
        set_record(rec);
        let engaged_gate = self.maybe_sample(now);
        let (slot, waited) = if self.engaged() {
            self.take_slot(rec.lease)
        } else {
            (None, None)
        };
        Some(Admission {
            gate: self,
            slot,
            stripe,
            back,
            engaged_gate,
            waited,
        })
    }

    /// Once per [`SAMPLE_PERIOD`]: counts the continuous threads in the
    /// write path and applies the policy. True when this sample engaged
    /// the gate.
    fn maybe_sample(&self, now: u64) -> bool {
        let due = self.control.next_sample.load(Ordering::Relaxed);
        if now < due
            || self
                .control
                .next_sample
                .compare_exchange(
                    due,
                    now + SAMPLE_PERIOD.as_nanos() as u64,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                )
                .is_err()
        {
            return false;
        }
        self.sample()
    }

    /// Counts the continuous threads in the write path and applies the
    /// policy; engages or disengages the gate as it says. True when it
    /// engaged the gate.
    fn sample(&self) -> bool {
        let Some(mut d) = self.demand.try_lock() else {
            return false;
        };
        let sum: u64 = self
            .stripes
            .iter()
            .map(|s| s.0.load(Ordering::Relaxed))
            .sum();
        let next = next_demand(*d, Sample::of_stripes(sum), self.limit());
        *d = next;
        #[cfg(test)]
        if self.control.state.load(Ordering::Relaxed) == PINNED {
            return false;
        }
        match (self.engaged(), next.engaged) {
            (false, true) => {
                #[cfg(test)]
                self.engagements.fetch_add(1, Ordering::SeqCst);
                self.control.state.store(ENGAGED, Ordering::Release);
                return true;
            }
            (true, false) => {
                self.control.state.store(OPEN, Ordering::Release);
                // Invariant 3: after the state, under the lock.
                let mut q = self.queue.lock();
                for w in q.drain(..) {
                    w.slot.store(PASS, Ordering::Release);
                    w.thread.unpark();
                }
                self.waiting.store(0, Ordering::Relaxed);
            }
            _ => {}
        }
        false
    }

    /// A slot for this thread's put: its lease's, or one it waits for
    /// (`None` when the gate disengaged meanwhile); and how long it slept
    /// in line, if it did.
    fn take_slot(&self, lease: Option<(usize, u64)>) -> (Option<(usize, u64)>, Option<Duration>) {
        if let Some((slot, token)) = lease {
            if self.slots[slot]
                .state
                .compare_exchange(
                    token << 1,
                    token << 1 | INSIDE,
                    Ordering::Acquire,
                    Ordering::Relaxed,
                )
                .is_ok()
            {
                return (Some((slot, token)), None);
            }
            // Taken while this thread was outside the engine.
            set_lease(self.id, None);
        }
        self.enter_slow()
    }

    fn enter_slow(&self) -> (Option<(usize, u64)>, Option<Duration>) {
        let me = {
            let mut q = self.queue.lock();
            // Invariant 3: the line is joined only while engaged.
            if !self.engaged() {
                return (None, None);
            }
            if q.is_empty()
                && let Some(a) = self.take_free_or_idle_slot()
            {
                return (Some(a), None);
            }
            let me = Arc::new(Waiter {
                slot: AtomicUsize::new(NO_SLOT),
                token: AtomicU64::new(0),
                thread: std::thread::current(),
            });
            q.push_back(me.clone());
            self.waiting.store(q.len(), Ordering::Relaxed);
            #[cfg(test)]
            self.queued.fetch_add(1, Ordering::SeqCst);
            me
        };
        crate::perf_timer!(write_thread_wait_nanos);
        let queued = Instant::now();
        loop {
            match me.slot.load(Ordering::Acquire) {
                NO_SLOT => {}
                PASS => return (None, Some(queued.elapsed())),
                slot => {
                    let token = me.token.load(Ordering::Relaxed);
                    set_lease(self.id, Some((slot, token)));
                    return (Some((slot, token)), Some(queued.elapsed()));
                }
            }
            let first = self
                .queue
                .lock()
                .front()
                .is_some_and(|f| Arc::ptr_eq(f, &me));
            if first {
                std::thread::park_timeout(self.next_poll());
                let mut q = self.queue.lock();
                // A slot handed to this waiter (or its pass) is set under
                // this lock.
                if me.slot.load(Ordering::Acquire) == NO_SLOT
                    && let Some(a) = self.take_free_or_idle_slot()
                {
                    self.pop_first(&mut q);
                    return (Some(a), Some(queued.elapsed()));
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
            let st = s.state.load(Ordering::Acquire);
            if st == 0 {
                return MIN_POLL;
            }
            if st & INSIDE == 0 {
                let since = now.saturating_sub(s.left.load(Ordering::Relaxed));
                if since >= BUSY_GAP.as_nanos() as u64 {
                    wait = wait.min(Duration::from_nanos(idle.saturating_sub(since)));
                }
            }
        }
        wait.max(MIN_POLL)
    }

    /// Under the queue lock: a free slot, or one whose holder has been
    /// outside the engine for [`IDLE_STEAL`], now this thread's.
    fn take_free_or_idle_slot(&self) -> Option<(usize, u64)> {
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
                return Some((i, token));
            }
        }
        None
    }

    /// This thread leaves a put; see [`Self::leave_slot`] for its slot.
    fn leave(&self, slot: Option<(usize, u64)>, stripe: Option<(usize, u64)>, back: bool) {
        let now = self.now();
        if let Some((i, count)) = stripe {
            self.stripes[i].0.fetch_sub(count, Ordering::Relaxed);
        }
        let mut lease = record(self.id).lease;
        if let Some((slot, token)) = slot {
            lease = self.leave_slot(slot, token, now, back);
        }
        set_record(Record {
            lease,
            left: Some(now),
            inside: false,
            ..record(self.id)
        });
    }

    /// The holder of `slot` leaves a put: keeps its lease (returned) if its
    /// put began within [`HOT_GAP`] of its last one (`keep`), unless its turn is over and a thread
    /// waits; else hands the slot to the first waiter, or frees it.
    fn leave_slot(&self, slot: usize, token: u64, now: u64, keep: bool) -> Option<(usize, u64)> {
        let s = &self.slots[slot];
        if self.waiting.load(Ordering::Relaxed) > 0
            && (!keep || now.saturating_sub(s.turn_began.load(Ordering::Relaxed)) >= self.quantum)
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
                return None;
            }
        }
        s.left.store(now, Ordering::Relaxed);
        if keep {
            s.state.store(token << 1, Ordering::Release);
            Some((slot, token))
        } else {
            s.state.store(0, Ordering::Release);
            None
        }
    }
}

impl Drop for Admission<'_> {
    fn drop(&mut self) {
        self.gate.leave(self.slot, self.stripe, self.back);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    fn d(engaged: bool, run: u32) -> Demand {
        Demand {
            engaged,
            run,
            long_run: 0,
        }
    }

    fn dl(run: u32, long_run: u32) -> Demand {
        Demand {
            engaged: false,
            run,
            long_run,
        }
    }

    fn s(demand: usize, long: usize) -> Sample {
        Sample { demand, long }
    }

    /// The policy, case by case: (state, demand, limit) → next state.
    #[test]
    fn next_demand_engages_and_disengages_only_after_a_run_of_samples() {
        let e = ENGAGE_AFTER;
        let x = DISENGAGE_AFTER;
        let cases = [
            // Open, demand at or below the limit: stays open, run reset.
            (d(false, 0), 0, 2, d(false, 0)),
            (d(false, 0), 2, 2, d(false, 0)),
            (d(false, 5), 1, 2, d(false, 0)),
            // Open, demand above: counts up, engages at ENGAGE_AFTER.
            (d(false, 0), 3, 2, d(false, 1)),
            (d(false, e - 2), 8, 2, d(false, e - 1)),
            (d(false, e - 1), 8, 2, d(true, 0)),
            (d(false, e - 1), 2, 2, d(false, 0)),
            // A service's longest burst in range (module docs) does not.
            (d(false, 3_570), 8, 2, d(false, 3_571)),
            // Engaged, demand above: stays engaged, run reset.
            (d(true, 0), 8, 2, d(true, 0)),
            (d(true, 7), 3, 2, d(true, 0)),
            // Engaged, demand at or below: counts up, disengages at
            // DISENGAGE_AFTER.
            (d(true, 0), 2, 2, d(true, 1)),
            (d(true, x - 2), 0, 2, d(true, x - 1)),
            (d(true, x - 1), 0, 2, d(false, 0)),
            (d(true, x - 1), 3, 2, d(true, 0)),
            // A limit of one: two continuous writers are too many.
            (d(false, e - 1), 2, 1, d(true, 0)),
            (d(false, e - 1), 1, 1, d(false, 0)),
            // More than MAX_DEMAND_PER_SLOT per slot: as at or below the
            // limit (the line would rotate too slowly to help).
            (d(false, 0), 2 * MAX_DEMAND_PER_SLOT, 2, d(false, 1)),
            (d(false, e - 1), 2 * MAX_DEMAND_PER_SLOT + 1, 2, d(false, 0)),
            (d(false, e - 1), 256, 2, d(false, 0)),
            (d(true, 0), 256, 2, d(true, 1)),
            (d(true, x - 1), 256, 2, d(false, 0)),
            (d(true, x - 1), 2 * MAX_DEMAND_PER_SLOT, 2, d(true, 0)),
        ];
        for (i, (state, demand, limit, want)) in cases.into_iter().enumerate() {
            assert_eq!(
                next_demand(state, s(demand, 0), limit),
                want,
                "case {i}: {state:?}, demand {demand}, limit {limit}"
            );
        }
        // Engaging takes a sustained demand (module docs): at least half a
        // second of samples.
        const { assert!(ENGAGE_AFTER as u128 * SAMPLE_PERIOD.as_micros() >= 500_000) };
        const { assert!(DISENGAGE_AFTER < ENGAGE_AFTER) };
    }

    /// The second way in: a demand in range with more than the limit
    /// long-running threads in it engages after a run of
    /// `ENGAGE_AFTER_LONG` samples; long-running threads out of range, or
    /// at most the limit of them, count for the long run nothing.
    #[test]
    fn next_demand_engages_sooner_for_long_running_writers() {
        let l = ENGAGE_AFTER_LONG;
        let e = ENGAGE_AFTER;
        let cases = [
            // More than the limit long-running, in range: both runs count.
            (dl(0, 0), s(3, 3), 2, dl(1, 1)),
            (dl(10, 0), s(8, 3), 2, dl(11, 1)),
            (dl(l - 2, l - 2), s(8, 8), 2, dl(l - 1, l - 1)),
            (dl(l - 1, l - 1), s(8, 8), 2, d(true, 0)),
            (dl(e - 100, l - 1), s(4, 3), 2, d(true, 0)),
            // The limit or fewer long-running: the long run restarts, the
            // other goes on.
            (dl(l - 1, l - 1), s(8, 2), 2, dl(l, 0)),
            (dl(e - 1, 0), s(8, 2), 2, d(true, 0)),
            // A demand out of range: both restart, long-running or not.
            (dl(l - 1, l - 1), s(2, 2), 2, dl(0, 0)),
            (dl(l - 1, l - 1), s(17, 17), 2, dl(0, 0)),
            // A limit of one: two long-running writers are too many.
            (dl(l - 1, l - 1), s(2, 2), 1, d(true, 0)),
            (dl(l - 1, l - 1), s(2, 1), 1, dl(l, 0)),
            // Engaged: long-running threads change nothing.
            (d(true, 3), s(2, 2), 2, d(true, 4)),
            (d(true, 3), s(8, 8), 2, d(true, 0)),
        ];
        for (i, (state, sample, limit, want)) in cases.into_iter().enumerate() {
            assert_eq!(
                next_demand(state, sample, limit),
                want,
                "case {i}: {state:?}, {sample:?}, limit {limit}"
            );
        }
        const { assert!(ENGAGE_AFTER_LONG < ENGAGE_AFTER) };
        const { assert!(LONG_STREAK > CONTINUOUS_AFTER) };
    }

    /// A stripe's two counts never run into each other.
    #[test]
    fn stripe_counts_keep_long_running_threads_apart() {
        let c = stripe_count(true) * 3 + stripe_count(false) * 5;
        assert_eq!(Sample::of_stripes(c), s(8, 3));
    }

    /// Runs `threads` threads of `puts` gated puts each, or until `stop`;
    /// returns the most threads seen inside a slot at once.
    fn hammer(gate: &Arc<WriteGate>, threads: usize, puts: usize, stop: &Arc<AtomicBool>) -> usize {
        let inside = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let (gate, inside, most, stop) =
                    (gate.clone(), inside.clone(), most.clone(), stop.clone());
                std::thread::spawn(move || {
                    for _ in 0..puts {
                        if stop.load(Ordering::Relaxed) {
                            break;
                        }
                        let a = gate.enter().expect("the gate is on");
                        let held = a.slot.is_some();
                        if held {
                            let n = inside.fetch_add(1, Ordering::SeqCst) + 1;
                            most.fetch_max(n, Ordering::SeqCst);
                        }
                        for _ in 0..200 {
                            std::hint::spin_loop();
                        }
                        if held {
                            inside.fetch_sub(1, Ordering::SeqCst);
                        }
                        drop(a);
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        most.load(Ordering::SeqCst)
    }

    fn pinned(limit: usize, quantum: Duration) -> Arc<WriteGate> {
        let gate = Arc::new(WriteGate::new(limit, quantum));
        gate.pin_engaged();
        gate
    }

    #[test]
    fn never_more_threads_inside_than_slots_and_every_put_gets_in() {
        let gate = pinned(2, Duration::from_micros(50));
        let most = hammer(&gate, 8, 5_000, &Arc::new(AtomicBool::new(false)));
        assert!(most <= 2, "{most} threads inside at once");
        assert!(gate.queue.lock().is_empty());
    }

    /// The service shape: many threads, each writing now and then (a pause
    /// of a millisecond or more between two puts of a thread, longer than
    /// `HOT_GAP`): none is ever continuous, so the gate never engages, and
    /// no put takes a slot or waits.
    #[test]
    fn occasional_writers_never_wait_at_the_gate() {
        let gate = Arc::new(WriteGate::new(2, QUANTUM));
        let slots_taken = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..64)
            .map(|_| {
                let (gate, slots_taken) = (gate.clone(), slots_taken.clone());
                std::thread::spawn(move || {
                    for _ in 0..20 {
                        let a = gate.enter().expect("the gate is on");
                        if a.slot.is_some() {
                            slots_taken.fetch_add(1, Ordering::SeqCst);
                        }
                        for _ in 0..200 {
                            std::hint::spin_loop();
                        }
                        drop(a);
                        std::thread::sleep(HOT_GAP * 5);
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(gate.engagements.load(Ordering::SeqCst), 0);
        assert_eq!(gate.waits(), 0, "a put waited at the gate");
        assert_eq!(slots_taken.load(Ordering::SeqCst), 0);
        assert!(!gate.engaged());
    }

    /// The bulk-import shape: eight threads writing flat out through a gate
    /// of two slots engage it (and some wait); at most two are ever inside
    /// a slot. When they stop and one thread writes now and then, the gate
    /// disengages and its puts take no slot.
    #[test]
    fn saturating_writers_engage_the_gate_and_never_exceed_its_slots() {
        let gate = Arc::new(WriteGate::new(2, Duration::from_micros(50)));
        let stop = Arc::new(AtomicBool::new(false));
        let watcher = {
            let (gate, stop) = (gate.clone(), stop.clone());
            std::thread::spawn(move || {
                while gate.engagements.load(Ordering::SeqCst) == 0 || gate.waits() < 100 {
                    if stop.load(Ordering::SeqCst) {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
                stop.store(true, Ordering::SeqCst);
            })
        };
        // Bounded: the puts end whether the gate engaged or not.
        let most = hammer(&gate, 8, 2_000_000, &stop);
        stop.store(true, Ordering::SeqCst);
        watcher.join().unwrap();
        assert!(most <= 2, "{most} threads inside a slot at once");
        assert!(
            gate.engagements.load(Ordering::SeqCst) >= 1,
            "eight saturating writers never engaged a gate of two slots"
        );
        assert!(gate.waits() >= 100, "{} waits", gate.waits());
        // One occasional writer: each put samples (the period is shorter
        // than its pause), each sample finds no continuous thread.
        let mut last = None;
        for _ in 0..(DISENGAGE_AFTER + 4) {
            let a = gate.enter().expect("the gate is on");
            last = Some(a.slot.is_some());
            drop(a);
            std::thread::sleep(HOT_GAP * 5);
        }
        assert!(!gate.engaged(), "the gate stayed engaged without demand");
        assert_eq!(last, Some(false), "a put through an open gate took a slot");
        assert!(gate.queue.lock().is_empty());
    }

    /// Invariant 3: a disengage lets every waiter through, without a slot.
    #[test]
    fn disengaging_lets_the_waiters_through() {
        let gate = Arc::new(WriteGate::new(1, QUANTUM));
        // Samples are taken by this test only.
        gate.control.next_sample.store(u64::MAX, Ordering::SeqCst);
        gate.control.state.store(ENGAGED, Ordering::SeqCst);
        *gate.demand.lock() = d(true, 0);
        let held = gate.enter().expect("the gate is on");
        assert!(held.slot.is_some());
        let waiters: Vec<_> = (0..3)
            .map(|_| {
                let g = gate.clone();
                std::thread::spawn(move || g.enter().expect("the gate is on").slot)
            })
            .collect();
        while gate.waiting() < 3 {
            std::thread::yield_now();
        }
        // No continuous thread in the write path: each sample counts down.
        for _ in 0..DISENGAGE_AFTER {
            assert!(!gate.sample(), "a sample without demand engaged the gate");
        }
        assert!(!gate.engaged());
        for w in waiters {
            assert_eq!(w.join().unwrap(), None, "let through without a slot");
        }
        assert_eq!(gate.waiting(), 0);
        drop(held);
    }

    /// Threads that leave while holding leases (the pool's threads end) do
    /// not hold the next threads up: their slots are taken once idle.
    #[test]
    fn leases_of_threads_that_stopped_writing_are_taken_by_new_threads() {
        let gate = pinned(2, QUANTUM);
        let go = Arc::new(AtomicBool::new(false));
        assert!(hammer(&gate, 2, 10, &go) <= 2);
        // Both slots may be leased to threads that have ended.
        assert!(hammer(&gate, 3, 10, &go) <= 2);
    }

    #[test]
    fn a_thread_waiting_outside_the_engine_does_not_deadlock_one_waiting_at_the_gate() {
        // Thread A holds the only slot and waits, outside the engine, for
        // thread B, which must get past the gate first. (A's second put
        // begins within HOT_GAP of its first unless A is descheduled between
        // the two: it keeps its lease; either way B must get in.)
        let gate = pinned(1, QUANTUM);
        let b_done = Arc::new(AtomicBool::new(false));
        drop(gate.enter());
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
        let gate = pinned(1, Duration::ZERO);
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
        let (a, b) = (pinned(1, QUANTUM), pinned(1, QUANTUM));
        // A first put keeps no lease.
        drop(a.enter());
        drop(b.enter());
        assert_eq!((lease_in(a.id), lease_in(b.id)), (None, None));
        // The next ones are, and keep the same leases from put to put
        // (tried again when this thread is descheduled between two puts
        // for longer than HOT_GAP, which frees them).
        let kept = (0..100).any(|_| {
            drop(a.enter());
            drop(b.enter());
            let (la, lb) = (lease_in(a.id), lease_in(b.id));
            for _ in 0..3 {
                drop(a.enter());
                drop(b.enter());
            }
            la.is_some() && lb.is_some() && (lease_in(a.id), lease_in(b.id)) == (la, lb)
        });
        assert!(
            kept,
            "a thread writing back to back lost its leases at every try"
        );
        // Forgetting one keeps the other.
        let lb = lease_in(b.id);
        set_lease(a.id, None);
        assert_eq!((lease_in(a.id), lease_in(b.id)), (None, lb));
    }

    #[test]
    fn a_thread_inside_that_enters_again_does_not_wait_for_itself() {
        for gate in [WriteGate::new(1, QUANTUM), {
            let g = WriteGate::new(1, QUANTUM);
            g.pin_engaged();
            g
        }] {
            let outer = gate.enter().expect("the gate is on");
            assert!(gate.enter().is_none(), "a nested write passes the gate");
            drop(outer);
            drop(gate.enter().expect("the gate is on"));
        }
    }

    #[test]
    fn a_gate_of_no_slots_lets_every_writer_in() {
        let gate = WriteGate::new(0, QUANTUM);
        let a: Vec<_> = (0..100).map(|_| gate.enter()).collect();
        assert!(a.iter().all(Option::is_none));
    }
}
