//! `pread-cost`: what one `pread` of a table block costs, from the page
//! cache, for the files of a directory as they are cached now, and for
//! copies of them written in chunks of given sizes.
//!
//! A point lookup that misses the block cache reads its block with one
//! `pread` of a few KiB at an arbitrary offset. When the file is in the
//! page cache the call is all CPU: the page-cache lookup, the copy, the
//! system call. How much depends on how the kernel cached the file: a file
//! written with large `write(2)` calls is cached in large folios, and a
//! read from those costs less than from the small folios small writes leave
//! (docs/results/reads.md, "Table files written in 1 MiB chunks"). This
//! tool measures that, outside any engine.
//!
//! Each measurement is two passes of `--reads` reads of `--len` bytes at
//! pseudo-random offsets (a fixed xorshift sequence, so runs compare) over
//! the files of `--suffix` of at least 1 MiB; the second pass is printed,
//! as wall-clock nanoseconds per read on one thread. Run it alone on the
//! machine and on cached files: a read from the disk costs the wait too.
//! No sequential warm-up read is made, as one would change how the files
//! are cached.
//!
//! With `--copy-chunks C1,C2,... --scratch DIR`, the first `--files` files
//! are copied into `DIR/chunk-C` with `write(2)` calls of `C` bytes each,
//! and the copies are measured too (then deleted). Each copy stays in the
//! page cache as its writes left it, as a table file does after a flush or
//! a compaction.
//!
//! Exit status 0, 1 for an IO error, 2 for bad usage.

#[path = "../probe_args.rs"]
mod probe_args;

use std::fs::{self, File};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use probe_args::{ProbeArgs, parse_num};

const USAGE: &str = "usage: pread-cost [--len BYTES (default 2700)] [--reads N (default \
                     1000000)] [--suffix S (default .sst)] [--files K (default 20, for the \
                     copies)] [--copy-chunks C1,C2,... --scratch DIR] DIR";

/// The parsed command line.
struct Args {
    dir: PathBuf,
    len: usize,
    reads: u64,
    suffix: String,
    files: usize,
    copy_chunks: Vec<usize>,
    scratch: Option<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        dir: PathBuf::new(),
        len: 2700,
        reads: 1_000_000,
        suffix: ".sst".into(),
        files: 20,
        copy_chunks: Vec::new(),
        scratch: None,
    };
    let mut dir = None;
    let mut args = ProbeArgs::from_env();
    while let Some(arg) = args.next_arg() {
        match arg.name.as_str() {
            "--len" => a.len = args.num(&arg)?,
            "--reads" => a.reads = args.num(&arg)?,
            "--suffix" => a.suffix = args.value(&arg)?,
            "--files" => a.files = args.num(&arg)?,
            "--copy-chunks" => {
                a.copy_chunks = args
                    .value(&arg)?
                    .split(',')
                    .map(|c| parse_num(c, &arg.name))
                    .collect::<Result<_, _>>()?
            }
            "--scratch" => a.scratch = Some(PathBuf::from(args.value(&arg)?)),
            "-h" | "--help" => return Err(String::new()),
            _ if !arg.raw.starts_with('-') && dir.is_none() => dir = Some(PathBuf::from(arg.raw)),
            _ => return Err(format!("unknown argument {}", arg.raw)),
        }
    }
    a.dir = dir.ok_or("the directory to read is missing")?;
    if a.len == 0 || a.reads == 0 || a.files == 0 || a.copy_chunks.contains(&0) {
        return Err("--len, --reads, --files and every chunk must be above 0".into());
    }
    if !a.copy_chunks.is_empty() && a.scratch.is_none() {
        return Err("--copy-chunks needs --scratch".into());
    }
    Ok(a)
}

/// The files of `dir` ending in `suffix` of at least 1 MiB, sorted.
fn table_files(dir: &Path, suffix: &str) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir)? {
        let e = e?;
        let p = e.path();
        if p.to_string_lossy().ends_with(suffix) && e.metadata()?.len() >= 1 << 20 {
            out.push(p);
        }
    }
    out.sort();
    Ok(out)
}

/// Nanoseconds per read of the second of two passes over `files`.
fn measure(files: &[PathBuf], len: usize, reads: u64) -> std::io::Result<f64> {
    let opened = files
        .iter()
        .map(|p| {
            let f = File::open(p)?;
            let size = f.metadata()?.len();
            Ok((f, size))
        })
        .collect::<std::io::Result<Vec<_>>>()?;
    let mut buf = vec![0u8; len];
    let mut ns = 0.0;
    for _pass in 0..2 {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let start = Instant::now();
        for _ in 0..reads {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (f, size) = &opened[(x % opened.len() as u64) as usize];
            let at = (x >> 20) % size.saturating_sub(len as u64).max(1);
            f.read_at(&mut buf, at)?;
        }
        ns = start.elapsed().as_nanos() as f64 / reads as f64;
    }
    Ok(ns)
}

/// Copies `files` into `to` with `write(2)` calls of `chunk` bytes.
fn copy_in_chunks(files: &[PathBuf], to: &Path, chunk: usize) -> std::io::Result<Vec<PathBuf>> {
    fs::create_dir_all(to)?;
    let mut out = Vec::new();
    for p in files {
        let data = fs::read(p)?;
        let dst = to.join(p.file_name().unwrap_or_default());
        let mut f = File::create(&dst)?;
        for piece in data.chunks(chunk) {
            f.write_all(piece)?;
        }
        out.push(dst);
    }
    Ok(out)
}

fn run(a: &Args) -> std::io::Result<()> {
    let files = table_files(&a.dir, &a.suffix)?;
    if files.is_empty() {
        eprintln!(
            "pread-cost: no {} files of 1 MiB or more in {}",
            a.suffix,
            a.dir.display()
        );
        std::process::exit(2);
    }
    let ns = measure(&files, a.len, a.reads)?;
    println!(
        "{} as cached now: {} files, {:.0} ns per pread of {} bytes",
        a.dir.display(),
        files.len(),
        ns,
        a.len
    );
    // `parse_args` refuses chunks without a scratch directory.
    let Some(scratch) = &a.scratch else {
        return Ok(());
    };
    let sample = &files[..files.len().min(a.files)];
    for &chunk in &a.copy_chunks {
        let to = scratch.join(format!("chunk-{chunk}"));
        let copies = copy_in_chunks(sample, &to, chunk)?;
        let ns = measure(&copies, a.len, a.reads)?;
        println!(
            "copies written in {chunk}-byte writes: {} files, {ns:.0} ns per pread of {} bytes",
            copies.len(),
            a.len
        );
        fs::remove_dir_all(&to)?;
    }
    Ok(())
}

fn main() {
    let a = probe_args::or_usage(parse_args(), "pread-cost", USAGE);
    if let Err(e) = run(&a) {
        eprintln!("pread-cost: {e}");
        std::process::exit(1);
    }
}
