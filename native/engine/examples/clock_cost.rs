//! What one clock reading costs on this machine: the clock behind the perf
//! context's timers (quanta's raw counter, i.e. `rdtsc` where the TSC is
//! invariant) next to `rdtsc` and `rdtscp` read directly, `lfence; rdtsc`,
//! `clock_gettime(CLOCK_MONOTONIC)` through the vDSO (`Instant::now`, what
//! `std` and most Rust timing code use).
//!
//! ```sh
//! cargo run --release -p talus --example clock_cost            # 5 samples of 2M readings
//! cargo run --release -p talus --example clock_cost -- --samples 11 --reads 1000000
//! ```
//!
//! Each sample times back-to-back readings (each result is consumed, so
//! none is optimized away); the table shows the minimum and the median ns
//! per reading over the samples, and the clocks are measured in rotating
//! order so that load from other processes spreads over all of them. A
//! timer costs two readings plus a few instructions; compare that with the
//! step it times. The kernel's clock source is printed too: under a
//! hypervisor whose TSC is not usable the kernel falls back to another
//! source, and `clock_gettime` becomes a system call.

use std::hint::black_box;
use std::time::Instant;

#[cfg(target_arch = "x86_64")]
#[expect(
    unsafe_code,
    reason = "the time-stamp counter intrinsics are unsafe functions; audited here"
)]
mod tsc {
    /// `rdtsc`: not ordered with the surrounding instructions.
    #[inline(always)]
    pub fn rdtsc() -> u64 {
        // SAFETY: `rdtsc` reads a register and has no memory effects; every
        // x86_64 processor implements it.
        unsafe { core::arch::x86_64::_rdtsc() }
    }

    /// `rdtscp`: waits for earlier instructions to finish.
    #[inline(always)]
    pub fn rdtscp() -> u64 {
        let mut aux = 0u32;
        // SAFETY: writes only `aux`, a local we own; the caller checked
        // (`has_rdtscp`) that the processor implements the instruction.
        unsafe { core::arch::x86_64::__rdtscp(&mut aux) }
    }

    /// `lfence; rdtsc`: the ordered reading Intel recommends.
    #[inline(always)]
    pub fn lfence_rdtsc() -> u64 {
        // SAFETY: `lfence` is part of SSE2, which every x86_64 processor has;
        // `rdtsc` as above.
        unsafe {
            core::arch::x86_64::_mm_lfence();
            core::arch::x86_64::_rdtsc()
        }
    }

    /// True when `/proc/cpuinfo` lists the `rdtscp` flag.
    pub fn has_rdtscp() -> bool {
        std::fs::read_to_string("/proc/cpuinfo")
            .is_ok_and(|s| s.split_whitespace().any(|w| w == "rdtscp"))
    }
}

/// A clock to measure: its name and one reading.
type Clock = (&'static str, Box<dyn Fn() -> u64>);

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Nanoseconds per call of `read`, over `n` back-to-back calls.
#[inline(never)]
fn sample(n: u64, read: &dyn Fn() -> u64) -> f64 {
    let t = Instant::now();
    let mut acc = 0u64;
    for _ in 0..n {
        acc = acc.wrapping_add(read());
    }
    black_box(acc);
    t.elapsed().as_nanos() as f64 / n as f64
}

fn cpu_flags() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = info
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map_or("unknown CPU", str::trim)
        .to_owned();
    let flags: Vec<&str> = [
        "constant_tsc",
        "nonstop_tsc",
        "tsc_known_freq",
        "hypervisor",
    ]
    .into_iter()
    .filter(|f| info.split_whitespace().any(|w| w == *f))
    .collect();
    format!("{model}; flags: {}", flags.join(" "))
}

fn main() {
    let mut samples = 5usize;
    let mut reads = 2_000_000u64;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let v = args.next().and_then(|v| v.parse::<u64>().ok());
        match (a.as_str(), v) {
            ("--samples", Some(v)) if v > 0 => samples = v as usize,
            ("--reads", Some(v)) if v > 0 => reads = v,
            _ => {
                eprintln!("usage: clock_cost [--samples N] [--reads N]");
                std::process::exit(2);
            }
        }
    }
    let source =
        std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
            .map_or_else(|_| "?".to_owned(), |s| s.trim().to_owned());
    let quanta = quanta::Clock::new();
    let base = Instant::now();
    let mut clocks: Vec<Clock> = vec![
        (
            "perf-context timer clock (quanta raw)",
            Box::new(move || quanta.raw()),
        ),
        (
            "Instant::now (clock_gettime MONOTONIC, vDSO)",
            Box::new(move || base.elapsed().as_nanos() as u64),
        ),
        (
            "Instant::now, result discarded",
            Box::new(|| {
                black_box(Instant::now());
                1
            }),
        ),
    ];
    #[cfg(target_arch = "x86_64")]
    {
        clocks.push(("rdtsc", Box::new(tsc::rdtsc)));
        clocks.push(("lfence; rdtsc", Box::new(tsc::lfence_rdtsc)));
        if tsc::has_rdtscp() {
            clocks.push(("rdtscp", Box::new(tsc::rdtscp)));
        }
    }
    println!("# clock_cost: {samples} samples of {reads} readings per clock");
    println!("# {}; kernel clocksource: {source}", cpu_flags());
    // Warm up every clock (page faults, vDSO data, frequency ramp).
    for (_, c) in &clocks {
        sample(reads / 10, c.as_ref());
    }
    let mut ns: Vec<Vec<f64>> = vec![Vec::new(); clocks.len()];
    for s in 0..samples {
        for i in 0..clocks.len() {
            let k = (i + s) % clocks.len();
            ns[k].push(sample(reads, clocks[k].1.as_ref()));
        }
    }
    println!("  {:<46} {:>8} {:>10}", "clock", "min ns", "median ns");
    for ((name, _), v) in clocks.iter().zip(&mut ns) {
        let min = v.iter().copied().fold(f64::INFINITY, f64::min);
        println!("  {:<46} {:>8.2} {:>10.2}", name, min, median(v));
    }
}
