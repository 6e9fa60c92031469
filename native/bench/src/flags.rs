//! Command-line flags in db_bench's (gflags') syntax.
//!
//! Accepted forms, with one or two leading dashes:
//! `--name=value`, `--name value` (not for booleans), and for booleans
//! `--name`, `--name=true|false|1|0|yes|no|t|f|y|n` and `--noname`.
//!
//! Every flag Talus honours is in [`FLAGS`], named and defaulted as in
//! db_bench unless its help says otherwise. db_bench flags Talus cannot
//! honour are in [`UNSUPPORTED`]: giving one is an error that says why,
//! unless the value given is the one that describes what Talus does anyway
//! (e.g. `--use_direct_reads=false`). Any other name is an error that lists
//! the valid flags. Nothing is silently ignored.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// The type of a flag's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Bool,
    Int,
    Uint,
    Double,
    Str,
}

/// One flag: name, type, default (as text) and help.
#[derive(Debug)]
pub struct FlagDef {
    pub name: &'static str,
    pub kind: Kind,
    pub default: &'static str,
    pub help: &'static str,
}

const fn f(name: &'static str, kind: Kind, default: &'static str, help: &'static str) -> FlagDef {
    FlagDef {
        name,
        kind,
        default,
        help,
    }
}

use Kind::{Bool, Double, Int, Str, Uint};

/// The flags talus-bench honours, in the order `--help` lists them.
pub const FLAGS: &[FlagDef] = &[
    // ---- what to run ----
    f(
        "benchmarks",
        Str,
        "fillseq,fillrandom,readrandom,readseq,readwhilewriting,stats",
        "Comma-separated benchmarks, run in order on one database: fillseq, fillrandom, overwrite, fillsync, readrandom, readseq, readreverse, seekrandom, readwhilewriting, readrandomwriterandom, deleterandom, flush, compact, waitforcompaction, stats, levelstats, sstables",
    ),
    f(
        "num",
        Int,
        "1000000",
        "Number of keys: the key space is [0, num) (fillsync: [0, num/1000)); each thread of a fill benchmark writes num entries unless --writes is given",
    ),
    f(
        "reads",
        Int,
        "-1",
        "Reads per thread for read benchmarks (negative: num)",
    ),
    f(
        "writes",
        Int,
        "-1",
        "Writes per thread for fill/overwrite benchmarks (negative: num)",
    ),
    f(
        "deletes",
        Int,
        "-1",
        "Deletes per thread for deleterandom (negative: num)",
    ),
    f(
        "threads",
        Int,
        "1",
        "Concurrent benchmark threads (readwhilewriting adds one writer thread)",
    ),
    f(
        "duration",
        Int,
        "0",
        "Seconds to run random benchmarks for; 0: run until the op counts are done",
    ),
    f("key_size", Int, "16", "Key size in bytes"),
    f("value_size", Int, "100", "Value size in bytes"),
    f(
        "compression_ratio",
        Double,
        "0.5",
        "Values are generated to compress to this fraction of their size",
    ),
    f(
        "batch_size",
        Int,
        "1",
        "Entries per write batch in write benchmarks",
    ),
    f(
        "read_random_exp_range",
        Double,
        "0",
        "Hot keys: readrandom, seekrandom and readwhilewriting read key num*exp(-r), r uniform in [0, this], scattered over the key space by a multiplicative hash; larger is more skewed, 0 is uniform",
    ),
    f(
        "readwritepercent",
        Int,
        "90",
        "readrandomwriterandom: percent of operations that are reads",
    ),
    f(
        "seek_nexts",
        Int,
        "0",
        "seekrandom: Next() calls after each Seek()",
    ),
    f(
        "seed",
        Int,
        "0",
        "Seed for the random generators; 0 derives one from the clock",
    ),
    f(
        "use_existing_db",
        Bool,
        "false",
        "Open the existing database instead of starting empty; fill benchmarks are then skipped",
    ),
    f(
        "db",
        Str,
        "",
        "Database directory (default: $TMPDIR/talusbench-$USER/dbbench)",
    ),
    f(
        "wal_dir",
        Str,
        "",
        "Directory for the write-ahead log (default: the database directory)",
    ),
    f("sync", Bool, "false", "Sync the WAL on every write"),
    f("disable_wal", Bool, "false", "Write without the WAL"),
    // ---- output ----
    f(
        "histogram",
        Bool,
        "false",
        "Print the latency histogram of each benchmark",
    ),
    f(
        "statistics",
        Bool,
        "false",
        "Collect database statistics and print the tickers and histograms at the end",
    ),
    f(
        "perf_level",
        Int,
        "1",
        "Perf context level (0/1 off, 2 counts, 3+ counts and times); above 1 the summed perf context of the benchmark threads follows each benchmark",
    ),
    f(
        "stats_interval_seconds",
        Int,
        "0",
        "Each benchmark thread prints its interval and cumulative ops/sec every N seconds (stderr)",
    ),
    f(
        "stats_per_interval",
        Int,
        "0",
        "With stats_interval_seconds, thread 0 also prints rocksdb.stats each interval",
    ),
    f(
        "report_interval_seconds",
        Int,
        "0",
        "Append 'secs_elapsed,interval_qps' to --report_file every N seconds (0: off)",
    ),
    f(
        "report_file",
        Str,
        "report.csv",
        "CSV file of report_interval_seconds",
    ),
    f(
        "progress_reports",
        Bool,
        "true",
        "Print '... finished N ops' progress to stderr",
    ),
    // ---- benchmark's own throttles ----
    f(
        "benchmark_write_rate_limit",
        Uint,
        "0",
        "Throttle the benchmark's writes to this many bytes/s over all threads (0: off)",
    ),
    f(
        "benchmark_read_rate_limit",
        Uint,
        "0",
        "Throttle the benchmark's reads to this many ops/s over all threads (0: off)",
    ),
    // ---- engine options ----
    f(
        "write_buffer_size",
        Int,
        "67108864",
        "Bytes in a memtable before it is switched",
    ),
    f(
        "max_write_buffer_number",
        Int,
        "2",
        "Memtables (active + immutable) before writes wait",
    ),
    f(
        "min_write_buffer_number_to_merge",
        Int,
        "1",
        "Immutable memtables merged by one flush",
    ),
    f(
        "level0_file_num_compaction_trigger",
        Int,
        "4",
        "L0 files that trigger an L0 compaction",
    ),
    f(
        "level0_slowdown_writes_trigger",
        Int,
        "20",
        "L0 files at which writes slow down",
    ),
    f(
        "level0_stop_writes_trigger",
        Int,
        "36",
        "L0 files at which writes stop",
    ),
    f(
        "soft_pending_compaction_bytes_limit",
        Uint,
        "68719476736",
        "Pending compaction bytes at which writes slow down",
    ),
    f(
        "hard_pending_compaction_bytes_limit",
        Uint,
        "274877906944",
        "Pending compaction bytes at which writes stop",
    ),
    f(
        "delayed_write_rate",
        Uint,
        "8388608",
        "Write rate in bytes/s while writes are slowed down (db_bench's default; 0: derive)",
    ),
    f(
        "max_background_jobs",
        Int,
        "2",
        "Background flush and compaction threads",
    ),
    f(
        "max_background_compactions",
        Int,
        "-1",
        "Background compaction threads (-1: from max_background_jobs)",
    ),
    f(
        "max_background_flushes",
        Int,
        "-1",
        "Background flush threads (-1: from max_background_jobs)",
    ),
    f(
        "target_file_size_base",
        Int,
        "67108864",
        "Target size of compaction output files",
    ),
    f(
        "target_file_size_multiplier",
        Int,
        "1",
        "Growth of the target file size per level",
    ),
    f(
        "max_bytes_for_level_base",
        Uint,
        "268435456",
        "Target size of the base level",
    ),
    f(
        "max_bytes_for_level_multiplier",
        Double,
        "10",
        "Growth factor between level targets",
    ),
    f("num_levels", Int, "7", "Number of levels"),
    f(
        "level_compaction_dynamic_level_bytes",
        Bool,
        "true",
        "Size levels from the bottom up (RocksDB's default since 8.4; db_bench 7.8 defaults to false)",
    ),
    f("compaction_style", Int, "0", "0 level, 1 universal, 2 FIFO"),
    f(
        "universal_size_ratio",
        Int,
        "0",
        "Universal: percentage of flexibility comparing run sizes (0: RocksDB's default, 1)",
    ),
    f(
        "universal_min_merge_width",
        Int,
        "0",
        "Universal: fewest runs merged (0: RocksDB's default, 2)",
    ),
    f(
        "universal_max_merge_width",
        Int,
        "0",
        "Universal: most runs merged (0: RocksDB's default, no limit)",
    ),
    f(
        "universal_max_size_amplification_percent",
        Int,
        "0",
        "Universal: size amplification that merges everything (0: RocksDB's default, 200)",
    ),
    f(
        "universal_compression_size_percent",
        Int,
        "-1",
        "Universal: leave outputs uncompressed while older runs hold this percentage of the data (-1: always compress)",
    ),
    f(
        "universal_allow_trivial_move",
        Bool,
        "false",
        "Universal: move runs that do not overlap instead of rewriting them",
    ),
    f(
        "fifo_compaction_max_table_files_size_mb",
        Uint,
        "0",
        "FIFO: total table size (MiB) above which the oldest tables are dropped (0: RocksDB's default, 1 GiB)",
    ),
    f(
        "fifo_compaction_allow_compaction",
        Bool,
        "true",
        "FIFO: merge small L0 tables",
    ),
    f(
        "compaction_pri",
        Int,
        "3",
        "0 by compensated size, 1 oldest largest seq, 2 oldest smallest seq, 3 min overlapping ratio, 4 round robin",
    ),
    f(
        "disable_auto_compactions",
        Bool,
        "false",
        "Do not start compactions by themselves",
    ),
    f(
        "max_total_wal_size",
        Uint,
        "0",
        "Flush when the live WALs exceed this size (0: derive)",
    ),
    f(
        "wal_bytes_per_sync",
        Uint,
        "0",
        "Sync the WAL in the background every this many bytes",
    ),
    f(
        "bytes_per_sync",
        Uint,
        "0",
        "Sync table files while writing every this many bytes",
    ),
    f("use_fsync", Bool, "false", "fsync instead of fdatasync"),
    f("open_files", Int, "-1", "Table files kept open (-1: all)"),
    f(
        "rate_limiter_bytes_per_sec",
        Uint,
        "0",
        "Rate limit of flush and compaction IO in bytes/s (0: off)",
    ),
    f(
        "rate_limiter_refill_period_us",
        Uint,
        "100000",
        "Refill period of the rate limiter in microseconds",
    ),
    f(
        "rate_limiter_auto_tuned",
        Bool,
        "false",
        "Let the rate limiter tune its rate between a twentieth of the limit and the limit",
    ),
    f(
        "rate_limiter_single_burst_bytes",
        Uint,
        "0",
        "Most bytes the rate limiter grants at once (0: one refill's worth)",
    ),
    f(
        "rate_limit_bg_reads",
        Bool,
        "false",
        "Rate-limit compaction reads instead of flush and compaction writes (kReadsOnly)",
    ),
    f(
        "cache_size",
        Int,
        "33554432",
        "Block cache bytes (≤ 0: no block cache); 32 MiB as db_bench 8.x-10.x (7.x: 8 MiB)",
    ),
    f(
        "cache_numshardbits",
        Int,
        "-1",
        "Block cache shards are 2^this (-1: from the capacity)",
    ),
    f(
        "cache_type",
        Str,
        "lru_cache",
        "Block cache type; Talus has lru_cache",
    ),
    f(
        "cache_index_and_filter_blocks",
        Bool,
        "false",
        "Keep index and filter blocks in the block cache",
    ),
    f(
        "pin_l0_filter_and_index_blocks_in_cache",
        Bool,
        "false",
        "Pin L0 index and filter blocks in the block cache",
    ),
    f(
        "bloom_bits",
        Double,
        "-1",
        "Bloom filter bits per key (negative or 0: no filter)",
    ),
    f("block_size", Int, "4096", "Data block size in bytes"),
    f(
        "block_restart_interval",
        Int,
        "16",
        "Keys between restart points in data blocks",
    ),
    f(
        "compression_type",
        Str,
        "lz4",
        "none, snappy, lz4 or zstd (db_bench's default is snappy; Talus's is lz4)",
    ),
    f(
        "compression_level",
        Int,
        "32767",
        "Codec level (ZSTD's level; 32767: the codec's default)",
    ),
    f(
        "compression_max_dict_bytes",
        Int,
        "0",
        "Largest ZSTD dictionary per table in bytes (0: no dictionary)",
    ),
    f(
        "compression_zstd_max_train_bytes",
        Int,
        "0",
        "Bytes of samples the ZSTD dictionary trainer reads (0: samples are the dictionary)",
    ),
    f(
        "verify_checksum",
        Bool,
        "true",
        "Verify block checksums on reads",
    ),
];

/// A db_bench flag Talus does not implement.
#[derive(Debug)]
pub struct Unsupported {
    pub name: &'static str,
    /// The one value that describes what Talus does anyway (accepted), or "".
    pub accepts: &'static str,
    pub reason: &'static str,
}

const fn u(name: &'static str, accepts: &'static str, reason: &'static str) -> Unsupported {
    Unsupported {
        name,
        accepts,
        reason,
    }
}

/// db_bench flags that Talus cannot honour.
pub const UNSUPPORTED: &[Unsupported] = &[
    u(
        "use_direct_reads",
        "false",
        "Talus reads through the page cache",
    ),
    u(
        "use_direct_io_for_flush_and_compaction",
        "false",
        "Talus writes through the page cache",
    ),
    u("mmap_read", "false", "Talus reads tables with pread"),
    u("mmap_write", "false", "Talus writes tables with write"),
    u(
        "enable_pipelined_write",
        "false",
        "Talus's group commit writes WAL and memtable in one stage",
    ),
    u(
        "unordered_write",
        "false",
        "Talus publishes writes in sequence order",
    ),
    u(
        "memtablerep",
        "skip_list",
        "Talus's memtable is a skip list",
    ),
    u(
        "compressed_cache_size",
        "-1",
        "Talus has no compressed block cache",
    ),
    u("row_cache_size", "0", "Talus has no row cache"),
    u("enable_blob_files", "false", "Talus has no blob files"),
    u("use_blob_db", "false", "Talus has no BlobDB"),
    u("num_multi_db", "0", "talus-bench runs one database"),
    u("prefix_size", "0", "Talus has no prefix extractor"),
    u(
        "keys_per_prefix",
        "0",
        "talus-bench generates keys without prefixes",
    ),
    u(
        "partition_index_and_filters",
        "false",
        "Talus has no partitioned index or filter",
    ),
    u(
        "optimize_filters_for_hits",
        "false",
        "Talus builds filters at every level",
    ),
    u(
        "use_existing_keys",
        "false",
        "not implemented by talus-bench",
    ),
    u("readonly", "false", "Talus has no read-only open"),
    u(
        "subcompactions",
        "1",
        "Talus runs each compaction in one thread",
    ),
    u(
        "max_subcompactions",
        "1",
        "Talus runs each compaction in one thread",
    ),
    u(
        "use_tailing_iterator",
        "false",
        "Talus has no tailing iterator",
    ),
    u(
        "reverse_iterator",
        "false",
        "not implemented by talus-bench",
    ),
    u("merge_operator", "", "Talus has no merge operator"),
    u("transaction_db", "false", "Talus has no transactions"),
    u(
        "optimistic_transaction_db",
        "false",
        "Talus has no transactions",
    ),
    u("user_timestamp_size", "0", "Talus has no user timestamps"),
    u(
        "value_size_distribution_type",
        "fixed",
        "talus-bench writes fixed-size values",
    ),
    u(
        "stats_interval",
        "0",
        "talus-bench reports by time: use --stats_interval_seconds",
    ),
    u(
        "report_file_operations",
        "false",
        "Talus does not count file operations",
    ),
];

/// The result of parsing a command line.
#[derive(Debug)]
pub enum Parsed {
    /// `--help`: print [`help_text`] and exit.
    Help,
    Flags(Flags),
}

/// Parsed flag values (every flag has one: the default unless given).
#[derive(Debug, Clone)]
pub struct Flags {
    values: BTreeMap<&'static str, String>,
    explicit: BTreeSet<&'static str>,
}

fn find(name: &str) -> Option<&'static FlagDef> {
    FLAGS.iter().find(|d| d.name == name)
}

fn parse_bool(s: &str) -> Option<bool> {
    match s.to_ascii_lowercase().as_str() {
        "true" | "1" | "t" | "yes" | "y" => Some(true),
        "false" | "0" | "f" | "no" | "n" => Some(false),
        _ => None,
    }
}

fn check_value(def: &FlagDef, value: &str) -> Result<String, String> {
    let ok = match def.kind {
        Kind::Bool => {
            return parse_bool(value)
                .map(|b| b.to_string())
                .ok_or_else(|| format!("--{}: '{value}' is not a boolean (true/false)", def.name));
        }
        Kind::Int => value.parse::<i64>().is_ok(),
        Kind::Uint => value.parse::<u64>().is_ok(),
        Kind::Double => value.parse::<f64>().is_ok_and(f64::is_finite),
        Kind::Str => true,
    };
    if ok {
        Ok(value.to_string())
    } else {
        let what = match def.kind {
            Kind::Int => "an integer",
            Kind::Uint => "a non-negative integer",
            _ => "a number",
        };
        Err(format!("--{}: '{value}' is not {what}", def.name))
    }
}

fn unknown(name: &str) -> String {
    let mut names: Vec<&str> = FLAGS.iter().map(|d| d.name).collect();
    names.sort_unstable();
    let mut s = format!("unknown flag --{name}. Valid flags (see --help):\n");
    let mut line = String::from(" ");
    for n in names {
        if line.len() + n.len() + 3 > 100 {
            s.push_str(&line);
            s.push('\n');
            line = String::from(" ");
        }
        let _ = write!(line, " --{n}");
    }
    s.push_str(&line);
    s
}

impl Flags {
    /// Parses the arguments after the program name.
    pub fn parse<I>(args: I) -> Result<Parsed, String>
    where
        I: IntoIterator<Item = String>,
    {
        let mut values: BTreeMap<&'static str, String> = FLAGS
            .iter()
            .map(|d| (d.name, d.default.to_string()))
            .collect();
        let mut explicit = BTreeSet::new();
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let Some(body) = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-')) else {
                return Err(format!(
                    "unexpected argument '{arg}': talus-bench takes only --flag=value arguments"
                ));
            };
            if body == "help" || body == "helpfull" {
                return Ok(Parsed::Help);
            }
            let (name, value) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (body, None),
            };
            let (def, value) = if let Some(def) = find(name) {
                let value = match (value, def.kind) {
                    (Some(v), _) => v,
                    (None, Kind::Bool) => "true".to_string(),
                    (None, _) => args
                        .next()
                        .ok_or_else(|| format!("--{name} needs a value"))?,
                };
                (def, value)
            } else if let Some(def) = name
                .strip_prefix("no")
                .and_then(find)
                .filter(|d| d.kind == Kind::Bool && value.is_none())
            {
                (def, "false".to_string())
            } else if let Some(un) = UNSUPPORTED.iter().find(|u| u.name == name) {
                let value = value.unwrap_or_else(|| "true".to_string());
                let same = un.accepts == value
                    || (parse_bool(un.accepts).is_some()
                        && parse_bool(un.accepts) == parse_bool(&value));
                if same {
                    continue;
                }
                return Err(format!(
                    "--{name}={value} is a db_bench flag not supported by Talus: {}",
                    un.reason
                ));
            } else {
                return Err(unknown(name));
            };
            let v = check_value(def, &value)?;
            values.insert(def.name, v);
            explicit.insert(def.name);
        }
        Ok(Parsed::Flags(Flags { values, explicit }))
    }

    fn raw(&self, name: &str) -> &str {
        self.values
            .get(name)
            .unwrap_or_else(|| panic!("flag --{name} is not defined"))
    }

    /// A boolean flag.
    pub fn bool(&self, name: &str) -> bool {
        self.raw(name) == "true"
    }

    /// An integer flag.
    pub fn int(&self, name: &str) -> i64 {
        self.raw(name).parse().expect("checked at parse time")
    }

    /// A non-negative integer flag.
    pub fn uint(&self, name: &str) -> u64 {
        self.raw(name).parse().expect("checked at parse time")
    }

    /// A floating-point flag.
    pub fn double(&self, name: &str) -> f64 {
        self.raw(name).parse().expect("checked at parse time")
    }

    /// A string flag.
    pub fn str(&self, name: &str) -> &str {
        self.raw(name)
    }

    /// Whether the flag was given on the command line.
    pub fn is_set(&self, name: &str) -> bool {
        self.explicit.contains(name)
    }
}

/// The `--help` text: every flag with its type, default and help, then the
/// db_bench flags Talus does not honour.
pub fn help_text() -> String {
    let mut s = String::from(
        "talus-bench: db_bench's benchmarks and flags, run against Talus.\n\
         Usage: talus-bench --benchmarks=fillrandom,readrandom --num=1000000 [--flag=value ...]\n\n\
         Flags:\n",
    );
    for d in FLAGS {
        let kind = match d.kind {
            Kind::Bool => "bool",
            Kind::Int => "int64",
            Kind::Uint => "uint64",
            Kind::Double => "double",
            Kind::Str => "string",
        };
        let _ = writeln!(
            s,
            "  --{} ({}) type: {kind} default: \"{}\"",
            d.name, d.help, d.default
        );
    }
    s.push_str("\ndb_bench flags not supported by Talus (accepted only with the value shown):\n");
    for u in UNSUPPORTED {
        let accepts = if u.accepts.is_empty() {
            "none".to_string()
        } else {
            format!("={}", u.accepts)
        };
        let _ = writeln!(s, "  --{} ({accepts}): {}", u.name, u.reason);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Flags, String> {
        match Flags::parse(args.iter().map(|s| s.to_string()))? {
            Parsed::Flags(f) => Ok(f),
            Parsed::Help => Err("help".into()),
        }
    }

    #[test]
    fn gflags_forms() {
        let f = parse(&[
            "--num=5",
            "-threads=3",
            "--key_size",
            "48",
            "--histogram",
            "--nosync",
            "--statistics=0",
            "--disable_wal=yes",
        ])
        .unwrap();
        assert_eq!(f.int("num"), 5);
        assert_eq!(f.int("threads"), 3);
        assert_eq!(f.int("key_size"), 48);
        assert!(f.bool("histogram"));
        assert!(!f.bool("sync"));
        assert!(!f.bool("statistics"));
        assert!(f.bool("disable_wal"));
        assert!(f.is_set("num") && !f.is_set("reads"));
        assert_eq!(f.int("reads"), -1);
    }

    #[test]
    fn unknown_flag_lists_valid_ones() {
        let e = parse(&["--nmu=5"]).unwrap_err();
        assert!(e.contains("unknown flag --nmu"), "{e}");
        assert!(e.contains("--num"), "{e}");
    }

    #[test]
    fn unsupported_flag_says_so_unless_it_describes_talus() {
        let e = parse(&["--use_direct_reads=true"]).unwrap_err();
        assert!(e.contains("not supported by Talus"), "{e}");
        assert!(parse(&["--use_direct_reads=false"]).is_ok());
        assert!(parse(&["--row_cache_size=0"]).is_ok());
        assert!(parse(&["--row_cache_size=1024"]).is_err());
    }

    #[test]
    fn bad_values_name_the_flag() {
        let e = parse(&["--num=lots"]).unwrap_err();
        assert!(e.contains("--num"), "{e}");
        assert!(parse(&["--histogram=maybe"]).is_err());
        assert!(parse(&["--benchmark_write_rate_limit=-1"]).is_err());
        assert!(parse(&["stray"]).is_err());
    }

    #[test]
    fn every_flag_has_a_valid_default() {
        for d in FLAGS {
            check_value(d, d.default).unwrap_or_else(|e| panic!("{e}"));
        }
        let mut names: Vec<_> = FLAGS.iter().map(|d| d.name).collect();
        names.extend(UNSUPPORTED.iter().map(|u| u.name));
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "a flag is defined twice");
    }
}
