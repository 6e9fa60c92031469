//! Shared pieces of the durability suites: seeds, randomized options, the
//! history oracle and whole-database reads.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use talus::db::FlushOptions;
use talus::fs::{FaultFs, FileSystem};
use talus::options::CompressionType;
use talus::wal::WalRecoveryMode;
use talus::{Db, Options, ReadOptions, WriteBatch, WriteOptions};

/// The seeds to run: `TALUS_SEED=n` runs one, `TALUS_SEEDS=a..b` (or `=n`,
/// meaning `0..n`) a range, otherwise `0..default`.
pub fn seeds(default: u64) -> std::ops::Range<u64> {
    if let Ok(s) = std::env::var("TALUS_SEED") {
        let n: u64 = s.trim().parse().expect("TALUS_SEED is a number");
        return n..n + 1;
    }
    if let Ok(s) = std::env::var("TALUS_SEEDS") {
        let s = s.trim();
        if let Some((a, b)) = s.split_once("..") {
            return a.parse().expect("TALUS_SEEDS a..b")..b.parse().expect("TALUS_SEEDS a..b");
        }
        return 0..s.parse().expect("TALUS_SEEDS is a number or a range");
    }
    0..default
}

pub fn rng(seed: u64, salt: u64) -> SmallRng {
    SmallRng::seed_from_u64(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ salt)
}

/// Small, randomized options over `fs`: memtables of 64–256 KiB, small
/// tables and levels, so that a few hundred writes flush and compact.
pub fn random_options(fs: &FaultFs, r: &mut SmallRng) -> Options {
    let mut o = Options {
        create_if_missing: true,
        fs: Arc::new(fs.clone()),
        stats_dump_period_sec: 0,
        write_buffer_size: r.random_range(64..=256) << 10,
        max_write_buffer_number: r.random_range(2..=4),
        level0_file_num_compaction_trigger: r.random_range(2..=4),
        max_bytes_for_level_base: r.random_range(128..=512) << 10,
        target_file_size_base: r.random_range(32..=128) << 10,
        compression: if r.random_bool(0.5) {
            CompressionType::Lz4
        } else {
            CompressionType::None
        },
        max_open_files: if r.random_bool(0.3) { 20 } else { -1 },
        wal_bytes_per_sync: if r.random_bool(0.2) { 16 << 10 } else { 0 },
        wal_recovery_mode: if r.random_bool(0.7) {
            WalRecoveryMode::TolerateCorruptedTailRecords
        } else {
            WalRecoveryMode::PointInTimeRecovery
        },
        ..Options::default()
    };
    o.table.block_size = r.random_range(256..=4096);
    if r.random_bool(0.5) {
        o.table.filter_bits_per_key = Some(10.0);
    }
    if r.random_bool(0.2) {
        // Logs in a directory of their own.
        fs.create_dir_all(std::path::Path::new("/wal"))
            .expect("in memory");
        o.wal_dir = Some("/wal".into());
    }
    if r.random_bool(0.2) {
        // Flushes forced by the total WAL size.
        o.max_total_wal_size = 256 << 10;
    }
    if r.random_bool(0.2) && o.max_write_buffer_number > 2 {
        o.min_write_buffer_number_to_merge = 2;
    }
    if r.random_bool(0.2) {
        o.bytes_per_sync = 8 << 10;
    }
    o
}

pub fn describe(o: &Options) -> String {
    format!(
        "write_buffer_size={} max_write_buffer_number={} l0_trigger={} level_base={} \
         target_file={} compression={:?} block_size={} filter={:?} max_open_files={} \
         wal_bytes_per_sync={} wal_recovery_mode={:?} wal_dir={:?} max_total_wal_size={} \
         min_write_buffer_number_to_merge={} bytes_per_sync={}",
        o.write_buffer_size,
        o.max_write_buffer_number,
        o.level0_file_num_compaction_trigger,
        o.max_bytes_for_level_base,
        o.target_file_size_base,
        o.compression,
        o.table.block_size,
        o.table.filter_bits_per_key,
        o.max_open_files,
        o.wal_bytes_per_sync,
        o.wal_recovery_mode,
        o.wal_dir,
        o.max_total_wal_size,
        o.min_write_buffer_number_to_merge,
        o.bytes_per_sync
    )
}

/// One change to the database.
#[derive(Clone, Debug)]
pub enum Mutation {
    Put(Vec<u8>, Vec<u8>),
    Delete(Vec<u8>),
    DeleteRange(Vec<u8>, Vec<u8>),
}

impl Mutation {
    pub fn add_to(&self, b: &mut WriteBatch) {
        match self {
            Mutation::Put(k, v) => b.put(k, v),
            Mutation::Delete(k) => b.delete(k),
            Mutation::DeleteRange(s, e) => b.delete_range(s, e),
        }
    }
}

/// Key spaces: keys written through the WAL start with `w`, keys written
/// with `disable_wal` with `u` (see [`History`]).
pub const UNLOGGED_PREFIX: u8 = b'u';

fn entry_hash(k: &[u8], v: &[u8]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    k.hash(&mut h);
    v.hash(&mut h);
    h.finish()
}

/// The oracle: the acknowledged history as a sequence of atomic operations,
/// with an order-independent hash of the state after each prefix, kept
/// separately for the WAL key space and the unlogged key space.
///
/// The promise checked after a crash: the recovered WAL keys equal the
/// state after some prefix `p` of the operations, at least as long as what
/// had to be durable; the recovered unlogged keys equal the state after some
/// prefix `q` (memtables are flushed oldest first); and `q ≤ p` is possible
/// (a flushed memtable carries every logged write before it).
pub struct History {
    pub state: BTreeMap<Vec<u8>, Vec<u8>>,
    base: BTreeMap<Vec<u8>, Vec<u8>>,
    ops: Vec<Vec<Mutation>>,
    hash: [u64; 2],
    /// `hashes[i]`: (WAL, unlogged) hashes after the first `i` operations.
    hashes: Vec<[u64; 2]>,
    /// Short descriptions of the operations, for failure reports.
    pub log: Vec<String>,
}

fn space(k: &[u8]) -> usize {
    usize::from(k.first() == Some(&UNLOGGED_PREFIX))
}

impl History {
    pub fn new(state: BTreeMap<Vec<u8>, Vec<u8>>) -> Self {
        let mut hash = [0u64; 2];
        for (k, v) in &state {
            hash[space(k)] ^= entry_hash(k, v);
        }
        History {
            base: state.clone(),
            state,
            ops: Vec::new(),
            hash,
            hashes: vec![hash],
            log: Vec::new(),
        }
    }

    /// Number of operations recorded.
    pub fn len(&self) -> usize {
        self.hashes.len() - 1
    }

    /// Records one atomic operation (a batch, or nothing for a flush).
    pub fn apply(&mut self, what: String, muts: &[Mutation]) {
        self.ops.push(muts.to_vec());
        Self::apply_to(&mut self.state, &mut self.hash, muts);
        self.hashes.push(self.hash);
        self.log.push(what);
    }

    fn apply_to(state: &mut BTreeMap<Vec<u8>, Vec<u8>>, hash: &mut [u64; 2], muts: &[Mutation]) {
        let mut set = |state: &mut BTreeMap<Vec<u8>, Vec<u8>>, k: &[u8], v: Option<Vec<u8>>| {
            let s = space(k);
            if let Some(old) = state.remove(k) {
                hash[s] ^= entry_hash(k, &old);
            }
            if let Some(v) = v {
                hash[s] ^= entry_hash(k, &v);
                state.insert(k.to_vec(), v);
            }
        };
        for m in muts {
            match m {
                Mutation::Put(k, v) => set(state, k, Some(v.clone())),
                Mutation::Delete(k) => set(state, k, None),
                Mutation::DeleteRange(b, e) => {
                    let doomed: Vec<Vec<u8>> = state
                        .range(b.clone()..e.clone())
                        .map(|(k, _)| k.clone())
                        .collect();
                    for k in doomed {
                        set(state, &k, None);
                    }
                }
            }
        }
    }

    /// The state after the first `n` operations (for failure reports).
    pub fn state_at(&self, n: usize) -> BTreeMap<Vec<u8>, Vec<u8>> {
        let mut state = self.base.clone();
        let mut hash = [0u64; 2];
        for muts in &self.ops[..n.min(self.ops.len())] {
            Self::apply_to(&mut state, &mut hash, muts);
        }
        state
    }

    /// The prefixes (numbers of operations) in `lo..=hi` whose state of key
    /// space `s` hashes to `h`.
    pub fn matching(&self, s: usize, h: u64, lo: usize, hi: usize) -> Vec<usize> {
        (lo..=hi.min(self.len()))
            .filter(|&i| self.hashes[i][s] == h)
            .collect()
    }

    /// The (WAL, unlogged) hashes of a state.
    pub fn hash_of(state: &BTreeMap<Vec<u8>, Vec<u8>>) -> [u64; 2] {
        let mut hash = [0u64; 2];
        for (k, v) in state {
            hash[space(k)] ^= entry_hash(k, v);
        }
        hash
    }
}

/// Every key and value of `db`, read with an iterator, cross-checked
/// against point lookups of every key in `probe`.
pub fn read_all(db: &Db, probe: &[Vec<u8>]) -> Result<BTreeMap<Vec<u8>, Vec<u8>>, String> {
    let ro = ReadOptions::default();
    let mut out = BTreeMap::new();
    let mut it = db.iter(&ro).map_err(|e| format!("iter: {e}"))?;
    it.seek_to_first();
    while it.valid() {
        out.insert(it.key().to_vec(), it.value().to_vec());
        it.next();
    }
    it.status().map_err(|e| format!("iterator status: {e}"))?;
    for k in probe {
        let got = db.get(&ro, k).map_err(|e| format!("get: {e}"))?;
        if got.as_ref() != out.get(k) {
            return Err(format!(
                "get({}) = {:?} but the iterator has {:?}",
                show(k),
                got.as_deref().map(show),
                out.get(k).map(|v| show(v))
            ));
        }
    }
    Ok(out)
}

/// A short printable form of a key or value.
pub fn show(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(&b[..b.len().min(24)]).to_string();
    if b.len() > 24 {
        format!("{s}…({} bytes)", b.len())
    } else {
        s
    }
}

/// The first differences between two states.
pub fn diff(a: &BTreeMap<Vec<u8>, Vec<u8>>, b: &BTreeMap<Vec<u8>, Vec<u8>>) -> String {
    let mut out = Vec::new();
    for (k, v) in a {
        match b.get(k) {
            None => out.push(format!("  {} only in expected", show(k))),
            Some(w) if w != v => out.push(format!(
                "  {}: expected {} got {}",
                show(k),
                show(v),
                show(w)
            )),
            _ => {}
        }
    }
    for k in b.keys() {
        if !a.contains_key(k) {
            out.push(format!("  {} only in recovered", show(k)));
        }
    }
    let n = out.len();
    out.truncate(12);
    format!("{n} differences:\n{}", out.join("\n"))
}

/// The tail of the info log, for failure reports.
pub fn info_log_tail(fs: &FaultFs, dir: &Path, lines: usize) -> String {
    let text = fs
        .contents(&dir.join("LOG"))
        .map(|b| String::from_utf8_lossy(&b).to_string())
        .unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

pub fn flush(db: &Db) -> talus::Result<()> {
    db.flush(&FlushOptions::default())
}

pub fn wo(sync: bool, disable_wal: bool) -> WriteOptions {
    WriteOptions {
        sync,
        disable_wal,
        ..WriteOptions::default()
    }
}

/// The message of a caught panic.
pub fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "(non-string panic)".into())
}
