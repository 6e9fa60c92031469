//! Background WAL syncs: `wal_bytes_per_sync` (and, without it, a sync of
//! the WAL every quarter of a memtable) start an fdatasync of the WAL on a
//! thread of their own instead of in the write path, so no writer waits for
//! the disk unless it asked for `sync`. RocksDB does the same with
//! asynchronous range syncs.
//!
//! These syncs are not a durability promise (a write is durable when it is
//! acknowledged with `sync`); they keep the dirty part of the WAL small, so
//! the sync of the old WAL at a memtable switch is short, and they smooth the
//! disk traffic. Requests coalesce: a request made while a sync runs replaces
//! any request still waiting.
//!
//! The same thread runs the durable half of each memtable switch
//! ([`WalSyncer::enqueue`]): the old WAL's fdatasync, the new WAL's first
//! record and the WAL directory entry. Under compaction IO those are slow,
//! and inside the write queue every writer would wait; here they run in order
//! (a FIFO, never coalesced), each with a ticket that a caller needing
//! them done waits for ([`WalSyncer::wait_for`]): a synced write, and a
//! flush before its manifest edit names the new log (module docs of
//! `write`). Switch tasks run before a waiting periodic sync, and all queued
//! ones run before the thread stops.
//!
//! Thread-safety: `request` and `enqueue` may be called from any thread (in
//! practice the write-group leader); the syncer thread owns the handles it
//! syncs.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;

use parking_lot::{Condvar, Mutex};

use crate::error::{Error, Result};
use crate::fs::SyncHandle;

/// The durable half of a memtable switch, run on the syncer thread.
pub(crate) type SwitchTask = Box<dyn FnOnce() -> Result<()> + Send>;

#[derive(Default)]
struct State {
    pending: Option<Box<dyn SyncHandle>>,
    /// Switch tasks not started yet, oldest first, with their tickets.
    tasks: VecDeque<(u64, SwitchTask)>,
    /// Ticket of the last task enqueued (tickets start at 1).
    last_ticket: u64,
    /// A periodic sync taken from `pending` is running.
    syncing: bool,
    /// Every task up to this ticket has finished.
    tasks_done: u64,
    /// The first switch task that failed: its ticket and error. Sticky until
    /// `resume()` clears it: what it was to make durable may not be, so no
    /// wait for it or a later task succeeds.
    task_failure: Option<(u64, Error)>,
    shutdown: bool,
    error: Option<Error>,
}

struct Shared {
    state: Mutex<State>,
    cv: Condvar,
    /// Signalled when a switch task or a periodic sync finishes.
    task_cv: Condvar,
    failed: AtomicBool,
    done: AtomicU64,
}

/// The background WAL syncer of one database.
pub(crate) struct WalSyncer {
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl WalSyncer {
    /// Starts the syncer thread.
    pub(crate) fn new() -> std::io::Result<WalSyncer> {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            cv: Condvar::new(),
            task_cv: Condvar::new(),
            failed: AtomicBool::new(false),
            done: AtomicU64::new(0),
        });
        let s = shared.clone();
        let thread = std::thread::Builder::new()
            .name("talus-walsync".into())
            .spawn(move || run(&s))?;
        Ok(WalSyncer {
            shared,
            thread: Mutex::new(Some(thread)),
        })
    }

    /// Asks for a sync through `handle` (replacing a request not yet started).
    pub(crate) fn request(&self, handle: Box<dyn SyncHandle>) {
        let mut st = self.shared.state.lock();
        if st.shutdown {
            return;
        }
        st.pending = Some(handle);
        drop(st);
        self.shared.cv.notify_one();
    }

    /// Queues `task` behind the switch tasks before it and returns its
    /// ticket. After [`Self::shutdown`] the task runs here, at once.
    pub(crate) fn enqueue(&self, task: SwitchTask) -> u64 {
        let mut st = self.shared.state.lock();
        st.last_ticket += 1;
        let ticket = st.last_ticket;
        if st.shutdown {
            let r = task();
            finish_task(&self.shared, &mut st, ticket, r);
            return ticket;
        }
        st.tasks.push_back((ticket, task));
        drop(st);
        self.shared.cv.notify_one();
        ticket
    }

    /// Waits until every switch task up to `ticket` has finished; fails
    /// if one of them failed.
    pub(crate) fn wait_for(&self, ticket: u64) -> Result<()> {
        let mut st = self.shared.state.lock();
        while st.tasks_done < ticket {
            self.shared.task_cv.wait(&mut st);
        }
        match &st.task_failure {
            Some((t, e)) if *t <= ticket => Err(e.clone()),
            _ => Ok(()),
        }
    }

    /// Forgets every failure, of switch tasks and of periodic syncs, with
    /// the error left for the write path: `resume()` abandoned the logs
    /// they concerned and flushes what those logs held. Call it after
    /// [`Self::wait_idle`], so that no sync still running fails after it.
    pub(crate) fn clear_failures(&self) {
        let mut st = self.shared.state.lock();
        st.task_failure = None;
        st.error = None;
        self.shared.failed.store(false, Ordering::Release);
    }

    /// Waits until the thread has nothing queued or running: every switch
    /// task enqueued so far has finished and no periodic sync is waiting or
    /// running. Afterwards [`Self::failed`] tells whether any of them
    /// failed, and nothing started before this call can fail later.
    /// `resume()` decides on it whether the WAL failed (regression test
    /// `regression_resume_forgets_a_background_wal_sync_that_failed_before_it`).
    /// It must not wait while new syncs keep being requested: `resume()`
    /// calls it with writes refused.
    pub(crate) fn wait_idle(&self) {
        let mut st = self.shared.state.lock();
        // After `shutdown` this ends too: it drops the waiting request and
        // refuses new ones, and the thread runs every queued task first.
        while st.tasks_done < st.last_ticket || st.syncing || st.pending.is_some() {
            self.shared.task_cv.wait(&mut st);
        }
    }

    /// [`Self::wait_for`] every switch task enqueued so far.
    pub(crate) fn wait_for_all(&self) -> Result<()> {
        let last = self.shared.state.lock().last_ticket;
        self.wait_for(last)
    }

    /// Every switch task up to this ticket has finished.
    pub(crate) fn tasks_done(&self) -> u64 {
        self.shared.state.lock().tasks_done
    }

    /// Whether a background sync or switch task failed since the last
    /// [`Self::clear_failures`] (`resume()`). Taking the error
    /// ([`Self::take_error`]) does not reset it.
    pub(crate) fn failed(&self) -> bool {
        self.shared.failed.load(Ordering::Acquire)
    }

    /// The first error of a background sync, once (the caller latches it).
    pub(crate) fn take_error(&self) -> Option<Error> {
        if !self.shared.failed.load(Ordering::Acquire) {
            return None;
        }
        self.shared.state.lock().error.take()
    }

    /// Syncs completed so far.
    pub(crate) fn completed(&self) -> u64 {
        self.shared.done.load(Ordering::Relaxed)
    }

    /// Stops the thread after the sync in progress and the switch tasks
    /// queued; drops a waiting periodic request.
    pub(crate) fn shutdown(&self) {
        {
            let mut st = self.shared.state.lock();
            st.shutdown = true;
            st.pending = None;
        }
        self.shared.cv.notify_all();
        // A `wait_idle` may be waiting for the request just dropped.
        self.shared.task_cv.notify_all();
        if let Some(t) = self.thread.lock().take() {
            let _ = t.join();
        }
    }
}

/// Records that the task with `ticket` (the oldest unfinished) finished.
fn finish_task(s: &Shared, st: &mut State, ticket: u64, r: Result<()>) {
    // `max`: a task run inline after shutdown may finish before the
    // thread's last one (only while the database closes).
    st.tasks_done = st.tasks_done.max(ticket);
    if let Err(e) = r {
        if st.task_failure.is_none() {
            st.task_failure = Some((ticket, e.clone()));
        }
        if st.error.is_none() {
            st.error = Some(e);
        }
        s.failed.store(true, Ordering::Release);
    }
    s.task_cv.notify_all();
}

fn run(s: &Shared) {
    loop {
        let mut handle = {
            let mut st = s.state.lock();
            loop {
                if let Some((ticket, task)) = st.tasks.pop_front() {
                    let r = parking_lot::MutexGuard::unlocked(&mut st, task);
                    finish_task(s, &mut st, ticket, r);
                    continue;
                }
                if st.shutdown {
                    return;
                }
                if let Some(h) = st.pending.take() {
                    st.syncing = true;
                    break h;
                }
                s.cv.wait(&mut st);
            }
        };
        let r = handle.sync();
        let mut st = s.state.lock();
        match r {
            Ok(()) => {
                s.done.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                if st.error.is_none() {
                    st.error = Some(e);
                }
                s.failed.store(true, Ordering::Release);
            }
        }
        st.syncing = false;
        drop(st);
        s.task_cv.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::{FileSystem, StdFileSystem, WriteFileOptions};

    #[test]
    fn syncs_in_the_background_and_coalesces() {
        let dir = tempfile::tempdir().unwrap();
        let fs = StdFileSystem;
        let mut f = fs
            .new_writable(&dir.path().join("w.log"), WriteFileOptions::default())
            .unwrap();
        let syncer = WalSyncer::new().unwrap();
        for _ in 0..100 {
            f.append(&[1u8; 4096]).unwrap();
            f.flush().unwrap();
            syncer.request(f.sync_handle().unwrap());
        }
        // At least the last request runs; earlier ones may have been replaced.
        let start = std::time::Instant::now();
        while syncer.completed() == 0 {
            assert!(start.elapsed() < std::time::Duration::from_secs(30));
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert!(syncer.completed() <= 100);
        assert!(syncer.take_error().is_none());
        syncer.shutdown();
    }

    #[test]
    fn switch_tasks_run_in_order_and_a_failure_sticks_until_cleared() {
        let syncer = WalSyncer::new().unwrap();
        let ran = Arc::new(Mutex::new(Vec::new()));
        let task = |i: u64, fail: bool| -> SwitchTask {
            let ran = ran.clone();
            Box::new(move || {
                std::thread::sleep(std::time::Duration::from_millis(5));
                ran.lock().push(i);
                if fail {
                    Err(Error::io("injected", &std::io::Error::other("sync failed")))
                } else {
                    Ok(())
                }
            })
        };
        let t1 = syncer.enqueue(task(1, false));
        let t2 = syncer.enqueue(task(2, true));
        let t3 = syncer.enqueue(task(3, false));
        assert_eq!((t1, t2, t3), (1, 2, 3));
        syncer.wait_for(t1).unwrap();
        assert!(ran.lock().contains(&1));
        assert!(syncer.wait_for(t3).is_err(), "task 2 failed before it");
        assert_eq!(*ran.lock(), vec![1, 2, 3]);
        assert!(syncer.wait_for(t1).is_ok(), "task 1 itself succeeded");
        assert!(syncer.failed());
        assert!(syncer.take_error().is_some(), "the write path learns of it");
        syncer.clear_failures();
        assert!(!syncer.failed());
        let t4 = syncer.enqueue(task(4, false));
        syncer.wait_for(t4).unwrap();
        // Queued tasks still run when the syncer stops.
        let t5 = syncer.enqueue(task(5, false));
        syncer.shutdown();
        assert_eq!(syncer.tasks_done(), t5);
        assert_eq!(*ran.lock(), vec![1, 2, 3, 4, 5]);
    }

    /// A sync that fails only after a while, as a disk under load does.
    struct SlowFailingSync(std::time::Duration);

    impl SyncHandle for SlowFailingSync {
        fn sync(&mut self) -> Result<()> {
            std::thread::sleep(self.0);
            Err(Error::io("injected", &std::io::Error::other("sync failed")))
        }
    }

    #[test]
    fn wait_idle_returns_after_a_running_periodic_sync_has_failed() {
        let syncer = WalSyncer::new().unwrap();
        syncer.request(Box::new(SlowFailingSync(std::time::Duration::from_millis(
            50,
        ))));
        // Requested, maybe not started, certainly not finished.
        assert!(!syncer.failed());
        syncer.wait_idle();
        assert!(
            syncer.failed(),
            "wait_idle returned before the sync's outcome"
        );
        syncer.clear_failures();
        assert!(!syncer.failed());
        assert!(syncer.take_error().is_none(), "the error went with it");
        // Idle with nothing to wait for returns at once, also after shutdown.
        syncer.wait_idle();
        syncer.shutdown();
        syncer.wait_idle();
    }
}
