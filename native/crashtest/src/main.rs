//! `talus-crash`: the kill test of issue 7.
//!
//! ```text
//! talus-crash run [--cycles N] [--seed S] [--dir DIR] [--threads T] [--max-ms M] [--fresh-every K]
//! talus-crash child --dir DIR --acks FILE --seed S --threads T
//! ```
//!
//! `run` (the parent) repeats N cycles on one database: start a child
//! process, let it write, SIGKILL it — at a random moment, or while the
//! child's info log shows a flush or a compaction in progress — then open
//! the database and check it against the child's acknowledgement log:
//! every acknowledged put is there with its value, every acknowledged
//! delete is gone, every value present is the one its key determines (no
//! garbage), a full scan and `verify_checksum` succeed. It prints one
//! summary line and exits non-zero on any loss or damage.
//!
//! `child` opens the database with small memtables and tables (so flushes
//! and compactions run all the time) and writes from several threads:
//! puts of keys no one wrote before, a quarter of them synced, batches,
//! deletes of its own acknowledged keys, explicit flushes and compactions.
//! After each write returns `Ok` it appends one line per key to the
//! acknowledgement log with a single `write(2)` (no user-space buffer: the
//! line is in the OS when the kill comes). The parent trusts only complete
//! lines. Without a power loss, every acknowledged write must survive —
//! synced or not, since the WAL write returned (the promise for a process
//! kill).

mod child;
mod parent;

use std::collections::HashMap;

use talus::Options;
use talus::options::CompressionType;

/// The value a key always has: the parent can check any value it finds.
pub(crate) fn value_of(key: &str) -> Vec<u8> {
    let h = hash(key.as_bytes());
    let len = (h % 1500) as usize + 1;
    let mut v = Vec::with_capacity(len + key.len() + 1);
    v.extend_from_slice(key.as_bytes());
    v.push(b'|');
    let mut x = h;
    while v.len() < len + key.len() + 1 {
        x = xorshift(x);
        v.push(b'a' + (x % 26) as u8);
    }
    v
}

/// FNV-1a.
pub(crate) fn hash(b: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &c in b {
        h ^= u64::from(c);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

pub(crate) fn xorshift(mut x: u64) -> u64 {
    if x == 0 {
        x = 0x9E37_79B9_7F4A_7C15;
    }
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x
}

/// Small buffers: flushes every ~256 KiB, compactions from 2 L0 files.
pub(crate) fn options() -> Options {
    Options {
        create_if_missing: true,
        stats_dump_period_sec: 0,
        write_buffer_size: 256 << 10,
        max_write_buffer_number: 3,
        level0_file_num_compaction_trigger: 2,
        target_file_size_base: 256 << 10,
        max_bytes_for_level_base: 1 << 20,
        compression: CompressionType::Lz4,
        ..Options::default()
    }
}

fn parse_args(args: &[String]) -> Result<HashMap<String, String>, String> {
    let mut out = HashMap::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let name = a
            .strip_prefix("--")
            .ok_or_else(|| format!("unexpected argument {a}"))?;
        let v = it.next().ok_or_else(|| format!("--{name} needs a value"))?;
        out.insert(name.to_string(), v.clone());
    }
    Ok(out)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: talus-crash run [--cycles N] [--seed S] [--dir DIR] [--threads T] [--max-ms M] [--fresh-every K]\n       talus-crash child --dir DIR --acks FILE --seed S --threads T";
    let Some(mode) = args.first() else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let flags = match parse_args(&args[1..]) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{e}\n{usage}");
            std::process::exit(2);
        }
    };
    let code = match mode.as_str() {
        "run" => parent::run(&flags),
        "child" => child::run(&flags),
        _ => {
            eprintln!("{usage}");
            2
        }
    };
    std::process::exit(code);
}
