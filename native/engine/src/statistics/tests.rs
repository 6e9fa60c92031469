use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::*;

fn valid_metric_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

#[test]
fn names_are_indexed_unique_and_rocksdb_shaped() {
    let mut names = HashSet::new();
    let mut enum_names = HashSet::new();
    for (i, &t) in Ticker::ALL.iter().enumerate() {
        assert_eq!(t.index(), i, "{t:?}: ALL must be in index order");
        assert_eq!(Ticker::from_index(i), Some(t));
        assert_eq!(Ticker::from_name(t.name()), Some(t));
        assert!(names.insert(t.name()) && enum_names.insert(t.enum_name()));
        assert!(t.name().starts_with("rocksdb.") || t.name().starts_with("talus."));
        assert!(
            valid_metric_name(&t.name().replace('.', "_")),
            "{}",
            t.name()
        );
    }
    for (i, &h) in Histogram::ALL.iter().enumerate() {
        assert_eq!(h.index(), i, "{h:?}: ALL must be in index order");
        assert_eq!(Histogram::from_index(i), Some(h));
        assert_eq!(Histogram::from_name(h.name()), Some(h));
        assert!(names.insert(h.name()) && enum_names.insert(h.enum_name()));
        assert!(h.name().starts_with("rocksdb."));
        assert!(
            valid_metric_name(&h.name().replace('.', "_")),
            "{}",
            h.name()
        );
    }
    assert_eq!(Ticker::from_index(Ticker::COUNT), None);
    // Spot checks against RocksDB's names.
    assert_eq!(Ticker::BlockCacheMiss.name(), "rocksdb.block.cache.miss");
    assert_eq!(Ticker::GetHitL2AndUp.name(), "rocksdb.l2andup.hit");
    assert_eq!(
        Ticker::NumberMultigetCalls.name(),
        "rocksdb.number.multiget.get"
    );
    assert_eq!(
        Ticker::CompactionKeyDropNewerEntry.name(),
        "rocksdb.compaction.key.drop.new"
    );
    assert_eq!(Ticker::StallMicros.enum_name(), "STALL_MICROS");
    assert_eq!(Histogram::DbGet.name(), "rocksdb.db.get.micros");
    assert_eq!(Histogram::FlushTime.name(), "rocksdb.db.flush.micros");
    assert_eq!(
        Histogram::NumFilesInSingleCompaction.name(),
        "rocksdb.numfiles.in.singlecompaction"
    );
}

#[test]
fn bucket_limits_are_1_2_then_times_one_and_a_half_to_two_digits() {
    assert_eq!(
        BUCKET_LIMITS[..16],
        [
            1, 2, 3, 4, 6, 10, 15, 22, 34, 51, 76, 110, 170, 250, 380, 580
        ]
    );
    assert!(BUCKET_LIMITS.windows(2).all(|w| w[0] < w[1]));
    for &l in &BUCKET_LIMITS {
        // Two significant digits: at most two non-zero leading digits.
        let digits = l.to_string();
        assert!(
            digits[2.min(digits.len())..].bytes().all(|b| b == b'0'),
            "{l}"
        );
    }
    // The 109th limit is the last one that fits in a u64.
    let exact_last = 2.0 * 1.5f64.powi(BUCKET_COUNT as i32 - 2);
    assert!(exact_last <= u64::MAX as f64 && exact_last * 1.5 > u64::MAX as f64);
    for (v, b) in [
        (0, 0),
        (1, 0),
        (2, 1),
        (3, 2),
        (5, 4),
        (6, 4),
        (7, 5),
        (110, 11),
        (111, 12),
    ] {
        assert_eq!(bucket_index(v), b, "value {v}");
    }
    assert_eq!(bucket_index(u64::MAX), BUCKET_COUNT - 1);
    assert_eq!(
        bucket_index(BUCKET_LIMITS[BUCKET_COUNT - 1]),
        BUCKET_COUNT - 1
    );
}

#[test]
fn concurrent_recording_from_8_threads_sums_exactly() {
    let stats = Statistics::new();
    let threads: Vec<_> = (0..8u64)
        .map(|t| {
            let stats = Arc::clone(&stats);
            std::thread::spawn(move || {
                for i in 0..20_000u64 {
                    stats.record_tick(Ticker::NumberKeysWritten, 1);
                    stats.record_tick(Ticker::BytesWritten, t + 1);
                    stats.record_in_histogram(Histogram::DbWrite, i % 1000);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(stats.ticker_count(Ticker::NumberKeysWritten), 160_000);
    assert_eq!(
        stats.ticker_count(Ticker::BytesWritten),
        20_000 * (1..=8).sum::<u64>()
    );
    let d = stats.histogram_data(Histogram::DbWrite);
    assert_eq!(d.count, 160_000);
    assert_eq!(d.sum, 8 * 20 * (0..1000u64).sum::<u64>());
    assert_eq!((d.min, d.max), (0.0, 999.0));
    assert!((d.average - 499.5).abs() < 1e-9);
    assert_eq!(stats.ticker_count(Ticker::MemtableHit), 0);
}

/// Width of the bucket holding `v`.
fn bucket_width(v: f64) -> f64 {
    let i = bucket_index(v.ceil() as u64);
    let low = if i == 0 { 0 } else { BUCKET_LIMITS[i - 1] };
    (BUCKET_LIMITS[i] - low) as f64
}

#[test]
fn percentiles_of_known_distributions_are_within_a_bucket() {
    // Uniform 1..=10000.
    let n = 10_000u64;
    let s = HistogramSnapshot::from_values(1..=n);
    for p in [1.0, 10.0, 50.0, 75.0, 95.0, 99.0, 99.9] {
        let exact = p / 100.0 * n as f64;
        let got = s.percentile(p);
        assert!(
            (got - exact).abs() <= bucket_width(exact),
            "P{p}: {got} vs {exact} (bucket width {})",
            bucket_width(exact)
        );
    }
    assert_eq!(s.percentile(100.0), n as f64);
    assert_eq!(s.percentile(0.0), 1.0, "clamped to min");
    let d = s.data();
    assert_eq!(
        (d.count, d.sum, d.min, d.max),
        (n, n * (n + 1) / 2, 1.0, n as f64)
    );
    assert!((d.average - 5000.5).abs() < 1e-9);
    let exact_sd = (((n * n - 1) as f64) / 12.0).sqrt();
    assert!(
        (d.std_dev - exact_sd).abs() < 1e-6 * exact_sd,
        "{} vs {exact_sd}",
        d.std_dev
    );

    // A constant: every percentile is the constant (clamped to [min, max]).
    let s = HistogramSnapshot::from_values(std::iter::repeat_n(777, 1000));
    for p in [0.0, 50.0, 99.9, 100.0] {
        assert_eq!(s.percentile(p), 777.0);
    }
    assert_eq!(s.std_dev(), 0.0);

    // Two clusters: 90% at 10, 10% at 1 000 000.
    let values = std::iter::repeat_n(10, 900).chain(std::iter::repeat_n(1_000_000, 100));
    let s = HistogramSnapshot::from_values(values);
    assert!((s.percentile(50.0) - 10.0).abs() <= bucket_width(10.0));
    assert!((s.percentile(95.0) - 1_000_000.0).abs() <= bucket_width(1_000_000.0));
    assert_eq!(s.percentile(99.9), 1_000_000.0);

    // Empty: all zero.
    let empty = HistogramSnapshot::default();
    assert_eq!(empty.data(), HistogramData::default());
}

#[test]
fn reset_and_get_and_reset_zero_what_they_read() {
    let stats = Statistics::new();
    stats.record_tick(Ticker::BlockCacheHit, 5);
    stats.record_tick(Ticker::BlockCacheMiss, 3);
    stats.record_in_histogram(Histogram::DbGet, 40);
    assert_eq!(stats.get_and_reset_ticker_count(Ticker::BlockCacheHit), 5);
    assert_eq!(stats.ticker_count(Ticker::BlockCacheHit), 0);
    assert_eq!(stats.ticker_count(Ticker::BlockCacheMiss), 3);
    stats.reset();
    assert_eq!(stats.ticker_count(Ticker::BlockCacheMiss), 0);
    assert_eq!(
        stats.histogram_data(Histogram::DbGet),
        HistogramData::default()
    );
    // Still usable after a reset; min starts afresh.
    stats.record_in_histogram(Histogram::DbGet, 90);
    let d = stats.histogram_data(Histogram::DbGet);
    assert_eq!((d.count, d.min, d.max), (1, 90.0, 90.0));
}

#[test]
fn stats_level_gates_only_the_detailed_timers() {
    let stats = Statistics::new();
    assert_eq!(stats.stats_level(), StatsLevel::ExceptDetailedTimers);
    assert!(!stats.is_enabled(Histogram::CompressionTimesNanos));
    assert!(stats.timer(Histogram::DecompressionTimesNanos).is_none());
    stats.record_in_histogram(Histogram::CompressionTimesNanos, 100);
    stats.record_in_histogram(Histogram::DbGet, 100);
    stats.record_tick(Ticker::NumberBlockCompressed, 1);
    assert_eq!(
        stats.histogram_data(Histogram::CompressionTimesNanos).count,
        0
    );
    assert_eq!(stats.histogram_data(Histogram::DbGet).count, 1);
    assert_eq!(stats.ticker_count(Ticker::NumberBlockCompressed), 1);
    for level in [StatsLevel::ExceptTimeForMutex, StatsLevel::All] {
        stats.set_stats_level(level);
        assert_eq!(stats.stats_level(), level);
        assert!(Histogram::ALL.iter().all(|&h| stats.is_enabled(h)));
    }
    stats.record_in_histogram(Histogram::CompressionTimesNanos, 100);
    assert_eq!(
        stats.histogram_data(Histogram::CompressionTimesNanos).count,
        1
    );
    assert_eq!(StatsLevel::from_byte(2), Some(StatsLevel::All));
    assert_eq!(StatsLevel::from_byte(3), None);
}

#[test]
fn ignored_histograms_and_chained_statistics() {
    let parent = Statistics::new();
    let child = Statistics::with_options(&[Histogram::DbSeek], Some(Arc::clone(&parent)));
    assert!(!child.enabled_here(Histogram::DbSeek));
    assert!(
        child.is_enabled(Histogram::DbSeek),
        "the parent still wants it"
    );
    child.record_in_histogram(Histogram::DbSeek, 12);
    child.record_in_histogram(Histogram::DbGet, 7);
    child.record_tick(Ticker::NumberDbSeek, 2);
    assert_eq!(child.histogram_data(Histogram::DbSeek).count, 0);
    assert_eq!(parent.histogram_data(Histogram::DbSeek).count, 1);
    assert_eq!(child.histogram_data(Histogram::DbGet).count, 1);
    assert_eq!(parent.histogram_data(Histogram::DbGet).count, 1);
    assert_eq!(child.ticker_count(Ticker::NumberDbSeek), 2);
    assert_eq!(parent.ticker_count(Ticker::NumberDbSeek), 2);
    let alone = Statistics::with_options(&[Histogram::DbSeek], None);
    assert!(!alone.is_enabled(Histogram::DbSeek));
    assert!(alone.timer(Histogram::DbSeek).is_none());
}

#[test]
fn timer_records_elapsed_time_in_the_histogram_unit() {
    let stats = Statistics::new();
    stats.set_stats_level(StatsLevel::All);
    {
        let _t = stats.timer(Histogram::FlushTime);
        let _n = stats.timer(Histogram::CompressionTimesNanos);
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let micros = stats.histogram_data(Histogram::FlushTime);
    let nanos = stats.histogram_data(Histogram::CompressionTimesNanos);
    assert_eq!((micros.count, nanos.count), (1, 1));
    assert!(
        micros.sum >= 2_000 && micros.sum < 2_000_000,
        "{}",
        micros.sum
    );
    assert!(nanos.sum >= 2_000_000, "{}", nanos.sum);
}

#[test]
fn to_string_has_rocksdb_shape() {
    let stats = Statistics::new();
    stats.record_tick(Ticker::BlockCacheMiss, 42);
    for v in [10, 20, 30] {
        stats.record_in_histogram(Histogram::DbGet, v);
    }
    let text = stats.to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), Ticker::COUNT + Histogram::COUNT);
    assert_eq!(lines[0], "rocksdb.block.cache.miss COUNT : 42");
    for (line, t) in lines.iter().zip(Ticker::ALL) {
        let count = line
            .strip_prefix(&format!("{} COUNT : ", t.name()))
            .unwrap_or_else(|| panic!("bad ticker line {line:?}"));
        count.parse::<u64>().unwrap();
    }
    for (line, h) in lines[Ticker::COUNT..].iter().zip(Histogram::ALL) {
        let rest = line
            .strip_prefix(&format!("{} ", h.name()))
            .unwrap_or_else(|| panic!("bad histogram line {line:?}"));
        let fields: Vec<&str> = rest.split(' ').collect();
        let keys: Vec<&str> = fields.chunks(3).map(|c| c[0]).collect();
        assert_eq!(
            keys,
            ["P50", "P95", "P99", "P100", "COUNT", "SUM"],
            "{line}"
        );
        assert!(fields.chunks(3).all(|c| c[1] == ":"), "{line}");
        for c in &fields.chunks(3).collect::<Vec<_>>()[..4] {
            c[2].parse::<f64>().unwrap();
        }
    }
    let get = lines
        .iter()
        .find(|l| l.starts_with("rocksdb.db.get.micros "))
        .unwrap();
    assert!(
        get.ends_with(" P100 : 30.000000 COUNT : 3 SUM : 60"),
        "{get}"
    );
}

#[test]
fn histogram_string_lists_summary_and_buckets() {
    let stats = Statistics::new();
    for v in [1, 1, 5, 100] {
        stats.record_in_histogram(Histogram::BytesPerRead, v);
    }
    let text = stats.histogram_string(Histogram::BytesPerRead);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("Count: 4 Average: 26.7500 StdDev: "),
        "{text}"
    );
    assert!(lines[1].starts_with("Min: 1 Median: ") && lines[1].ends_with(" Max: 100"));
    assert!(lines[2].starts_with("Percentiles: P50: "));
    assert_eq!(
        &lines[3..],
        [
            "[0, 1] 2 50.000% 50.000%",
            "(4, 6] 1 25.000% 75.000%",
            "(76, 110] 1 25.000% 100.000%"
        ]
    );
}

/// A strict parser of the Prometheus text format as `to_prometheus` must
/// write it: `# HELP`/`# TYPE` comments, then samples `name[{k="v",...}] value`,
/// one per line; every sample's family declared by a preceding `# TYPE`.
/// Returns sample name + labels → value.
fn parse_prometheus(text: &str) -> HashMap<String, f64> {
    assert!(text.ends_with('\n'), "ends with a newline");
    let mut types: HashMap<String, String> = HashMap::new();
    let mut samples = HashMap::new();
    for (n, line) in text.lines().enumerate() {
        let ctx = format!("line {}: {line:?}", n + 1);
        if let Some(rest) = line.strip_prefix("# ") {
            let mut parts = rest.splitn(3, ' ');
            let (kind, name, tail) = (parts.next(), parts.next(), parts.next());
            let name = name.unwrap_or_else(|| panic!("{ctx}: no metric name"));
            assert!(valid_metric_name(name), "{ctx}: bad name");
            match kind {
                Some("HELP") => assert!(tail.is_some_and(|t| !t.is_empty()), "{ctx}"),
                Some("TYPE") => {
                    let ty = tail.unwrap_or_else(|| panic!("{ctx}: no type"));
                    assert!(
                        ["counter", "gauge", "summary", "histogram", "untyped"].contains(&ty),
                        "{ctx}: bad type"
                    );
                    assert!(
                        types.insert(name.to_owned(), ty.to_owned()).is_none(),
                        "{ctx}: dup"
                    );
                }
                _ => panic!("{ctx}: unknown comment"),
            }
            continue;
        }
        assert!(!line.starts_with('#') && !line.is_empty(), "{ctx}");
        let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("{ctx}"));
        assert!(
            !series.contains(' ') || series.contains('{'),
            "{ctx}: one sample per line"
        );
        let (name, labels) = match series.split_once('{') {
            None => (series, ""),
            Some((name, rest)) => (
                name,
                rest.strip_suffix('}')
                    .unwrap_or_else(|| panic!("{ctx}: unclosed labels")),
            ),
        };
        assert!(valid_metric_name(name), "{ctx}: bad name");
        for pair in labels.split(',').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or_else(|| panic!("{ctx}"));
            assert!(
                valid_metric_name(k) && !k.contains(':'),
                "{ctx}: bad label name"
            );
            let v = v
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .unwrap_or_else(|| panic!("{ctx}: unquoted label value"));
            assert!(!v.contains('"') && !v.contains('\\'), "{ctx}");
        }
        let v: f64 = match value {
            "+Inf" => f64::INFINITY,
            "-Inf" => f64::NEG_INFINITY,
            "NaN" => f64::NAN,
            v => {
                assert!(
                    v.bytes()
                        .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b)),
                    "{ctx}: bad value"
                );
                v.parse().unwrap_or_else(|_| panic!("{ctx}: bad value"))
            }
        };
        let family = [
            name,
            name.strip_suffix("_sum").unwrap_or(name),
            name.strip_suffix("_count").unwrap_or(name),
        ]
        .into_iter()
        .find(|f| types.contains_key(*f))
        .unwrap_or_else(|| panic!("{ctx}: no # TYPE before the sample"));
        let ty = &types[family];
        match ty.as_str() {
            "counter" => assert!(labels.is_empty() && family == name && v >= 0.0, "{ctx}"),
            "summary" => {
                if family == name {
                    assert!(labels.starts_with("quantile=\""), "{ctx}")
                } else {
                    assert!(labels.is_empty(), "{ctx}")
                }
            }
            _ => {}
        }
        assert!(
            samples.insert(series.to_owned(), v).is_none(),
            "{ctx}: duplicate sample"
        );
    }
    samples
}

#[test]
fn prometheus_output_parses_strictly() {
    let stats = Statistics::new();
    stats.record_tick(Ticker::BlockCacheMiss, 7);
    stats.record_tick(Ticker::StallL0SlowdownMicros, 1234);
    for v in 1..=1000 {
        stats.record_in_histogram(Histogram::DbGet, v);
    }
    let text = stats.to_prometheus("");
    let samples = parse_prometheus(&text);
    assert_eq!(samples.len(), Ticker::COUNT + 6 * Histogram::COUNT);
    assert_eq!(samples["rocksdb_block_cache_miss"], 7.0);
    assert_eq!(samples["talus_stall_l0_slowdown_micros"], 1234.0);
    assert_eq!(samples["rocksdb_db_get_micros_count"], 1000.0);
    assert_eq!(samples["rocksdb_db_get_micros_sum"], 500_500.0);
    let p99 = samples["rocksdb_db_get_micros{quantile=\"0.99\"}"];
    assert!((p99 - 990.0).abs() <= bucket_width(990.0), "{p99}");
    assert!(
        samples["rocksdb_db_write_micros{quantile=\"0.5\"}"].is_nan(),
        "empty: NaN"
    );
    assert!(text.contains("# TYPE rocksdb_db_get_micros summary\n"));
    assert!(text.contains("# TYPE rocksdb_block_cache_miss counter\n"));

    // Prefixes: joined with `_`, sanitised into a valid name.
    let samples = parse_prometheus(&stats.to_prometheus("talus"));
    assert_eq!(samples["talus_rocksdb_block_cache_miss"], 7.0);
    let samples = parse_prometheus(&stats.to_prometheus("9my-app.db"));
    assert_eq!(samples["_9my_app_db_rocksdb_block_cache_miss"], 7.0);
}
