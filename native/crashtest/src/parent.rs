//! The parent: start, kill, verify, repeat. See the crate docs.
//!
//! "writes checked" counts acknowledged writes (puts and deletes, from the
//! complete lines of the ack logs); each is checked after the kill of its
//! cycle and again after every later kill until the database is started
//! over (`--fresh-every`, default 25 cycles).

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use talus::{Db, ReadOptions};

use crate::{options, value_of, xorshift};

/// What to wait for before the kill.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Moment {
    Random,
    DuringFlush,
    DuringCompaction,
}

#[derive(Default)]
struct Totals {
    cycles: u64,
    checked: u64,
    losses: u64,
    corrupt: u64,
    during_flush: u64,
    during_compaction: u64,
}

fn num<T: std::str::FromStr>(flags: &HashMap<String, String>, name: &str, default: T) -> T {
    flags
        .get(name)
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// (flushes in progress, compactions in progress) per the child's info log.
fn in_progress(dir: &Path) -> (bool, bool) {
    let log = std::fs::read_to_string(dir.join("LOG")).unwrap_or_default();
    let count = |s: &str| log.matches(s).count();
    (
        count("Flush started") > count("Flush finished"),
        count("Compaction started") > count("Compaction finished"),
    )
}

fn spawn_child(db: &Path, acks: &Path, seed: u64, threads: usize) -> std::io::Result<Child> {
    let exe = std::env::current_exe()?;
    Command::new(exe)
        .arg("child")
        .arg("--dir")
        .arg(db)
        .arg("--acks")
        .arg(acks)
        .arg("--seed")
        .arg(seed.to_string())
        .arg("--threads")
        .arg(threads.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
}

/// What the ack logs say about a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Want {
    /// An acknowledged put (and no delete started).
    Present,
    /// An acknowledged delete.
    Absent,
    /// A delete was started but not acknowledged: either is fine.
    Either,
}

/// Applies the complete lines of an ack log to `expect`: `P k` an
/// acknowledged put, `d k` a delete about to start, `D k` an acknowledged
/// delete.
fn read_acks(path: &Path, expect: &mut BTreeMap<String, Want>) -> std::io::Result<u64> {
    let text = std::fs::read_to_string(path)?;
    let complete = match text.rfind('\n') {
        Some(i) => &text[..=i],
        None => "",
    };
    let mut acked = 0;
    for line in complete.lines() {
        acked += u64::from(line.starts_with('P') || line.starts_with('D'));
        if let Some(k) = line.strip_prefix("P ") {
            expect.insert(k.to_string(), Want::Present);
        } else if let Some(k) = line.strip_prefix("d ") {
            expect.insert(k.to_string(), Want::Either);
        } else if let Some(k) = line.strip_prefix("D ") {
            expect.insert(k.to_string(), Want::Absent);
        }
    }
    Ok(acked)
}

/// Opens the database and checks it against `expect`; returns (keys
/// checked, losses, corrupt) and prints what is wrong.
fn verify(db_dir: &Path, expect: &BTreeMap<String, Want>) -> (u64, u64, u64) {
    let db = match Db::open(options(), db_dir) {
        Ok(db) => db,
        Err(e) => {
            eprintln!("crash: open after the kill failed: {e}");
            return (0, 0, 1);
        }
    };
    let ro = ReadOptions::default();
    let (mut checked, mut losses, mut corrupt) = (0, 0, 0);
    for (k, &want) in expect {
        let present = want == Want::Present;
        checked += u64::from(want != Want::Either);
        match db.get(&ro, k.as_bytes()) {
            Ok(Some(v)) if want != Want::Absent && v == value_of(k) => {}
            Ok(None) if want != Want::Present => {}
            Ok(Some(v)) if want != Want::Absent => {
                corrupt += 1;
                eprintln!("crash: {k} has a wrong value ({} bytes)", v.len());
            }
            Ok(got) => {
                losses += 1;
                if losses <= 10 {
                    eprintln!(
                        "crash: LOST acknowledged {} of {k} (found {})",
                        if present { "put" } else { "delete" },
                        if got.is_some() { "a value" } else { "nothing" }
                    );
                }
            }
            Err(e) => {
                corrupt += 1;
                eprintln!("crash: get {k}: {e}");
            }
        }
    }
    // Every value present, acknowledged or not, is the one its key determines.
    let mut scanned = 0u64;
    match db.iter(&ro) {
        Ok(mut it) => {
            it.seek_to_first();
            while it.valid() {
                let k = String::from_utf8_lossy(it.key()).to_string();
                if it.value() != value_of(&k).as_slice() {
                    corrupt += 1;
                    eprintln!("crash: scan: {k} has a wrong value");
                }
                scanned += 1;
                it.next();
            }
            if let Err(e) = it.status() {
                corrupt += 1;
                eprintln!("crash: scan: {e}");
            }
        }
        Err(e) => {
            corrupt += 1;
            eprintln!("crash: iter: {e}");
        }
    }
    if let Err(e) = db.verify_checksum() {
        corrupt += 1;
        eprintln!("crash: verify_checksum: {e}");
    }
    if let Err(e) = db.close() {
        corrupt += 1;
        eprintln!("crash: close: {e}");
    }
    let _ = scanned;
    (checked, losses, corrupt)
}

pub(crate) fn run(flags: &HashMap<String, String>) -> i32 {
    let cycles: u64 = num(flags, "cycles", 10);
    let seed: u64 = num(flags, "seed", 1);
    let threads: usize = num(flags, "threads", 4);
    let max_ms: u64 = num(flags, "max-ms", 1500);
    // Start over on an empty database every this many cycles, so that a
    // long soak does not grow without bound.
    let fresh_every: u64 = num(flags, "fresh-every", 25).max(1);
    let (work, _tmp_guard): (PathBuf, Option<TempDir>) = match flags.get("dir") {
        Some(d) => (PathBuf::from(d), None),
        None => {
            let t = TempDir::new();
            (t.0.clone(), Some(t))
        }
    };
    let db_dir = work.join("db");
    let acks_dir = work.join("acks");
    if let Err(e) = std::fs::create_dir_all(&acks_dir) {
        eprintln!("crash: {}: {e}", acks_dir.display());
        return 2;
    }
    let mut expect: BTreeMap<String, Want> = BTreeMap::new();
    let mut t = Totals::default();
    let mut x = xorshift(seed ^ 0xC4A5);
    let mut keys_seen = 0u64;
    let started = Instant::now();
    for cycle in 0..cycles {
        x = xorshift(x);
        if cycle > 0 && cycle % fresh_every == 0 {
            let _ = std::fs::remove_dir_all(&db_dir);
            expect.clear();
        }
        let moment = match cycle % 3 {
            0 => Moment::Random,
            1 => Moment::DuringFlush,
            _ => Moment::DuringCompaction,
        };
        let acks = acks_dir.join(format!("cycle-{cycle}.txt"));
        let child_seed = seed.wrapping_mul(1_000_003).wrapping_add(cycle);
        let mut child = match spawn_child(&db_dir, &acks, child_seed, threads) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("crash: spawn: {e}");
                return 2;
            }
        };
        // Wait until the child has opened the database.
        let ready = child.stdout.take().map(|out| {
            let mut line = String::new();
            let _ = BufReader::new(out).read_line(&mut line);
            line
        });
        if ready.as_deref().map(str::trim) != Some("ready") {
            let _ = child.kill();
            let _ = child.wait();
            eprintln!("crash: cycle {cycle}: the child did not open the database");
            t.corrupt += 1;
            break;
        }
        // Let it write for a while, then kill at the chosen moment.
        let min_wait = Duration::from_millis(50 + x % max_ms.max(1));
        let begin = Instant::now();
        loop {
            std::thread::sleep(Duration::from_millis(1));
            if let Ok(Some(status)) = child.try_wait() {
                eprintln!("crash: cycle {cycle}: the child exited on its own: {status}");
                t.corrupt += 1;
                break;
            }
            let waited = begin.elapsed();
            if waited < min_wait {
                continue;
            }
            let (flush, compaction) = match moment {
                Moment::Random => (false, false),
                _ => in_progress(&db_dir),
            };
            let hit = match moment {
                Moment::Random => true,
                Moment::DuringFlush => flush,
                Moment::DuringCompaction => compaction,
            };
            if hit || waited > min_wait + Duration::from_secs(5) {
                break;
            }
        }
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        let (flush, compaction) = in_progress(&db_dir);
        t.during_flush += u64::from(flush);
        t.during_compaction += u64::from(compaction);
        match read_acks(&acks, &mut expect) {
            Ok(n) => t.checked += n,
            Err(e) => eprintln!("crash: cycle {cycle}: ack log: {e}"),
        }
        let (keys, losses, corrupt) = verify(&db_dir, &expect);
        keys_seen += keys;
        t.cycles += 1;
        t.losses += losses;
        t.corrupt += corrupt;
        if losses > 0 || corrupt > 0 {
            eprintln!(
                "crash: cycle {cycle} (seed {seed}, kill {moment:?}): {losses} losses, {corrupt} damaged; database kept in {}",
                db_dir.display()
            );
            if let Some(t) = _tmp_guard {
                std::mem::forget(t);
            }
            break;
        }
    }
    println!(
        "crash-soak: cycles {}, writes checked {}, losses {}, damaged {}, kills during flush {}, during compaction {}, key lookups {} ({} s)",
        t.cycles,
        t.checked,
        t.losses,
        t.corrupt,
        t.during_flush,
        t.during_compaction,
        keys_seen,
        started.elapsed().as_secs()
    );
    i32::from(t.losses > 0 || t.corrupt > 0)
}

/// A directory removed on drop (no dependency for one helper).
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Self {
        let base = std::env::temp_dir().join(format!(
            "talus-crash-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        ));
        let _ = std::fs::create_dir_all(&base);
        TempDir(base)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
