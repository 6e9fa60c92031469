//! The per-call cost of the C API against the Rust API, single thread:
//! N puts of 48-byte keys and 160-byte values into a fresh database
//! (default options, WAL on, not synced), then N gets in a scrambled order,
//! owned (`Db::get` / `talus_get` + `talus_free`) and into a reused buffer
//! (`Db::get_into` / `talus_get_into_pinnableslice`). The C side is
//! `examples/c/bench.c`, compiled with `cc -O2` against the release
//! `libtalus.so`; the two run alternately, ROUNDS times each, and the
//! medians are printed with the C-minus-Rust difference per call.
//!
//! Usage: `cargo bench -p talus-capi --bench overhead [-- N ROUNDS]`
//! (defaults 200000 and 5). A program that prints numbers; nothing asserts
//! on time.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use talus::{Db, Options, ReadOptions, WriteOptions};

const KEY_LEN: usize = 48;
const VALUE_LEN: usize = 160;

fn key_of(i: u64) -> [u8; KEY_LEN] {
    let mut k = [0; KEY_LEN];
    k.copy_from_slice(format!("key{i:045}").as_bytes());
    k
}

/// As `scrambled` in bench.c.
fn scrambled(i: u64, n: u64) -> u64 {
    (i * 2_654_435_761) % n
}

/// One Rust round: ns per put, get, get_into.
fn rust_round(dir: &Path, n: u64) -> [f64; 3] {
    let o = Options {
        create_if_missing: true,
        ..Options::default()
    };
    let db = Db::open(o, dir).expect("open");
    let (wo, ro) = (WriteOptions::default(), ReadOptions::default());
    let v = [b'v'; VALUE_LEN];
    // Keys are made before the clock starts: only API calls are timed.
    let keys: Vec<[u8; KEY_LEN]> = (0..n).map(key_of).collect();
    let order: Vec<[u8; KEY_LEN]> = (0..n).map(|i| key_of(scrambled(i, n))).collect();
    let t = Instant::now();
    for k in &keys {
        db.put(&wo, k, &v).expect("put");
    }
    let put = t.elapsed().as_nanos() as f64 / n as f64;
    let mut found = 0;
    let t = Instant::now();
    for k in &order {
        let val = db.get(&ro, k).expect("get");
        found += u64::from(val.is_some_and(|v| v.len() == VALUE_LEN));
    }
    let get = t.elapsed().as_nanos() as f64 / n as f64;
    let mut buf = Vec::new();
    let t = Instant::now();
    for k in &order {
        found += u64::from(db.get_into(&ro, k, &mut buf).expect("get_into"));
    }
    let get_into = t.elapsed().as_nanos() as f64 / n as f64;
    assert_eq!(found, 2 * n, "every key found");
    db.close().expect("close");
    [put, get, get_into]
}

/// One C round: runs the compiled bench.c and parses its line.
fn c_round(exe: &Path, dir: &Path, n: u64) -> [f64; 3] {
    let o = Command::new(exe)
        .arg(dir)
        .arg(n.to_string())
        .output()
        .expect("run bench.c");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "bench.c: {out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let field = |name: &str| -> f64 {
        out.split_whitespace()
            .find_map(|w| w.strip_prefix(name))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {name} in {out:?}"))
    };
    [field("put_ns="), field("get_ns="), field("get_into_ns=")]
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Builds the release library and compiles bench.c against it.
fn build_c(out: &Path) -> PathBuf {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let exe = std::env::current_exe().expect("bench path");
    let target = exe
        .parent()
        .and_then(Path::parent)
        .and_then(Path::parent)
        .expect("target directory");
    let st = Command::new(env!("CARGO"))
        .args([
            "build",
            "--release",
            "-p",
            "talus-capi",
            "--lib",
            "--target-dir",
        ])
        .arg(target)
        .current_dir(&repo)
        .status()
        .expect("cargo build");
    assert!(st.success());
    let lib = target.join("release");
    let bin = out.join("bench_c");
    let st = Command::new("cc")
        .args(["-std=c11", "-O2", "-I"])
        .arg(repo.join("include"))
        .arg(repo.join("examples/c/bench.c"))
        .arg("-o")
        .arg(&bin)
        .arg("-L")
        .arg(&lib)
        .arg("-ltalus")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .status()
        .expect("run cc");
    assert!(st.success());
    bin
}

fn main() {
    // `cargo bench` passes `--bench`; the numbers are the positional args.
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let n = args.first().copied().unwrap_or(200_000);
    let rounds = args.get(1).copied().unwrap_or(5) as usize;
    let tmp = tempfile::tempdir().expect("temp dir");
    let c_exe = build_c(tmp.path());
    let (mut rust, mut c) = (vec![Vec::new(); 3], vec![Vec::new(); 3]);
    for r in 0..rounds {
        let rd = rust_round(&tmp.path().join(format!("rust{r}")), n);
        let cd = c_round(&c_exe, &tmp.path().join(format!("c{r}")), n);
        println!(
            "round {r}: rust put {:.0} get {:.0} get_into {:.0} | c put {:.0} get {:.0} get_into {:.0} (ns/op)",
            rd[0], rd[1], rd[2], cd[0], cd[1], cd[2]
        );
        for i in 0..3 {
            rust[i].push(rd[i]);
            c[i].push(cd[i]);
        }
    }
    println!(
        "\nmedians of {rounds} alternated rounds, {n} operations each, 48-byte keys, 160-byte values:"
    );
    println!(
        "{:<28} {:>10} {:>10} {:>12} {:>8}",
        "operation", "Rust ns", "C ns", "C - Rust ns", "C/Rust"
    );
    let names = ["put", "get (owned value)", "get into reused buffer"];
    for i in 0..3 {
        let (r, cc) = (median(&mut rust[i]), median(&mut c[i]));
        println!(
            "{:<28} {:>10.0} {:>10.0} {:>12.0} {:>8.3}",
            names[i],
            r,
            cc,
            cc - r,
            cc / r
        );
    }
}
