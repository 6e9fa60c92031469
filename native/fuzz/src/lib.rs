//! Fuzzing Talus's decoders on the stable toolchain.
//!
//! - [`targets`]: the block decoder, the table reader, the log reader, the
//!   write-batch decoder and the manifest (version edit) decoder with
//!   version building and recovery. The same functions back the libFuzzer
//!   targets in `native/fuzz/libfuzzer/` (nightly, cargo-fuzz).
//! - [`seeds`]: valid inputs written by the engine's own writers; the
//!   committed corpus in `native/fuzz/corpus/<target>/` is these (see
//!   `talus-fuzz --write-corpus`).
//! - [`mutate`] and [`run`]: a structured random-mutation driver — bit
//!   flips, interesting integers at random offsets, inserted, deleted,
//!   duplicated and spliced ranges, truncation — with a cheap stand-in for
//!   coverage: an input whose target signature was never seen joins the
//!   corpus. Panics are caught and reported with the input; a hang aborts
//!   the process after writing the input out.

pub mod seeds;
pub mod targets;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// FNV-1a.
pub fn hash(b: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &c in b {
        h ^= u64::from(c);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// A small deterministic generator (xorshift64*).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// Seeded; any seed works.
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15 | 1)
    }
    /// The next value.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

/// Largest input the mutator produces.
pub const MAX_INPUT: usize = 256 << 10;

const INTERESTING: [u64; 14] = [
    0,
    1,
    2,
    7,
    8,
    0x7f,
    0x80,
    0xff,
    0x100,
    0x7fff,
    0xffff,
    0x7fff_ffff,
    0xffff_ffff,
    u64::MAX,
];

/// One to eight structured mutations of `input`; `other` is for splicing.
pub fn mutate(rng: &mut Rng, input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut d = input.to_vec();
    for _ in 0..1 + rng.below(8) {
        let len = d.len();
        match rng.below(11) {
            0 if len > 0 => {
                let i = rng.below(len);
                d[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                d[i] = INTERESTING[rng.below(8)] as u8;
            }
            2 if len > 0 => {
                let i = rng.below(len);
                d[i] = rng.next_u64() as u8;
            }
            3 if len > 0 => {
                // An interesting integer, little-endian, of 2, 4 or 8 bytes.
                let width = [2usize, 4, 8][rng.below(3)];
                let mut v = INTERESTING[rng.below(INTERESTING.len())];
                if rng.below(4) == 0 {
                    v = (len as u64 + rng.below(16) as u64).saturating_sub(8);
                }
                let i = rng.below(len);
                let bytes = v.to_le_bytes();
                for (j, b) in bytes[..width].iter().enumerate() {
                    if let Some(x) = d.get_mut(i + j) {
                        *x = *b;
                    }
                }
            }
            4 if len > 0 => {
                let a = rng.below(len);
                let n = 1 + rng.below((len - a).min(64));
                d.drain(a..a + n);
            }
            5 => {
                let a = rng.below(len + 1);
                let n = 1 + rng.below(32);
                let ins: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
                d.splice(a..a, ins);
            }
            6 if len > 0 => {
                let a = rng.below(len);
                let n = 1 + rng.below((len - a).min(256));
                let chunk = d[a..a + n].to_vec();
                let at = rng.below(len + 1);
                d.splice(at..at, chunk);
            }
            7 if len > 0 => d.truncate(rng.below(len)),
            8 if !other.is_empty() => {
                let cut = rng.below(len + 1);
                let from = rng.below(other.len());
                d.truncate(cut);
                d.extend_from_slice(&other[from..]);
            }
            9 if len > 0 => {
                // A long varint where a short one was.
                let i = rng.below(len);
                let v = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
                let n = 1 + rng.below(v.len());
                for (j, b) in v[..n].iter().enumerate() {
                    if let Some(x) = d.get_mut(i + j) {
                        *x = *b;
                    }
                }
            }
            _ => {
                let n = rng.below(8);
                d.extend((0..n).map(|_| rng.next_u64() as u8));
            }
        }
    }
    d.truncate(MAX_INPUT);
    d
}

/// How long a run goes.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Stop after this many executions.
    pub max_execs: u64,
    /// Stop after this much time.
    pub max_time: Duration,
}

/// A panic the driver caught.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The input that panicked.
    pub input: Vec<u8>,
    /// The panic message.
    pub message: String,
}

/// What a run did.
#[derive(Debug)]
pub struct Report {
    /// Target name.
    pub target: String,
    /// Executions.
    pub execs: u64,
    /// Inputs in the corpus at the end.
    pub corpus: usize,
    /// Distinct signatures seen.
    pub signatures: usize,
    /// Distinct panics (by message).
    pub findings: Vec<Finding>,
    /// Time taken.
    pub elapsed: Duration,
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "(non-string panic)".into())
}

/// Runs `target` once on `input`, catching a panic.
pub fn run_one(target: targets::Target, input: &[u8]) -> Result<u64, String> {
    catch_unwind(AssertUnwindSafe(|| target(input))).map_err(|p| panic_message(&*p))
}

/// Silences the default panic hook while alive (the driver reports panics
/// itself), restoring it on drop.
pub struct QuietPanics;

impl QuietPanics {
    /// Installs a silent hook.
    pub fn new() -> Self {
        std::panic::set_hook(Box::new(|_| {}));
        QuietPanics
    }
}

impl Default for QuietPanics {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for QuietPanics {
    fn drop(&mut self) {
        let _ = std::panic::take_hook();
    }
}

/// Fuzzes `target` starting from `seeds`. A single execution running
/// longer than 20 s counts as a hang: the input is written to
/// `hang_dir/<target>-hang` and the process aborts.
pub fn run(
    name: &str,
    target: targets::Target,
    seeds: Vec<Vec<u8>>,
    limits: Limits,
    seed: u64,
    hang_dir: &Path,
) -> Report {
    let start = Instant::now();
    let mut rng = Rng::new(seed ^ hash(name.as_bytes()));
    let mut corpus: Vec<Vec<u8>> = if seeds.is_empty() {
        vec![Vec::new()]
    } else {
        seeds
    };
    let mut sigs = std::collections::HashSet::new();
    let mut findings: Vec<Finding> = Vec::new();
    let current = Arc::new(parking_lot_free::Slot::default());
    let started_ms = Arc::new(AtomicU64::new(u64::MAX));
    let done = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let (current, started_ms, done) = (current.clone(), started_ms.clone(), done.clone());
        let path: PathBuf = hang_dir.join(format!("{name}-hang"));
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(200));
                let s = started_ms.load(Ordering::Relaxed);
                let now = start.elapsed().as_millis() as u64;
                if s != u64::MAX && now.saturating_sub(s) > 20_000 {
                    let _ = std::fs::create_dir_all(path.parent().unwrap_or(Path::new(".")));
                    let _ = std::fs::write(&path, current.get());
                    eprintln!(
                        "talus-fuzz: {}: an execution hangs; input written to {}",
                        path.display(),
                        path.display()
                    );
                    std::process::abort();
                }
            }
        })
    };
    // Seeds first, as they are.
    let mut execs = 0u64;
    let mut queue: Vec<Vec<u8>> = corpus.clone();
    loop {
        if execs >= limits.max_execs || start.elapsed() >= limits.max_time {
            break;
        }
        let input = match queue.pop() {
            Some(i) => i,
            None => {
                let a = rng.below(corpus.len());
                let b = rng.below(corpus.len());
                mutate(&mut rng, &corpus[a], &corpus[b])
            }
        };
        current.set(&input);
        started_ms.store(start.elapsed().as_millis() as u64, Ordering::Relaxed);
        let r = run_one(target, &input);
        started_ms.store(u64::MAX, Ordering::Relaxed);
        execs += 1;
        match r {
            Ok(sig) => {
                if sigs.insert(sig) {
                    if corpus.len() >= 4096 {
                        let i = rng.below(corpus.len());
                        corpus[i] = input;
                    } else {
                        corpus.push(input);
                    }
                }
            }
            Err(message) => {
                if !findings.iter().any(|f| f.message == message) {
                    findings.push(Finding { input, message });
                }
                if findings.len() >= 10 {
                    break;
                }
            }
        }
    }
    done.store(true, Ordering::Relaxed);
    let _ = watchdog.join();
    Report {
        target: name.to_string(),
        execs,
        corpus: corpus.len(),
        signatures: sigs.len(),
        findings,
        elapsed: start.elapsed(),
    }
}

/// The inputs in `dir` (none when it does not exist), sorted by name.
pub fn read_dir_inputs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            if let Ok(b) = std::fs::read(e.path()) {
                out.push((e.file_name().to_string_lossy().to_string(), b));
            }
        }
    }
    out.sort();
    out
}

mod parking_lot_free {
    //! A mutex-protected copy of the input being run, for the watchdog.
    use std::sync::Mutex;

    #[derive(Default)]
    pub struct Slot(Mutex<Vec<u8>>);

    impl Slot {
        pub fn set(&self, b: &[u8]) {
            let mut g = self.0.lock().unwrap_or_else(|e| e.into_inner());
            g.clear();
            g.extend_from_slice(b);
        }
        pub fn get(&self) -> Vec<u8> {
            self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
        }
    }
}
