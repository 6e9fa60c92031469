//! How the cost of range deletions grows with their number: flush,
//! compaction, iterator creation, a full scan and point lookups over N
//! disjoint range tombstones, for several N, with the cost per tombstone
//! (per lookup for `get`) so linear and quadratic growth tell apart: a
//! per-tombstone figure that stays flat as N grows tenfold is linear, one
//! that grows tenfold is quadratic.
//!
//! ```sh
//! cargo run --release -p talus --example range_del_scaling                 # 1k 10k 100k 1M
//! cargo run --release -p talus --example range_del_scaling -- 1000 5000    # chosen sizes
//! ```
//!
//! Each size gets a fresh database: N range deletions `[k(2i), k(2i+1))`
//! and N live keys `k(2i+1)` between them, all in one memtable (no WAL,
//! no automatic flush or compaction). Then it measures, in order:
//! - `mem`: iterator creation, a full scan and 10 000 random `get`s with
//!   everything in the memtable;
//! - `flush`: the flush of that memtable into one L0 table;
//! - `l0`: iterator creation, scan and gets against that table;
//! - `compact`: `compact_range` of that table and a second, small one
//!   overlapping it, into the last level: a real merge, cut into many small
//!   output files (64 KiB), each with its share of the tombstones, which a
//!   snapshot taken before the first write keeps from being dropped;
//! - `last`: iterator creation, scan and gets against those files.
//!
//! Times are wall-clock of one run. The first iterator of a phase is timed
//! apart from the next 5 (their mean): it may fragment the tombstones of
//! sources read for the first time, which later ones share.

use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use talus::db::FlushOptions;
use talus::{Db, Options, ReadOptions, WriteOptions};

/// Random point lookups per phase.
const GETS: u32 = 10_000;
/// Iterators created per measurement (their mean is printed).
const ITERS: u32 = 5;

fn key(i: u64) -> Vec<u8> {
    format!("key{i:012}").into_bytes()
}

/// Seconds, for printing.
fn s(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// Microseconds per unit.
fn per(d: Duration, n: u64) -> f64 {
    d.as_secs_f64() * 1e6 / n as f64
}

struct ReadFigures {
    /// The first iterator (which may fragment the tombstones of sources
    /// read for the first time).
    first_iter: Duration,
    /// Later ones (mean).
    iter_create: Duration,
    scan: Duration,
    gets: Duration,
}

/// Iterator creation, full scan (checking it sees exactly the live keys),
/// and random gets (checking each answer).
fn measure_reads(db: &Db, n: u64, rng: &mut SmallRng) -> ReadFigures {
    let ro = ReadOptions::default();
    let t = Instant::now();
    drop(db.iter(&ro).unwrap());
    let first_iter = t.elapsed();
    let t = Instant::now();
    for _ in 0..ITERS {
        drop(db.iter(&ro).unwrap());
    }
    let iter_create = t.elapsed() / ITERS;

    let mut it = db.iter(&ro).unwrap();
    let t = Instant::now();
    it.seek_to_first();
    let mut seen = 0u64;
    while it.valid() {
        seen += 1;
        it.next();
    }
    it.status().unwrap();
    let scan = t.elapsed();
    assert_eq!(seen, n, "scan saw {seen} live keys, expected {n}");

    let t = Instant::now();
    let mut v = Vec::new();
    for _ in 0..GETS {
        let i = rng.random_range(0..2 * n);
        let found = db.get_into(&ro, &key(i), &mut v).unwrap();
        // Odd keys were written and are live; even keys are range-deleted.
        assert_eq!(found, i % 2 == 1, "get of key {i}");
    }
    let gets = t.elapsed();
    ReadFigures {
        first_iter,
        iter_create,
        scan,
        gets,
    }
}

fn print_reads(phase: &str, n: u64, r: &ReadFigures) {
    println!(
        "{n:>9} {phase:<8} first iter {:>9.6} s ({:>8.4} µs/tomb)   next iters {:>9.6} s   scan {:>8.4} s ({:>6.3} µs/tomb)   get {:>7.3} µs/get",
        s(r.first_iter),
        per(r.first_iter, n),
        s(r.iter_create),
        s(r.scan),
        per(r.scan, n),
        per(r.gets, u64::from(GETS)),
    );
}

fn run(n: u64) {
    let dir = tempfile::tempdir().unwrap();
    let opts = Options {
        create_if_missing: true,
        write_buffer_size: 16 << 30,
        max_write_buffer_number: 4,
        disable_auto_compactions: true,
        target_file_size_base: 64 << 10,
        ..Options::default()
    };
    let db = Db::open(opts, dir.path()).unwrap();
    let wo = WriteOptions {
        disable_wal: true,
        ..WriteOptions::default()
    };
    let mut rng = SmallRng::seed_from_u64(n);
    // Keeps the tombstones alive through the compaction into the last level.
    let snapshot = db.snapshot().unwrap();
    let t = Instant::now();
    for i in 0..n {
        db.delete_range(&wo, &key(2 * i), &key(2 * i + 1)).unwrap();
        db.put(&wo, &key(2 * i + 1), b"value").unwrap();
    }
    let write = t.elapsed();
    println!(
        "{n:>9} write    {:>10.6} s ({:>8.4} µs/tomb)",
        s(write),
        per(write, n)
    );

    let r = measure_reads(&db, n, &mut rng);
    print_reads("mem", n, &r);

    let t = Instant::now();
    db.flush(&FlushOptions::default()).unwrap();
    let flush = t.elapsed();
    println!(
        "{n:>9} flush    {:>10.6} s ({:>8.4} µs/tomb)",
        s(flush),
        per(flush, n)
    );
    let r = measure_reads(&db, n, &mut rng);
    print_reads("l0", n, &r);

    // Rewrites of the first and last live keys: a second L0 table spanning
    // the first, so the compaction merges rather than moves the table.
    db.put(&wo, &key(1), b"value").unwrap();
    db.put(&wo, &key(2 * n - 1), b"value").unwrap();
    let t = Instant::now();
    db.compact_range(None, None).unwrap();
    let compact = t.elapsed();
    let files: Vec<String> = (0..7)
        .filter_map(|l| {
            let f = db.int_property(&format!("rocksdb.num-files-at-level{l}"))?;
            (f > 0).then(|| format!("L{l}: {f} files"))
        })
        .collect();
    println!(
        "{n:>9} compact  {:>10.6} s ({:>8.4} µs/tomb)   {}",
        s(compact),
        per(compact, n),
        files.join(", ")
    );
    let r = measure_reads(&db, n, &mut rng);
    print_reads("last", n, &r);
    db.release_snapshot(snapshot);
    db.close().unwrap();
}

fn main() {
    let sizes: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("sizes are numbers of range deletions"))
        .collect();
    let sizes = if sizes.is_empty() {
        vec![1_000, 10_000, 100_000, 1_000_000]
    } else {
        sizes
    };
    println!("range tombstones: N disjoint range deletions and N live keys between them");
    for n in sizes {
        run(n);
    }
}
