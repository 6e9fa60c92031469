//! What the perf context costs: random `get` and random `put` throughput at
//! each perf level, against `Disable`, in one process.
//!
//! ```sh
//! cargo run --release --example perf_overhead                  # one run, a table
//! cargo run --release --example perf_overhead -- --format raw  # sample lines
//! scripts/perf-overhead                                        # both builds, alternated
//! ```
//!
//! The database is built once per process: `--keys` keys (16-byte keys,
//! 100-byte values) written, flushed and compacted into table files, with a
//! block cache large enough to hold them, so a `get` is the cached table
//! path (bloom filter, index block, data block) — the fastest path, where a
//! fixed cost shows most. Puts go to a second database with a memtable large
//! enough that no flush runs while measuring (WAL on, not synced).
//!
//! Samples are short (5 000 gets or 2 500 puts, a few milliseconds) and
//! rounds many (60), so the samples of one round lie close in time. Each
//! round measures every level once, in an order rotated per round, so
//! drift (page cache, other processes on the machine) spreads over all
//! levels. The table reports, per level, the median ops/s of the rounds and
//! the median of the per-round overheads against that round's `Disable`
//! sample (paired, which cancels slow drift). Between processes (the
//! compiled-out build) only the medians can be compared.
//!
//! `summarize FILE...` reads raw sample lines of several processes (both
//! builds, see `scripts/perf-overhead`) and callgrind counts, and prints the
//! combined table with the spread over processes.
//! `--only get|put --level L` runs one measurement and nothing else (for
//! callgrind, whose counts are taken inside `measure_gets`/`measure_puts`).

use std::collections::BTreeMap;
use std::time::Instant;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use talus::db::FlushOptions;
use talus::perf_context::{self as pc, PerfLevel};
use talus::{Db, Options, ReadOptions, WriteOptions};

const LEVELS: [(&str, PerfLevel); 5] = [
    ("disable", PerfLevel::Disable),
    ("count", PerfLevel::EnableCount),
    ("wait", PerfLevel::EnableWait),
    ("time_except_mutex", PerfLevel::EnableTimeExceptForMutex),
    ("time", PerfLevel::EnableTime),
];

struct Args {
    keys: u32,
    gets: u32,
    puts: u32,
    rounds: u32,
    raw: bool,
    only: Option<String>,
    level: String,
}

fn build() -> &'static str {
    if cfg!(feature = "perf-context-off") {
        "off"
    } else {
        "on"
    }
}

fn key(i: u32) -> [u8; 16] {
    let mut k = *b"key0000000000000";
    let d = format!("{i:013}");
    k[3..].copy_from_slice(d.as_bytes());
    k
}

fn value(rng: &mut SmallRng) -> [u8; 100] {
    let mut v = [0u8; 100];
    rng.fill(&mut v[..]);
    v
}

fn parse_level(name: &str) -> PerfLevel {
    LEVELS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, l)| *l)
        .unwrap_or_else(|| panic!("unknown level {name}"))
}

fn read_db(dir: &std::path::Path, keys: u32) -> Db {
    let mut o = Options {
        create_if_missing: true,
        ..Options::default()
    };
    o.table.filter_bits_per_key = Some(10.0);
    o.table.block_cache_size = 256 << 20;
    let db = Db::open(o, dir).unwrap();
    let wo = WriteOptions {
        disable_wal: true,
        ..WriteOptions::default()
    };
    let mut rng = SmallRng::seed_from_u64(1);
    for i in 0..keys {
        db.put(&wo, &key(i), &value(&mut rng)).unwrap();
    }
    db.flush(&FlushOptions::default()).unwrap();
    db.compact_range(None, None).unwrap();
    // Warm the block cache and the table readers.
    let ro = ReadOptions::default();
    let mut v = Vec::new();
    for i in 0..keys {
        db.get_into(&ro, &key(i), &mut v).unwrap();
    }
    db
}

fn write_db(dir: &std::path::Path) -> Db {
    let o = Options {
        create_if_missing: true,
        write_buffer_size: 1 << 30,
        disable_auto_compactions: true,
        ..Options::default()
    };
    Db::open(o, dir).unwrap()
}

fn get_keys(keys: u32, n: u32, rng: &mut SmallRng) -> Vec<[u8; 16]> {
    (0..n).map(|_| key(rng.random_range(0..keys))).collect()
}

fn put_entries(n: u32, rng: &mut SmallRng) -> Vec<([u8; 16], [u8; 100])> {
    (0..n).map(|_| (key(rng.random()), value(rng))).collect()
}

/// Gets of existing keys; ops/s. Only the calls are inside (callgrind
/// counts this function).
#[inline(never)]
fn measure_gets(db: &Db, keys: &[[u8; 16]]) -> f64 {
    let ro = ReadOptions::default();
    let mut v = Vec::with_capacity(128);
    let t = Instant::now();
    for k in keys {
        let found = db.get_into(&ro, k, &mut v).unwrap();
        debug_assert!(found);
    }
    keys.len() as f64 / t.elapsed().as_secs_f64()
}

/// Puts; ops/s. Only the calls are inside (callgrind counts this function).
#[inline(never)]
fn measure_puts(db: &Db, entries: &[([u8; 16], [u8; 100])]) -> f64 {
    let wo = WriteOptions::default();
    let t = Instant::now();
    for (k, v) in entries {
        db.put(&wo, k, v).unwrap();
    }
    entries.len() as f64 / t.elapsed().as_secs_f64()
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let clock =
        std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
            .map(|s| s.trim().to_owned())
            .unwrap_or_else(|_| "?".into());
    format!("{cpu}, {cores} cores, clocksource {clock}")
}

/// Samples: (build, op, level) -> ops/s of each round.
type Samples = BTreeMap<(String, String, String), Vec<f64>>;

fn print_table(samples: &Samples) {
    for op in ["get", "put"] {
        let key = |b: &str, l: &str| (b.to_owned(), op.to_owned(), l.to_owned());
        let Some(disable_samples) = samples.get(&key("on", "disable")).cloned() else {
            continue;
        };
        let disable = median(&disable_samples);
        println!(
            "\nrandom {op}: {} samples per level; overhead = DISABLE ops/s / level ops/s - 1",
            disable_samples.len()
        );
        println!(
            "  {:<34} {:>12} {:>17} {:>17}",
            "build / level", "median ops/s", "overhead (medians)", "overhead (paired)"
        );
        let mut rows: Vec<(String, f64, String)> = Vec::new();
        if let Some(v) = samples.get(&key("off", "disable")) {
            rows.push((
                "perf-context-off (compiled out)".into(),
                median(v),
                "-".into(),
            ));
        }
        for (name, _) in LEVELS {
            if let Some(v) = samples.get(&key("on", name)).cloned() {
                // Sample i of every level comes from the same round and process.
                let paired: Vec<f64> = v
                    .iter()
                    .zip(&disable_samples)
                    .map(|(l, d)| (d / l - 1.0) * 100.0)
                    .collect();
                rows.push((
                    format!("on, {}", name.to_uppercase()),
                    median(&v),
                    format!("{:+.2}%", median(&paired)),
                ));
            }
        }
        for (label, ops, paired) in rows {
            println!(
                "  {:<34} {:>12.0} {:>+16.2}% {:>17}",
                label,
                ops,
                (disable / ops - 1.0) * 100.0,
                paired
            );
        }
    }
}

/// One process's samples (one raw file): (op, level) -> ops/s per round.
type ProcessSamples = BTreeMap<(String, String), Vec<f64>>;

/// The per-round overheads of `level` against `DISABLE` in one process
/// (sample i of every level comes from round i), median over the rounds.
fn process_overhead(p: &ProcessSamples, op: &str, level: &str) -> Option<f64> {
    let d = p.get(&(op.to_owned(), "disable".to_owned()))?;
    let l = p.get(&(op.to_owned(), level.to_owned()))?;
    let paired: Vec<f64> = l
        .iter()
        .zip(d)
        .map(|(l, d)| (d / l - 1.0) * 100.0)
        .collect();
    (!paired.is_empty()).then(|| median(&paired))
}

fn spread(v: &[f64]) -> String {
    if v.is_empty() {
        return "-".into();
    }
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!("{:+.2}% [{:+.1} .. {:+.1}]", median(v), min, max)
}

/// Reads raw files of several processes (both builds, see
/// `scripts/perf-overhead`) and `ir BUILD OP LEVEL INSTRUCTIONS_PER_OP`
/// lines (callgrind), and prints per op and level: instructions per
/// operation and against `DISABLE`; the time overhead against `DISABLE`,
/// as the median over processes of each process's paired median, with the
/// smallest and largest process value (the spread). The compiled-out build
/// cannot share a process with `DISABLE`: its row pairs the k-th process of
/// each build (run one after the other) and compares their median ops/s.
fn summarize(files: &[String]) {
    let mut procs: BTreeMap<String, Vec<ProcessSamples>> = BTreeMap::new();
    let mut ir: BTreeMap<(String, String, String), f64> = BTreeMap::new();
    let mut header = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{f}: {e}"));
        let mut samples = ProcessSamples::new();
        let mut build = None;
        for line in text.lines() {
            let p: Vec<&str> = line.split_whitespace().collect();
            match p.as_slice() {
                ["sample", b, op, level, v] => {
                    build = Some(b.to_string());
                    samples
                        .entry((op.to_string(), level.to_string()))
                        .or_default()
                        .push(v.parse().unwrap());
                }
                ["ir", b, op, level, v] => {
                    ir.insert(
                        (b.to_string(), op.to_string(), level.to_string()),
                        v.parse().unwrap(),
                    );
                }
                _ if line.starts_with("# build:") && header.is_empty() => {
                    header.push(line.to_owned());
                }
                _ if line.starts_with("# ") && line.contains("per sample") && header.len() < 2 => {
                    header.push(line.to_owned());
                }
                _ => {}
            }
        }
        if let Some(b) = build {
            procs.entry(b).or_default().push(samples);
        }
    }
    for h in &header {
        println!("{h}");
    }
    let on = procs.get("on").cloned().unwrap_or_default();
    let off = procs.get("off").cloned().unwrap_or_default();
    for op in ["get", "put"] {
        let rounds = on
            .first()
            .and_then(|p| p.get(&(op.to_owned(), "disable".to_owned())))
            .map_or(0, Vec::len);
        println!(
            "\nrandom {op}: {} + {} processes (normal + compiled-out build), {rounds} rounds each",
            on.len(),
            off.len()
        );
        println!(
            "  {:<32} {:>9} {:>10} {:>13}  time vs DISABLE: median [min .. max] over processes",
            "build / level", "Ir/op", "Ir vs DIS.", "median ops/s"
        );
        let ir_of = |b: &str, l: &str| {
            ir.get(&(b.to_owned(), op.to_owned(), l.to_owned()))
                .copied()
        };
        let ir_cols = |b: &str, l: &str| match (ir_of(b, l), ir_of("on", "disable")) {
            (Some(v), Some(d)) => format!("{v:>9.1} {:>+9.2}%", (v / d - 1.0) * 100.0),
            (Some(v), None) => format!("{v:>9.1} {:>10}", "-"),
            _ => format!("{:>9} {:>10}", "-", "-"),
        };
        let ops_median = |ps: &[ProcessSamples], l: &str| {
            let all: Vec<f64> = ps
                .iter()
                .filter_map(|p| p.get(&(op.to_owned(), l.to_owned())))
                .flatten()
                .copied()
                .collect();
            if all.is_empty() { 0.0 } else { median(&all) }
        };
        if !off.is_empty() {
            let pairs: Vec<f64> = on
                .iter()
                .zip(&off)
                .filter_map(|(a, b)| {
                    let k = (op.to_owned(), "disable".to_owned());
                    Some((median(a.get(&k)?) / median(b.get(&k)?) - 1.0) * 100.0)
                })
                .collect();
            println!(
                "  {:<32} {} {:>13.0}  {} (DISABLE / compiled out - 1, per pair of processes)",
                "perf-context-off (compiled out)",
                ir_cols("off", "disable"),
                ops_median(&off, "disable"),
                spread(&pairs)
            );
        }
        for (name, _) in LEVELS {
            let per: Vec<f64> = on
                .iter()
                .filter_map(|p| process_overhead(p, op, name))
                .collect();
            println!(
                "  {:<32} {} {:>13.0}  {}",
                format!("on, {}", name.to_uppercase()),
                ir_cols("on", name),
                ops_median(&on, name),
                if name == "disable" {
                    "-".into()
                } else {
                    spread(&per)
                }
            );
        }
    }
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        keys: 200_000,
        gets: 5_000,
        puts: 2_500,
        rounds: 60,
        raw: false,
        only: None,
        level: "disable".into(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut val = || it.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--keys" => a.keys = val()?.parse().map_err(|e| format!("{e}"))?,
            "--gets" => a.gets = val()?.parse().map_err(|e| format!("{e}"))?,
            "--puts" => a.puts = val()?.parse().map_err(|e| format!("{e}"))?,
            "--rounds" => a.rounds = val()?.parse().map_err(|e| format!("{e}"))?,
            "--format" => a.raw = val()? == "raw",
            "--only" => a.only = Some(val()?),
            "--level" => a.level = val()?,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(a)
}

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    if argv.get(1).map(String::as_str) == Some("summarize") {
        return summarize(&argv[2..]);
    }
    let a = parse_args().unwrap_or_else(|e| {
        eprintln!("perf_overhead: {e}");
        std::process::exit(2)
    });
    let dir = tempfile::tempdir().unwrap();
    let mut rng = SmallRng::seed_from_u64(7);
    if let Some(op) = &a.only {
        // Every level first goes through the highest one, so that the
        // one-time work of the timing levels (clock calibration, the
        // exit-fold registration) happens at every level, outside the
        // measured loop, and the heap is laid out alike: otherwise the
        // instruction counts of `memcmp` on block keys differ by address
        // alignment, tens of instructions per get, with no cause in the
        // perf context.
        pc::set_perf_level(PerfLevel::EnableTime).unwrap();
        pc::set_perf_level(parse_level(&a.level)).unwrap();
        match op.as_str() {
            "get" => {
                let db = read_db(&dir.path().join("r"), a.keys);
                measure_gets(&db, &get_keys(a.keys, a.gets, &mut rng));
            }
            _ => {
                let db = write_db(&dir.path().join("w"));
                measure_puts(&db, &put_entries(a.puts, &mut rng));
            }
        }
        return;
    }
    println!("# perf_overhead: {}", argv.join(" "));
    println!("# build: perf context {}; machine: {}", build(), machine());
    println!(
        "# {} keys, {} gets and {} puts per sample, {} rounds",
        a.keys, a.gets, a.puts, a.rounds
    );
    // The compiled-out build runs the same rounds (the same number of puts,
    // so its memtable grows as large) and keeps the samples of the DISABLE
    // slot only: its other levels record nothing either.
    let levels: Vec<(&str, PerfLevel)> = LEVELS.to_vec();
    let rdb = read_db(&dir.path().join("r"), a.keys);
    let wdb = write_db(&dir.path().join("w"));
    // Warm-up, not recorded.
    measure_gets(&rdb, &get_keys(a.keys, a.gets / 4, &mut rng));
    measure_puts(&wdb, &put_entries(a.puts / 4, &mut rng));
    let mut samples = Samples::new();
    for round in 0..a.rounds as usize {
        for i in 0..levels.len() {
            let (name, level) = levels[(i + round) % levels.len()];
            let gk = get_keys(a.keys, a.gets, &mut rng);
            let pe = put_entries(a.puts, &mut rng);
            pc::set_perf_level(level).unwrap();
            pc::reset();
            let g = measure_gets(&rdb, &gk);
            let p = measure_puts(&wdb, &pe);
            pc::set_perf_level(PerfLevel::Disable).unwrap();
            if cfg!(feature = "perf-context-off") && level != PerfLevel::Disable {
                continue;
            }
            for (op, v) in [("get", g), ("put", p)] {
                if a.raw {
                    println!("sample {} {op} {name} {v:.1}", build());
                }
                samples
                    .entry((build().into(), op.into(), name.into()))
                    .or_default()
                    .push(v);
            }
        }
    }
    if !a.raw {
        print_table(&samples);
    }
}
