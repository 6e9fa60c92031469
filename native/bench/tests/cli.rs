//! Runs the talus-bench binary at tiny sizes and checks that its output
//! parses as db_bench's: every report line has its numbers, and the
//! operations counted are the operations requested. No timing assertions.

use std::path::Path;
use std::process::{Command, Output};

/// One `name : X micros/op Y ops/sec Z seconds N operations; ...` line.
#[derive(Debug)]
struct ReportLine {
    name: String,
    micros_per_op: f64,
    ops_per_sec: u64,
    seconds: f64,
    operations: u64,
    rest: String,
}

fn parse_report_line(line: &str) -> Option<ReportLine> {
    let (name, tail) = line.split_once(" : ")?;
    let w: Vec<&str> = tail.split_whitespace().collect();
    if w.len() < 8
        || w[1] != "micros/op"
        || w[3] != "ops/sec"
        || w[5] != "seconds"
        || !w[7].starts_with("operations;")
    {
        return None;
    }
    let rest = tail.split_once("operations;")?.1.trim().to_string();
    Some(ReportLine {
        name: name.trim().to_string(),
        micros_per_op: w[0].parse().ok()?,
        ops_per_sec: w[2].parse().ok()?,
        seconds: w[4].parse().ok()?,
        operations: w[6].parse().ok()?,
        rest,
    })
}

fn talus_bench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_talus-bench"))
        .args(args)
        .output()
        .expect("run talus-bench")
}

fn run_ok(db: &Path, args: &[&str]) -> String {
    let mut all = vec![format!("--db={}", db.display())];
    all.push("--progress_reports=false".into());
    all.extend(args.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    let out = talus_bench(&refs);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        out.status.success(),
        "talus-bench {refs:?} failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    stdout
}

fn report_lines(stdout: &str) -> Vec<ReportLine> {
    stdout.lines().filter_map(parse_report_line).collect()
}

fn line<'a>(lines: &'a [ReportLine], name: &str) -> &'a ReportLine {
    lines
        .iter()
        .find(|l| l.name == name)
        .unwrap_or_else(|| panic!("no report line for {name} in {lines:?}"))
}

/// The `Count:` of the histogram after `Microseconds per <op>:` that
/// follows the report line of `bench`.
fn histogram_count(stdout: &str, bench: &str, op: &str) -> u64 {
    let start = stdout
        .find(&format!("{bench:<12} : "))
        .unwrap_or_else(|| panic!("no {bench} in\n{stdout}"));
    let after = &stdout[start..];
    let h = after
        .find(&format!("Microseconds per {op}:\nCount: "))
        .unwrap_or_else(|| panic!("no {op} histogram after {bench}"));
    let count = after[h..].lines().nth(1).unwrap();
    count.split_whitespace().nth(1).unwrap().parse().unwrap()
}

mod every_benchmark {
    use super::*;

    #[test]
    fn reports_the_operations_requested() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("db");
        let (num, threads) = (2000u64, 2u64);
        let benchmarks = "fillrandom,overwrite,readrandom,seekrandom,readwhilewriting,\
                          readrandomwriterandom,fillseq,readseq,readreverse,deleterandom,\
                          flush,compact,waitforcompaction,stats,levelstats,sstables";
        let out = run_ok(
            &db,
            &[
                &format!("--benchmarks={benchmarks}"),
                &format!("--num={num}"),
                &format!("--threads={threads}"),
                "--histogram",
                "--seed=42",
                "--write_buffer_size=65536",
                "--bloom_bits=10",
            ],
        );
        let lines = report_lines(&out);
        let per_thread = num * threads;
        let expected = [
            ("fillrandom", per_thread),
            ("overwrite", per_thread),
            ("readrandom", per_thread),
            ("seekrandom", per_thread),
            ("readwhilewriting", per_thread),
            ("readrandomwriterandom", per_thread),
            ("fillseq", per_thread),
            // fillseq left exactly `num` keys; each thread scans them all.
            ("readseq", per_thread),
            ("readreverse", per_thread),
            ("deleterandom", per_thread),
            ("flush", 1),
            ("compact", 1),
            ("waitforcompaction", 1),
        ];
        assert_eq!(lines.len(), expected.len(), "{out}");
        for (name, ops) in expected {
            let l = line(&lines, name);
            assert_eq!(l.operations, ops, "{name}: {l:?}");
            assert!(l.micros_per_op >= 0.0 && l.seconds >= 0.0, "{l:?}");
            assert!(l.ops_per_sec > 0, "{l:?}");
        }
        for (bench, op) in [
            ("fillrandom", "write"),
            ("readrandom", "read"),
            ("seekrandom", "seek"),
            ("readwhilewriting", "read"),
            ("deleterandom", "delete"),
        ] {
            assert_eq!(
                histogram_count(&out, bench, op),
                line(&lines, bench).operations,
                "{bench}"
            );
        }
        // Reads say how many of the reads found their key.
        for name in ["readrandom", "seekrandom", "readwhilewriting"] {
            let rest = &line(&lines, name).rest;
            assert!(
                rest.contains(&format!(" of {per_thread} found)")),
                "{name}: {rest}"
            );
        }
        assert!(line(&lines, "readwhilewriting").rest.contains("(writer: "));
        let rw = &line(&lines, "readrandomwriterandom").rest;
        assert!(rw.contains("reads:3600 writes:400 total:4000"), "{rw}");
        assert!(line(&lines, "fillrandom").rest.ends_with("MB/s"));
        // Write amplification after each fill: table bytes over user bytes.
        let wamps: Vec<f64> = out
            .lines()
            .filter_map(|l| l.strip_prefix("Write amplification: "))
            .map(|v| {
                let first = v.split_whitespace().next().unwrap_or("");
                first.parse::<f64>().unwrap_or_else(|_| panic!("{v}"))
            })
            .collect();
        assert_eq!(wamps.len(), 3, "{out}");
        assert!(wamps.iter().all(|w| *w >= 0.0), "{wamps:?}");
        assert!(out.contains("** Compaction Stats [default] **"), "{out}");
        assert!(out.contains("** DB Stats **"), "{out}");
        assert!(out.contains("Level Files Size(MB)"));
        assert!(out.contains("--- level "), "sstables: {out}");
    }

    #[test]
    fn the_readme_command_at_a_tiny_size() {
        let dir = tempfile::tempdir().unwrap();
        let out = run_ok(
            &dir.path().join("db"),
            &[
                "--benchmarks=fillrandom,readrandom,readwhilewriting,stats",
                "--num=1000",
                "--key_size=48",
                "--value_size=160",
                "--threads=8",
                "--histogram",
                "--statistics",
            ],
        );
        let lines = report_lines(&out);
        for name in ["fillrandom", "readrandom", "readwhilewriting"] {
            assert_eq!(line(&lines, name).operations, 8000, "{name}");
        }
        assert!(out.contains("Keys:       48 bytes each"));
        assert!(out.contains("Values:     160 bytes each (80 bytes after compression)"));
        assert!(!out.contains("not available in this build yet"), "{out}");
        assert!(out.contains("STATISTICS:"), "{out}");
        // The fill's 8000 puts, plus those of readwhilewriting's writer thread.
        let written: u64 = out
            .lines()
            .find_map(|l| l.strip_prefix("rocksdb.number.keys.written COUNT : "))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("{out}"));
        assert!(written >= 8000, "{written}");
        assert!(out.contains("rocksdb.db.get.micros P50 :"), "{out}");
        assert!(out.contains("P99: "));
    }
}

mod fillsync {
    use super::*;

    #[test]
    fn syncs_every_write_of_writes_requested() {
        let dir = tempfile::tempdir().unwrap();
        let out = run_ok(
            &dir.path().join("db"),
            &[
                "--benchmarks=fillsync",
                "--num=3000",
                "--writes=100",
                "--threads=2",
            ],
        );
        let lines = report_lines(&out);
        assert_eq!(line(&lines, "fillsync").operations, 200);
        assert!(out.contains("Write amplification: "));
    }
}

mod existing_db {
    use super::*;

    #[test]
    fn fill_benchmarks_are_skipped_and_data_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("db");
        run_ok(&db, &["--benchmarks=fillseq", "--num=500"]);
        let out = run_ok(
            &db,
            &[
                "--benchmarks=fillrandom,readrandom",
                "--num=500",
                "--use_existing_db",
                "--seed=7",
            ],
        );
        assert!(out.contains("fillrandom   : skipped (--use_existing_db is true)"));
        let lines = report_lines(&out);
        let rest = &line(&lines, "readrandom").rest;
        assert!(rest.ends_with("(500 of 500 found)"), "{rest}");
    }
}

mod flags {
    use super::*;

    #[test]
    fn unknown_flags_fail_and_list_the_valid_ones() {
        let out = talus_bench(&["--nmu=5"]);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("unknown flag --nmu"), "{err}");
        assert!(
            err.contains("--num") && err.contains("--benchmarks"),
            "{err}"
        );
    }

    #[test]
    fn what_talus_cannot_honour_is_refused_by_name() {
        for args in [
            &["--use_direct_reads=true"][..],
            &["--compression_type=zlib"],
            &["--compaction_style=3"],
        ] {
            let out = talus_bench(args);
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            let err = String::from_utf8(out.stderr).unwrap();
            assert!(err.contains("not supported by Talus"), "{args:?}: {err}");
        }
        let out = talus_bench(&["--benchmarks=fillrandom,nosuch"]);
        assert_eq!(out.status.code(), Some(2));
    }

    #[test]
    fn help_lists_flags_with_defaults() {
        let out = talus_bench(&["--help"]);
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("--num ("), "{text}");
        assert!(text.contains("default: \"1000000\""), "{text}");
        assert!(text.contains("not supported by Talus"), "{text}");
    }
}

mod options {
    use super::*;

    #[test]
    fn hot_keys_throttles_batches_and_missing_features_run() {
        let dir = tempfile::tempdir().unwrap();
        let out = run_ok(
            &dir.path().join("db"),
            &[
                "--benchmarks=fillrandom,readrandom,overwrite",
                "--num=1000",
                "--batch_size=7",
                "--read_random_exp_range=10",
                "--benchmark_write_rate_limit=100000000",
                "--benchmark_read_rate_limit=10000000",
                "--rate_limiter_bytes_per_sec=1000000",
                "--perf_level=2",
                "--compression_type=none",
                "--cache_size=0",
                "--sync",
            ],
        );
        let lines = report_lines(&out);
        for name in ["fillrandom", "readrandom", "overwrite"] {
            assert_eq!(line(&lines, name).operations, 1000, "{name}");
        }
        assert!(!out.contains("not available in this build yet"), "{out}");
        // --perf_level=2 sums the benchmark threads' perf contexts.
        assert!(
            out.contains("block_read_count") || out.contains("user_key_comparison_count"),
            "{out}"
        );
        assert!(out.contains("Compression: NoCompression"));
    }

    #[test]
    fn rate_limiter_flags_as_db_bench_and_a_zero_period_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let out = run_ok(
            &dir.path().join("db"),
            &[
                "--benchmarks=fillrandom,compact",
                "--num=20000",
                "--write_buffer_size=65536",
                "--rate_limiter_bytes_per_sec=100000000",
                "--rate_limiter_refill_period_us=50000",
                "--rate_limiter_single_burst_bytes=1048576",
                "--rate_limiter_auto_tuned=true",
                "--rate_limit_bg_reads",
            ],
        );
        assert_eq!(line(&report_lines(&out), "fillrandom").operations, 20000);
        assert!(!out.contains("not available in this build yet"), "{out}");
        let out = talus_bench(&[
            "--benchmarks=fillrandom",
            "--rate_limiter_bytes_per_sec=1000",
            "--rate_limiter_refill_period_us=0",
        ]);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("--rate_limiter_refill_period_us"), "{err}");
    }

    #[test]
    fn report_file_is_db_benchs_csv() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("report.csv");
        run_ok(
            &dir.path().join("db"),
            &[
                "--benchmarks=fillrandom,readrandom",
                "--num=1000",
                "--duration=2",
                "--report_interval_seconds=1",
                &format!("--report_file={}", csv.display()),
            ],
        );
        let text = std::fs::read_to_string(&csv).unwrap();
        let mut rows = text.lines();
        assert_eq!(rows.next(), Some("secs_elapsed,interval_qps"));
        let rows: Vec<&str> = rows.collect();
        assert!(!rows.is_empty(), "{text}");
        for r in rows {
            let (secs, qps) = r.split_once(',').unwrap();
            secs.parse::<u64>().unwrap();
            qps.parse::<u64>().unwrap();
        }
    }
}
