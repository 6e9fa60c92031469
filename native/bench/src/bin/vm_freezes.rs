//! `vm-freezes`: does the virtual machine stop running now and then?
//!
//! One busy thread per CPU (or `--threads N`) reads the monotonic clock in a
//! tight loop for `--seconds S` and records every gap of at least
//! `--min-gap-ms` between two consecutive readings: time in which the thread
//! did not run. On an otherwise idle machine with one thread per CPU nothing
//! in the guest takes a CPU from them for milliseconds, so such gaps are
//! time in which the host did not run the virtual CPUs. A gap that every
//! thread saw at the same time is a *whole-machine freeze*.
//!
//! A host that caps the VM's CPU time with a quota per period (CFS bandwidth
//! control, 100 ms by default) freezes every virtual CPU once the quota of a
//! period is spent, until the next period starts: the freezes then end at
//! the same point of every period, which the tool prints as the phase of
//! each gap's end within the 100 ms of the wall clock. Any operation in
//! flight in either engine during a freeze takes that much longer; this is
//! what bounds "no put over 50 ms" in the bulk import
//! (docs/results/bulk-import.md, "And where the whole machine stops").
//!
//! Run it alone: other busy threads in the guest make gaps of their own.
//! With `--io-dir DIR` one more thread writes a file there in 1 MiB writes
//! with an `fdatasync` every 8 MiB (the file is removed at the end): on this
//! project's VM the host freezes it only when its disk is busy too, so a probe
//! without IO can report "not throttled" on a day when every benchmark is.
//! That thread sleeps on the disk most of the time; the freezes counted are
//! those every busy thread saw, which one more guest thread cannot cause
//! alone (it holds one CPU at a time).
//!
//! Output: one summary line per thread (with its clock reads per second, a
//! rough speed of its CPU: this VM also has days on which every core is
//! slower, frozen or not), then the machine's, then a verdict.
//! Exit status 0, 1 when the IO thread fails, or 2 for bad usage.

#[path = "../probe_args.rs"]
mod probe_args;

use std::sync::Barrier;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use probe_args::ProbeArgs;

const USAGE: &str = "usage: vm-freezes [--seconds S (default 5)] [--threads N (default: CPUs)] \
                     [--min-gap-ms G (default 2)] [--io-dir DIR]";

/// The parsed command line.
struct Args {
    seconds: f64,
    threads: usize,
    min_gap_ms: f64,
    io_dir: Option<std::path::PathBuf>,
}

/// One gap in a thread's clock readings.
#[derive(Clone, Copy, Debug)]
struct Gap {
    /// Start and end, as offsets from the common start.
    from: Duration,
    to: Duration,
    /// Milliseconds into the wall clock's 100 ms period at the gap's end.
    end_phase_ms: u64,
}

fn parse_args() -> Result<Args, String> {
    let mut seconds = 5.0;
    let mut threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut min_gap_ms = 2.0;
    let mut io_dir = None;
    let mut args = ProbeArgs::from_env();
    while let Some(a) = args.next_arg() {
        match a.name.as_str() {
            "--seconds" => seconds = args.num(&a)?,
            "--threads" => threads = args.num::<usize>(&a)?,
            "--min-gap-ms" => min_gap_ms = args.num(&a)?,
            "--io-dir" => io_dir = Some(std::path::PathBuf::from(args.value(&a)?)),
            "-h" | "--help" => return Err(String::new()),
            _ => return Err(format!("unknown flag {}", a.raw)),
        }
    }
    if !(seconds > 0.0 && seconds <= 3600.0) || threads == 0 || threads > 256 || min_gap_ms <= 0.0 {
        return Err(
            "--seconds must be in (0, 3600], --threads in 1..=256, --min-gap-ms > 0".into(),
        );
    }
    Ok(Args {
        seconds,
        threads,
        min_gap_ms,
        io_dir,
    })
}

/// What one busy thread saw.
struct Watch {
    gaps: Vec<Gap>,
    /// Clock readings per second of the thread's running time (the run
    /// minus its gaps): a rough speed of the CPU it ran on, for comparing
    /// days on one machine (a slower or shared core reads the clock fewer
    /// times), not machines.
    reads_per_second: f64,
}

/// Busy-reads the clock until `until` and returns the gaps of at least `min`.
fn watch(start: Instant, until: Duration, min: Duration) -> Watch {
    let mut gaps = Vec::new();
    let mut reads = 0u64;
    let mut last = Instant::now();
    loop {
        reads += 1;
        let now = Instant::now();
        let d = now - last;
        if d >= min {
            let wall = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default();
            gaps.push(Gap {
                from: last - start,
                to: now - start,
                end_phase_ms: (wall.as_millis() % 100) as u64,
            });
        }
        last = now;
        if now - start >= until {
            let (stopped, _) = total_and_longest(&gaps);
            let ran = (now - start).saturating_sub(stopped).as_secs_f64();
            return Watch {
                gaps,
                reads_per_second: reads as f64 / ran.max(1e-9),
            };
        }
    }
}

/// The summed length of `gaps` and the longest one.
fn total_and_longest(gaps: &[Gap]) -> (Duration, Duration) {
    gaps.iter()
        .fold((Duration::ZERO, Duration::ZERO), |(sum, max), g| {
            let d = g.to - g.from;
            (sum + d, max.max(d))
        })
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let Args {
        seconds,
        threads,
        min_gap_ms,
        io_dir,
    } = probe_args::or_usage(parse_args(), "vm-freezes", USAGE);
    let until = Duration::from_secs_f64(seconds);
    let min = Duration::from_secs_f64(min_gap_ms / 1000.0);
    let barrier = Barrier::new(threads);
    let start = Instant::now();
    let (watches, io) = std::thread::scope(|s| {
        let io = io_dir
            .as_deref()
            .map(|dir| s.spawn(move || write_until(dir, start, until)));
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    barrier.wait();
                    watch(start, until, min)
                })
            })
            .collect();
        let watches: Vec<Watch> = handles
            .into_iter()
            .map(|h| h.join().expect("a watcher thread panicked"))
            .collect();
        (
            watches,
            io.map(|h| h.join().expect("the IO thread panicked")),
        )
    });

    println!(
        "vm-freezes: {threads} busy threads for {seconds} s, gaps of at least {min_gap_ms} ms"
    );
    match &io {
        None => println!("disk: idle (no --io-dir)"),
        Some(Ok(bytes)) => println!(
            "disk: {:.0} MiB written meanwhile ({:.0} MiB/s, 1 MiB writes, fdatasync every 8 MiB)",
            *bytes as f64 / MIB as f64,
            *bytes as f64 / MIB as f64 / seconds
        ),
        Some(Err(e)) => println!("disk: the IO thread failed: {e}"),
    }
    for (i, w) in watches.iter().enumerate() {
        let (total, max) = total_and_longest(&w.gaps);
        println!(
            "thread {i}: {} gaps, {:.1} ms in all ({:.1}% of the time), longest {:.1} ms; {:.1} M clock reads/s while running",
            w.gaps.len(),
            ms(total),
            100.0 * total.as_secs_f64() / seconds,
            ms(max),
            w.reads_per_second / 1e6
        );
    }
    let per_thread: Vec<Vec<Gap>> = watches.into_iter().map(|w| w.gaps).collect();
    let whole = whole_machine(&per_thread);
    let (total, max) = total_and_longest(&whole);
    let over_10 = whole.iter().filter(|g| ms(g.to - g.from) >= 10.0).count();
    let frozen = 100.0 * total.as_secs_f64() / seconds;
    println!(
        "whole machine: {} freezes, {:.1} ms in all ({frozen:.1}% of the time), longest {:.1} ms, {over_10} of 10 ms or more",
        whole.len(),
        ms(total),
        ms(max)
    );
    let bins = phase_bins(&whole);
    println!(
        "freeze ends by phase of the wall clock's 100 ms (10 ms bins, 0-9 ... 90-99): {bins:?}"
    );
    println!("verdict: {}", verdict(&bins, frozen));
    if matches!(io, Some(Err(_))) {
        std::process::exit(1);
    }
}

const MIB: u64 = 1 << 20;

/// Writes `dir/vm-freezes.tmp` until `until` has passed since `start`, in 1
/// MiB writes with an `fdatasync` every 8 MiB, starting over at 1 GiB; then
/// removes it. Returns the bytes written.
fn write_until(dir: &std::path::Path, start: Instant, until: Duration) -> std::io::Result<u64> {
    use std::io::{Seek, Write};
    let path = dir.join("vm-freezes.tmp");
    let mut f = std::fs::File::create(&path)?;
    // Not all zeros, so that no layer below can skip or compress it cheaply.
    let chunk: Vec<u8> = (0..MIB)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let mut written = 0u64;
    let r: std::io::Result<u64> = (|| {
        while start.elapsed() < until {
            f.write_all(&chunk)?;
            written += MIB;
            if written.is_multiple_of(8 * MIB) {
                f.sync_data()?;
            }
            if written.is_multiple_of(1 << 30) {
                f.seek(std::io::SeekFrom::Start(0))?;
            }
        }
        Ok(written)
    })();
    drop(f);
    let removed = std::fs::remove_file(&path);
    let n = r?;
    removed?;
    Ok(n)
}

/// How many freezes end in each 10 ms of the wall clock's 100 ms period.
fn phase_bins(freezes: &[Gap]) -> [usize; 10] {
    let mut bins = [0usize; 10];
    for g in freezes {
        bins[(g.end_phase_ms % 100 / 10) as usize] += 1;
    }
    bins
}

/// The reading of a run: under 1% of the time frozen is "not throttled";
/// otherwise "throttled by the host" when 70% of the freezes end within two
/// neighbouring 10 ms bins of the 100 ms period (a quota per period ends
/// them all when the next period starts), else frozen at no fixed point.
fn verdict(bins: &[usize; 10], frozen_percent: f64) -> String {
    let n: usize = bins.iter().sum();
    if n == 0 || frozen_percent < 1.0 {
        return format!("not throttled ({frozen_percent:.1}% of the time frozen)");
    }
    let (peak, top) = bins
        .iter()
        .enumerate()
        .max_by_key(|&(i, &b)| (b, std::cmp::Reverse(i)))
        .map(|(i, &b)| (i, b))
        .unwrap_or((0, 0));
    let (lo, near) = if bins[(peak + 9) % 10] > bins[(peak + 1) % 10] {
        ((peak + 9) % 10, top + bins[(peak + 9) % 10])
    } else {
        (peak, top + bins[(peak + 1) % 10])
    };
    if near * 10 >= n * 7 {
        format!(
            "throttled by the host, {frozen_percent:.1}% of the time frozen; the freezes end \
             {}-{} ms into each 100 ms (a CPU quota per period)",
            lo * 10,
            (lo * 10 + 19) % 100
        )
    } else {
        format!("frozen {frozen_percent:.1}% of the time, at no fixed point of the 100 ms period")
    }
}

/// The intervals in which every thread was in a gap: the intersection of
/// the threads' gap lists.
fn whole_machine(per_thread: &[Vec<Gap>]) -> Vec<Gap> {
    let mut acc: Vec<Gap> = per_thread.first().cloned().unwrap_or_default();
    for other in &per_thread[1.min(per_thread.len())..] {
        let mut next = Vec::new();
        for a in &acc {
            for b in other {
                let from = a.from.max(b.from);
                let to = a.to.min(b.to);
                if to > from {
                    next.push(Gap {
                        from,
                        to,
                        end_phase_ms: if a.to <= b.to {
                            a.end_phase_ms
                        } else {
                            b.end_phase_ms
                        },
                    });
                }
            }
        }
        acc = next;
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gap(from_ms: u64, to_ms: u64, end_phase_ms: u64) -> Gap {
        Gap {
            from: Duration::from_millis(from_ms),
            to: Duration::from_millis(to_ms),
            end_phase_ms,
        }
    }

    #[test]
    fn whole_machine_freezes_are_the_overlaps_of_every_threads_gaps() {
        let t0 = vec![gap(10, 40, 40), gap(100, 105, 5), gap(200, 230, 30)];
        let t1 = vec![gap(20, 45, 45), gap(110, 120, 20), gap(195, 225, 25)];
        let w = whole_machine(&[t0.clone(), t1]);
        let spans: Vec<_> = w
            .iter()
            .map(|g| (ms(g.from), ms(g.to), g.end_phase_ms))
            .collect();
        // 100-105 and 110-120 do not overlap: one thread ran meanwhile.
        assert_eq!(spans, vec![(20.0, 40.0, 40), (200.0, 225.0, 25)]);
        // One thread: its own gaps; a third thread that never stopped: none.
        assert_eq!(whole_machine(std::slice::from_ref(&t0)).len(), 3);
        assert!(whole_machine(&[t0, Vec::new()]).is_empty());
        assert!(whole_machine(&[]).is_empty());
    }

    #[test]
    fn the_verdict_names_a_quota_only_when_the_freezes_end_at_one_phase() {
        // A host quota: freezes of about a third of the period, each ending
        // near the same point of the period.
        let mut quota = [0; 10];
        quota[8] = 30;
        quota[9] = 12;
        quota[3] = 2;
        let v = verdict(&quota, 30.0);
        assert!(v.starts_with("throttled by the host"), "{v}");
        assert!(v.contains("80-99 ms"), "{v}");
        // The same peak across the period's end: 90-99 and 0-9.
        let mut wrap = [0; 10];
        wrap[9] = 10;
        wrap[0] = 10;
        assert!(
            verdict(&wrap, 5.0).contains("90-9 ms"),
            "{}",
            verdict(&wrap, 5.0)
        );
        // Spread evenly: frozen, but not by a quota per period.
        let even = [3; 10];
        assert!(verdict(&even, 5.0).starts_with("frozen 5.0%"));
        // Too little to matter, or nothing at all.
        assert!(verdict(&quota, 0.5).starts_with("not throttled"));
        assert!(verdict(&[0; 10], 0.0).starts_with("not throttled"));
    }

    #[test]
    fn phases_fall_in_their_10_ms_bins() {
        let b = phase_bins(&[gap(0, 1, 0), gap(0, 1, 9), gap(0, 1, 10), gap(0, 1, 99)]);
        assert_eq!(b, [2, 1, 0, 0, 0, 0, 0, 0, 0, 1]);
    }

    #[test]
    fn the_io_thread_writes_and_removes_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let n = write_until(dir.path(), Instant::now(), Duration::from_millis(50)).unwrap();
        assert!(n >= MIB, "{n}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
