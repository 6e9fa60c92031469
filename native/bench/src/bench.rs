//! The benchmarks, run in order on one database, as db_bench runs them.
//!
//! Counting (as db_bench): each of `--threads` threads of a fill benchmark
//! writes `--writes` entries (default `--num`); each
//! thread of a read benchmark does `--reads` reads (default `--num`); each
//! thread of deleterandom `--deletes` deletes. So `--threads=8 --num=N`
//! makes `8 × N` operations, over the key space `[0, N)`. readwhilewriting
//! runs one extra thread that writes random keys until the readers finish;
//! its writes are not in the reported numbers (db_bench excludes them too)
//! but are counted in the message. fillseq threads each write keys
//! `0..writes`. fillsync writes like fillrandom with every write synced,
//! over the key space `[0, num/1000)` (db_bench 7.8 divides the key space,
//! not the write count, by 1000). flush, compact and waitforcompaction run once and report one
//! operation; stats, levelstats and sstables print the property.
//!
//! Fill benchmarks (fillseq, fillrandom, fillsync) start from an empty
//! database, as db_bench's do, and are skipped with `--use_existing_db`.
//!
//! Thread-safety: benchmark threads share the `Db` (which is `Sync`), the
//! pacers and the abort flag; everything else is per thread.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use talus::db::FlushOptions;
use talus::{Db, Options, ReadOptions, WriteBatch, WriteOptions};

use crate::config::Config;
use crate::engine_features::{self, NOT_AVAILABLE, PerfContextHooks, StatisticsDump};
use crate::generator::{KeyChooser, Rng, ValueGenerator, make_key};
use crate::pacer::Pacer;
use crate::report::{self, CsvReporter};
use crate::stats::{IntervalHook, OpCounters, OpType, Stats, StatsSettings};

type BenchResult<T> = Result<T, String>;

/// Op count or time limit of one thread's loop (db_bench's `Duration`).
struct Limit<'a> {
    max_ops: u64,
    deadline: Option<Instant>,
    ops: u64,
    abort: &'a AtomicBool,
}

impl<'a> Limit<'a> {
    fn new(duration_secs: u64, max_ops: u64, abort: &'a AtomicBool) -> Self {
        Limit {
            max_ops,
            deadline: (duration_secs > 0)
                .then(|| Instant::now() + Duration::from_secs(duration_secs)),
            ops: 0,
            abort,
        }
    }

    /// How many of `want` operations to do next; 0 when done.
    fn next(&mut self, want: u64) -> u64 {
        if self.abort.load(Ordering::Relaxed) {
            return 0;
        }
        let n = match self.deadline {
            Some(deadline) => {
                // Look at the clock about every 1000 operations.
                if self.ops / 1000 != (self.ops + want) / 1000 && Instant::now() >= deadline {
                    return 0;
                }
                want
            }
            None => want.min(self.max_ops - self.ops),
        };
        self.ops += n;
        n
    }
}

/// What one benchmark thread has to work with.
struct ThreadCtx<'a> {
    tid: usize,
    rng: Rng,
    values: ValueGenerator,
    key: Vec<u8>,
    stats: Stats,
    db: &'a Db,
    cfg: &'a Config,
    shared: &'a Shared,
}

/// State shared by the threads of one benchmark.
struct Shared {
    abort: AtomicBool,
    error: Mutex<Option<String>>,
    readers_running: AtomicUsize,
    write_pacer: Option<Arc<Pacer>>,
    read_pacer: Option<Arc<Pacer>>,
}

impl Shared {
    fn fail(&self, what: &str, e: &talus::Error) {
        let mut err = self.error.lock().unwrap_or_else(|p| p.into_inner());
        if err.is_none() {
            *err = Some(format!("{what} error: {e}"));
        }
        self.abort.store(true, Ordering::Relaxed);
    }
}

impl ThreadCtx<'_> {
    fn key_for(&mut self, k: u64) -> &[u8] {
        make_key(k, &mut self.key);
        &self.key
    }

    fn write_options(&self, sync: bool) -> WriteOptions {
        WriteOptions {
            sync: sync || self.cfg.sync,
            disable_wal: self.cfg.disable_wal,
            ..WriteOptions::default()
        }
    }

    fn read_options(&self) -> ReadOptions {
        ReadOptions {
            verify_checksums: self.cfg.verify_checksum,
            ..ReadOptions::default()
        }
    }

    fn readers_chooser(&self) -> KeyChooser {
        KeyChooser {
            num: self.cfg.num,
            exp_range: self.cfg.read_random_exp_range,
        }
    }

    /// fillseq, fillrandom, overwrite, fillsync: `count` writes (or
    /// `duration` seconds) of keys in `[0, key_space)`.
    fn do_write(
        &mut self,
        sequential: bool,
        count: u64,
        key_space: u64,
        sync: bool,
        duration: u64,
    ) {
        let wo = self.write_options(sync);
        let shared = self.shared;
        let mut limit = Limit::new(duration, count, &shared.abort);
        let uniform = KeyChooser {
            num: key_space,
            exp_range: 0.0,
        };
        let (ks, vs) = (self.cfg.key_size, self.cfg.value_size);
        let mut next_seq = 0u64;
        let mut bytes = 0u64;
        loop {
            let n = limit.next(self.cfg.batch_size as u64);
            if n == 0 {
                break;
            }
            let mut batch = WriteBatch::with_capacity(n as usize * (ks + vs + 12));
            for _ in 0..n {
                let k = if sequential {
                    next_seq += 1;
                    next_seq - 1
                } else {
                    uniform.pick(&mut self.rng)
                };
                make_key(k, &mut self.key);
                batch.put(&self.key, self.values.generate(vs));
            }
            let batch_bytes = n * (ks + vs) as u64;
            if let Some(p) = &shared.write_pacer {
                p.request(batch_bytes);
            }
            if let Err(e) = self.db.write(&wo, batch) {
                shared.fail("put", &e);
                break;
            }
            bytes += batch_bytes;
            self.stats.finished_ops(n, OpType::Write);
        }
        self.stats.add_bytes(bytes);
    }

    /// readrandom, and the readers of readwhilewriting.
    fn read_random(&mut self) {
        let ro = self.read_options();
        let shared = self.shared;
        let chooser = self.readers_chooser();
        let mut limit = Limit::new(self.cfg.duration_secs, self.cfg.reads, &shared.abort);
        let mut value = Vec::new();
        let (mut found, mut reads, mut bytes) = (0u64, 0u64, 0u64);
        while limit.next(1) == 1 {
            let k = chooser.pick(&mut self.rng);
            if let Some(p) = &shared.read_pacer {
                p.request(1);
            }
            make_key(k, &mut self.key);
            match self.db.get_into(&ro, &self.key, &mut value) {
                Ok(true) => {
                    found += 1;
                    bytes += (self.key.len() + value.len()) as u64;
                }
                Ok(false) => {}
                Err(e) => {
                    shared.fail("get", &e);
                    break;
                }
            }
            reads += 1;
            self.stats.finished_ops(1, OpType::Read);
        }
        self.stats.add_bytes(bytes);
        self.stats
            .add_message(&format!("found={found} reads={reads}"));
    }

    /// readseq, readreverse.
    fn read_sequential(&mut self, reverse: bool) {
        let ro = self.read_options();
        let mut it = match self.db.iter(&ro) {
            Ok(it) => it,
            Err(e) => return self.shared.fail("iterator", &e),
        };
        if reverse {
            it.seek_to_last();
        } else {
            it.seek_to_first();
        }
        let (mut i, mut bytes) = (0u64, 0u64);
        while i < self.cfg.reads && it.valid() && !self.shared.abort.load(Ordering::Relaxed) {
            bytes += (it.key().len() + it.value().len()) as u64;
            self.stats.finished_ops(1, OpType::Read);
            i += 1;
            if reverse {
                it.prev();
            } else {
                it.next();
            }
        }
        if let Err(e) = it.status() {
            self.shared.fail("iterator", &e);
        }
        self.stats.add_bytes(bytes);
    }

    /// seekrandom: a new iterator per seek (so each sees the latest data),
    /// then `--seek_nexts` steps.
    fn seek_random(&mut self) {
        let ro = self.read_options();
        let shared = self.shared;
        let chooser = self.readers_chooser();
        let mut limit = Limit::new(self.cfg.duration_secs, self.cfg.reads, &shared.abort);
        let (mut found, mut seeks, mut bytes) = (0u64, 0u64, 0u64);
        while limit.next(1) == 1 {
            let k = chooser.pick(&mut self.rng);
            if let Some(p) = &shared.read_pacer {
                p.request(1);
            }
            let mut it = match self.db.iter(&ro) {
                Ok(it) => it,
                Err(e) => {
                    shared.fail("iterator", &e);
                    break;
                }
            };
            let key = self.key_for(k);
            it.seek(key);
            if it.valid() && it.key() == key {
                found += 1;
            }
            for _ in 0..self.cfg.seek_nexts {
                if !it.valid() {
                    break;
                }
                bytes += (it.key().len() + it.value().len()) as u64;
                it.next();
            }
            if let Err(e) = it.status() {
                shared.fail("iterator", &e);
                break;
            }
            seeks += 1;
            self.stats.finished_ops(1, OpType::Seek);
        }
        self.stats.add_bytes(bytes);
        self.stats
            .add_message(&format!("found={found} reads={seeks}"));
    }

    /// readwhilewriting's writer: random puts until every reader is done.
    fn background_writer(&mut self) {
        let wo = self.write_options(false);
        let shared = self.shared;
        let uniform = KeyChooser {
            num: self.cfg.num,
            exp_range: 0.0,
        };
        let vs = self.cfg.value_size;
        let mut bytes = 0;
        while shared.readers_running.load(Ordering::Acquire) > 0
            && !shared.abort.load(Ordering::Relaxed)
        {
            let k = uniform.pick(&mut self.rng);
            make_key(k, &mut self.key);
            let n = (self.key.len() + vs) as u64;
            if let Some(p) = &shared.write_pacer {
                p.request(n);
            }
            let mut b = WriteBatch::with_capacity(n as usize + 12);
            b.put(&self.key, self.values.generate(vs));
            if let Err(e) = self.db.write(&wo, b) {
                shared.fail("put", &e);
                break;
            }
            bytes += n;
            self.stats.finished_ops(1, OpType::Write);
        }
        self.stats.add_bytes(bytes);
    }

    /// readrandomwriterandom: `readwritepercent` % gets, the rest puts.
    fn read_random_write_random(&mut self) {
        let ro = self.read_options();
        let wo = self.write_options(false);
        let shared = self.shared;
        let chooser = self.readers_chooser();
        let count = self.cfg.reads.max(self.cfg.writes);
        let mut limit = Limit::new(self.cfg.duration_secs, count, &shared.abort);
        let pct = u64::from(self.cfg.readwritepercent);
        let vs = self.cfg.value_size;
        let mut value = Vec::new();
        let (mut reads, mut writes, mut found, mut bytes) = (0u64, 0u64, 0u64, 0u64);
        let mut i = 0u64;
        while limit.next(1) == 1 {
            let k = chooser.pick(&mut self.rng);
            make_key(k, &mut self.key);
            if i % 100 < pct {
                if let Some(p) = &shared.read_pacer {
                    p.request(1);
                }
                match self.db.get_into(&ro, &self.key, &mut value) {
                    Ok(hit) => {
                        if hit {
                            found += 1;
                            bytes += (self.key.len() + value.len()) as u64;
                        }
                    }
                    Err(e) => {
                        shared.fail("get", &e);
                        break;
                    }
                }
                reads += 1;
                self.stats.finished_ops(1, OpType::Read);
            } else {
                let n = (self.key.len() + vs) as u64;
                if let Some(p) = &shared.write_pacer {
                    p.request(n);
                }
                let mut b = WriteBatch::with_capacity(n as usize + 12);
                b.put(&self.key, self.values.generate(vs));
                if let Err(e) = self.db.write(&wo, b) {
                    shared.fail("put", &e);
                    break;
                }
                bytes += n;
                writes += 1;
                self.stats.finished_ops(1, OpType::Write);
            }
            i += 1;
        }
        self.stats.add_bytes(bytes);
        self.stats
            .add_message(&format!("reads={reads} writes={writes} found={found}"));
    }

    /// deleterandom.
    fn delete_random(&mut self) {
        let wo = self.write_options(false);
        let shared = self.shared;
        let mut limit = Limit::new(0, self.cfg.deletes, &shared.abort);
        let uniform = KeyChooser {
            num: self.cfg.num,
            exp_range: 0.0,
        };
        loop {
            let n = limit.next(self.cfg.batch_size as u64);
            if n == 0 {
                break;
            }
            let mut batch = WriteBatch::with_capacity(n as usize * (self.cfg.key_size + 8));
            for _ in 0..n {
                let k = uniform.pick(&mut self.rng);
                batch.delete(self.key_for(k));
            }
            if let Err(e) = self.db.write(&wo, batch) {
                shared.fail("delete", &e);
                break;
            }
            self.stats.finished_ops(n, OpType::Delete);
        }
    }
}

/// Sums `key=value` pairs of the thread messages: "found=3 reads=4 found=1
/// reads=4" becomes {found: 4, reads: 8}.
fn sum_message(m: &str) -> BTreeMap<&str, u64> {
    let mut out = BTreeMap::new();
    for part in m.split_whitespace() {
        if let Some((k, v)) = part.split_once('=')
            && let Ok(v) = v.parse::<u64>()
        {
            *out.entry(k).or_insert(0) += v;
        }
    }
    out
}

/// Removes the database's files (only files Talus names, with
/// [`talus::destroy_db`]), then the directories if they are empty. A missing
/// directory is fine.
pub fn destroy_db(db: &Path, wal_dir: Option<&Path>) -> std::io::Result<()> {
    let opts = Options {
        wal_dir: wal_dir.map(Path::to_path_buf),
        ..Options::default()
    };
    talus::destroy_db(db, &opts).map_err(std::io::Error::other)
}

/// Runs the benchmarks of a configuration, printing db_bench's output to `out`.
pub struct Runner<'o> {
    cfg: Config,
    base_options: Options,
    db: Option<Arc<Db>>,
    statistics: Option<StatisticsDump>,
    perf: Option<PerfContextHooks>,
    counters: Option<Arc<OpCounters>>,
    write_pacer: Option<Arc<Pacer>>,
    read_pacer: Option<Arc<Pacer>>,
    epoch: Instant,
    bench_index: u64,
    out: &'o mut dyn std::io::Write,
}

impl std::fmt::Debug for Runner<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner").field("db", &self.cfg.db).finish()
    }
}

impl<'o> Runner<'o> {
    pub fn new(cfg: Config, out: &'o mut dyn std::io::Write) -> BenchResult<Runner<'o>> {
        let mut base_options = cfg.open_options()?;
        let statistics = if cfg.statistics {
            engine_features::install_statistics(&mut base_options)
        } else {
            None
        };
        let rate_limiter = cfg.rate_limiter_bytes_per_sec > 0
            && engine_features::install_rate_limiter(
                &mut base_options,
                cfg.rate_limiter_bytes_per_sec,
                cfg.rate_limiter_refill_period_us,
                cfg.rate_limiter_single_burst_bytes,
                cfg.rate_limiter_auto_tuned,
                cfg.rate_limit_bg_reads,
            )?;
        let perf = if cfg.perf_level > 1 {
            engine_features::perf_context()
        } else {
            None
        };
        let mut header = report::header(&cfg);
        header.push_str(&report::missing_features(
            &cfg,
            statistics.is_some(),
            perf.is_some(),
            rate_limiter,
        ));
        header.push_str("------------------------------------------------\n");
        out.write_all(header.as_bytes())
            .map_err(|e| e.to_string())?;
        let pacer = |rate: u64| (rate > 0).then(|| Arc::new(Pacer::new(rate)));
        let counters = (cfg.report_interval_secs > 0).then(|| OpCounters::new(cfg.threads + 1));
        Ok(Runner {
            write_pacer: pacer(cfg.benchmark_write_rate_limit),
            read_pacer: pacer(cfg.benchmark_read_rate_limit),
            cfg,
            base_options,
            db: None,
            statistics,
            perf,
            counters,
            epoch: Instant::now(),
            bench_index: 0,
            out,
        })
    }

    fn say(&mut self, s: &str) -> BenchResult<()> {
        self.out
            .write_all(s.as_bytes())
            .and_then(|()| self.out.flush())
            .map_err(|e| e.to_string())
    }

    fn open(&mut self) -> BenchResult<()> {
        let db = Db::open(self.base_options.clone(), &self.cfg.db)
            .map_err(|e| format!("open error: {e}"))?;
        self.db = Some(Arc::new(db));
        let line = format!("DB path: [{}]\n", self.cfg.db.display());
        self.say(&line)
    }

    fn close(&mut self) -> BenchResult<()> {
        if let Some(db) = self.db.take() {
            db.close().map_err(|e| format!("close error: {e}"))?;
        }
        Ok(())
    }

    fn fresh_db(&mut self) -> BenchResult<()> {
        self.close()?;
        destroy_db(&self.cfg.db, self.cfg.wal_dir.as_deref())
            .map_err(|e| format!("cannot remove {}: {e}", self.cfg.db.display()))?;
        self.open()
    }

    fn db(&self) -> Arc<Db> {
        self.db.clone().expect("the database is open")
    }

    /// Runs every benchmark, then prints the statistics; closes the database.
    pub fn run(mut self) -> BenchResult<()> {
        if !self.cfg.use_existing_db {
            destroy_db(&self.cfg.db, self.cfg.wal_dir.as_deref())
                .map_err(|e| format!("cannot remove {}: {e}", self.cfg.db.display()))?;
        }
        self.open()?;
        let reporter = match &self.counters {
            Some(c) => Some(
                CsvReporter::start(
                    &self.cfg.report_file,
                    Duration::from_secs(self.cfg.report_interval_secs),
                    c.clone(),
                )
                .map_err(|e| format!("{}: {e}", self.cfg.report_file.display()))?,
            ),
            None => None,
        };
        let mut result = Ok(());
        for name in self.cfg.benchmarks.clone() {
            result = self.run_one(&name);
            if result.is_err() {
                break;
            }
        }
        if let Some(r) = reporter
            && !r.finish()
            && result.is_ok()
        {
            result = Err(format!("writing {} failed", self.cfg.report_file.display()));
        }
        if result.is_ok() && self.cfg.statistics {
            let text = match &self.statistics {
                Some(dump) => format!("STATISTICS:\n{}", dump(&self.db())),
                None => format!("STATISTICS: {NOT_AVAILABLE}\n"),
            };
            result = self.say(&text);
        }
        let closed = self.close();
        result.and(closed)
    }

    fn run_one(&mut self, name: &str) -> BenchResult<()> {
        self.bench_index += 1;
        let cfg = self.cfg.clone();
        let fresh = matches!(name, "fillseq" | "fillrandom" | "fillsync");
        if fresh {
            if cfg.use_existing_db {
                return self.say(&format!(
                    "{name:<12} : skipped (--use_existing_db is true)\n"
                ));
            }
            self.fresh_db()?;
        }
        let threads = cfg.threads;
        let writes = cfg.writes;
        let num = cfg.num;
        let d = cfg.duration_secs;
        match name {
            "fillseq" => self.threaded(name, threads, false, |c| {
                c.do_write(true, writes, num, false, 0)
            }),
            "fillrandom" => self.threaded(name, threads, false, |c| {
                c.do_write(false, writes, num, false, d)
            }),
            "overwrite" => self.threaded(name, threads, false, |c| {
                c.do_write(false, writes, num, false, d)
            }),
            "fillsync" => self.threaded(name, threads, false, |c| {
                c.do_write(false, writes, (num / 1000).max(1), true, d)
            }),
            "readrandom" => self.threaded(name, threads, false, |c| c.read_random()),
            "readseq" => self.threaded(name, threads, false, |c| c.read_sequential(false)),
            "readreverse" => self.threaded(name, threads, false, |c| c.read_sequential(true)),
            "seekrandom" => self.threaded(name, threads, false, |c| c.seek_random()),
            "readwhilewriting" => self.threaded(name, threads, true, |c| {
                if c.tid == threads {
                    c.background_writer();
                } else {
                    c.read_random();
                }
            }),
            "readrandomwriterandom" => {
                self.threaded(name, threads, false, |c| c.read_random_write_random())
            }
            "deleterandom" => self.threaded(name, threads, false, |c| c.delete_random()),
            "flush" => self.single_op(name, |db| db.flush(&FlushOptions::default())),
            "compact" => self.single_op(name, |db| db.compact_range(None, None)),
            "waitforcompaction" => self.single_op(name, Db::wait_for_compactions),
            "stats" | "levelstats" | "sstables" => {
                let prop = format!("rocksdb.{name}");
                let text = match self.db().property(&prop) {
                    Some(v) => format!("\n{v}\n"),
                    None => format!("\n{prop}: {NOT_AVAILABLE}\n"),
                };
                self.say(&text)
            }
            other => Err(format!("unknown benchmark '{other}'")),
        }
    }

    /// A benchmark of one operation on the database (flush, compact, ...).
    fn single_op(
        &mut self,
        name: &str,
        op: impl FnOnce(&Db) -> talus::Result<()>,
    ) -> BenchResult<()> {
        let db = self.db();
        let mut stats = Stats::new(0, self.stats_settings(false), self.epoch);
        stats.start();
        op(&db).map_err(|e| format!("{name} error: {e}"))?;
        stats.finished_ops(1, OpType::Other);
        stats.stop();
        let line = stats.report(name, "");
        self.say(&line)
    }

    fn stats_settings(&self, progress: bool) -> StatsSettings {
        let on_interval = match (&self.db, self.cfg.stats_per_interval) {
            (Some(db), true) => {
                let db = db.clone();
                Some(IntervalHook(Arc::new(move || {
                    let text = db
                        .property("rocksdb.stats")
                        .unwrap_or_else(|| format!("rocksdb.stats: {NOT_AVAILABLE}"));
                    eprintln!("{text}");
                })))
            }
            _ => None,
        };
        StatsSettings {
            histogram: self.cfg.histogram,
            progress_reports: progress && self.cfg.progress_reports,
            stats_interval: (self.cfg.stats_interval_secs > 0)
                .then(|| Duration::from_secs(self.cfg.stats_interval_secs)),
            counters: self.counters.clone(),
            on_interval,
        }
    }

    /// Runs `body` on `threads` threads (plus one writer thread, tid
    /// `threads`, when `extra_writer`), all starting together; prints the
    /// merged report.
    fn threaded<F>(
        &mut self,
        name: &str,
        threads: usize,
        extra_writer: bool,
        body: F,
    ) -> BenchResult<()>
    where
        F: Fn(&mut ThreadCtx<'_>) + Sync,
    {
        let db = self.db();
        let cfg = self.cfg.clone();
        let total = threads + usize::from(extra_writer);
        let shared = Shared {
            abort: AtomicBool::new(false),
            error: Mutex::new(None),
            readers_running: AtomicUsize::new(threads),
            write_pacer: self.write_pacer.clone(),
            read_pacer: self.read_pacer.clone(),
        };
        let settings = self.stats_settings(true);
        let perf = self.perf;
        let wamp_before = fill_benchmark(name)
            .then(|| engine_features::table_bytes_written(&db))
            .flatten();
        let barrier = Barrier::new(total);
        let seed_base = cfg
            .seed
            .wrapping_add(self.bench_index.wrapping_mul(1_000_003));
        let results: Vec<(Stats, Vec<(&'static str, u64)>)> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..total)
                .map(|tid| {
                    let (db, cfg, shared, body, barrier) = (&*db, &cfg, &shared, &body, &barrier);
                    let settings = settings.clone();
                    let epoch = self.epoch;
                    std::thread::Builder::new()
                        .name(format!("bench-{tid}"))
                        .spawn_scoped(s, move || {
                            let seed = seed_base.wrapping_add(tid as u64);
                            let mut ctx = ThreadCtx {
                                tid,
                                rng: Rng::new(seed),
                                values: ValueGenerator::new(
                                    seed,
                                    cfg.compression_ratio,
                                    cfg.value_size,
                                ),
                                key: vec![0; cfg.key_size],
                                stats: Stats::new(tid, settings, epoch),
                                db,
                                cfg,
                                shared,
                            };
                            ctx.stats.exclude_from_merge = extra_writer && tid == threads;
                            barrier.wait();
                            if let Some(p) = perf {
                                (p.begin_thread)(cfg.perf_level);
                            }
                            ctx.stats.start();
                            body(&mut ctx);
                            ctx.stats.stop();
                            if !(extra_writer && tid == threads) {
                                shared.readers_running.fetch_sub(1, Ordering::AcqRel);
                            }
                            let perf_counters = perf.map(|p| (p.end_thread)()).unwrap_or_default();
                            (ctx.stats, perf_counters)
                        })
                        .expect("spawn a benchmark thread")
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a benchmark thread panicked"))
                .collect()
        });
        if let Some(e) = shared
            .error
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            return Err(format!("{name}: {e}"));
        }
        let (all_stats, perfs): (Vec<Stats>, Vec<_>) = results.into_iter().unzip();
        let writer_msg = if extra_writer {
            all_stats.iter().find(|s| s.exclude_from_merge).map(|w| {
                let secs = w.elapsed().as_secs_f64().max(1e-9);
                format!(
                    "(writer: {} puts, {:.1} MB/s)",
                    w.done(),
                    w.bytes() as f64 / 1_048_576.0 / secs
                )
            })
        } else {
            None
        };
        let Some(mut merged) = Stats::merged(&all_stats) else {
            return Ok(());
        };
        // Turn the threads' "found=.. reads=.." into db_bench's message.
        let raw = merged.take_message();
        let sums = sum_message(&raw);
        let mut message = match name {
            "readrandom" | "readwhilewriting" | "seekrandom" => format!(
                "({} of {} found)",
                sums.get("found").unwrap_or(&0),
                sums.get("reads").unwrap_or(&0)
            ),
            "readrandomwriterandom" => format!(
                "( reads:{} writes:{} total:{} found:{})",
                sums.get("reads").unwrap_or(&0),
                sums.get("writes").unwrap_or(&0),
                merged.done(),
                sums.get("found").unwrap_or(&0)
            ),
            _ => String::new(),
        };
        if let Some(w) = writer_msg {
            message.push(' ');
            message.push_str(&w);
        }
        let mut text = merged.report(name, &message);
        if perf.is_some() {
            text.push_str(&perf_text(&perfs));
        }
        if fill_benchmark(name) {
            let after = engine_features::table_bytes_written(&db);
            let _ = writeln!(
                text,
                "Write amplification: {}",
                write_amplification(wamp_before, after, merged.bytes())
            );
        }
        if self.cfg.progress_reports {
            // End the "... finished N ops" line.
            let _ = std::io::stderr().write_all(b"\n");
        }
        self.say(&text)
    }
}

fn fill_benchmark(name: &str) -> bool {
    matches!(name, "fillseq" | "fillrandom" | "overwrite" | "fillsync")
}

/// `(table bytes written during the benchmark) / (user bytes written)`.
fn write_amplification(before: Option<u64>, after: Option<u64>, user_bytes: u64) -> String {
    match (before, after) {
        (Some(b), Some(a)) if user_bytes > 0 => format!(
            "{:.2} ({} table bytes written by flushes and compactions / {} user bytes)",
            a.saturating_sub(b) as f64 / user_bytes as f64,
            a.saturating_sub(b),
            user_bytes
        ),
        _ => "n/a (needs statistics)".to_string(),
    }
}

/// db_bench's ` PERF_CONTEXT:` block: the threads' counters summed by name.
fn perf_text(perfs: &[Vec<(&'static str, u64)>]) -> String {
    let mut sum: Vec<(&str, u64)> = Vec::new();
    for p in perfs {
        for &(k, v) in p {
            match sum.iter_mut().find(|(n, _)| *n == k) {
                Some(e) => e.1 += v,
                None => sum.push((k, v)),
            }
        }
    }
    let body: Vec<String> = sum.iter().map(|(k, v)| format!("{k} = {v}")).collect();
    format!(" PERF_CONTEXT:\n{}\n", body.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_count_exactly_and_stop_on_abort() {
        let abort = AtomicBool::new(false);
        let mut l = Limit::new(0, 10, &abort);
        let mut total = 0;
        loop {
            let n = l.next(3);
            if n == 0 {
                break;
            }
            total += n;
        }
        assert_eq!(total, 10);
        let mut l = Limit::new(0, 10, &abort);
        abort.store(true, Ordering::Relaxed);
        assert_eq!(l.next(1), 0);
    }

    #[test]
    fn messages_sum_by_key() {
        let m = sum_message("found=3 reads=4 found=1 reads=4 (x)");
        assert_eq!(m.get("found"), Some(&4));
        assert_eq!(m.get("reads"), Some(&8));
    }

    #[test]
    fn write_amplification_needs_both_samples() {
        assert_eq!(
            write_amplification(None, None, 10),
            "n/a (needs statistics)"
        );
        assert!(write_amplification(Some(100), Some(400), 100).starts_with("3.00 "));
    }

    #[test]
    fn perf_counters_sum_by_name() {
        let t = perf_text(&[vec![("a", 1), ("b", 2)], vec![("a", 3)]]);
        assert_eq!(t, " PERF_CONTEXT:\na = 4, b = 2\n");
    }

    #[test]
    fn destroy_removes_only_talus_files() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("db");
        std::fs::create_dir(&db).unwrap();
        for f in [
            "CURRENT",
            "000001.log",
            "000002.sst",
            "MANIFEST-000003",
            "LOG",
            "mine.txt",
        ] {
            std::fs::write(db.join(f), b"x").unwrap();
        }
        destroy_db(&db, None).unwrap();
        let left: Vec<_> = std::fs::read_dir(&db)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(left, vec!["mine.txt".to_string()]);
        destroy_db(&dir.path().join("missing"), None).unwrap();
    }
}
