//! Background thread pools for flushes (high priority) and compactions (low
//! priority). Each database owns its pools; closing joins the threads.
//!
//! Thread-safety: `submit` may be called from any thread; jobs run on the
//! pool's threads in submission order; `shutdown` waits for running jobs and
//! drops queued ones.

use std::collections::VecDeque;
use std::sync::Arc;
use std::thread::JoinHandle;

use parking_lot::{Condvar, Mutex};

type Job = Box<dyn FnOnce() + Send + 'static>;

struct Queue {
    jobs: VecDeque<Job>,
    shutdown: bool,
}

struct Shared {
    queue: Mutex<Queue>,
    cv: Condvar,
}

/// A fixed-size pool of named threads.
pub(crate) struct ThreadPool {
    shared: Arc<Shared>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl ThreadPool {
    /// Starts `n` threads named `{name}-{i}`.
    pub(crate) fn new(name: &str, n: usize) -> std::io::Result<ThreadPool> {
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue {
                jobs: VecDeque::new(),
                shutdown: false,
            }),
            cv: Condvar::new(),
        });
        let mut threads = Vec::with_capacity(n);
        for i in 0..n.max(1) {
            let s = shared.clone();
            threads.push(
                std::thread::Builder::new()
                    .name(format!("{name}-{i}"))
                    .spawn(move || worker(&s))?,
            );
        }
        Ok(ThreadPool {
            shared,
            threads: Mutex::new(threads),
        })
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
        job();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn runs_jobs_and_shuts_down() {
        let pool = ThreadPool::new("t", 2).unwrap();
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
}
