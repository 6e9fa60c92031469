//! Background thread pools for flushes (high priority) and compactions (low
//! priority). Each database owns its pools; closing joins the threads. Each
//! thread follows the CPU priority its [`Env`] sets for its pool, checked
//! before every job (see [`crate::env`]).
//!
//! Thread-safety: `submit` may be called from any thread; jobs run on the
//! pool's threads in submission order; `shutdown` waits for running jobs and
//! drops queued ones.

use std::collections::VecDeque;
use std::sync::Arc;
use std::thread::JoinHandle;

use parking_lot::{Condvar, Mutex};

use crate::env::{Env, Priority, ThreadCpuPriority};

type Job = Box<dyn FnOnce() + Send + 'static>;

struct Queue {
    jobs: VecDeque<Job>,
    shutdown: bool,
}

struct Shared {
    queue: Mutex<Queue>,
    cv: Condvar,
    env: Arc<Env>,
    priority: Priority,
}

/// The database's two pools: flushes (high priority) and compactions (low
/// priority). Started at open, shut down at close (flush pool first).
pub(crate) struct Pools {
    /// Flushes, and purges of obsolete files.
    pub(crate) flush: ThreadPool,
    /// Automatic compactions.
    pub(crate) compaction: ThreadPool,
}

impl Pools {
    /// Starts both pools with the sizes `opts` gives; on failure, none is
    /// left running.
    pub(crate) fn start(opts: &crate::options::Options) -> std::io::Result<Pools> {
        let (flushes, compactions) = opts.background_threads();
        let flush = ThreadPool::new("talus-flush", flushes, opts.env.clone(), Priority::High)?;
        let compaction = ThreadPool::new(
            "talus-compact",
            compactions,
            opts.env.clone(),
            Priority::Low,
        )
        .inspect_err(|_| flush.shutdown())?;
        Ok(Pools { flush, compaction })
    }

    /// Shuts down both pools ([`ThreadPool::shutdown`]).
    pub(crate) fn shutdown(&self) {
        self.flush.shutdown();
        self.compaction.shutdown();
    }
}

/// A fixed-size pool of named threads.
pub(crate) struct ThreadPool {
    shared: Arc<Shared>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl ThreadPool {
    /// Starts `n` threads named `{name}-{i}`, the `priority` pool of `env`.
    pub(crate) fn new(
        name: &str,
        n: usize,
        env: Arc<Env>,
        priority: Priority,
    ) -> std::io::Result<ThreadPool> {
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue {
                jobs: VecDeque::new(),
                shutdown: false,
            }),
            cv: Condvar::new(),
            env,
            priority,
        });
        let pool = ThreadPool {
            shared,
            threads: Mutex::new(Vec::with_capacity(n.max(1))),
        };
        for i in 0..n.max(1) {
            let s = pool.shared.clone();
            match std::thread::Builder::new()
                .name(format!("{name}-{i}"))
                .spawn(move || worker(&s))
            {
                Ok(t) => pool.threads.lock().push(t),
                Err(e) => {
                    // Stop the threads already started: dropped handles
                    // would leave them waiting for jobs forever.
                    pool.shutdown();
                    return Err(e);
                }
            }
        }
        Ok(pool)
    }

    /// Queues a job. Ignored after shutdown.
    pub(crate) fn submit(&self, job: impl FnOnce() + Send + 'static) {
        let mut q = self.shared.queue.lock();
        if q.shutdown {
            return;
        }
        q.jobs.push_back(Box::new(job));
        drop(q);
        self.shared.cv.notify_one();
    }

    /// Number of queued (not yet running) jobs.
    #[cfg(test)]
    pub(crate) fn queue_len(&self) -> usize {
        self.shared.queue.lock().jobs.len()
    }

    /// Drops queued jobs, lets running ones finish and joins the threads.
    /// Must not be called from a pool thread.
    pub(crate) fn shutdown(&self) {
        {
            let mut q = self.shared.queue.lock();
            q.shutdown = true;
            q.jobs.clear();
        }
        self.shared.cv.notify_all();
        let threads = std::mem::take(&mut *self.threads.lock());
        let me = std::thread::current().id();
        for t in threads {
            if t.thread().id() != me {
                let _ = t.join();
            }
        }
    }
}

fn worker(s: &Shared) {
    let mut cpu = ThreadCpuPriority::new();
    loop {
        let job = {
            let mut q = s.queue.lock();
            loop {
                if q.shutdown {
                    return;
                }
                if let Some(j) = q.jobs.pop_front() {
                    break j;
                }
                s.cv.wait(&mut q);
            }
        };
        cpu.follow(s.env.thread_pool_cpu_priority(s.priority));
        job();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn runs_jobs_and_shuts_down() {
        let pool = ThreadPool::new("t", 2, Arc::new(Env::new()), Priority::Low).unwrap();
        let n = Arc::new(AtomicUsize::new(0));
        for _ in 0..100 {
            let n = n.clone();
            pool.submit(move || {
                n.fetch_add(1, Ordering::SeqCst);
            });
        }
        while n.load(Ordering::SeqCst) < 100 {
            std::thread::yield_now();
        }
        pool.shutdown();
        pool.submit(|| panic!("must not run after shutdown"));
        assert_eq!(pool.queue_len(), 0);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn jobs_run_at_the_cpu_priority_the_env_sets_for_their_pool() {
        use crate::env::{CpuPriority, current_thread_nice};
        let env = Arc::new(Env::new());
        let low = ThreadPool::new("low", 1, env.clone(), Priority::Low).unwrap();
        let high = ThreadPool::new("high", 1, env.clone(), Priority::High).unwrap();
        let nice_in = |pool: &ThreadPool| {
            let (tx, rx) = std::sync::mpsc::channel();
            pool.submit(move || tx.send(current_thread_nice()).unwrap());
            rx.recv().unwrap()
        };
        let normal = nice_in(&low);
        assert_eq!(nice_in(&high), normal);
        // Set while the threads are already running: applies at the next job.
        env.lower_thread_pool_cpu_priority(Priority::Low, CpuPriority::Low);
        assert_eq!(nice_in(&low), 19);
        assert_eq!(nice_in(&high), normal, "the flush pool keeps its priority");
        low.shutdown();
        high.shutdown();
    }
}
