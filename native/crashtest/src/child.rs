//! The child: writes until it is killed (or for at most a minute, so an
//! orphan never outlives its parent for long). See the crate docs.

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use talus::db::FlushOptions;
use talus::{Db, WriteBatch, WriteOptions};

use crate::{options, value_of, xorshift};

const MAX_LIFETIME: Duration = Duration::from_secs(60);

fn flag<'a>(flags: &'a HashMap<String, String>, name: &str) -> &'a str {
    flags.get(name).map(String::as_str).unwrap_or_else(|| {
        eprintln!("child: --{name} is required");
        std::process::exit(2)
    })
}

/// Appends `text` to the ack log with one `write(2)` (a `File` has no
/// user-space buffer).
fn ack(log: &std::fs::File, text: &str) {
    let mut f = log;
    if f.write_all(text.as_bytes()).is_err() {
        std::process::exit(3);
    }
}

pub(crate) fn run(flags: &HashMap<String, String>) -> i32 {
    let dir = flag(flags, "dir");
    let seed: u64 = flag(flags, "seed").parse().unwrap_or(1);
    let threads: usize = flag(flags, "threads").parse().unwrap_or(4);
    let log = match OpenOptions::new()
        .create(true)
        .append(true)
        .open(flag(flags, "acks"))
    {
        Ok(f) => Arc::new(f),
        Err(e) => {
            eprintln!("child: ack log: {e}");
            return 2;
        }
    };
    let db = match Db::open(options(), dir) {
        Ok(db) => Arc::new(db),
        Err(e) => {
            eprintln!("child: open: {e}");
            return 4;
        }
    };
    println!("ready");
    let _ = std::io::stdout().flush();
    let stop = Arc::new(AtomicBool::new(false));
    let mut handles = Vec::new();
    for t in 0..threads {
        let (db, log, stop) = (db.clone(), log.clone(), stop.clone());
        handles.push(std::thread::spawn(move || {
            writer(&db, &log, &stop, seed, t);
        }));
    }
    {
        // Explicit flushes and compactions next to the automatic ones.
        let (db, stop) = (db.clone(), stop.clone());
        handles.push(std::thread::spawn(move || {
            let mut x = seed ^ 0xF1;
            while !stop.load(Ordering::Relaxed) {
                x = xorshift(x);
                std::thread::sleep(Duration::from_millis(20 + x % 150));
                let r = if x.is_multiple_of(4) {
                    db.compact_range(None, None)
                } else {
                    db.flush(&FlushOptions::default())
                };
                if let Err(e) = r {
                    eprintln!("child: background: {e}");
                    std::process::exit(5);
                }
            }
        }));
    }
    let start = Instant::now();
    while start.elapsed() < MAX_LIFETIME {
        std::thread::sleep(Duration::from_millis(100));
    }
    stop.store(true, Ordering::Relaxed);
    for h in handles {
        let _ = h.join();
    }
    0
}

fn writer(db: &Db, log: &std::fs::File, stop: &AtomicBool, seed: u64, t: usize) {
    let mut x = seed.wrapping_mul(31).wrapping_add(t as u64 + 1);
    let mut mine: Vec<String> = Vec::new();
    let mut n = 0u64;
    while !stop.load(Ordering::Relaxed) {
        x = xorshift(x);
        let sync = x.is_multiple_of(4);
        let wo = WriteOptions {
            sync,
            ..WriteOptions::default()
        };
        let kind = (x >> 8) % 20;
        let result = if kind == 0 && !mine.is_empty() {
            // Delete one of this thread's acknowledged keys.
            let k = mine.swap_remove((x >> 16) as usize % mine.len());
            // The intent first: a kill between the delete's return and its
            // ack line must leave the key "either" for the parent, not
            // "present".
            ack(log, &format!("d {k}\n"));
            db.delete(&wo, k.as_bytes()).map(|()| format!("D {k}\n"))
        } else if kind == 1 {
            let mut b = WriteBatch::new();
            let mut lines = String::new();
            for _ in 0..5 {
                let k = format!("s{seed}-t{t}-{n}");
                n += 1;
                b.put(k.as_bytes(), &value_of(&k));
                lines.push_str(&format!("P {k}\n"));
                mine.push(k);
            }
            db.write(&wo, b).map(|()| lines)
        } else {
            let k = format!("s{seed}-t{t}-{n}");
            n += 1;
            let r = db.put(&wo, k.as_bytes(), &value_of(&k));
            mine.push(k.clone());
            r.map(|()| format!("P {k}\n"))
        };
        match result {
            Ok(lines) => ack(log, &lines),
            Err(e) => {
                eprintln!("child: write: {e}");
                std::process::exit(6);
            }
        }
    }
}
