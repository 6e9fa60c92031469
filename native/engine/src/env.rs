//! The environment of the background thread pools: RocksDB's `Env` thread
//! priorities, as far as Talus has them.
//!
//! Each database runs two pools ([`crate::db`]): flushes in the
//! [`Priority::High`] pool and compactions in the [`Priority::Low`] pool, as
//! RocksDB does when flushes have threads of their own. Talus has no
//! [`Priority::Bottom`] pool: bottommost compactions run in the low pool,
//! which is what RocksDB does while its bottom pool has no threads (its
//! default), so lowering the bottom pool changes no thread.
//!
//! An [`Env`] holds, per pool priority, the CPU priority its threads should
//! run at. [`Env::lower_thread_pool_cpu_priority`] only ever lowers it (a
//! request for a higher priority than the current one is ignored, as in
//! RocksDB); every pool thread compares its own priority with its `Env`'s
//! before each job and lowers itself when they differ, so the change reaches
//! the threads of databases already open at their next job and the threads
//! of databases opened later from the start.
//!
//! On Linux a CPU priority is a thread's nice value (`setpriority` on its
//! thread id, which lowers only that thread): [`CpuPriority::Low`] is nice
//! 19, the lowest weight the scheduler gives a normal thread (RocksDB's
//! `kLow`). A thread may always lower its own priority; if the OS refuses
//! anyway (a sandbox without the system call), the thread keeps running at
//! its priority and tries again at its next job.
//!
//! Why a user wants it: with more foreground threads than cores, compaction
//! threads at the same weight as the writers take the CPU the write queue's
//! leader needs, and every writer parked behind that leader waits for it
//! (docs/results/bulk-import.md).
//!
//! Thread-safety: an `Env` is shared by every database and pool that uses
//! it; all its methods take `&self`.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};

/// A background pool, by RocksDB's `Env::Priority` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    /// Bottommost compactions; Talus runs them in the [`Priority::Low`] pool.
    Bottom,
    /// Compactions.
    Low,
    /// Flushes (and the purge of obsolete files).
    High,
}

impl Priority {
    fn index(self) -> usize {
        match self {
            Priority::Bottom => 0,
            Priority::Low => 1,
            Priority::High => 2,
        }
    }
}

/// The CPU priority of a pool's threads, from highest to lowest weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CpuPriority {
    /// As the threads were started: the process's nice value.
    Normal = 0,
    /// Nice 19 (RocksDB's `kLow`).
    Low = 1,
}

impl CpuPriority {
    fn from_u8(v: u8) -> CpuPriority {
        if v == CpuPriority::Low as u8 {
            CpuPriority::Low
        } else {
            CpuPriority::Normal
        }
    }

    /// The nice value a thread takes for this priority; `None` = leave it.
    fn nice(self) -> Option<i32> {
        match self {
            CpuPriority::Normal => None,
            CpuPriority::Low => Some(19),
        }
    }
}

/// Thread-pool settings shared by the databases that use this `Env`.
#[derive(Debug, Default)]
pub struct Env {
    cpu: [AtomicU8; 3],
}

impl Env {
    /// A new environment, every pool at [`CpuPriority::Normal`].
    pub fn new() -> Env {
        Env::default()
    }

    /// The process-wide environment every [`crate::options::Options`] uses
    /// unless told otherwise (RocksDB's `Env::Default()`).
    pub fn default_env() -> Arc<Env> {
        static DEFAULT: OnceLock<Arc<Env>> = OnceLock::new();
        DEFAULT.get_or_init(|| Arc::new(Env::new())).clone()
    }

    /// Lowers the CPU priority of `pool`'s threads to `priority`, in every
    /// database using this environment, at each thread's next job. Never
    /// raises it: a request above the current priority is ignored.
    pub fn lower_thread_pool_cpu_priority(&self, pool: Priority, priority: CpuPriority) {
        self.cpu[pool.index()].fetch_max(priority as u8, Ordering::Relaxed);
    }

    /// The CPU priority `pool`'s threads run at (from their next job).
    pub fn thread_pool_cpu_priority(&self, pool: Priority) -> CpuPriority {
        CpuPriority::from_u8(self.cpu[pool.index()].load(Ordering::Relaxed))
    }
}

/// The CPU priority a pool thread has given itself; lives on its stack.
#[derive(Debug)]
pub(crate) struct ThreadCpuPriority {
    applied: CpuPriority,
}

impl ThreadCpuPriority {
    pub(crate) fn new() -> ThreadCpuPriority {
        ThreadCpuPriority {
            applied: CpuPriority::Normal,
        }
    }

    /// Called by a pool thread before each job: lowers the calling thread to
    /// `want` if it is below the priority applied so far.
    pub(crate) fn follow(&mut self, want: CpuPriority) {
        if want <= self.applied {
            return;
        }
        if let Some(nice) = want.nice()
            && set_current_thread_nice(nice).is_err()
        {
            return; // retried at the next job
        }
        self.applied = want;
    }
}

#[cfg(target_os = "linux")]
fn set_current_thread_nice(nice: i32) -> std::io::Result<()> {
    // On Linux the nice value belongs to the thread: PRIO_PROCESS with a
    // thread id changes that thread only.
    let tid = rustix::thread::gettid();
    rustix::process::setpriority_process(Some(tid), nice).map_err(std::io::Error::from)
}

#[cfg(not(target_os = "linux"))]
fn set_current_thread_nice(_nice: i32) -> std::io::Result<()> {
    // Elsewhere the nice value is the whole process's: leave it.
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

/// The calling thread's nice value (for tests).
#[cfg(all(test, target_os = "linux"))]
pub(crate) fn current_thread_nice() -> i32 {
    rustix::process::getpriority_process(Some(rustix::thread::gettid())).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowering_never_raises() {
        let env = Env::new();
        assert_eq!(
            env.thread_pool_cpu_priority(Priority::Low),
            CpuPriority::Normal
        );
        env.lower_thread_pool_cpu_priority(Priority::Low, CpuPriority::Low);
        env.lower_thread_pool_cpu_priority(Priority::Low, CpuPriority::Normal);
        assert_eq!(
            env.thread_pool_cpu_priority(Priority::Low),
            CpuPriority::Low
        );
        assert_eq!(
            env.thread_pool_cpu_priority(Priority::High),
            CpuPriority::Normal
        );
        assert_eq!(
            env.thread_pool_cpu_priority(Priority::Bottom),
            CpuPriority::Normal
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_thread_following_low_runs_at_nice_19_and_others_do_not() {
        let before = std::thread::spawn(current_thread_nice).join().unwrap();
        let lowered = std::thread::spawn(|| {
            let mut p = ThreadCpuPriority::new();
            p.follow(CpuPriority::Low);
            let after_low = current_thread_nice();
            p.follow(CpuPriority::Normal); // never raises
            (after_low, current_thread_nice())
        })
        .join()
        .unwrap();
        assert_eq!(lowered, (19, 19));
        let after = std::thread::spawn(current_thread_nice).join().unwrap();
        assert_eq!(before, after, "only the lowered thread changed");
    }
}
