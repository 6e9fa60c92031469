//! Parses the option string `dev.talus.Options` hands over at open: one
//! `name=value` line per option, RocksDB's option names.

use std::sync::Arc;

use talus::WalRecoveryMode;
use talus::options::{
    CompactionPriority, CompactionStyle, CompressionOptions, CompressionType,
    DISABLE_COMPRESSION_OPTION, Options, PrefixExtractor, StopStyle,
};

use crate::error::{JniError, JniResult};

fn bad(name: &str, value: &str, want: &str) -> JniError {
    JniError::Engine(talus::Error::InvalidArgument(format!(
        "option {name}: expected {want}, got {value:?}"
    )))
}

fn boolean(name: &str, v: &str) -> JniResult<bool> {
    match v {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(bad(name, v, "true or false")),
    }
}

fn int<T: std::str::FromStr>(name: &str, v: &str) -> JniResult<T> {
    v.parse().map_err(|_| bad(name, v, "an integer in range"))
}

/// A C++ unsigned option set from a Java `long` or `int`: as in RocksJava,
/// a negative value is taken as the unsigned number of the same bits
/// (-1 is 2^64 − 1, "no limit" for most sizes). Values above `i64::MAX`
/// written as such parse too.
fn unsigned(name: &str, v: &str) -> JniResult<u64> {
    if let Ok(n) = v.parse::<i64>() {
        return Ok(n as u64);
    }
    v.parse::<u64>()
        .map_err(|_| bad(name, v, "an integer of at most 64 bits"))
}

/// A `size_t` option: [`unsigned`], in this platform's width.
fn size(name: &str, v: &str) -> JniResult<usize> {
    usize::try_from(unsigned(name, v)?).map_err(|_| bad(name, v, "a size that fits in memory"))
}

/// A `CompressionOptions` field (`field` after `compression_opts.` or
/// `bottommost_compression_opts.`).
fn compression_opt(c: &mut CompressionOptions, name: &str, field: &str, v: &str) -> JniResult<()> {
    match field {
        "window_bits" => c.window_bits = int(name, v)?,
        "level" => c.level = int(name, v)?,
        "strategy" => c.strategy = int(name, v)?,
        // C++ uint32_t: a negative Java int wraps, as in RocksJava.
        "max_dict_bytes" => c.max_dict_bytes = int::<i32>(name, v)? as u32,
        "zstd_max_train_bytes" => c.zstd_max_train_bytes = int::<i32>(name, v)? as u32,
        "enabled" => c.enabled = boolean(name, v)?,
        _ => {
            return Err(JniError::Engine(talus::Error::InvalidArgument(format!(
                "unknown option {name}"
            ))));
        }
    }
    Ok(())
}

/// Comma-separated `CompressionType` bytes; empty for none.
fn compression_list(name: &str, v: &str) -> JniResult<Vec<CompressionType>> {
    v.split(',')
        .filter(|t| !t.is_empty())
        .map(|t| Ok(CompressionType::from_u8(int(name, t)?)?))
        .collect()
}

/// `fixed:N`, `capped:N`, or empty for none.
fn prefix_extractor(name: &str, v: &str) -> JniResult<Option<PrefixExtractor>> {
    if v.is_empty() {
        return Ok(None);
    }
    let (kind, n) = v
        .split_once(':')
        .ok_or_else(|| bad(name, v, "fixed:N, capped:N or nothing"))?;
    let n = size(name, n)?;
    match kind {
        "fixed" => Ok(Some(PrefixExtractor::Fixed(n))),
        "capped" => Ok(Some(PrefixExtractor::Capped(n))),
        _ => Err(bad(name, v, "fixed:N, capped:N or nothing")),
    }
}

/// Applies every `name=value` line of `text` to `o`. Unknown names are an
/// `InvalidArgument` error naming them.
pub fn apply(o: &mut Options, text: &str) -> JniResult<()> {
    for line in text.lines().filter(|l| !l.is_empty()) {
        let (name, v) = line
            .split_once('=')
            .ok_or_else(|| bad("(line)", line, "name=value"))?;
        match name {
            "create_if_missing" => o.create_if_missing = boolean(name, v)?,
            "error_if_exists" => o.error_if_exists = boolean(name, v)?,
            "create_missing_column_families" => {
                o.create_missing_column_families = boolean(name, v)?
            }
            "paranoid_checks" => o.paranoid_checks = boolean(name, v)?,
            "use_fsync" => o.use_fsync = boolean(name, v)?,
            "allow_ingest_behind" => o.allow_ingest_behind = boolean(name, v)?,
            "allow_fallocate" => o.allow_fallocate = boolean(name, v)?,
            "wal_dir" => o.wal_dir = (!v.is_empty()).then(|| v.into()),
            "wal_recovery_mode" => {
                o.wal_recovery_mode = WalRecoveryMode::from_u8(int(name, v)?)
                    .ok_or_else(|| bad(name, v, "a WALRecoveryMode byte"))?;
            }
            "wal_bytes_per_sync" => o.wal_bytes_per_sync = unsigned(name, v)?,
            "bytes_per_sync" => o.bytes_per_sync = unsigned(name, v)?,
            "max_background_jobs" => o.max_background_jobs = int(name, v)?,
            "max_background_compactions" => o.max_background_compactions = int(name, v)?,
            "max_background_flushes" => o.max_background_flushes = int(name, v)?,
            "max_subcompactions" => {
                o.max_subcompactions = int::<u32>(name, v)?;
            }
            "max_open_files" => o.max_open_files = int(name, v)?,
            "delayed_write_rate" => o.delayed_write_rate = unsigned(name, v)?,
            "max_total_wal_size" => o.max_total_wal_size = unsigned(name, v)?,
            "manual_flush_enabled" => o.manual_flush_enabled = boolean(name, v)?,
            "max_concurrent_writers" => o.max_concurrent_writers = int(name, v)?,
            "write_buffer_size" => o.write_buffer_size = size(name, v)?,
            "max_write_buffer_number" => o.max_write_buffer_number = int(name, v)?,
            "min_write_buffer_number_to_merge" => {
                o.min_write_buffer_number_to_merge = int(name, v)?
            }
            "level0_file_num_compaction_trigger" => {
                o.level0_file_num_compaction_trigger = int(name, v)?;
            }
            "level0_slowdown_writes_trigger" => o.level0_slowdown_writes_trigger = int(name, v)?,
            "level0_stop_writes_trigger" => o.level0_stop_writes_trigger = int(name, v)?,
            "soft_pending_compaction_bytes_limit" => {
                o.soft_pending_compaction_bytes_limit = unsigned(name, v)?;
            }
            "hard_pending_compaction_bytes_limit" => {
                o.hard_pending_compaction_bytes_limit = unsigned(name, v)?;
            }
            "num_levels" => o.num_levels = int(name, v)?,
            "max_bytes_for_level_base" => o.max_bytes_for_level_base = unsigned(name, v)?,
            "max_bytes_for_level_multiplier" => {
                o.max_bytes_for_level_multiplier =
                    v.parse().map_err(|_| bad(name, v, "a number"))?;
            }
            "level_compaction_dynamic_level_bytes" => {
                o.level_compaction_dynamic_level_bytes = boolean(name, v)?;
            }
            "target_file_size_base" => o.target_file_size_base = unsigned(name, v)?,
            "target_file_size_multiplier" => o.target_file_size_multiplier = int(name, v)?,
            "compaction_pri" => {
                o.compaction_pri = CompactionPriority::from_u8(int(name, v)?)
                    .ok_or_else(|| bad(name, v, "a CompactionPriority byte"))?;
            }
            "disable_auto_compactions" => o.disable_auto_compactions = boolean(name, v)?,
            "compaction_style" => {
                let b: u8 = int(name, v)?;
                o.compaction_style = CompactionStyle::from_u8(b).ok_or_else(|| {
                    bad(
                        name,
                        v,
                        "a CompactionStyle byte of LEVEL, UNIVERSAL or FIFO",
                    )
                })?;
            }
            // C++ unsigned ints: a negative Java int wraps, as in RocksJava
            // (-1 is UINT_MAX, the default max_merge_width).
            "compaction_options_universal.size_ratio" => {
                o.compaction_options_universal.size_ratio = int::<i32>(name, v)? as u32;
            }
            "compaction_options_universal.min_merge_width" => {
                o.compaction_options_universal.min_merge_width = int::<i32>(name, v)? as u32;
            }
            "compaction_options_universal.max_merge_width" => {
                o.compaction_options_universal.max_merge_width = int::<i32>(name, v)? as u32;
            }
            "compaction_options_universal.max_size_amplification_percent" => {
                o.compaction_options_universal
                    .max_size_amplification_percent = int::<i32>(name, v)? as u32;
            }
            "compaction_options_universal.compression_size_percent" => {
                o.compaction_options_universal.compression_size_percent = int(name, v)?;
            }
            "compaction_options_universal.stop_style" => {
                o.compaction_options_universal.stop_style = match int::<u8>(name, v)? {
                    0 => StopStyle::SimilarSize,
                    1 => StopStyle::TotalSize,
                    _ => return Err(bad(name, v, "a CompactionStopStyle byte")),
                };
            }
            "compaction_options_universal.allow_trivial_move" => {
                o.compaction_options_universal.allow_trivial_move = boolean(name, v)?;
            }
            "compaction_options_fifo.max_table_files_size" => {
                o.compaction_options_fifo.max_table_files_size = unsigned(name, v)?;
            }
            "compaction_options_fifo.allow_compaction" => {
                o.compaction_options_fifo.allow_compaction = boolean(name, v)?;
            }
            "ttl" => o.ttl = unsigned(name, v)?,
            "compression" => o.compression = CompressionType::from_u8(int(name, v)?)?,
            "compression_per_level" => o.compression_per_level = compression_list(name, v)?,
            "bottommost_compression" => {
                let b: u8 = int(name, v)?;
                o.bottommost_compression = if b == DISABLE_COMPRESSION_OPTION {
                    None
                } else {
                    Some(CompressionType::from_u8(b)?)
                };
            }
            _ if name.starts_with("compression_opts.") => {
                compression_opt(&mut o.compression_opts, name, &name[17..], v)?;
            }
            _ if name.starts_with("bottommost_compression_opts.") => {
                compression_opt(&mut o.bottommost_compression_opts, name, &name[28..], v)?;
            }
            "prefix_extractor" => o.prefix_extractor = prefix_extractor(name, v)?,
            // A C++ unsigned int: a negative Java int wraps, as in RocksJava.
            "stats_dump_period_sec" => o.stats_dump_period_sec = int::<i32>(name, v)? as u32,
            "info_log_level" => {
                o.info_log_level = talus::logger::InfoLogLevel::from_u8(int(name, v)?)
                    .ok_or_else(|| bad(name, v, "an InfoLogLevel byte"))?;
            }
            "max_log_file_size" => o.max_log_file_size = unsigned(name, v)?,
            "keep_log_file_num" => o.keep_log_file_num = size(name, v)?,
            "table.block_size" => o.table.block_size = size(name, v)?,
            "table.block_restart_interval" => {
                // RocksDB raises values below 1 to 1 (Options::sanitize).
                o.table.block_restart_interval = usize::try_from(int::<i32>(name, v)?).unwrap_or(0);
            }
            // Any int, as RocksJava takes it; open takes values outside
            // 0..=100 as 0 (Options::sanitize), as RocksDB does.
            "table.block_size_deviation" => o.table.block_size_deviation = int(name, v)?,
            "table.filter_bits_per_key" => {
                // 0 is the Java side's "no filter policy"; every other value
                // is sanitized as RocksDB's filter policy takes it.
                let b: f64 = v.parse().map_err(|_| bad(name, v, "a number"))?;
                o.table.filter_bits_per_key = (b != 0.0).then_some(b);
            }
            "table.whole_key_filtering" => o.table.whole_key_filtering = boolean(name, v)?,
            "table.cache_index_and_filter_blocks" => {
                o.table.cache_index_and_filter_blocks = boolean(name, v)?;
            }
            "table.pin_l0_filter_and_index_blocks_in_cache" => {
                o.table.pin_l0_filter_and_index_blocks_in_cache = boolean(name, v)?;
            }
            "table.no_block_cache" => o.table.no_block_cache = boolean(name, v)?,
            // A built-in operator by RocksDB name (`Options.setMergeOperatorName`);
            // one set by object crosses as a shared handle instead.
            "merge_operator" => o.merge_operator = Some(talus::merge::from_name(v)?),
            "table.block_cache_size" => o.table.block_cache_size = size(name, v)?,
            _ => {
                return Err(JniError::Engine(talus::Error::InvalidArgument(format!(
                    "unknown option {name}"
                ))));
            }
        }
    }
    Ok(())
}

/// Shared native objects passed by handle beside the option string.
pub struct Shared {
    /// The block cache (`dev.talus.Cache`), if one was set.
    pub block_cache: Option<Arc<talus::BlockCache>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_name_and_rejects_unknown_ones() {
        let mut o = Options::default();
        apply(
            &mut o,
            "create_if_missing=true\nwrite_buffer_size=1048576\nmax_bytes_for_level_multiplier=8.5\n\
             compression=0\ntable.filter_bits_per_key=10.0\nwal_dir=\ncompaction_pri=0\n",
        )
        .unwrap();
        assert!(o.create_if_missing);
        assert_eq!(o.write_buffer_size, 1 << 20);
        assert_eq!(o.max_bytes_for_level_multiplier, 8.5);
        assert_eq!(o.compression, CompressionType::None);
        assert_eq!(o.table.filter_bits_per_key, Some(10.0));
        assert_eq!(o.wal_dir, None);
        assert_eq!(o.compaction_pri, CompactionPriority::ByCompensatedSize);
        let e = apply(&mut o, "no_such_option=1\n").unwrap_err().to_string();
        assert!(e.contains("no_such_option"), "{e}");
        apply(
            &mut o,
            "compression=7\ncompression_per_level=0,1,4,7\nbottommost_compression=7\n\
             compression_opts.level=-3\ncompression_opts.max_dict_bytes=16384\n\
             compression_opts.zstd_max_train_bytes=1638400\ncompression_opts.window_bits=-15\n\
             compression_opts.strategy=1\nbottommost_compression_opts.enabled=true\n\
             bottommost_compression_opts.level=19\n",
        )
        .unwrap();
        assert_eq!(o.compression, CompressionType::Zstd);
        assert_eq!(
            o.compression_per_level,
            [
                CompressionType::None,
                CompressionType::Snappy,
                CompressionType::Lz4,
                CompressionType::Zstd
            ]
        );
        assert_eq!(o.bottommost_compression, Some(CompressionType::Zstd));
        let c = o.compression_opts;
        assert_eq!(
            (
                c.level,
                c.max_dict_bytes,
                c.zstd_max_train_bytes,
                c.window_bits,
                c.strategy
            ),
            (-3, 16384, 1_638_400, -15, 1)
        );
        assert!(o.bottommost_compression_opts.enabled);
        assert_eq!(o.bottommost_compression_opts.level, 19);
        apply(
            &mut o,
            "bottommost_compression=127\ncompression_per_level=\n",
        )
        .unwrap();
        assert_eq!(o.bottommost_compression, None);
        assert!(o.compression_per_level.is_empty());
        let e = apply(&mut o, "compression_opts.no_such=1\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("compression_opts.no_such"), "{e}");
        // A negative Java long is the unsigned value of its bits, as in RocksJava.
        apply(&mut o, "write_buffer_size=-5\nmax_total_wal_size=-1\n").unwrap();
        assert_eq!(o.write_buffer_size, usize::MAX - 4);
        assert_eq!(o.max_total_wal_size, u64::MAX);
        let e = apply(&mut o, "write_buffer_size=x\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("write_buffer_size"), "{e}");
        // Snappy is implemented; a byte that is no CompressionType is refused.
        apply(&mut o, "compression=1\n").unwrap();
        assert_eq!(o.compression, CompressionType::Snappy);
        let e = apply(&mut o, "compression=9\n").unwrap_err().to_string();
        assert!(e.contains("not a RocksJava CompressionType"), "{e}");
        apply(&mut o, "merge_operator=uint64add\n").unwrap();
        assert_eq!(
            o.merge_operator.as_ref().unwrap().name(),
            "UInt64AddOperator"
        );
        let e = apply(&mut o, "merge_operator=nope\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("nope") && e.contains("stringappend"), "{e}");
        apply(&mut o, "prefix_extractor=fixed:3\n").unwrap();
        assert_eq!(o.prefix_extractor, Some(PrefixExtractor::Fixed(3)));
        apply(&mut o, "prefix_extractor=capped:18446744073709551615\n").unwrap();
        assert_eq!(
            o.prefix_extractor,
            Some(PrefixExtractor::Capped(usize::MAX))
        );
        apply(&mut o, "prefix_extractor=\n").unwrap();
        assert_eq!(o.prefix_extractor, None);
        assert!(apply(&mut o, "prefix_extractor=hash:3\n").is_err());
        apply(
            &mut o,
            "table.block_restart_interval=-3\nstats_dump_period_sec=-1\n",
        )
        .unwrap();
        assert_eq!(o.table.block_restart_interval, 0);
        assert_eq!(o.stats_dump_period_sec, u32::MAX);
    }
}
