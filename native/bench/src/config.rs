//! The typed run configuration built from [`Flags`], and the Talus
//! [`Options`] the flags describe. Values Talus cannot honour are rejected
//! here with a message that says so.

use std::path::PathBuf;
use std::sync::Arc;

use talus::BlockCache;
use talus::Options;
use talus::options::{CompactionPriority, CompactionStyle, CompressionType};

use crate::flags::Flags;

/// Everything a run needs, checked.
#[derive(Debug, Clone)]
pub struct Config {
    pub benchmarks: Vec<String>,
    pub num: u64,
    pub reads: u64,
    pub writes: u64,
    pub deletes: u64,
    pub threads: usize,
    pub duration_secs: u64,
    pub key_size: usize,
    pub value_size: usize,
    pub compression_ratio: f64,
    pub batch_size: usize,
    pub read_random_exp_range: f64,
    pub readwritepercent: u32,
    pub seek_nexts: usize,
    pub seed: u64,
    /// Whether `seed` was derived from the clock.
    pub seed_from_clock: bool,
    pub use_existing_db: bool,
    pub db: PathBuf,
    pub wal_dir: Option<PathBuf>,
    pub sync: bool,
    pub disable_wal: bool,
    pub histogram: bool,
    pub statistics: bool,
    pub perf_level: i32,
    pub stats_interval_secs: u64,
    pub stats_per_interval: bool,
    pub report_interval_secs: u64,
    pub report_file: PathBuf,
    pub progress_reports: bool,
    pub benchmark_write_rate_limit: u64,
    pub benchmark_read_rate_limit: u64,
    pub rate_limiter_bytes_per_sec: u64,
    pub rate_limiter_refill_period_us: u64,
    pub rate_limiter_auto_tuned: bool,
    pub rate_limiter_single_burst_bytes: u64,
    /// The limiter charges compaction reads, not writes (db_bench's
    /// `kReadsOnly` under `--rate_limit_bg_reads`).
    pub rate_limit_bg_reads: bool,
    pub verify_checksum: bool,
    pub compression: CompressionType,
    /// Write-stall flags given on the command line.
    pub write_stall_flags_set: Vec<&'static str>,
    /// Options of the database, without the block cache (see [`Config::open_options`]).
    options: Options,
    cache_size: i64,
    cache_numshardbits: i32,
}

/// The benchmark names talus-bench knows.
pub const BENCHMARKS: &[&str] = &[
    "fillseq",
    "fillrandom",
    "overwrite",
    "fillsync",
    "readrandom",
    "readseq",
    "readreverse",
    "seekrandom",
    "readwhilewriting",
    "readrandomwriterandom",
    "deleterandom",
    "flush",
    "compact",
    "waitforcompaction",
    "stats",
    "levelstats",
    "sstables",
];

fn non_negative(flags: &Flags, name: &str) -> Result<u64, String> {
    u64::try_from(flags.int(name)).map_err(|_| format!("--{name} must not be negative"))
}

fn positive_usize(flags: &Flags, name: &str) -> Result<usize, String> {
    match usize::try_from(flags.int(name)) {
        Ok(v) if v > 0 => Ok(v),
        _ => Err(format!(
            "--{name} must be positive, got {}",
            flags.int(name)
        )),
    }
}

fn i32_flag(flags: &Flags, name: &str) -> Result<i32, String> {
    i32::try_from(flags.int(name)).map_err(|_| format!("--{name} is out of range"))
}

/// Per-thread count: the flag when ≥ 0, else `--num`.
fn count_or_num(flags: &Flags, name: &str, num: u64) -> u64 {
    u64::try_from(flags.int(name)).unwrap_or(num)
}

fn default_db_path() -> PathBuf {
    let user = std::env::var("USER").unwrap_or_else(|_| "user".into());
    std::env::temp_dir()
        .join(format!("talusbench-{user}"))
        .join("dbbench")
}

impl Config {
    /// Checks the flags and builds the configuration.
    pub fn from_flags(flags: &Flags) -> Result<Config, String> {
        let benchmarks: Vec<String> = flags
            .str("benchmarks")
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        for b in &benchmarks {
            if !BENCHMARKS.contains(&b.as_str()) {
                return Err(format!(
                    "unknown benchmark '{b}'; talus-bench runs: {}",
                    BENCHMARKS.join(", ")
                ));
            }
        }
        let num = non_negative(flags, "num")?;
        // db_bench's names (`StringToCompressionType`).
        let compression = match flags.str("compression_type").to_ascii_lowercase().as_str() {
            "none" => CompressionType::None,
            "snappy" => CompressionType::Snappy,
            "lz4" => CompressionType::Lz4,
            "zstd" => CompressionType::Zstd,
            other @ ("zlib" | "bzip2" | "lz4hc" | "xpress") => {
                return Err(format!(
                    "--compression_type={other} is not supported by Talus: it implements none, \
                     snappy, lz4 and zstd"
                ));
            }
            other => return Err(format!("--compression_type={other}: unknown codec")),
        };
        let u32_flag = |name: &str| {
            u32::try_from(flags.int(name)).map_err(|_| format!("--{name} must be in 0..=2^32-1"))
        };
        let compression_opts = talus::options::CompressionOptions {
            level: i32_flag(flags, "compression_level")?,
            max_dict_bytes: u32_flag("compression_max_dict_bytes")?,
            zstd_max_train_bytes: u32_flag("compression_zstd_max_train_bytes")?,
            ..Default::default()
        };
        let compaction_style = u8::try_from(flags.int("compaction_style"))
            .ok()
            .and_then(CompactionStyle::from_u8)
            .ok_or_else(|| {
                format!(
                    "--compaction_style={} is not supported by Talus: it implements level (0), \
                     universal (1) and FIFO (2) compaction",
                    flags.int("compaction_style")
                )
            })?;
        // As db_bench: a universal flag left at 0 keeps RocksDB's default.
        let mut universal = talus::options::UniversalOptions::default();
        for (name, field) in [
            ("universal_size_ratio", &mut universal.size_ratio),
            ("universal_min_merge_width", &mut universal.min_merge_width),
            ("universal_max_merge_width", &mut universal.max_merge_width),
            (
                "universal_max_size_amplification_percent",
                &mut universal.max_size_amplification_percent,
            ),
        ] {
            let v = u32_flag(name)?;
            if v != 0 {
                *field = v;
            }
        }
        universal.compression_size_percent = i32_flag(flags, "universal_compression_size_percent")?;
        universal.allow_trivial_move = flags.bool("universal_allow_trivial_move");
        let mut fifo = talus::options::FifoOptions {
            allow_compaction: flags.bool("fifo_compaction_allow_compaction"),
            ..Default::default()
        };
        let fifo_mb = flags.uint("fifo_compaction_max_table_files_size_mb");
        if fifo_mb != 0 {
            fifo.max_table_files_size = fifo_mb.saturating_mul(1 << 20);
        }
        if flags.str("cache_type") != "lru_cache" {
            return Err(format!(
                "--cache_type={} is not supported by Talus: its block cache is lru_cache",
                flags.str("cache_type")
            ));
        }
        if flags.uint("rate_limiter_bytes_per_sec") > 0
            && flags.uint("rate_limiter_refill_period_us") == 0
        {
            return Err("--rate_limiter_refill_period_us must be positive".into());
        }
        let pri = flags.int("compaction_pri");
        let compaction_pri = u8::try_from(pri)
            .ok()
            .and_then(CompactionPriority::from_u8)
            .ok_or_else(|| format!("--compaction_pri={pri} is not one of 0..=4"))?;
        let readwritepercent = u32::try_from(flags.int("readwritepercent"))
            .ok()
            .filter(|p| *p <= 100)
            .ok_or("--readwritepercent must be in 0..=100")?;
        let exp_range = flags.double("read_random_exp_range");
        if exp_range < 0.0 {
            return Err("--read_random_exp_range must not be negative".into());
        }
        let ratio = flags.double("compression_ratio");
        if !(ratio > 0.0 && ratio <= 1.0) {
            return Err("--compression_ratio must be in (0, 1]".into());
        }
        let bloom = flags.double("bloom_bits");
        let seed_flag = flags.int("seed");
        let (seed, seed_from_clock) = if seed_flag == 0 {
            let micros = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_micros() as u64);
            (micros, true)
        } else {
            (seed_flag as u64, false)
        };
        let path_flag = |name: &str| {
            let s = flags.str(name);
            (!s.is_empty()).then(|| PathBuf::from(s))
        };

        let mut o = Options {
            create_if_missing: true,
            wal_dir: path_flag("wal_dir"),
            use_fsync: flags.bool("use_fsync"),
            wal_bytes_per_sync: flags.uint("wal_bytes_per_sync"),
            bytes_per_sync: flags.uint("bytes_per_sync"),
            max_background_jobs: i32_flag(flags, "max_background_jobs")?,
            max_background_compactions: i32_flag(flags, "max_background_compactions")?,
            max_background_flushes: i32_flag(flags, "max_background_flushes")?,
            max_open_files: i32_flag(flags, "open_files")?,
            delayed_write_rate: flags.uint("delayed_write_rate"),
            max_total_wal_size: flags.uint("max_total_wal_size"),
            write_buffer_size: usize::try_from(flags.int("write_buffer_size"))
                .map_err(|_| "--write_buffer_size must not be negative")?,
            max_write_buffer_number: i32_flag(flags, "max_write_buffer_number")?,
            min_write_buffer_number_to_merge: i32_flag(flags, "min_write_buffer_number_to_merge")?,
            level0_file_num_compaction_trigger: i32_flag(
                flags,
                "level0_file_num_compaction_trigger",
            )?,
            level0_slowdown_writes_trigger: i32_flag(flags, "level0_slowdown_writes_trigger")?,
            level0_stop_writes_trigger: i32_flag(flags, "level0_stop_writes_trigger")?,
            soft_pending_compaction_bytes_limit: flags.uint("soft_pending_compaction_bytes_limit"),
            hard_pending_compaction_bytes_limit: flags.uint("hard_pending_compaction_bytes_limit"),
            num_levels: i32_flag(flags, "num_levels")?,
            max_bytes_for_level_base: flags.uint("max_bytes_for_level_base"),
            max_bytes_for_level_multiplier: flags.double("max_bytes_for_level_multiplier"),
            level_compaction_dynamic_level_bytes: flags
                .bool("level_compaction_dynamic_level_bytes"),
            target_file_size_base: non_negative(flags, "target_file_size_base")?,
            target_file_size_multiplier: i32_flag(flags, "target_file_size_multiplier")?,
            compaction_pri,
            disable_auto_compactions: flags.bool("disable_auto_compactions"),
            compression,
            compression_opts,
            compaction_style,
            compaction_options_universal: universal,
            compaction_options_fifo: fifo,
            ..Options::default()
        };
        o.table.block_size = positive_usize(flags, "block_size")?;
        o.table.block_restart_interval = positive_usize(flags, "block_restart_interval")?;
        o.table.filter_bits_per_key = (bloom > 0.0).then_some(bloom);
        o.table.cache_index_and_filter_blocks = flags.bool("cache_index_and_filter_blocks");
        o.table.pin_l0_filter_and_index_blocks_in_cache =
            flags.bool("pin_l0_filter_and_index_blocks_in_cache");
        o.validate().map_err(|e| e.to_string())?;

        let num_or = |name: &str| count_or_num(flags, name, num);
        Ok(Config {
            benchmarks,
            num,
            reads: num_or("reads"),
            writes: num_or("writes"),
            deletes: num_or("deletes"),
            threads: positive_usize(flags, "threads")?,
            duration_secs: non_negative(flags, "duration")?,
            key_size: positive_usize(flags, "key_size")?,
            value_size: usize::try_from(flags.int("value_size"))
                .map_err(|_| "--value_size must not be negative")?,
            compression_ratio: ratio,
            batch_size: positive_usize(flags, "batch_size")?,
            read_random_exp_range: exp_range,
            readwritepercent,
            seek_nexts: usize::try_from(flags.int("seek_nexts"))
                .map_err(|_| "--seek_nexts must not be negative")?,
            seed,
            seed_from_clock,
            use_existing_db: flags.bool("use_existing_db"),
            db: path_flag("db").unwrap_or_else(default_db_path),
            wal_dir: path_flag("wal_dir"),
            sync: flags.bool("sync"),
            disable_wal: flags.bool("disable_wal"),
            histogram: flags.bool("histogram"),
            statistics: flags.bool("statistics"),
            perf_level: i32_flag(flags, "perf_level")?,
            stats_interval_secs: non_negative(flags, "stats_interval_seconds")?,
            stats_per_interval: flags.int("stats_per_interval") > 0,
            report_interval_secs: non_negative(flags, "report_interval_seconds")?,
            report_file: PathBuf::from(flags.str("report_file")),
            progress_reports: flags.bool("progress_reports"),
            benchmark_write_rate_limit: flags.uint("benchmark_write_rate_limit"),
            benchmark_read_rate_limit: flags.uint("benchmark_read_rate_limit"),
            rate_limiter_bytes_per_sec: flags.uint("rate_limiter_bytes_per_sec"),
            rate_limiter_refill_period_us: flags.uint("rate_limiter_refill_period_us"),
            rate_limiter_auto_tuned: flags.bool("rate_limiter_auto_tuned"),
            rate_limiter_single_burst_bytes: flags.uint("rate_limiter_single_burst_bytes"),
            rate_limit_bg_reads: flags.bool("rate_limit_bg_reads"),
            verify_checksum: flags.bool("verify_checksum"),
            compression,
            write_stall_flags_set: crate::engine_features::WRITE_STALL_FLAGS
                .iter()
                .copied()
                .filter(|f| flags.is_set(f))
                .collect(),
            options: o,
            cache_size: flags.int("cache_size"),
            cache_numshardbits: i32_flag(flags, "cache_numshardbits")?,
        })
    }

    /// The options to open the database with (a new block cache each call).
    pub fn open_options(&self) -> Result<Options, String> {
        let mut o = self.options.clone();
        match usize::try_from(self.cache_size) {
            Ok(cap) if cap > 0 => {
                let cache = BlockCache::new(cap, self.cache_numshardbits, false, 0.5)
                    .map_err(|e| format!("--cache_numshardbits: {e}"))?;
                o.table.block_cache = Some(Arc::new(cache));
            }
            _ => o.table.no_block_cache = true,
        }
        Ok(o)
    }

    /// The options as configured (for the header).
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Block cache capacity in bytes (≤ 0: none).
    pub fn cache_size(&self) -> i64 {
        self.cache_size
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flags::Parsed;

    fn config(args: &[&str]) -> Result<Config, String> {
        match Flags::parse(args.iter().map(|s| s.to_string()))? {
            Parsed::Flags(f) => Config::from_flags(&f),
            Parsed::Help => unreachable!(),
        }
    }

    #[test]
    fn engine_option_defaults_are_taluss_defaults() {
        let c = config(&[]).unwrap();
        let d = Options::default();
        let o = c.options();
        assert_eq!(o.write_buffer_size, d.write_buffer_size);
        assert_eq!(o.max_write_buffer_number, d.max_write_buffer_number);
        assert_eq!(
            o.min_write_buffer_number_to_merge,
            d.min_write_buffer_number_to_merge
        );
        assert_eq!(
            o.level0_file_num_compaction_trigger,
            d.level0_file_num_compaction_trigger
        );
        assert_eq!(
            o.level0_slowdown_writes_trigger,
            d.level0_slowdown_writes_trigger
        );
        assert_eq!(o.level0_stop_writes_trigger, d.level0_stop_writes_trigger);
        assert_eq!(
            o.soft_pending_compaction_bytes_limit,
            d.soft_pending_compaction_bytes_limit
        );
        assert_eq!(
            o.hard_pending_compaction_bytes_limit,
            d.hard_pending_compaction_bytes_limit
        );
        assert_eq!(o.max_background_jobs, d.max_background_jobs);
        assert_eq!(o.max_background_compactions, d.max_background_compactions);
        assert_eq!(o.max_background_flushes, d.max_background_flushes);
        assert_eq!(o.target_file_size_base, d.target_file_size_base);
        assert_eq!(o.max_bytes_for_level_base, d.max_bytes_for_level_base);
        assert_eq!(o.num_levels, d.num_levels);
        assert_eq!(
            o.level_compaction_dynamic_level_bytes,
            d.level_compaction_dynamic_level_bytes
        );
        assert_eq!(o.compaction_pri, d.compaction_pri);
        assert_eq!(o.compression, d.compression);
        assert_eq!(o.max_open_files, d.max_open_files);
        assert_eq!(o.table.block_size, d.table.block_size);
        assert_eq!(o.table.filter_bits_per_key, None);
        // Not the engine's 8 MiB: db_bench's own default (32 MiB since 8.x),
        // so that a command line means the same cache on both tools.
        assert_eq!(c.cache_size(), 32 << 20);
        assert_ne!(c.cache_size(), d.table.block_cache_size as i64);
        assert_eq!(
            (c.reads, c.writes, c.num),
            (1_000_000, 1_000_000, 1_000_000)
        );
    }

    #[test]
    fn flags_reach_the_options() {
        let c = config(&[
            "--write_buffer_size=1048576",
            "--bloom_bits=10",
            "--compression_type=none",
            "--max_background_jobs=4",
            "--num=100",
            "--reads=7",
            "--cache_size=0",
        ])
        .unwrap();
        assert_eq!(c.options().write_buffer_size, 1 << 20);
        assert_eq!(c.options().table.filter_bits_per_key, Some(10.0));
        assert_eq!(c.compression, CompressionType::None);
        assert_eq!(c.options().max_background_jobs, 4);
        assert_eq!((c.num, c.reads, c.writes), (100, 7, 100));
        assert!(c.open_options().unwrap().table.no_block_cache);
    }

    #[test]
    fn compression_flags_use_db_bench_names() {
        for (name, want) in [
            ("snappy", CompressionType::Snappy),
            ("zstd", CompressionType::Zstd),
            ("lz4", CompressionType::Lz4),
            ("none", CompressionType::None),
        ] {
            let c = config(&[&format!("--compression_type={name}")]).unwrap();
            assert_eq!(c.compression, want);
            assert_eq!(c.open_options().unwrap().compression, want);
        }
        let c = config(&[
            "--compression_type=zstd",
            "--compression_level=9",
            "--compression_max_dict_bytes=16384",
            "--compression_zstd_max_train_bytes=1638400",
        ])
        .unwrap();
        let o = c.open_options().unwrap().compression_opts;
        assert_eq!(
            (o.level, o.max_dict_bytes, o.zstd_max_train_bytes),
            (9, 16384, 1_638_400)
        );
        let d = config(&[])
            .unwrap()
            .open_options()
            .unwrap()
            .compression_opts;
        assert_eq!(d, talus::options::CompressionOptions::default());
        let c = config(&[
            "--compaction_style=1",
            "--universal_size_ratio=10",
            "--universal_min_merge_width=3",
            "--universal_max_merge_width=8",
            "--universal_max_size_amplification_percent=150",
            "--universal_compression_size_percent=80",
            "--universal_allow_trivial_move=true",
        ])
        .unwrap();
        let o = c.options();
        assert_eq!(o.compaction_style, CompactionStyle::Universal);
        let u = &o.compaction_options_universal;
        assert_eq!(
            (u.size_ratio, u.min_merge_width, u.max_merge_width),
            (10, 3, 8)
        );
        assert_eq!(u.max_size_amplification_percent, 150);
        assert_eq!(u.compression_size_percent, 80);
        assert!(u.allow_trivial_move);
        let d = config(&["--compaction_style=1"]).unwrap();
        assert_eq!(
            d.options().compaction_options_universal,
            talus::options::UniversalOptions::default(),
            "flags left at 0 keep RocksDB's defaults"
        );
        let f = config(&[
            "--compaction_style=2",
            "--fifo_compaction_max_table_files_size_mb=64",
        ])
        .unwrap();
        assert_eq!(f.options().compaction_style, CompactionStyle::Fifo);
        assert_eq!(
            f.options().compaction_options_fifo.max_table_files_size,
            64 << 20
        );
        assert!(config(&["--compression_type=brotli"]).is_err());
        assert!(config(&["--compression_max_dict_bytes=-1"]).is_err());
    }

    #[test]
    fn what_talus_cannot_do_is_an_error_saying_so() {
        for args in [
            &["--compression_type=zlib"][..],
            &["--compaction_style=3"],
            &["--cache_type=hyper_clock_cache"],
        ] {
            let e = config(args).unwrap_err();
            assert!(e.contains("not supported by Talus"), "{e}");
        }
        assert!(config(&["--benchmarks=fillrandom,nosuch"]).is_err());
        assert!(config(&["--threads=0"]).is_err());
        // What RocksDB accepts is accepted (a write buffer of 10 bytes is
        // clamped to 64 KiB at open, as in RocksDB); what no database can
        // run with is refused.
        assert!(config(&["--write_buffer_size=10"]).is_ok());
        let e = config(&["--num_levels=65"]).unwrap_err();
        assert!(e.contains("num_levels"), "{e}");
    }
}
