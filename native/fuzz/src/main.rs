//! `talus-fuzz`: runs the fuzz targets with the structured mutation driver.
//!
//! ```text
//! talus-fuzz [--target NAME|all] [--seconds S] [--execs N] [--seed X]
//!            [--corpus DIR] [--crashes DIR] [--write-corpus DIR]
//! ```
//!
//! Starts each target from the engine-written seeds plus the inputs in
//! `DIR/<target>/` (default `native/fuzz/corpus`), runs it for `S` seconds
//! (default 10) or `N` executions, and prints one line per target:
//! `talus-fuzz: block: 1234567 execs in 60 s (20576/s), corpus 412, signatures 410, crashes 0`.
//! Inputs that panic are written to `--crashes` (default
//! `target/fuzz-crashes/<target>/`); the exit status is 1 if there were any.
//! `--write-corpus DIR` writes the seeds as the committed corpus and exits.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use talus_fuzz::targets::TARGETS;
use talus_fuzz::{Limits, QuietPanics, hash, read_dir_inputs, run, seeds};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut flags: HashMap<String, String> = HashMap::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let Some(name) = a.strip_prefix("--") else {
            eprintln!("talus-fuzz: unexpected argument {a}");
            std::process::exit(2);
        };
        let Some(v) = it.next() else {
            eprintln!("talus-fuzz: --{name} needs a value");
            std::process::exit(2);
        };
        flags.insert(name.to_string(), v.clone());
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    if let Some(dir) = flags.get("write-corpus") {
        for (name, _) in TARGETS {
            let d = PathBuf::from(dir).join(name);
            std::fs::create_dir_all(&d).expect("corpus directory");
            for (i, s) in seeds::for_target(name).iter().enumerate() {
                std::fs::write(d.join(format!("seed-{i}")), s).expect("corpus file");
            }
        }
        return;
    }
    let which = flags.get("target").map_or("all", String::as_str);
    let seconds: f64 = flags
        .get("seconds")
        .and_then(|s| s.parse().ok())
        .unwrap_or(10.0);
    let execs: u64 = flags
        .get("execs")
        .and_then(|s| s.parse().ok())
        .unwrap_or(u64::MAX);
    let seed: u64 = flags.get("seed").and_then(|s| s.parse().ok()).unwrap_or(1);
    let corpus_dir = flags
        .get("corpus")
        .map_or_else(|| root.join("corpus"), PathBuf::from);
    let crash_dir = flags
        .get("crashes")
        .map_or_else(|| root.join("../../target/fuzz-crashes"), PathBuf::from);
    let mut total_crashes = 0;
    let mut total_execs = 0u64;
    let _quiet = (std::env::var_os("TALUS_FUZZ_VERBOSE").is_none()).then(QuietPanics::new);
    for (name, target) in TARGETS {
        if which != "all" && which != *name {
            continue;
        }
        let mut inputs = seeds::for_target(name);
        inputs.extend(
            read_dir_inputs(&corpus_dir.join(name))
                .into_iter()
                .map(|(_, b)| b),
        );
        let limits = Limits {
            max_execs: execs,
            max_time: Duration::from_secs_f64(seconds),
        };
        let r = run(name, *target, inputs, limits, seed, &crash_dir);
        let secs = r.elapsed.as_secs_f64();
        println!(
            "talus-fuzz: {name}: {} execs in {:.0} s ({:.0}/s), corpus {}, signatures {}, crashes {}",
            r.execs,
            secs,
            r.execs as f64 / secs.max(1e-9),
            r.corpus,
            r.signatures,
            r.findings.len()
        );
        total_execs += r.execs;
        for f in &r.findings {
            let d = crash_dir.join(name);
            let _ = std::fs::create_dir_all(&d);
            let path = d.join(format!("crash-{:016x}", hash(&f.input)));
            let _ = std::fs::write(&path, &f.input);
            println!("  panic: {}\n  input: {}", f.message, path.display());
        }
        total_crashes += r.findings.len();
    }
    println!("talus-fuzz: total {total_execs} execs, {total_crashes} crashes");
    std::process::exit(i32::from(total_crashes > 0));
}
