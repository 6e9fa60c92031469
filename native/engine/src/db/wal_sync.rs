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
//! Thread-safety: `request` may be called from any thread (in practice the
//! write-group leader); the syncer thread owns the handles it syncs.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;

use parking_lot::{Condvar, Mutex};

use crate::error::Error;
use crate::fs::SyncHandle;

#[derive(Default)]
struct State {
    pending: Option<Box<dyn SyncHandle>>,
    shutdown: bool,
    error: Option<Error>,
}

struct Shared {
    state: Mutex<State>,
    cv: Condvar,
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

    /// Stops the thread after the sync in progress; drops a waiting request.
    pub(crate) fn shutdown(&self) {
        {
            let mut st = self.shared.state.lock();
            st.shutdown = true;
            st.pending = None;
        }
        self.shared.cv.notify_all();
        if let Some(t) = self.thread.lock().take() {
            let _ = t.join();
        }
    }
}

fn run(s: &Shared) {
    loop {
        let mut handle = {
            let mut st = s.state.lock();
            loop {
                if st.shutdown {
                    return;
                }
                if let Some(h) = st.pending.take() {
                    break h;
                }
                s.cv.wait(&mut st);
            }
        };
        match handle.sync() {
            Ok(()) => {
                s.done.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                let mut st = s.state.lock();
                if st.error.is_none() {
                    st.error = Some(e);
                }
                s.failed.store(true, Ordering::Release);
            }
        }
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
}
