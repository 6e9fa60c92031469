//! Applying the write controller ([`crate::write_controller`]) in the DB:
//! re-evaluating the condition whenever a new super version is installed,
//! logging each change once, pacing or stopping write groups, and counting
//! stalls per cause.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::{DbInner, DbState};
use crate::compaction::estimated_pending_compaction_bytes;
use crate::compaction::universal::stall_run_count;
use crate::error::{Error, Result};
use crate::info_log;
use crate::options::CompactionStyle;
use crate::rate_limiter::IoPriority;
use crate::write_controller::{
    DEFAULT_DELAYED_RATE, DelayedRate, Pacer, StallCause, StallInputs, StallLimits, WriteCondition,
    evaluate,
};

/// [`WriteSignals::condition`] values.
pub(crate) const NORMAL: u8 = 0;
pub(crate) const DELAYED: u8 = 1;
pub(crate) const STOPPED: u8 = 2;

/// What the write path reads of the stall state without the DB mutex: the
/// write leader checks `condition` once per group and takes the DB mutex
/// only when writes are held; the pacer charges `prev_group_bytes`.
///
/// Thread-safety and invariants: atomics only. `condition`, `held_cause`
/// and `compaction_pressure` are mirrors of `DbState::stall` (condition,
/// cause, pressure), stored under the DB mutex whenever a super version is
/// installed ([`WriteSignals::publish`]), so they may lag the state by one
/// store and no more; `prev_group_bytes` is stored by each write leader.
pub(crate) struct WriteSignals {
    /// [`NORMAL`], [`DELAYED`] or [`STOPPED`].
    pub(crate) condition: AtomicU8,
    /// Why writes are held right now: [`held_code`] of the condition (0
    /// when not held). Shared with the rate-limited output files of
    /// running flushes and compactions, which read it for each write's IO
    /// priority ([`output_io_priority`]), and with the read charger.
    pub(crate) held_cause: Arc<AtomicU8>,
    /// Compaction pressure (mirror of `StallControl::pressure`).
    pub(crate) compaction_pressure: AtomicBool,
    /// Bytes of the previous write group (charged by the delayed-write pacer).
    pub(crate) prev_group_bytes: AtomicU64,
}

impl WriteSignals {
    pub(crate) fn new() -> Self {
        WriteSignals {
            condition: AtomicU8::new(NORMAL),
            held_cause: Arc::new(AtomicU8::new(0)),
            compaction_pressure: AtomicBool::new(false),
            prev_group_bytes: AtomicU64::new(0),
        }
    }

    /// Writes are neither delayed nor stopped (as last published).
    #[inline]
    pub(crate) fn is_normal(&self) -> bool {
        self.condition.load(Ordering::Acquire) == NORMAL
    }

    /// Publishes `cond`: its code and its cause. Caller: holding the DB
    /// mutex, after storing `cond` in `DbState::stall`.
    fn publish(&self, cond: WriteCondition) {
        let code = match cond {
            WriteCondition::Normal => NORMAL,
            WriteCondition::Delayed(_) => DELAYED,
            WriteCondition::Stopped(_) => STOPPED,
        };
        self.condition.store(code, Ordering::Release);
        self.held_cause.store(held_code(cond), Ordering::Release);
    }
}

/// Stall bookkeeping, under the DB mutex.
pub(crate) struct StallControl {
    pub(crate) limits: StallLimits,
    pub(crate) condition: WriteCondition,
    pub(crate) inputs: StallInputs,
    pub(crate) rate: DelayedRate,
    pacer: Pacer,
    low_pri_pacer: Pacer,
    /// More than one compaction may run (RocksDB's "compaction pressure").
    pub(crate) pressure: bool,
    /// Re-evaluations that found writes delayed / stopped, per cause
    /// (RocksDB's `*-delays` / `*-stops` counters).
    pub(crate) delays: [u64; 3],
    pub(crate) stops: [u64; 3],
    /// Microseconds write groups spent held, by [`held_index`] (memtable
    /// limit, L0 slowdown, L0 stop, pending compaction bytes) and in total.
    pub(crate) micros: [u64; 4],
    pub(crate) total_micros: u64,
    /// Write groups that were held at least once.
    pub(crate) stalled_writes: u64,
}

impl StallControl {
    pub(crate) fn new(opts: &crate::options::Options) -> Self {
        let max = if opts.delayed_write_rate > 0 {
            opts.delayed_write_rate
        } else {
            DEFAULT_DELAYED_RATE
        };
        StallControl {
            limits: StallLimits::from_options(opts),
            condition: WriteCondition::Normal,
            inputs: StallInputs::default(),
            rate: DelayedRate::new(max),
            pacer: Pacer::default(),
            low_pri_pacer: Pacer::default(),
            pressure: false,
            delays: [0; 3],
            stops: [0; 3],
            micros: [0; 4],
            total_micros: 0,
            stalled_writes: 0,
        }
    }

    /// The delayed write rate in effect, 0 when not delayed.
    pub(crate) fn actual_delayed_rate(&self) -> u64 {
        match self.condition {
            WriteCondition::Delayed(_) => self.rate.rate(),
            _ => 0,
        }
    }
}

impl DbInner {
    /// Re-evaluates the write condition for the current LSM shape. Called
    /// under the DB mutex whenever a new super version is installed.
    pub(crate) fn recalculate_write_stall(&self, st: &mut DbState) {
        // Each family is judged against its own limits (its memtable count,
        // L0 triggers and pending-bytes limits, as RocksDB's per-family
        // write stall conditions) and the worst condition decides for the
        // one write path. `inputs` and `limits` are the deciding family's
        // (with no stall, the family with the most L0 files, whose `v`
        // feeds the pressure estimate below). Pinned by
        // `column_families::a_family_over_its_own_l0_stop_trigger_stops_writes`.
        let auto_compactions = !st.disable_auto_compactions;
        let mut inputs = StallInputs {
            unflushed_memtables: 0,
            l0_files: 0,
            pending_compaction_bytes: 0,
            auto_compactions,
        };
        let mut limits = st.stall.limits;
        let mut cond = WriteCondition::Normal;
        let mut v = st.versions.current();
        for &cf in st.families.keys() {
            let Some((fi, fv)) = self.family_stall_inputs(st, cf) else {
                continue;
            };
            // `fi.auto_compactions` is off for a family whose own auto
            // compactions are off: it is not held by its L0 or pending bytes
            // (nothing would ever compact them), as in RocksDB.
            let fl = if cf == 0 {
                st.stall.limits
            } else {
                StallLimits::from_options(&st.families[&cf].cfd.opts)
            };
            let fc = evaluate(&fi, &fl);
            let worse = severity(fc) > severity(cond)
                || (severity(fc) == severity(cond) && fi.l0_files > inputs.l0_files);
            if worse {
                cond = fc;
                inputs = fi;
                limits = fl;
                v = fv;
            }
        }
        let sc = &mut st.stall;
        let old_rate = sc.rate.rate();
        sc.rate.update(cond, &inputs, &limits);
        match cond {
            WriteCondition::Delayed(c) => sc.delays[c as usize] += 1,
            WriteCondition::Stopped(c) => sc.stops[c as usize] += 1,
            WriteCondition::Normal => {}
        }
        // Compaction pressure (RocksDB): let several compactions run when
        // L0 or the compaction debt is building up.
        let trigger = i64::from(self.opts.level0_file_num_compaction_trigger.max(1));
        let slowdown = limits.l0_slowdown.max(trigger);
        let l0_pressure = (2 * trigger).min(trigger + (slowdown - trigger) / 4);
        let bottom_bytes = (0..v.num_levels())
            .rev()
            .find(|&l| v.num_files(l) > 0)
            .map_or(0, |l| v.level_bytes(l));
        let soft = limits.soft_pending_bytes;
        sc.pressure = cond != WriteCondition::Normal
            || inputs.l0_files as i64 >= l0_pressure
            || soft == 0
            || inputs.pending_compaction_bytes
                >= (bottom_bytes / 8)
                    .max(self.opts.max_bytes_for_level_base.saturating_mul(2))
                    .min(soft / 4);
        // Logged on each change of condition, and (as RocksDB logs every
        // re-evaluation while delayed) each time the delayed rate moves.
        let changed = cond != sc.condition;
        let rate_moved = matches!(cond, WriteCondition::Delayed(_)) && sc.rate.rate() != old_rate;
        if changed || rate_moved {
            self.log_condition_change(sc.condition, cond, &inputs, sc.rate.rate());
        }
        if changed {
            if !matches!(cond, WriteCondition::Delayed(_)) {
                sc.pacer.reset();
            }
            sc.condition = cond;
        }
        sc.inputs = inputs;
        self.write_signals.publish(cond);
        self.bg_cv.notify_all();
    }

    /// The write controller's inputs for family `cf` alone, with the
    /// version they were read from; `None` for a family that is gone. The
    /// L0 count is what the family's style stalls on (RocksDB's
    /// `l0_delay_trigger_count`): L0 files for leveled compaction, sorted
    /// runs for universal, nothing for FIFO (whose L0 triggers are off);
    /// pending compaction bytes are estimated for leveled compaction only.
    pub(crate) fn family_stall_inputs(
        &self,
        st: &DbState,
        cf: u32,
    ) -> Option<(StallInputs, Arc<crate::version::Version>)> {
        let f = st.families.get(&cf)?;
        let fv = st.versions.current_cf(cf)?;
        let o = &f.cfd.opts;
        let (l0_files, pending_compaction_bytes) = match o.compaction_style {
            CompactionStyle::Level => (
                fv.num_files(0),
                estimated_pending_compaction_bytes(&fv, &f.cfd.picker_opts),
            ),
            CompactionStyle::Universal => (stall_run_count(&fv), 0),
            CompactionStyle::Fifo => (0, 0),
        };
        Some((
            StallInputs {
                unflushed_memtables: f.imm.len(),
                l0_files,
                pending_compaction_bytes,
                auto_compactions: !st.disable_auto_compactions && !o.disable_auto_compactions,
            },
            fv,
        ))
    }

    fn log_condition_change(
        &self,
        old: WriteCondition,
        new: WriteCondition,
        i: &StallInputs,
        rate: u64,
    ) {
        let max = self.opts.max_write_buffer_number;
        match new {
            WriteCondition::Stopped(StallCause::MemtableLimit) => info_log!(
                self.info_log,
                Warn,
                "Stopping writes because we have {} immutable memtables (waiting for flush), max_write_buffer_number is set to {max}",
                i.unflushed_memtables
            ),
            WriteCondition::Stopped(StallCause::L0FileCount) => info_log!(
                self.info_log,
                Warn,
                "Stopping writes because we have {} level-0 files",
                i.l0_files
            ),
            WriteCondition::Stopped(StallCause::PendingCompactionBytes) => info_log!(
                self.info_log,
                Warn,
                "Stopping writes because of estimated pending compaction bytes {}",
                i.pending_compaction_bytes
            ),
            WriteCondition::Delayed(StallCause::MemtableLimit) => info_log!(
                self.info_log,
                Warn,
                "Stalling writes because we have {} immutable memtables (waiting for flush), max_write_buffer_number is set to {max} rate {rate}",
                i.unflushed_memtables
            ),
            WriteCondition::Delayed(StallCause::L0FileCount) => info_log!(
                self.info_log,
                Warn,
                "Stalling writes because we have {} level-0 files rate {rate}",
                i.l0_files
            ),
            WriteCondition::Delayed(StallCause::PendingCompactionBytes) => info_log!(
                self.info_log,
                Warn,
                "Stalling writes because of estimated pending compaction bytes {} rate {rate}",
                i.pending_compaction_bytes
            ),
            WriteCondition::Normal => info_log!(
                self.info_log,
                Warn,
                "Write stall cleared ({}): {} immutable memtables, {} level-0 files, estimated pending compaction bytes {}",
                old.cause().map_or("none", |c| c.name()),
                i.unflushed_memtables,
                i.l0_files,
                i.pending_compaction_bytes
            ),
        }
    }

    /// Holds a write group while writes are stopped or delayed; the pacer
    /// charges the previous group's size, as RocksDB does. Returns the
    /// microseconds spent held and the condition that held the group.
    pub(crate) fn delay_write(
        self: &Arc<Self>,
        no_slowdown: bool,
        low_pri: bool,
    ) -> Result<Option<(u64, WriteCondition)>> {
        let code = self.write_signals.condition.load(Ordering::Acquire);
        let pressure_low_pri = low_pri
            && self
                .write_signals
                .compaction_pressure
                .load(Ordering::Relaxed);
        if code == NORMAL && !pressure_low_pri {
            return Ok(None);
        }
        let bytes = self.write_signals.prev_group_bytes.load(Ordering::Relaxed);
        let start = Instant::now();
        let mut cause = None;
        let mut st = self.state.lock();
        loop {
            if let Some(e) = &st.bg_error {
                return Err(e.clone());
            }
            self.lifecycle.check_open()?;
            self.lifecycle.check_writes_open()?;
            match st.stall.condition {
                WriteCondition::Stopped(c) => {
                    if no_slowdown {
                        return Err(Error::Incomplete(format!(
                            "Write stall: writes are stopped ({}); no_slowdown is set",
                            c.name()
                        )));
                    }
                    cause = Some(WriteCondition::Stopped(c));
                    self.write_queue
                        .fail_no_slowdown_waiters(&Error::Incomplete(format!(
                            "Write stall: writes are stopped ({}); no_slowdown is set",
                            c.name()
                        )));
                    self.maybe_schedule_work(&mut st);
                    let _wait = crate::perf_context::PerfTimer::start(
                        crate::perf_context::F::db_condition_wait_nanos,
                    );
                    self.bg_cv.wait(&mut st);
                }
                WriteCondition::Delayed(c) => {
                    let rate = st.stall.rate.rate();
                    let d = st.stall.pacer.delay(bytes, rate, Instant::now());
                    if d.is_zero() {
                        break;
                    }
                    if no_slowdown {
                        return Err(Error::Incomplete(format!(
                            "Write stall: writes are delayed ({}); no_slowdown is set",
                            c.name()
                        )));
                    }
                    cause = Some(WriteCondition::Delayed(c));
                    self.write_queue
                        .fail_no_slowdown_waiters(&Error::Incomplete(format!(
                            "Write stall: writes are delayed ({}); no_slowdown is set",
                            c.name()
                        )));
                    // Sleep in 1 ms slices, leaving early if the delay clears.
                    let until = Instant::now() + d;
                    drop(st);
                    loop {
                        let now = Instant::now();
                        if now >= until
                            || self.write_signals.condition.load(Ordering::Acquire) != DELAYED
                            || self.lifecycle.writes_stopped()
                        {
                            break;
                        }
                        std::thread::sleep((until - now).min(Duration::from_micros(1001)));
                    }
                    st = self.state.lock();
                    break;
                }
                WriteCondition::Normal => break,
            }
        }
        if low_pri && (st.stall.condition != WriteCondition::Normal || st.stall.pressure) {
            // Low-priority writes are throttled first: at a quarter of the delayed rate.
            let rate = (st.stall.rate.rate() / 4).max(1);
            let d = st.stall.low_pri_pacer.delay(bytes, rate, Instant::now());
            if !d.is_zero() {
                if no_slowdown {
                    return Err(Error::Incomplete(
                        "Low priority write stall; no_slowdown is set".into(),
                    ));
                }
                cause = cause.or(Some(WriteCondition::Delayed(
                    st.stall
                        .condition
                        .cause()
                        .unwrap_or(StallCause::PendingCompactionBytes),
                )));
                drop(st);
                std::thread::sleep(d);
                st = self.state.lock();
            }
        }
        let Some(cause) = cause else {
            return Ok(None);
        };
        let micros = start.elapsed().as_micros() as u64;
        st.stall.micros[held_index(cause)] += micros;
        st.stall.total_micros += micros;
        st.stall.stalled_writes += 1;
        Ok(Some((micros, cause)))
    }
}

/// Index of the per-cause stall counters: 0 memtable limit, 1 L0 slowdown,
/// 2 L0 stop, 3 pending compaction bytes.
pub(crate) fn held_index(c: WriteCondition) -> usize {
    match c {
        WriteCondition::Delayed(StallCause::MemtableLimit)
        | WriteCondition::Stopped(StallCause::MemtableLimit) => 0,
        WriteCondition::Delayed(StallCause::L0FileCount) => 1,
        WriteCondition::Stopped(StallCause::L0FileCount) => 2,
        WriteCondition::Delayed(StallCause::PendingCompactionBytes)
        | WriteCondition::Stopped(StallCause::PendingCompactionBytes)
        | WriteCondition::Normal => 3,
    }
}

/// [`WriteSignals::held_cause`] for a condition: 0 when writes are not held, else
/// 1 + the [`StallCause`].
pub(crate) fn held_code(c: WriteCondition) -> u8 {
    c.cause().map_or(0, |cause| 1 + cause as u8)
}

/// The rate-limiter priority of a flush's (`flush`) or compaction's output
/// write while writes are held for the cause coded `held` ([`held_code`]).
///
/// Flush output is `High`, compaction output `Low`; while writes are held,
/// work that can release them is served first (`User`, RocksDB's `IO_USER`).
/// RocksDB raises every flush and compaction while any stall lasts, and
/// decides when an output file is opened. We differ in two ways, both for
/// the same stop: a memtable-limit stall is released only by flushes, so
/// compaction output stays `Low` then instead of taking the refills the
/// flush waits for; and the priority is decided per write, so a flush that
/// began before the stall is raised with it. Otherwise, under a
/// writes-only limiter, flushes opened at `High` queued behind compaction
/// files opened at `User` during a pending-bytes slowdown while writers
/// stood stopped.
pub(crate) fn output_io_priority(flush: bool, held: u8) -> IoPriority {
    let memtable_limit = 1 + StallCause::MemtableLimit as u8;
    match (flush, held) {
        (true, 0) => IoPriority::High,
        (true, _) => IoPriority::User,
        (false, 0) => IoPriority::Low,
        (false, h) if h == memtable_limit => IoPriority::Low,
        (false, _) => IoPriority::User,
    }
}

/// Names of the per-cause stall counters, in [`held_index`] order.
pub(crate) const HELD_NAMES: [&str; 4] = [
    "memtable-limit",
    "l0-file-count-slowdown",
    "l0-file-count-stop",
    "pending-compaction-bytes",
];

/// How bad a condition is, to pick the worst family's: normal, delayed,
/// stopped.
fn severity(c: WriteCondition) -> u8 {
    match c {
        WriteCondition::Normal => 0,
        WriteCondition::Delayed(_) => 1,
        WriteCondition::Stopped(_) => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The signals the write leader reads without the DB mutex follow each
    /// published condition, back to normal included (a stale `held_cause`
    /// would keep flush output at user priority after a stall cleared).
    #[test]
    fn write_signals_mirror_each_published_condition() {
        let signals = WriteSignals::new();
        assert!(signals.is_normal());
        for (cond, code) in [
            (WriteCondition::Delayed(StallCause::L0FileCount), DELAYED),
            (WriteCondition::Stopped(StallCause::MemtableLimit), STOPPED),
            (
                WriteCondition::Stopped(StallCause::PendingCompactionBytes),
                STOPPED,
            ),
            (WriteCondition::Normal, NORMAL),
        ] {
            signals.publish(cond);
            assert_eq!(signals.condition.load(Ordering::Acquire), code, "{cond:?}");
            assert_eq!(signals.is_normal(), code == NORMAL, "{cond:?}");
            assert_eq!(
                signals.held_cause.load(Ordering::Acquire),
                held_code(cond),
                "{cond:?}"
            );
        }
        assert_eq!(signals.held_cause.load(Ordering::Acquire), 0);
    }

    #[test]
    fn output_io_priority_table() {
        use IoPriority::{High, Low, User};
        let normal = held_code(WriteCondition::Normal);
        let mem_delay = held_code(WriteCondition::Delayed(StallCause::MemtableLimit));
        let mem_stop = held_code(WriteCondition::Stopped(StallCause::MemtableLimit));
        let l0_delay = held_code(WriteCondition::Delayed(StallCause::L0FileCount));
        let l0_stop = held_code(WriteCondition::Stopped(StallCause::L0FileCount));
        let pending = held_code(WriteCondition::Delayed(StallCause::PendingCompactionBytes));
        let pending_stop = held_code(WriteCondition::Stopped(StallCause::PendingCompactionBytes));
        assert_eq!(normal, 0);
        // (held, flush output, compaction output)
        for (held, flush, compaction) in [
            (normal, High, Low),
            (mem_delay, User, Low),
            (mem_stop, User, Low),
            (l0_delay, User, User),
            (l0_stop, User, User),
            (pending, User, User),
            (pending_stop, User, User),
        ] {
            assert_eq!(output_io_priority(true, held), flush, "flush, held {held}");
            assert_eq!(
                output_io_priority(false, held),
                compaction,
                "compaction, held {held}"
            );
        }
    }
}
