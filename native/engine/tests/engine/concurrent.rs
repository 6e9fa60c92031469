//! Concurrent stress test: writers, readers and background work run against
//! one database at once, with write buffers and table files small enough
//! that memtable switches, flushes and compactions happen hundreds of times,
//! and every read is checked against an invariant that holds whatever the
//! interleaving, so that a failure is an engine bug, not a race of the test.
//!
//! The model. Each writer owns a disjoint set of keys (`w{w}/key{i}`) and is
//! the only thread writing them. Its writes (puts, deletes, range deletes
//! over its own keys, batches of those) are numbered 1, 2, ... as it issues
//! them, each after the one before returned, so their sequence numbers rise
//! with their numbers. Before issuing write `n` it appends what `n` changes
//! to its history and publishes `issued = n`; once the write returns it
//! publishes `acked = n`. A read that sees one state of the database (a
//! get, a multi-get, an iterator's scan, a snapshot) must therefore show
//! each writer's keys exactly as its writes `1..=P` left them, for one `P`
//! with `acked` (read before the read began) ≤ P ≤ `issued` (read once the
//! read's sequence number was fixed). That covers read-your-writes, never
//! seeing a version newer than the snapshot, lost and resurrected keys, and
//! torn batches. Reads at latest by one thread never go back: the `P` found
//! (its smallest possible value) raises the lower bound of its next read.
//!
//! Writers also check their own keys exactly: a get right after a write,
//! iterators and multi-gets over their keys, and snapshots of their own
//! read before and after a flush. A few shared keys (`s/key{i}`) are put by
//! every writer and never deleted: once a put to one was acknowledged it is
//! never absent, and no read shows a writer's value older than one of its
//! puts acknowledged (or already seen by the reading thread) before.
//!
//! Snapshots are taken by a background thread, which also flushes and
//! compacts now and then; each is read in full when taken (and checked as
//! above), then again by other threads, across flushes and compactions,
//! with gets, multi-gets and iterators (scans both ways, seeks, bounds):
//! every read must return exactly what it returned at first. Iterators at
//! latest are checked the same way, their seeks and reverse scans against
//! their own forward scan. Every value carries its key, writer, write number
//! and a checksum, and is compared byte for byte with what was written.
//!
//! Races between a read and an insert next to its key need the two to
//! meet: each writer writes two "hot" keys most of the time and publishes
//! which, readers aim many of their reads at them, and one thread (the
//! rereader) takes a snapshot and reads a hot key at it again and again
//! until the key's writer has overwritten it. That write lands right after
//! where the reads' search ends, where the memtable's `lower_bound` race
//! (the skiplist regression test
//! `lower_bound_never_returns_a_node_below_the_target_while_inserts_land_before_it`)
//! returned the new version; with that fix reverted, the test fails in
//! most runs, usually within seconds. (The
//! readers that need no such meeting sleep a little between reads, so that
//! on two cores the writers and the rereader often run at once.)
//!
//! At the end the database is compared with the writers' final states, then
//! reopened (WAL recovery) and compared again.
//!
//! Defaults: [`DEFAULT_SECS`] seconds, seed from the clock (printed). Longer
//! or reproducible runs (the interleaving itself is never reproducible):
//!
//! ```sh
//! TALUS_CONCURRENT_SECS=60 TALUS_CONCURRENT_SEED=7 \
//!     cargo test -p talus --test engine concurrent -- --nocapture
//! ```

use std::collections::{BTreeMap, HashMap};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use talus::db::{DbIterator, FlushOptions, Snapshot};
use talus::statistics::{Histogram, Statistics};
use talus::{Db, Options, ReadOptions, WriteBatch, WriteOptions};

/// Writer threads, each owning [`OWN_KEYS`] keys.
const WRITERS: usize = 3;
/// Keys per writer.
const OWN_KEYS: usize = 200;
/// Keys every writer puts (never deleted).
const SHARED_KEYS: usize = 6;
/// Seconds of concurrent work (`TALUS_CONCURRENT_SECS` overrides).
const DEFAULT_SECS: f64 = 4.0;
/// Snapshots the background thread keeps for the readers at most.
const MAX_POOL: usize = 4;
/// A run still going this long after its timed work should have ended is
/// hung: the watchdog aborts it. Counted from the end of the work, not from
/// the start, so that a long `TALUS_CONCURRENT_SECS` soak is not taken for a
/// hang (a fixed 240 s from the start aborted every run of 240 s or more).
const WATCHDOG_MARGIN: Duration = Duration::from_secs(240);

type Check<T = ()> = Result<T, String>;

fn engine(what: impl std::fmt::Display) -> impl FnOnce(talus::Error) -> String {
    move |e| format!("{what} failed: {e}")
}

// ---------------------------------------------------------------------------
// Keys and values

fn own_key(w: usize, i: usize) -> Vec<u8> {
    format!("w{w}/key{i:04}").into_bytes()
}

fn shared_key(s: usize) -> Vec<u8> {
    format!("s/key{s:02}").into_bytes()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum KeyId {
    /// Key `i` of writer `w`.
    Own(usize, usize),
    Shared(usize),
}

/// Every key any thread writes, sorted.
struct Keys {
    all: Vec<Vec<u8>>,
    ids: Vec<KeyId>,
    index: HashMap<Vec<u8>, usize>,
}

impl Keys {
    fn new() -> Keys {
        let mut v: Vec<(Vec<u8>, KeyId)> = (0..SHARED_KEYS)
            .map(|s| (shared_key(s), KeyId::Shared(s)))
            .collect();
        for w in 0..WRITERS {
            v.extend((0..OWN_KEYS).map(|i| (own_key(w, i), KeyId::Own(w, i))));
        }
        v.sort();
        // Shared keys sort first, then each writer's keys in order.
        debug_assert!(v.iter().enumerate().all(|(k, e)| match e.1 {
            KeyId::Shared(s) => k == s,
            KeyId::Own(w, i) => k == SHARED_KEYS + w * OWN_KEYS + i,
        }));
        let index = v
            .iter()
            .enumerate()
            .map(|(k, e)| (e.0.clone(), k))
            .collect();
        let (all, ids) = v.into_iter().unzip();
        Keys { all, ids, index }
    }

    /// A key, a key just after or just before one, for bounds and seeks.
    fn near_key(&self, rng: &mut StdRng) -> Vec<u8> {
        let mut k = self.all[rng.random_range(0..self.all.len())].clone();
        match rng.random_range(0..3) {
            0 => {}
            1 => k.push(0),
            _ => {
                k.pop();
            }
        }
        k
    }

    /// A seek target: mostly near a key, sometimes before or after all.
    fn seek_target(&self, rng: &mut StdRng) -> Vec<u8> {
        match rng.random_range(0..12) {
            0 => Vec::new(),
            1 => vec![0xff],
            2 => format!("w{}/", rng.random_range(0..WRITERS)).into_bytes(),
            3 => b"s/".to_vec(),
            _ => self.near_key(rng),
        }
    }

    /// Random iterator bounds: none, one, or both.
    fn random_bounds(&self, rng: &mut StdRng) -> (Option<Vec<u8>>, Option<Vec<u8>>) {
        match rng.random_range(0..4) {
            0 => (None, None),
            1 => (Some(self.near_key(rng)), None),
            2 => (None, Some(self.near_key(rng))),
            _ => {
                let (a, b) = (self.near_key(rng), self.near_key(rng));
                if a <= b {
                    (Some(a), Some(b))
                } else {
                    (Some(b), Some(a))
                }
            }
        }
    }
}

fn esc(b: &[u8]) -> String {
    b.escape_ascii().to_string()
}

fn fnv64(b: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &x in b {
        h ^= u64::from(x);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A value id: the write's number, shifted, and the entry's position in its
/// batch (a batch may put one key twice).
fn value_id(op: u64, sub: usize) -> u64 {
    op << 8 | sub as u64
}

/// The bytes writer `w` puts under `key` for value `id`: the key, writer and
/// id, a padding of varying length (sometimes compressible, sometimes a few
/// hundred bytes) and a checksum of all that.
fn value_bytes(key: &[u8], w: usize, id: u64) -> Vec<u8> {
    let h = mix(id ^ ((w as u64) << 56) ^ fnv64(key));
    let pad = if h.is_multiple_of(31) {
        300 + (h >> 8) % 700
    } else {
        (h >> 8) % 120
    } as usize;
    let mut v = Vec::with_capacity(key.len() + pad + 48);
    v.extend_from_slice(key);
    v.extend_from_slice(format!("|{w}|{id:016x}|").as_bytes());
    let mut x = h;
    for j in 0..pad {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        v.push(if h & 2 == 0 {
            b"abcdefgh"[(j / 16) % 8]
        } else {
            (x >> 56) as u8
        });
    }
    v.push(b'|');
    let sum = fnv64(&v);
    v.extend_from_slice(format!("{sum:016x}").as_bytes());
    v
}

/// The writer and id of a value read under `key`, after checking its
/// checksum, the key it names, and every byte against what was written.
fn parse_value(key: &[u8], v: &[u8]) -> Check<(usize, u64)> {
    let bad = |why: &str| {
        Err(format!(
            "corrupt value under key b\"{}\" ({why}): {} bytes b\"{}\"",
            esc(key),
            v.len(),
            esc(&v[..v.len().min(80)])
        ))
    };
    if v.len() < 17 {
        return bad("too short");
    }
    let (body, sum) = v.split_at(v.len() - 16);
    let sum = std::str::from_utf8(sum)
        .ok()
        .and_then(|s| u64::from_str_radix(s, 16).ok());
    if sum != Some(fnv64(body)) {
        return bad("checksum mismatch");
    }
    let Some(rest) = body.strip_prefix(key).and_then(|r| r.strip_prefix(b"|")) else {
        return bad("it names another key");
    };
    let mut parts = rest.splitn(3, |&b| b == b'|');
    let w = parts
        .next()
        .and_then(|p| std::str::from_utf8(p).ok())
        .and_then(|s| s.parse::<usize>().ok());
    let id = parts
        .next()
        .and_then(|p| std::str::from_utf8(p).ok())
        .and_then(|s| u64::from_str_radix(s, 16).ok());
    let (Some(w), Some(id)) = (w, id) else {
        return bad("unparsable header");
    };
    if w >= WRITERS || value_bytes(key, w, id) != v {
        return bad("its bytes differ from what was written");
    }
    Ok((w, id))
}

/// An own key's state: the id of its value, or `None` when absent.
fn show_state(v: Option<u64>) -> String {
    match v {
        None => "absent".into(),
        Some(id) => format!("the value of op {} #{}", id >> 8, id & 0xff),
    }
}

/// What a read returned, for messages.
fn show_read(key: &[u8], v: Option<&[u8]>) -> String {
    match v {
        None => "absent".into(),
        Some(v) => match parse_value(key, v) {
            Ok((w, id)) => format!("the value of writer {w} op {} #{}", id >> 8, id & 0xff),
            Err(e) => e,
        },
    }
}

fn in_bounds(k: &[u8], lower: Option<&[u8]>, upper: Option<&[u8]>) -> bool {
    lower.is_none_or(|l| k >= l) && upper.is_none_or(|u| k < u)
}

fn show_bounds(ro: &ReadOptions) -> String {
    let b = |x: &Option<Vec<u8>>| {
        x.as_deref()
            .map_or("-".to_string(), |k| format!("b\"{}\"", esc(k)))
    };
    format!(
        "[{}, {})",
        b(&ro.iterate_lower_bound),
        b(&ro.iterate_upper_bound)
    )
}

fn at_seq(seq: Option<u64>) -> ReadOptions {
    ReadOptions {
        snapshot: seq,
        ..ReadOptions::default()
    }
}

// ---------------------------------------------------------------------------
// The writers' histories and the check of a read against them

/// What a writer publishes for the readers.
struct WriterLog {
    /// Number of the last write it started (its history is appended first).
    issued: AtomicU64,
    /// The first of the two own keys it writes most at the moment: readers
    /// aim at them to race their reads with its inserts.
    hot: AtomicUsize,
    /// Number of the last write that returned.
    acked: AtomicU64,
    /// Per shared key: id of its last put to it that returned (0 = none).
    acked_shared: Vec<AtomicU64>,
    hist: Mutex<Hist>,
}

impl WriterLog {
    fn new() -> WriterLog {
        WriterLog {
            issued: AtomicU64::new(0),
            hot: AtomicUsize::new(0),
            acked: AtomicU64::new(0),
            acked_shared: (0..SHARED_KEYS).map(|_| AtomicU64::new(0)).collect(),
            hist: Mutex::new(Hist {
                own: vec![Vec::new(); OWN_KEYS],
                shared: vec![Vec::new(); SHARED_KEYS],
            }),
        }
    }

    fn hist(&self) -> MutexGuard<'_, Hist> {
        self.hist.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A writer's history.
struct Hist {
    /// Per own key: (write number, value id or `None` for a deletion), in
    /// write order; one entry per write that changed the key.
    own: Vec<Vec<(u64, Option<u64>)>>,
    /// Per shared key: ids of this writer's puts to it, ascending.
    shared: Vec<Vec<u64>>,
}

impl Hist {
    /// Own key `i` after writes `1..=p`.
    fn state_at(&self, i: usize, p: u64) -> Option<u64> {
        let h = &self.own[i];
        match h.partition_point(|e| e.0 <= p) {
            0 => None,
            n => h[n - 1].1,
        }
    }

    /// The writes to own key `i` just before and in `(lo, hi]`, for messages.
    fn ops_near(&self, i: usize, lo: u64, hi: u64) -> String {
        let h = &self.own[i];
        let start = h.partition_point(|e| e.0 <= lo).saturating_sub(3);
        let end = h.partition_point(|e| e.0 <= hi);
        if start >= end {
            return format!("none up to op {hi}");
        }
        let mut s: Vec<String> = h[start..end]
            .iter()
            .take(16)
            .map(|&(op, v)| format!("op {op} -> {}", show_state(v)))
            .collect();
        if end - start > 16 {
            s.push("...".into());
        }
        s.join(", ")
    }
}

/// Lower bounds of what a read must see, per writer: its write number
/// (`acked`) and, per shared key, the id of its put.
#[derive(Clone)]
struct Lo {
    acked: Vec<u64>,
    /// `[writer][shared key]`.
    shared: Vec<Vec<u64>>,
}

impl Lo {
    fn zero() -> Lo {
        Lo {
            acked: vec![0; WRITERS],
            shared: vec![vec![0; SHARED_KEYS]; WRITERS],
        }
    }

    fn raise(&mut self, o: &Lo) {
        for w in 0..WRITERS {
            self.acked[w] = self.acked[w].max(o.acked[w]);
            for s in 0..SHARED_KEYS {
                self.shared[w][s] = self.shared[w][s].max(o.shared[w][s]);
            }
        }
    }
}

/// One read that sees one state of the database.
struct View<'v> {
    /// The call, e.g. "get" or "iterator scan [a, b)".
    what: &'v str,
    /// "snapshot 123" or "latest (...)".
    at: &'v str,
    lo: &'v Lo,
    /// Per writer: `issued` read once the read's sequence number was fixed.
    hi: &'v [u64],
}

// ---------------------------------------------------------------------------
// Shared state of the threads

struct SnapState {
    snap: Snapshot,
    /// What a get at the snapshot returned for every key (by index in
    /// [`Keys::all`]) right after it was taken; checked then.
    baseline: Vec<Option<Vec<u8>>>,
    /// Who took it, when, and after how many flushes and compactions.
    origin: String,
    jobs_at: (u64, u64),
}

impl SnapState {
    fn seq(&self) -> u64 {
        self.snap.sequence_number()
    }
}

#[derive(Default)]
struct Counters {
    writes: AtomicU64,
    latest_reads: AtomicU64,
    scans: AtomicU64,
    snapshot_checks: AtomicU64,
    snapshots: AtomicU64,
    own_checks: AtomicU64,
    /// Runs of reads at a fresh snapshot, those that outlasted a write of
    /// their key, and their reads.
    reread_runs: AtomicU64,
    reread_runs_across_a_write: AtomicU64,
    rereads: AtomicU64,
    flush_calls: AtomicU64,
    compact_calls: AtomicU64,
}

struct Ctx {
    db: Db,
    stats: Arc<Statistics>,
    keys: Keys,
    logs: Vec<WriterLog>,
    /// Snapshots for the readers; the background thread takes and retires them.
    pool: Mutex<Vec<Arc<SnapState>>>,
    stop: AtomicBool,
    failure: Mutex<Option<String>>,
    start: Instant,
    count: Counters,
}

impl Ctx {
    fn stopped(&self) -> bool {
        self.stop.load(SeqCst)
    }

    fn fail(&self, msg: String) {
        let mut f = self.failure.lock().unwrap_or_else(|p| p.into_inner());
        if f.is_none() {
            *f = Some(msg);
        }
        self.stop.store(true, SeqCst);
    }

    fn pool(&self) -> MutexGuard<'_, Vec<Arc<SnapState>>> {
        self.pool.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Index (in [`Keys::all`]) of a key at or next to one a writer is
    /// writing right now.
    fn hot_key(&self, rng: &mut StdRng) -> usize {
        let w = rng.random_range(0..WRITERS);
        let hot = self.logs[w].hot.load(SeqCst);
        // Mostly the two hot keys, sometimes a neighbour.
        let i = match rng.random_range(0..20) {
            0 => hot.saturating_sub(1),
            1 => hot + 2,
            r => hot + r % 2,
        };
        SHARED_KEYS + w * OWN_KEYS + i.min(OWN_KEYS - 1)
    }

    /// Flushes and compactions finished so far (automatic ones included).
    fn jobs(&self) -> (u64, u64) {
        (
            self.stats.histogram_data(Histogram::FlushTime).count,
            self.stats.histogram_data(Histogram::CompactionTime).count,
        )
    }

    fn jobs_since(&self, at: (u64, u64)) -> String {
        let now = self.jobs();
        format!(
            "{} flushes and {} compactions finished since",
            now.0 - at.0,
            now.1 - at.1
        )
    }

    /// The lower bounds before a read: every writer's `acked`, raised to
    /// what this thread already saw at latest (`floors`).
    fn capture_lo(&self, floors: Option<&Lo>) -> Lo {
        let mut lo = Lo {
            acked: self.logs.iter().map(|l| l.acked.load(SeqCst)).collect(),
            shared: self
                .logs
                .iter()
                .map(|l| l.acked_shared.iter().map(|a| a.load(SeqCst)).collect())
                .collect(),
        };
        if let Some(f) = floors {
            lo.raise(f);
        }
        lo
    }

    /// The upper bounds after a read's sequence number was fixed.
    fn capture_hi(&self) -> Vec<u64> {
        self.logs.iter().map(|l| l.issued.load(SeqCst)).collect()
    }

    /// Checks reads `(key index, value)` that saw one state of the database
    /// (module docs). With `floors` (reads at latest), raises them to what
    /// the reads showed.
    fn check_reads(
        &self,
        view: &View<'_>,
        reads: &[(usize, Option<&[u8]>)],
        mut floors: Option<&mut Lo>,
    ) -> Check {
        let mut own: Vec<Vec<(usize, Option<u64>)>> = vec![Vec::new(); WRITERS];
        let mut shared = Vec::new();
        for &(k, v) in reads {
            let key = &self.keys.all[k];
            let obs = v
                .map(|v| parse_value(key, v))
                .transpose()
                .map_err(|e| format!("{} at {}: {e}", view.what, view.at))?;
            match self.keys.ids[k] {
                KeyId::Own(w, i) => {
                    let o = match obs {
                        Some((w2, _)) if w2 != w => {
                            return Err(format!(
                                "{} at {}: key b\"{}\" of writer {w} holds a value of writer {w2}",
                                view.what,
                                view.at,
                                esc(key)
                            ));
                        }
                        o => o.map(|(_, id)| id),
                    };
                    own[w].push((i, o));
                }
                KeyId::Shared(s) => shared.push((s, obs)),
            }
        }
        for (w, obs) in own.iter().enumerate() {
            if obs.is_empty() {
                continue;
            }
            let p = self.match_prefix(view, w, obs)?;
            if let Some(f) = floors.as_deref_mut() {
                f.acked[w] = f.acked[w].max(p);
            }
        }
        for &(s, obs) in &shared {
            self.check_shared(view, s, obs)?;
            if let (Some(f), Some((w, id))) = (floors.as_deref_mut(), obs) {
                f.shared[w][s] = f.shared[w][s].max(id);
            }
        }
        Ok(())
    }

    /// The smallest `P` in `lo..=hi` such that writer `w`'s writes `1..=P`
    /// leave its keys as `obs` shows them.
    fn match_prefix(&self, view: &View<'_>, w: usize, obs: &[(usize, Option<u64>)]) -> Check<u64> {
        let (lo, hi) = (view.lo.acked[w], view.hi[w]);
        let h = self.logs[w].hist();
        // Only writes that change a key read can change the answer.
        let mut points = vec![lo];
        for &(i, _) in obs {
            let e = &h.own[i];
            let from = e.partition_point(|x| x.0 <= lo);
            points.extend(e[from..].iter().map(|x| x.0).take_while(|&op| op <= hi));
        }
        points.sort_unstable();
        points.dedup();
        if let Some(&p) = points
            .iter()
            .find(|&&p| obs.iter().all(|&(i, o)| h.state_at(i, p) == o))
        {
            return Ok(p);
        }
        let mut msg = format!(
            "{} at {}: writer {w}'s keys do not show the state after any prefix of its \
             writes: expected each key as writes 1..=P left it, for one P from {lo} (its \
             last write acknowledged before the read began, or already seen by this \
             thread) to {hi} (its last write started once the read's sequence number \
             was fixed)",
            view.what, view.at
        );
        let alone: Vec<(usize, Option<u64>)> = obs
            .iter()
            .copied()
            .filter(|&(i, o)| !points.iter().any(|&p| h.state_at(i, p) == o))
            .collect();
        let shown = if alone.is_empty() {
            msg.push_str(
                "\n  each key alone matches some P, but no one P matches them all (a torn write?):",
            );
            obs.iter()
                .copied()
                .filter(|&(i, _)| {
                    points
                        .iter()
                        .any(|&p| h.state_at(i, p) != h.state_at(i, lo))
                })
                .collect()
        } else {
            alone
        };
        for &(i, o) in shown.iter().take(8) {
            // The key's distinct states over the candidates, each with its first P.
            let mut states: Vec<(Option<u64>, u64)> = Vec::new();
            for &p in &points {
                let st = h.state_at(i, p);
                if !states.iter().any(|e| e.0 == st) {
                    states.push((st, p));
                }
            }
            let expected: Vec<String> = states
                .iter()
                .map(|&(st, p)| format!("{} (P={p})", show_state(st)))
                .collect();
            msg.push_str(&format!(
                "\n  key b\"{}\": read {}, expected {}; writes to it: {}",
                esc(&own_key(w, i)),
                show_state(o),
                expected.join(" or "),
                h.ops_near(i, lo, hi)
            ));
        }
        if shown.len() > 8 {
            msg.push_str(&format!("\n  ... and {} more keys", shown.len() - 8));
        }
        msg.push_str(&format!("\n  ({} keys of writer {w} read)", obs.len()));
        Err(msg)
    }

    /// Shared key `s` read as `obs` (writer, id).
    fn check_shared(&self, view: &View<'_>, s: usize, obs: Option<(usize, u64)>) -> Check {
        let key = esc(&shared_key(s));
        let (what, at) = (view.what, view.at);
        let Some((w, id)) = obs else {
            return match (0..WRITERS).find(|&w| view.lo.shared[w][s] > 0) {
                Some(w) => Err(format!(
                    "{what} at {at}: shared key b\"{key}\" is absent, expected a value: writer \
                     {w}'s put of {} to it was acknowledged (or seen by this thread) before \
                     the read began, and shared keys are never deleted",
                    show_state(Some(view.lo.shared[w][s]))
                )),
                None => Ok(()),
            };
        };
        let h = self.logs[w].hist();
        let puts = &h.shared[s];
        let last = |n: usize| {
            let v: Vec<String> = puts[puts.len().saturating_sub(n)..]
                .iter()
                .map(|&id| format!("op {}", id >> 8))
                .collect();
            v.join(", ")
        };
        if puts.binary_search(&id).is_err() {
            return Err(format!(
                "{what} at {at}: shared key b\"{key}\" holds writer {w}'s {}, which that writer \
                 never put to it (its last puts to it: {})",
                show_state(Some(id)),
                last(8)
            ));
        }
        if id >> 8 > view.hi[w] {
            return Err(format!(
                "{what} at {at}: shared key b\"{key}\" holds writer {w}'s {}, a write it had not \
                 started when the read's sequence number was fixed (its last started: op {}); \
                 expected an older value",
                show_state(Some(id)),
                view.hi[w]
            ));
        }
        if id < view.lo.shared[w][s] {
            return Err(format!(
                "{what} at {at}: shared key b\"{key}\" holds writer {w}'s {}, older than its put \
                 of {} to it, which was acknowledged (or seen by this thread) before the read \
                 began; expected that value or a newer one",
                show_state(Some(id)),
                show_state(Some(view.lo.shared[w][s]))
            ));
        }
        Ok(())
    }

    /// Reads at latest through an iterator with random bounds.
    fn latest_scan(&self, rng: &mut StdRng, floors: &mut Lo) -> Check {
        let (lower, upper) = self.keys.random_bounds(rng);
        let ro = ReadOptions {
            iterate_lower_bound: lower,
            iterate_upper_bound: upper,
            ..ReadOptions::default()
        };
        let lo = self.capture_lo(Some(floors));
        let s0 = self.db.latest_sequence_number();
        let mut it = self.db.iter(&ro).map_err(engine("iter at latest"))?;
        let hi = self.capture_hi();
        let s1 = self.db.latest_sequence_number();
        let at = format!("latest (an iterator made while the last sequence went {s0}..={s1})");
        let what = format!("iterator scan {}", show_bounds(&ro));
        let list = scan(&self.keys, &mut it, &ro, &what, &at)?;
        let (l, u) = (
            ro.iterate_lower_bound.as_deref(),
            ro.iterate_upper_bound.as_deref(),
        );
        let mut reads = Vec::new();
        let mut j = 0;
        for (k, key) in self.keys.all.iter().enumerate() {
            if !in_bounds(key, l, u) {
                continue;
            }
            if j < list.len() && list[j].0 == *key {
                reads.push((k, Some(list[j].1.as_slice())));
                j += 1;
            } else {
                reads.push((k, None));
            }
        }
        assert_eq!(j, list.len(), "every scanned key is known and in bounds");
        let view = View {
            what: &what,
            at: &at,
            lo: &lo,
            hi: &hi,
        };
        self.check_reads(&view, &reads, Some(floors))?;
        if rng.random_bool(0.3) {
            // Let flushes and compactions replace what the iterator reads.
            std::thread::sleep(Duration::from_millis(rng.random_range(1..15)));
        }
        check_moves(&self.keys, &mut it, &list, rng, &what, &at)?;
        self.count.scans.fetch_add(1, SeqCst);
        Ok(())
    }

    /// A get, multi-get or multi_get_each at latest.
    fn latest_point_read(&self, rng: &mut StdRng, floors: &mut Lo, buf: &mut Vec<u8>) -> Check {
        let n = self.keys.all.len();
        let keys: Vec<usize> = match rng.random_range(0..10) {
            0..3 => vec![rng.random_range(0..n)],
            3..6 => vec![self.hot_key(rng)],
            6..8 => {
                // A run of one writer's keys: a batch must not show torn.
                let len = rng.random_range(2..40);
                let a = rng.random_range(0..n - len);
                (a..a + len).collect()
            }
            _ => (0..rng.random_range(2..24))
                .map(|_| rng.random_range(0..n))
                .collect(),
        };
        let key_bytes: Vec<&[u8]> = keys.iter().map(|&k| self.keys.all[k].as_slice()).collect();
        let how = rng.random_range(0..4);
        let ro = ReadOptions::default();
        let lo = self.capture_lo(Some(floors));
        let s0 = self.db.latest_sequence_number();
        let (what, got): (&str, Vec<Option<Vec<u8>>>) = if keys.len() == 1 && how < 3 {
            if how == 0 {
                // A dirty buffer: get_into must clear it.
                buf.extend_from_slice(b"left over");
                let found = self
                    .db
                    .get_into(&ro, key_bytes[0], buf)
                    .map_err(engine("get_into"))?;
                ("get_into", vec![found.then(|| buf.clone())])
            } else {
                (
                    "get",
                    vec![self.db.get(&ro, key_bytes[0]).map_err(engine("get"))?],
                )
            }
        } else if how < 2 {
            (
                "multi_get",
                self.db
                    .multi_get(&ro, &key_bytes)
                    .map_err(engine("multi_get"))?,
            )
        } else {
            let mut out = Vec::new();
            self.db
                .multi_get_each::<talus::Error>(&ro, &key_bytes, |i, v| {
                    out.push((i, v.map(<[u8]>::to_vec)));
                    Ok(())
                })
                .map_err(engine("multi_get_each"))?;
            // Each index once (the order is the engine's business).
            let mut by_index: Vec<Option<Option<Vec<u8>>>> = vec![None; keys.len()];
            for (i, v) in out {
                match by_index.get_mut(i) {
                    Some(slot @ None) => *slot = Some(v),
                    _ => {
                        return Err(format!(
                            "multi_get_each of {} keys at latest called back with index {i} \
                             twice or out of range; expected each of 0..{} once",
                            keys.len(),
                            keys.len()
                        ));
                    }
                }
            }
            if let Some(i) = by_index.iter().position(Option::is_none) {
                return Err(format!(
                    "multi_get_each of {} keys at latest never called back for index {i}; \
                     expected each of 0..{} once",
                    keys.len(),
                    keys.len()
                ));
            }
            (
                "multi_get_each",
                by_index.into_iter().map(|v| v.expect("checked")).collect(),
            )
        };
        let hi = self.capture_hi();
        let s1 = self.db.latest_sequence_number();
        if got.len() != keys.len() {
            return Err(format!(
                "{what} of {} keys at latest returned {} results",
                keys.len(),
                got.len()
            ));
        }
        let at = format!("latest (last sequence {s0}..={s1} during the call)");
        let what = if keys.len() == 1 {
            what.to_string()
        } else {
            format!("{what} of {} keys", keys.len())
        };
        let reads: Vec<(usize, Option<&[u8]>)> = keys
            .iter()
            .zip(&got)
            .map(|(&k, v)| (k, v.as_deref()))
            .collect();
        let view = View {
            what: &what,
            at: &at,
            lo: &lo,
            hi: &hi,
        };
        self.check_reads(&view, &reads, Some(floors))?;
        self.count.latest_reads.fetch_add(1, SeqCst);
        Ok(())
    }

    /// Takes a snapshot and reads every key at it (its baseline).
    fn take_snapshot(&self, who: &str) -> Check<SnapState> {
        let jobs_at = self.jobs();
        let lo = self.capture_lo(None);
        let snap = self.db.snapshot().map_err(engine("snapshot"))?;
        let hi = self.capture_hi();
        let seq = snap.sequence_number();
        let ro = at_seq(Some(seq));
        let mut baseline = Vec::with_capacity(self.keys.all.len());
        for key in &self.keys.all {
            baseline.push(
                self.db
                    .get(&ro, key)
                    .map_err(engine(format_args!("get at snapshot {seq}")))?,
            );
        }
        let at = format!("snapshot {seq} (just taken by the {who})");
        let reads: Vec<(usize, Option<&[u8]>)> = baseline
            .iter()
            .enumerate()
            .map(|(k, v)| (k, v.as_deref()))
            .collect();
        let view = View {
            what: "get of every key",
            at: &at,
            lo: &lo,
            hi: &hi,
        };
        self.check_reads(&view, &reads, None)?;
        self.count.snapshots.fetch_add(1, SeqCst);
        Ok(SnapState {
            snap,
            baseline,
            origin: format!(
                "taken by the {who} at {:.3} s",
                self.start.elapsed().as_secs_f64()
            ),
            jobs_at,
        })
    }

    /// Reads at snapshot `s` again (all of it when `full`): gets, a
    /// multi-get and an iterator must return what the baseline did.
    fn verify_snapshot(&self, s: &SnapState, rng: &mut StdRng, full: bool) -> Check {
        let seq = s.seq();
        let at = format!("snapshot {seq} ({})", s.origin);
        let since = || format!("{} it was taken", self.jobs_since(s.jobs_at));
        let ro = at_seq(Some(seq));
        let n = self.keys.all.len();
        let sample: Vec<usize> = if full {
            (0..n).collect()
        } else {
            (0..16)
                .map(|j| {
                    if j % 2 == 0 {
                        self.hot_key(rng)
                    } else {
                        rng.random_range(0..n)
                    }
                })
                .collect()
        };
        for &k in &sample {
            let key = &self.keys.all[k];
            let got = self
                .db
                .get(&ro, key)
                .map_err(engine(format_args!("get at {at}")))?;
            if got != s.baseline[k] {
                return Err(format!(
                    "get(b\"{}\") at {at} returned {}, expected {} (what it returned when the \
                     snapshot was taken; {})",
                    esc(key),
                    show_read(key, got.as_deref()),
                    show_read(key, s.baseline[k].as_deref()),
                    since()
                ));
            }
        }
        let mut mk: Vec<usize> = if full {
            (0..n).collect()
        } else {
            (0..rng.random_range(1..32))
                .map(|_| rng.random_range(0..n))
                .collect()
        };
        if rng.random_bool(0.5) {
            mk.reverse();
        }
        let key_bytes: Vec<&[u8]> = mk.iter().map(|&k| self.keys.all[k].as_slice()).collect();
        let got = self
            .db
            .multi_get(&ro, &key_bytes)
            .map_err(engine(format_args!("multi_get at {at}")))?;
        if got.len() != mk.len() {
            return Err(format!(
                "multi_get of {} keys at {at} returned {} results",
                mk.len(),
                got.len()
            ));
        }
        for (&k, v) in mk.iter().zip(&got) {
            if *v != s.baseline[k] {
                let key = &self.keys.all[k];
                return Err(format!(
                    "multi_get of {} keys at {at}: b\"{}\" read {}, expected {} (what a get \
                     returned when the snapshot was taken; {})",
                    mk.len(),
                    esc(key),
                    show_read(key, v.as_deref()),
                    show_read(key, s.baseline[k].as_deref()),
                    since()
                ));
            }
        }
        let iters = if full { 2 } else { 1 };
        for j in 0..iters {
            let (lower, upper) = if j == 0 && full {
                (None, None)
            } else {
                self.keys.random_bounds(rng)
            };
            let ro = ReadOptions {
                snapshot: Some(seq),
                iterate_lower_bound: lower,
                iterate_upper_bound: upper,
                ..ReadOptions::default()
            };
            let (l, u) = (
                ro.iterate_lower_bound.as_deref(),
                ro.iterate_upper_bound.as_deref(),
            );
            let expected: Vec<(Vec<u8>, Vec<u8>)> = self
                .keys
                .all
                .iter()
                .zip(&s.baseline)
                .filter(|(k, v)| v.is_some() && in_bounds(k, l, u))
                .map(|(k, v)| (k.clone(), v.clone().expect("filtered")))
                .collect();
            let what = format!("iterator scan {}", show_bounds(&ro));
            let mut it = self
                .db
                .iter(&ro)
                .map_err(engine(format_args!("iter at {at}")))?;
            let list = scan(&self.keys, &mut it, &ro, &what, &at)?;
            compare_lists(
                &list,
                &expected,
                &what,
                &at,
                "what gets returned when the snapshot was taken",
            )
            .map_err(|e| format!("{e} ({})", since()))?;
            check_moves(&self.keys, &mut it, &expected, rng, &what, &at)?;
        }
        self.count.snapshot_checks.fetch_add(1, SeqCst);
        Ok(())
    }

    /// Reads a key a writer is writing right now at snapshot `s`, many times
    /// in a row: every read must return the baseline, whatever lands in the
    /// memtable meanwhile.
    fn reread_hot_key(&self, s: &SnapState, rng: &mut StdRng, buf: &mut Vec<u8>) -> Check {
        let k = self.hot_key(rng);
        let key = &self.keys.all[k];
        let seq = s.seq();
        let ro = at_seq(Some(seq));
        let want = s.baseline[k].as_deref();
        for n in 0..rng.random_range(50..300) {
            let found = self
                .db
                .get_into(&ro, key, buf)
                .map_err(engine(format_args!("get at snapshot {seq}")))?;
            let got = found.then_some(buf.as_slice());
            if got != want {
                return Err(format!(
                    "get(b\"{}\") at snapshot {seq} ({}), read {n} of a run of reads of the key, \
                     returned {}, expected {} (what it returned when the snapshot was taken; {} \
                     it was taken)",
                    esc(key),
                    s.origin,
                    show_read(key, got),
                    show_read(key, want),
                    self.jobs_since(s.jobs_at)
                ));
            }
        }
        self.count.snapshot_checks.fetch_add(1, SeqCst);
        Ok(())
    }

    /// Takes a snapshot and reads a key a writer is writing right now at it,
    /// again and again until the writer has overwritten the key: every read
    /// must return what the first did (checked as any read). The write
    /// lands just after where the reads' search ends (every version of the
    /// key in the memtable is at or below the snapshot), the place where
    /// a search racing an insert can go wrong.
    fn reread_across_a_write(&self, who: &str, rng: &mut StdRng, buf: &mut Vec<u8>) -> Check {
        let k = self.hot_key(rng);
        let KeyId::Own(w, i) = self.keys.ids[k] else {
            unreachable!("hot keys are own keys")
        };
        let key = &self.keys.all[k];
        let lo = self.capture_lo(None);
        let snap = self.db.snapshot().map_err(engine("snapshot"))?;
        let hi = self.capture_hi();
        let seq = snap.sequence_number();
        let ro = at_seq(Some(seq));
        let first = self
            .db
            .get(&ro, key)
            .map_err(engine(format_args!("get at snapshot {seq}")))?;
        let at = format!("snapshot {seq} (just taken by the {who})");
        let view = View {
            what: "get",
            at: &at,
            lo: &lo,
            hi: &hi,
        };
        self.check_reads(&view, &[(k, first.as_deref())], None)?;
        let rewritten = || {
            let acked = self.logs[w].acked.load(SeqCst);
            if acked <= hi[w] {
                return false;
            }
            // A write to the key after the snapshot that has returned.
            let h = self.logs[w].hist();
            let e = &h.own[i];
            e.get(e.partition_point(|x| x.0 <= hi[w]))
                .is_some_and(|x| x.0 <= acked)
        };
        let mut n = 0;
        while n < 20_000 && !(n % 8 == 0 && (rewritten() || self.stopped())) {
            n += 1;
            let found = self
                .db
                .get_into(&ro, key, buf)
                .map_err(engine(format_args!("get at snapshot {seq}")))?;
            let got = found.then_some(buf.as_slice());
            if got != first.as_deref() {
                return Err(format!(
                    "get(b\"{}\") at snapshot {seq} (taken by the {who}), read {n} of \
                     a run of reads of the key while its writer rewrites it, returned {}, \
                     expected {} (what the first read at the snapshot returned; writer {w} had \
                     started op {} when the snapshot was taken, and its writes to the key are: \
                     {})",
                    esc(key),
                    show_read(key, got),
                    show_read(key, first.as_deref()),
                    hi[w],
                    self.logs[w].hist().ops_near(i, hi[w], u64::MAX)
                ));
            }
        }
        self.db.release_snapshot(snap);
        self.count.reread_runs.fetch_add(1, SeqCst);
        self.count.rereads.fetch_add(n, SeqCst);
        if rewritten() {
            self.count.reread_runs_across_a_write.fetch_add(1, SeqCst);
        }
        Ok(())
    }

    /// Removes a snapshot from the pool, waits until no reader holds it,
    /// reads it in full once more and releases it.
    fn retire(&self, s: Arc<SnapState>, rng: &mut StdRng) -> Check {
        let mut s = s;
        let s = loop {
            match Arc::try_unwrap(s) {
                Ok(s) => break s,
                Err(a) => {
                    s = a;
                    std::thread::sleep(Duration::from_micros(200));
                }
            }
        };
        self.verify_snapshot(&s, rng, true)?;
        self.db.release_snapshot(s.snap);
        Ok(())
    }
}

/// Scans `it` forward from the start; checks that its keys are known,
/// strictly increasing and inside the bounds of `ro`.
fn scan(
    keys: &Keys,
    it: &mut DbIterator,
    ro: &ReadOptions,
    what: &str,
    at: &str,
) -> Check<Vec<(Vec<u8>, Vec<u8>)>> {
    let (l, u) = (
        ro.iterate_lower_bound.as_deref(),
        ro.iterate_upper_bound.as_deref(),
    );
    let mut out: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    it.seek_to_first();
    while it.valid() {
        let k = it.key();
        if !keys.index.contains_key(k) {
            return Err(format!(
                "{what} at {at}: entry {} has key b\"{}\", which no thread ever wrote",
                out.len(),
                esc(k)
            ));
        }
        if !in_bounds(k, l, u) {
            return Err(format!(
                "{what} at {at}: entry {} has key b\"{}\", outside the bounds",
                out.len(),
                esc(k)
            ));
        }
        if let Some((p, _)) = out.last()
            && k <= p.as_slice()
        {
            return Err(format!(
                "{what} at {at}: keys not strictly increasing: entry {} is b\"{}\" after b\"{}\"",
                out.len(),
                esc(k),
                esc(p)
            ));
        }
        out.push((k.to_vec(), it.value().to_vec()));
        it.next();
    }
    it.status()
        .map_err(engine(format_args!("{what} at {at}")))?;
    Ok(out)
}

/// Compares a scan with what it should have returned.
fn compare_lists(
    got: &[(Vec<u8>, Vec<u8>)],
    expected: &[(Vec<u8>, Vec<u8>)],
    what: &str,
    at: &str,
    source: &str,
) -> Check {
    let show = |e: Option<&(Vec<u8>, Vec<u8>)>| match e {
        None => "the end".to_string(),
        Some((k, v)) => format!("b\"{}\" = {}", esc(k), show_read(k, Some(v))),
    };
    for j in 0..got.len().max(expected.len()) {
        if got.get(j) != expected.get(j) {
            return Err(format!(
                "{what} at {at}: entry {j} is {}, expected {} ({source}; {} entries read, {} \
                 expected)",
                show(got.get(j)),
                show(expected.get(j)),
                got.len(),
                expected.len()
            ));
        }
    }
    Ok(())
}

/// Moves `it` around — a reverse scan, seeks both ways, steps both ways —
/// and checks every position against `list`, its full forward scan.
fn check_moves(
    keys: &Keys,
    it: &mut DbIterator,
    list: &[(Vec<u8>, Vec<u8>)],
    rng: &mut StdRng,
    what: &str,
    at: &str,
) -> Check {
    let here = |it: &DbIterator| {
        if it.valid() {
            format!(
                "b\"{}\" = {}",
                esc(it.key()),
                show_read(it.key(), Some(it.value()))
            )
        } else {
            "the end".to_string()
        }
    };
    let expect = |it: &DbIterator, pos: Option<usize>, after: &str| -> Check {
        let ok = match pos {
            None => !it.valid(),
            Some(p) => it.valid() && it.key() == list[p].0 && it.value() == list[p].1,
        };
        if ok {
            return it
                .status()
                .map_err(engine(format_args!("{what} at {at}, {after}")));
        }
        Err(format!(
            "{what} at {at}: {after} the iterator is at {}, expected {} (entry {} of its forward \
             scan of {} entries)",
            here(it),
            pos.map_or("the end".to_string(), |p| format!(
                "b\"{}\" = {}",
                esc(&list[p].0),
                show_read(&list[p].0, Some(&list[p].1))
            )),
            pos.map_or("-".to_string(), |p| p.to_string()),
            list.len()
        ))
    };
    // A reverse scan.
    it.seek_to_last();
    for p in (0..list.len()).rev() {
        expect(it, Some(p), "in a reverse scan from seek_to_last,")?;
        it.prev();
    }
    expect(it, None, "at the end of a reverse scan,")?;
    for _ in 0..6 {
        let t = keys.seek_target(rng);
        let forward = rng.random_bool(0.5);
        let mut pos = if forward {
            it.seek(&t);
            let p = list.partition_point(|e| e.0 < t);
            (p < list.len()).then_some(p)
        } else {
            it.seek_for_prev(&t);
            list.partition_point(|e| e.0 <= t).checked_sub(1)
        };
        let mut how = format!(
            "after {}(b\"{}\")",
            if forward { "seek" } else { "seek_for_prev" },
            esc(&t)
        );
        expect(it, pos, &format!("{how},"))?;
        for _ in 0..rng.random_range(0..6) {
            let Some(p) = pos else { break };
            if rng.random_bool(0.5) {
                it.next();
                how.push_str(", next");
                pos = (p + 1 < list.len()).then_some(p + 1);
            } else {
                it.prev();
                how.push_str(", prev");
                pos = p.checked_sub(1);
            }
            expect(it, pos, &format!("{how},"))?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// The threads

/// Runs a thread's body; an error or a panic stops every thread and is
/// the test's failure.
fn guarded<T>(ctx: &Ctx, name: &str, f: impl FnOnce() -> Check<T>) -> Option<T> {
    let r = catch_unwind(AssertUnwindSafe(f));
    let t = ctx.start.elapsed().as_secs_f64();
    match r {
        Ok(Ok(v)) => Some(v),
        Ok(Err(msg)) => {
            ctx.fail(format!("[{name}, at {t:.3} s] {msg}"));
            None
        }
        Err(p) => {
            let m = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            ctx.fail(format!("[{name}, at {t:.3} s] panicked: {m}"));
            None
        }
    }
}

/// One entry of a writer's write.
#[derive(Clone, Copy, Debug)]
enum Change {
    Put(usize),
    Delete(usize),
    /// Own keys `a..b` (empty when `a == b`).
    DeleteRange(usize, usize),
    PutShared(usize),
}

/// A write for messages, e.g. "batch (op 12: put w0/key0003, delete w0/key0004)".
fn describe_write(w: usize, op: u64, single: bool, changes: &[Change]) -> String {
    let k = |i: usize| esc(&own_key(w, i));
    let parts: Vec<String> = changes
        .iter()
        .map(|c| match *c {
            Change::Put(i) => format!("put {}", k(i)),
            Change::Delete(i) => format!("delete {}", k(i)),
            Change::DeleteRange(a, b) => format!("delete_range [{}, {})", k(a), k(b)),
            Change::PutShared(s) => format!("put {}", esc(&shared_key(s))),
        })
        .collect();
    format!(
        "{} (op {op}: {})",
        if single { "write" } else { "batch" },
        parts.join(", ")
    )
}

fn random_range_del(rng: &mut StdRng) -> Change {
    let a = rng.random_range(0..OWN_KEYS);
    let width = match rng.random_range(0..20) {
        0 => 0,
        1..3 => rng.random_range(8..60),
        _ => rng.random_range(1..8),
    };
    Change::DeleteRange(a, (a + width).min(OWN_KEYS))
}

/// A snapshot a writer took of its own keys.
struct OwnSnap {
    snap: Snapshot,
    state: Vec<Option<u64>>,
    op: u64,
    jobs_at: (u64, u64),
}

struct WriterRun<'c> {
    ctx: &'c Ctx,
    w: usize,
    rng: StdRng,
    /// Its keys now: value ids.
    state: Vec<Option<u64>>,
    op: u64,
    /// Start of the few keys it writes most, moved now and then.
    hot_base: usize,
    own_snap: Option<OwnSnap>,
}

impl WriterRun<'_> {
    fn run(mut self) -> Check<Vec<Option<u64>>> {
        while !self.ctx.stopped() {
            if self.rng.random_range(0..100) < 7 {
                self.own_check()?;
            } else {
                self.write()?;
            }
        }
        if let Some(s) = self.own_snap.take() {
            self.ctx.db.release_snapshot(s.snap);
        }
        Ok(self.state)
    }

    fn write(&mut self) -> Check {
        let (ctx, w) = (self.ctx, self.w);
        let rng = &mut self.rng;
        self.op += 1;
        let op = self.op;
        if rng.random_range(0..200) == 0 {
            self.hot_base = rng.random_range(0..OWN_KEYS - 1);
            ctx.logs[w].hot.store(self.hot_base, SeqCst);
        }
        let hot_base = self.hot_base;
        let hot = |rng: &mut StdRng| hot_base + rng.random_range(0..2);
        let own = |rng: &mut StdRng| {
            if rng.random_bool(0.75) {
                hot(rng)
            } else {
                rng.random_range(0..OWN_KEYS)
            }
        };
        let single = rng.random_range(0..100) < 75;
        let changes: Vec<Change> = if single {
            vec![match rng.random_range(0..100) {
                0..55 => Change::Put(own(rng)),
                55..70 => Change::Delete(own(rng)),
                70..77 => random_range_del(rng),
                _ => Change::PutShared(rng.random_range(0..SHARED_KEYS)),
            }]
        } else {
            // Batches touch a few neighbouring keys (and sometimes a key twice).
            let base = if rng.random_bool(0.5) {
                hot_base
            } else {
                rng.random_range(0..OWN_KEYS)
            };
            let near = |rng: &mut StdRng| (base + rng.random_range(0..12)) % OWN_KEYS;
            (0..rng.random_range(1..=10))
                .map(|_| match rng.random_range(0..100) {
                    0..55 => Change::Put(near(rng)),
                    55..72 => Change::Delete(near(rng)),
                    72..82 => random_range_del(rng),
                    _ => Change::PutShared(rng.random_range(0..SHARED_KEYS)),
                })
                .collect()
        };
        // What the write leaves, per key (later entries of a batch win).
        let mut own_final: BTreeMap<usize, Option<u64>> = BTreeMap::new();
        let mut shared_final: BTreeMap<usize, u64> = BTreeMap::new();
        for (sub, c) in changes.iter().enumerate() {
            let id = value_id(op, sub);
            match *c {
                Change::Put(i) => {
                    own_final.insert(i, Some(id));
                }
                Change::Delete(i) => {
                    own_final.insert(i, None);
                }
                Change::DeleteRange(a, b) => own_final.extend((a..b).map(|i| (i, None))),
                Change::PutShared(s) => {
                    shared_final.insert(s, id);
                }
            }
        }
        let desc = describe_write(w, op, single, &changes);
        let log = &ctx.logs[w];
        {
            let mut h = log.hist();
            for (&i, &v) in &own_final {
                h.own[i].push((op, v));
            }
            for (&s, &id) in &shared_final {
                h.shared[s].push(id);
            }
        }
        log.issued.store(op, SeqCst);
        let disable_wal = rng.random_bool(0.05);
        let sync = rng.random_bool(0.003);
        let wo = WriteOptions {
            disable_wal,
            // Never both: that write is refused (the model test covers it).
            sync: sync && !disable_wal,
            ..WriteOptions::default()
        };
        let db = &ctx.db;
        let r = match (single, changes[0]) {
            (true, Change::Put(i)) => {
                let k = own_key(w, i);
                db.put(&wo, &k, &value_bytes(&k, w, value_id(op, 0)))
            }
            (true, Change::Delete(i)) => db.delete(&wo, &own_key(w, i)),
            (true, Change::DeleteRange(a, b)) => {
                db.delete_range(&wo, &own_key(w, a), &own_key(w, b))
            }
            (true, Change::PutShared(s)) => {
                let k = shared_key(s);
                db.put(&wo, &k, &value_bytes(&k, w, value_id(op, 0)))
            }
            (false, _) => {
                let mut b = WriteBatch::new();
                for (sub, c) in changes.iter().enumerate() {
                    let id = value_id(op, sub);
                    match *c {
                        Change::Put(i) => {
                            let k = own_key(w, i);
                            b.put(&k, &value_bytes(&k, w, id));
                        }
                        Change::Delete(i) => b.delete(&own_key(w, i)),
                        Change::DeleteRange(a, b2) => {
                            b.delete_range(&own_key(w, a), &own_key(w, b2))
                        }
                        Change::PutShared(s) => {
                            let k = shared_key(s);
                            b.put(&k, &value_bytes(&k, w, id));
                        }
                    }
                }
                db.write(&wo, b)
            }
        };
        r.map_err(engine(format_args!("writer {w}: {desc}")))?;
        log.acked.store(op, SeqCst);
        for (&s, &id) in &shared_final {
            log.acked_shared[s].store(id, SeqCst);
        }
        for (&i, &v) in &own_final {
            self.state[i] = v;
        }
        ctx.count.writes.fetch_add(1, SeqCst);

        // Read your writes: only this thread writes these keys.
        if self.rng.random_bool(0.5) {
            let ro = ReadOptions::default();
            for (&i, _) in own_final.iter().take(3) {
                let k = own_key(w, i);
                let got = db.get(&ro, &k).map_err(engine("get"))?;
                let want = self.state[i].map(|id| value_bytes(&k, w, id));
                if got != want {
                    return Err(format!(
                        "writer {w}: get(b\"{}\") at latest right after its {desc} returned \
                         {}, expected {} (only this writer writes the key, and its \
                         write had returned)",
                        esc(&k),
                        show_read(&k, got.as_deref()),
                        show_read(&k, want.as_deref())
                    ));
                }
            }
            for &s in shared_final.keys().take(2) {
                let k = shared_key(s);
                let lo = ctx.capture_lo(None);
                let got = db.get(&ro, &k).map_err(engine("get"))?;
                let hi = ctx.capture_hi();
                let what = format!("writer {w}: get right after its {desc}");
                let view = View {
                    what: &what,
                    at: "latest",
                    lo: &lo,
                    hi: &hi,
                };
                ctx.check_reads(&view, &[(ctx.keys.index[&k], got.as_deref())], None)?;
            }
        }
        Ok(())
    }

    /// Reads its own keys and checks them exactly.
    fn own_check(&mut self) -> Check {
        let (ctx, w) = (self.ctx, self.w);
        ctx.count.own_checks.fetch_add(1, SeqCst);
        match self.rng.random_range(0..3) {
            0 => {
                let state = self.state.clone();
                self.own_iter(None, &state, "latest")
            }
            1 => {
                let n = self.rng.random_range(1..16);
                let idx: Vec<usize> = (0..n).map(|_| self.rng.random_range(0..OWN_KEYS)).collect();
                let state = self.state.clone();
                self.own_multi_get(&idx, None, &state, "latest")
            }
            _ => match self.own_snap.take() {
                None => {
                    let snap = ctx.db.snapshot().map_err(engine("snapshot"))?;
                    let s = OwnSnap {
                        snap,
                        state: self.state.clone(),
                        op: self.op,
                        jobs_at: ctx.jobs(),
                    };
                    let idx: Vec<usize> = (0..16)
                        .map(|_| self.rng.random_range(0..OWN_KEYS))
                        .collect();
                    let at = format!(
                        "writer {w}'s snapshot {} (just taken, after its op {})",
                        s.snap.sequence_number(),
                        s.op
                    );
                    self.own_multi_get(&idx, Some(s.snap.sequence_number()), &s.state, &at)?;
                    self.own_snap = Some(s);
                    Ok(())
                }
                Some(s) => {
                    let seq = s.snap.sequence_number();
                    let retire = self.op >= s.op + 40;
                    if retire && self.rng.random_bool(0.5) {
                        ctx.db
                            .flush(&FlushOptions::default())
                            .map_err(engine("flush"))?;
                        ctx.count.flush_calls.fetch_add(1, SeqCst);
                    }
                    let at = format!(
                        "writer {w}'s snapshot {seq} (taken after its op {}, now at op {}; {} it \
                         was taken)",
                        s.op,
                        self.op,
                        ctx.jobs_since(s.jobs_at)
                    );
                    let idx: Vec<usize> = if retire {
                        (0..OWN_KEYS).collect()
                    } else {
                        (0..8).map(|_| self.rng.random_range(0..OWN_KEYS)).collect()
                    };
                    self.own_multi_get(&idx, Some(seq), &s.state, &at)?;
                    self.own_iter(Some(seq), &s.state, &at)?;
                    if retire {
                        ctx.db.release_snapshot(s.snap);
                    } else {
                        self.own_snap = Some(s);
                    }
                    Ok(())
                }
            },
        }
    }

    /// Gets (one by one, then as a multi-get) own keys `idx` at `seq`,
    /// which must show `state`.
    fn own_multi_get(
        &mut self,
        idx: &[usize],
        seq: Option<u64>,
        state: &[Option<u64>],
        at: &str,
    ) -> Check {
        let (db, w) = (&self.ctx.db, self.w);
        let ro = at_seq(seq);
        let keys: Vec<Vec<u8>> = idx.iter().map(|&i| own_key(w, i)).collect();
        let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        let multi = db
            .multi_get(&ro, &refs)
            .map_err(engine(format_args!("multi_get at {at}")))?;
        if multi.len() != idx.len() {
            return Err(format!(
                "writer {w}: multi_get of {} keys at {at} returned {} results",
                idx.len(),
                multi.len()
            ));
        }
        for ((&i, k), m) in idx.iter().zip(&keys).zip(&multi) {
            let want = state[i].map(|id| value_bytes(k, w, id));
            let got = db
                .get(&ro, k)
                .map_err(engine(format_args!("get at {at}")))?;
            for (call, got) in [("get", &got), ("multi_get", m)] {
                if *got != want {
                    return Err(format!(
                        "writer {w}: {call}(b\"{}\") at {at} returned {}, expected {} (only this \
                         writer writes the key)",
                        esc(k),
                        show_read(k, got.as_deref()),
                        show_read(k, want.as_deref())
                    ));
                }
            }
        }
        Ok(())
    }

    /// Scans own keys (all or a random range) at `seq` and moves around.
    fn own_iter(&mut self, seq: Option<u64>, state: &[Option<u64>], at: &str) -> Check {
        let (ctx, w) = (self.ctx, self.w);
        let (a, b) = if self.rng.random_bool(0.5) {
            (0, OWN_KEYS)
        } else {
            let a = self.rng.random_range(0..OWN_KEYS);
            (a, self.rng.random_range(a..=OWN_KEYS))
        };
        let ro = ReadOptions {
            snapshot: seq,
            iterate_lower_bound: Some(own_key(w, a)),
            iterate_upper_bound: Some(own_key(w, b)),
            ..ReadOptions::default()
        };
        let expected: Vec<(Vec<u8>, Vec<u8>)> = (a..b)
            .filter_map(|i| {
                state[i].map(|id| {
                    let k = own_key(w, i);
                    let v = value_bytes(&k, w, id);
                    (k, v)
                })
            })
            .collect();
        let what = format!("writer {w}: iterator scan {}", show_bounds(&ro));
        let mut it = ctx
            .db
            .iter(&ro)
            .map_err(engine(format_args!("iter at {at}")))?;
        let list = scan(&ctx.keys, &mut it, &ro, &what, at)?;
        compare_lists(
            &list,
            &expected,
            &what,
            at,
            "only this writer writes these keys",
        )?;
        check_moves(&ctx.keys, &mut it, &expected, &mut self.rng, &what, at)
    }
}

/// Reads at latest: gets and multi-gets.
fn point_reader(ctx: &Ctx, seed: u64) -> Check {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut floors = Lo::zero();
    let mut buf = Vec::new();
    while !ctx.stopped() {
        ctx.latest_point_read(&mut rng, &mut floors, &mut buf)?;
    }
    Ok(())
}

/// Reads at latest through iterators.
fn iter_reader(ctx: &Ctx, seed: u64) -> Check {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut floors = Lo::zero();
    while !ctx.stopped() {
        ctx.latest_scan(&mut rng, &mut floors)?;
        // Leaves the writers and the rereader a core now and then: the
        // races it looks for need both on a CPU at once.
        std::thread::sleep(Duration::from_micros(500));
    }
    Ok(())
}

/// Reads the pool's snapshots again, and at latest between them.
fn snapshot_reader(ctx: &Ctx, seed: u64) -> Check {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut floors = Lo::zero();
    let mut buf = Vec::new();
    while !ctx.stopped() {
        let s = {
            let pool = ctx.pool();
            (!pool.is_empty()).then(|| pool[rng.random_range(0..pool.len())].clone())
        };
        match s {
            Some(s) if rng.random_bool(0.3) => ctx.reread_hot_key(&s, &mut rng, &mut buf)?,
            Some(s) => ctx.verify_snapshot(&s, &mut rng, false)?,
            None => ctx.latest_point_read(&mut rng, &mut floors, &mut buf)?,
        }
        // As in iter_reader.
        std::thread::sleep(Duration::from_micros(200));
    }
    Ok(())
}

/// Runs of reads at fresh snapshots across writes of their keys.
fn rereader(ctx: &Ctx, seed: u64) -> Check {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut buf = Vec::new();
    while !ctx.stopped() {
        ctx.reread_across_a_write("rereader", &mut rng, &mut buf)?;
    }
    Ok(())
}

/// Flushes, compacts, and takes, verifies and releases snapshots.
fn background(ctx: &Ctx, seed: u64) -> Check {
    let mut rng = StdRng::seed_from_u64(seed);
    let db = &ctx.db;
    while !ctx.stopped() {
        std::thread::sleep(Duration::from_micros(rng.random_range(0..3000)));
        match rng.random_range(0..100) {
            0..22 => {
                db.flush(&FlushOptions::default())
                    .map_err(engine("flush"))?;
                ctx.count.flush_calls.fetch_add(1, SeqCst);
            }
            22..30 => {
                let fo = FlushOptions {
                    wait: false,
                    ..FlushOptions::default()
                };
                db.flush(&fo).map_err(engine("flush(wait: false)"))?;
                ctx.count.flush_calls.fetch_add(1, SeqCst);
            }
            30..38 => {
                db.compact_range(None, None)
                    .map_err(engine("compact_range(all)"))?;
                ctx.count.compact_calls.fetch_add(1, SeqCst);
            }
            38..48 => {
                let (a, b) = (ctx.keys.near_key(&mut rng), ctx.keys.near_key(&mut rng));
                let (a, b) = if a <= b { (a, b) } else { (b, a) };
                db.compact_range(Some(&a), Some(&b))
                    .map_err(engine(format_args!(
                        "compact_range(b\"{}\", b\"{}\")",
                        esc(&a),
                        esc(&b)
                    )))?;
                ctx.count.compact_calls.fetch_add(1, SeqCst);
            }
            48..66 => {
                if ctx.pool().len() < MAX_POOL {
                    let s = ctx.take_snapshot("background thread")?;
                    ctx.pool().push(Arc::new(s));
                }
            }
            66..84 => {
                let s = {
                    let mut pool = ctx.pool();
                    let n = pool.len();
                    (n > 0).then(|| pool.swap_remove(rng.random_range(0..n)))
                };
                if let Some(s) = s {
                    ctx.retire(s, &mut rng)?;
                }
            }
            _ => {
                // Repeatable reads across a flush and a full compaction.
                let s = ctx.take_snapshot("background thread, then flushed and compacted")?;
                db.flush(&FlushOptions::default())
                    .map_err(engine("flush"))?;
                ctx.verify_snapshot(&s, &mut rng, true)?;
                db.compact_range(None, None)
                    .map_err(engine("compact_range(all)"))?;
                ctx.count.flush_calls.fetch_add(1, SeqCst);
                ctx.count.compact_calls.fetch_add(1, SeqCst);
                ctx.verify_snapshot(&s, &mut rng, true)?;
                db.release_snapshot(s.snap);
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// The test

fn options(stats: Arc<Statistics>) -> Options {
    let mut o = Options {
        create_if_missing: true,
        write_buffer_size: 64 << 10,
        max_write_buffer_number: 3,
        target_file_size_base: 16 << 10,
        max_bytes_for_level_base: 32 << 10,
        max_bytes_for_level_multiplier: 2.0,
        level_compaction_dynamic_level_bytes: false,
        num_levels: 5,
        level0_file_num_compaction_trigger: 2,
        max_background_jobs: 3,
        // Tables are closed and reopened under the readers.
        max_open_files: 16,
        statistics: Some(stats),
        ..Options::default()
    };
    o.table.block_size = 1024;
    o.table.filter_bits_per_key = Some(10.0);
    o.table.block_cache_size = 64 << 10;
    o
}

/// The database after every thread stopped: each own key as its writer
/// last wrote it, each shared key holding the last put of some writer;
/// then a full scan and moves must agree.
fn verify_final(
    db: &Db,
    keys: &Keys,
    logs: &[WriterLog],
    finals: &[Vec<Option<u64>>],
    when: &str,
) -> Check {
    let ro = ReadOptions::default();
    let mut expected = Vec::new();
    for (k, key) in keys.all.iter().enumerate() {
        let got = db
            .get(&ro, key)
            .map_err(engine(format_args!("{when}: get")))?;
        let want = match keys.ids[k] {
            KeyId::Own(w, i) => finals[w][i].map(|id| value_bytes(key, w, id)),
            KeyId::Shared(s) => {
                let last: Vec<(usize, u64)> = (0..WRITERS)
                    .filter_map(|w| {
                        let id = logs[w].acked_shared[s].load(SeqCst);
                        (id > 0).then_some((w, id))
                    })
                    .collect();
                let read = got
                    .as_deref()
                    .map(|v| parse_value(key, v))
                    .transpose()
                    .map_err(|e| format!("{when}: get at latest: {e}"))?;
                match read {
                    None if last.is_empty() => None,
                    Some(r) if last.contains(&r) => got.clone(),
                    _ => {
                        return Err(format!(
                            "{when}: get(b\"{}\") at latest returned {}, expected the last put of \
                             one of the writers: {:?} (writer, id)",
                            esc(key),
                            show_read(key, got.as_deref()),
                            last
                        ));
                    }
                }
            }
        };
        if got != want {
            return Err(format!(
                "{when}: get(b\"{}\") at latest returned {}, expected {} (its writer's last \
                 write to it; every writer has stopped)",
                esc(key),
                show_read(key, got.as_deref()),
                show_read(key, want.as_deref())
            ));
        }
        if let Some(v) = want {
            expected.push((key.clone(), v));
        }
    }
    let mut it = db.iter(&ro).map_err(engine(format_args!("{when}: iter")))?;
    let what = format!("{when}: iterator scan");
    let list = scan(keys, &mut it, &ro, &what, "latest")?;
    compare_lists(&list, &expected, &what, "latest", "the gets of every key")?;
    let mut rng = StdRng::seed_from_u64(list.len() as u64);
    check_moves(keys, &mut it, &expected, &mut rng, &what, "latest")
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn writers_readers_snapshots_flushes_and_compactions_at_once() {
    let secs: f64 = env_or("TALUS_CONCURRENT_SECS", DEFAULT_SECS);
    let clock_seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64);
    let seed: u64 = env_or("TALUS_CONCURRENT_SEED", clock_seed);
    eprintln!(
        "concurrent stress: seed {seed}, {secs} s (TALUS_CONCURRENT_SEED, TALUS_CONCURRENT_SECS)"
    );
    let mut dir = tempfile::tempdir().expect("tempdir");
    // Kept when the test fails; removed at the end when it passes.
    dir.disable_cleanup(true);
    let stats = Statistics::new();
    let db = Db::open(options(stats.clone()), dir.path()).expect("open");
    let ctx = Ctx {
        db,
        stats,
        keys: Keys::new(),
        logs: (0..WRITERS).map(|_| WriterLog::new()).collect(),
        pool: Mutex::new(Vec::new()),
        stop: AtomicBool::new(false),
        failure: Mutex::new(None),
        start: Instant::now(),
        count: Counters::default(),
    };

    // A hang (a deadlock in the engine) is a failure too.
    let done = Arc::new(AtomicBool::new(false));
    /// Stops the watchdog however the test ends.
    struct Done(Arc<AtomicBool>);
    impl Drop for Done {
        fn drop(&mut self) {
            self.0.store(true, SeqCst);
        }
    }
    let _done = Done(done.clone());
    {
        let done = done.clone();
        let watchdog = Duration::from_secs_f64(secs.max(0.0)) + WATCHDOG_MARGIN;
        std::thread::spawn(move || {
            let t = Instant::now();
            while !done.load(SeqCst) {
                if t.elapsed() > watchdog {
                    eprintln!(
                        "concurrent stress (seed {seed}): still running after {watchdog:?}; aborting"
                    );
                    std::process::abort();
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        });
    }

    let finals = std::thread::scope(|s| {
        let ctx = &ctx;
        let writers: Vec<_> = (0..WRITERS)
            .map(|w| {
                let seed = mix(seed ^ w as u64);
                s.spawn(move || {
                    guarded(ctx, &format!("writer {w}"), || {
                        WriterRun {
                            ctx,
                            w,
                            rng: StdRng::seed_from_u64(seed),
                            state: vec![None; OWN_KEYS],
                            op: 0,
                            hot_base: 0,
                            own_snap: None,
                        }
                        .run()
                    })
                })
            })
            .collect();
        let others = [
            s.spawn(move || guarded(ctx, "point reader", || point_reader(ctx, mix(seed ^ 101)))),
            s.spawn(move || guarded(ctx, "iterator reader", || iter_reader(ctx, mix(seed ^ 102)))),
            s.spawn(move || {
                guarded(ctx, "snapshot reader", || {
                    snapshot_reader(ctx, mix(seed ^ 103))
                })
            }),
            s.spawn(move || guarded(ctx, "rereader", || rereader(ctx, mix(seed ^ 104)))),
            s.spawn(move || {
                guarded(ctx, "background thread", || {
                    background(ctx, mix(seed ^ 105))
                })
            }),
        ];
        let deadline = Instant::now() + Duration::from_secs_f64(secs);
        while Instant::now() < deadline && !ctx.stopped() {
            std::thread::sleep(Duration::from_millis(10));
        }
        ctx.stop.store(true, SeqCst);
        for h in others {
            h.join().expect("guarded threads do not panic");
        }
        writers
            .into_iter()
            .map(|h| h.join().expect("guarded threads do not panic"))
            .collect::<Option<Vec<_>>>()
    });

    let path = dir.path().to_path_buf();
    let fail = |msg: String| -> ! {
        panic!(
            "{msg}\n(seed {seed}: TALUS_CONCURRENT_SEED={seed} runs the same operations, not the \
             same interleaving; database kept at {})",
            path.display()
        );
    };
    if let Some(msg) = ctx.failure.lock().unwrap_or_else(|p| p.into_inner()).take() {
        fail(msg);
    }
    let finals = finals.expect("no failure, so every writer returned its state");
    let c = &ctx.count;
    let (flushes, compactions) = ctx.jobs();
    eprintln!(
        "concurrent stress: {} writes, {} reads at latest, {} scans at latest, {} snapshots \
         taken and {} re-read, {} runs of reads at a fresh snapshot ({} across a write of their key, {} \
         reads), {} writer self-checks, {} flush and {} compact_range calls; \
         {flushes} flushes and {compactions} compactions ran, writes stalled {} ms; levels:\n{}",
        c.writes.load(SeqCst),
        c.latest_reads.load(SeqCst),
        c.scans.load(SeqCst),
        c.snapshots.load(SeqCst),
        c.snapshot_checks.load(SeqCst),
        c.reread_runs.load(SeqCst),
        c.reread_runs_across_a_write.load(SeqCst),
        c.rereads.load(SeqCst),
        c.own_checks.load(SeqCst),
        c.flush_calls.load(SeqCst),
        c.compact_calls.load(SeqCst),
        ctx.db.int_property("rocksdb.stall-micros").unwrap_or(0) / 1000,
        ctx.db.property("rocksdb.levelstats").unwrap_or_default()
    );

    let mut rng = StdRng::seed_from_u64(seed);
    let pool = std::mem::take(&mut *ctx.pool());
    for s in pool {
        if let Err(e) = ctx.retire(s, &mut rng) {
            fail(format!("[after the threads stopped] {e}"));
        }
    }
    let check = |db: &Db, when: &str| {
        if let Err(e) = verify_final(db, &ctx.keys, &ctx.logs, &finals, when) {
            fail(e);
        }
    };
    check(&ctx.db, "after the threads stopped");
    ctx.db.wait_for_compactions().expect("wait_for_compactions");
    check(&ctx.db, "after background work ended");
    if let Err(e) = ctx.db.verify_checksum() {
        fail(format!("verify_checksum after the run: {e}"));
    }
    assert_eq!(
        ctx.db.int_property("rocksdb.background-errors"),
        Some(0),
        "background errors during the run"
    );
    ctx.db.close().expect("close");
    let db = Db::open(options(Statistics::new()), dir.path()).expect("reopen");
    check(&db, "after reopening");
    db.compact_range(None, None)
        .expect("compact_range after reopening");
    check(&db, "after reopening and a full compaction");
    db.close().expect("close");
    dir.disable_cleanup(false);
}
