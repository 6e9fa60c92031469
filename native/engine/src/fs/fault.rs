//! [`FaultFs`]: an in-memory [`FileSystem`] for tests that models what a
//! crash keeps, and fails chosen calls.
//!
//! It is compiled into the library (as Pebble's `vfs/errorfs` and RocksDB's
//! `FaultInjectionTestFS` are shipped as library code) so that integration
//! tests, the crash-test binary and the fuzz drivers use the same
//! implementation without a cargo feature to remember; nothing in the engine
//! refers to it and it costs nothing unless a test passes it in
//! `Options::fs`. It is not a production file system: everything lives in
//! memory behind one mutex.
//!
//! # The durability model
//!
//! Every file is an *inode* with its bytes and its *synced length*; every
//! directory has two maps from names to inodes, the *live* one (what
//! `list_dir` and `open` see) and the *durable* one (what a power loss
//! keeps). Then, following the contract in [`super`]:
//!
//! - [`WritableFile::append`] puts bytes in a user-space buffer of the open
//!   file (64 KiB, written out when full, as [`super::StdFileSystem`]
//!   does); [`WritableFile::flush`] hands them to the "OS" (the inode);
//!   [`WritableFile::sync`] flushes and sets the synced length to the
//!   inode's length; a [`WritableFile::sync_handle`] does the same from
//!   another thread (the WAL syncer) for what was flushed.
//! - Creating, renaming and removing change only the live map;
//!   [`FileSystem::sync_dir`] copies the live map of that directory to its
//!   durable map. A file whose bytes were synced but whose name was never
//!   made durable vanishes at a power loss; a removed file whose directory
//!   was not synced comes back; a rename not followed by a directory sync
//!   is undone.
//! - Directories themselves are durable as soon as they are created
//!   (the engine never depends on more). A directory *renamed* is back
//!   under its old name after a power loss until the new parent is synced
//!   (a checkpoint commits by renaming its staging directory).
//! - [`FileSystem::hard_link`] binds a second name to the same inode; the
//!   new name is durable after its directory is synced, as a new file's.
//!
//! [`FaultFs::crash`] ends the "process": every open handle becomes stale
//! (its calls fail, its buffer is lost) and locks are released. With
//! [`Crash::ProcessKill`] the inodes keep every byte handed to the OS; with
//! [`Crash::PowerLoss`] each file is cut to its synced length and each
//! directory goes back to its durable map (LevelDB's fault-injection test);
//! [`Crash::PowerLossRandom`] keeps, per file, its synced bytes plus a random
//! prefix of the unsynced ones, and per directory entry, randomly the durable
//! or the live binding — every outcome POSIX allows for data that was
//! never synced, short of garbage.
//!
//! # Faults
//!
//! A [`FaultRule`] fails calls of chosen kinds ([`FaultOp`]) whose path
//! contains a pattern, after letting a number of matching calls through, a
//! number of times (or until cleared), with EIO or ENOSPC. A failed write may
//! leave a prefix of its bytes behind ([`FaultRule::partial`]): later writes
//! to the same file then land after a gap, as after a real short write, so
//! the engine must stop writing to a file once a write to it failed.
//!
//! [`FaultFs::freeze_after`] picks a crash point: the n-th mutating call
//! from now (create, write, sync, directory sync, rename, remove, truncate)
//! fails, a write tearing part of its bytes into the file, and every
//! mutating call after it fails too (the process is "dead"; reads still
//! work). A test then drops the database and calls [`FaultFs::crash`].
//! [`FaultFs::is_frozen`] tells whether a call the test saw succeed could
//! have been cut short: an operation acknowledged while not frozen was
//! acknowledged before the crash.
//!
//! Thread-safety: `FaultFs` is `Send + Sync`; all state is under one mutex.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;

use super::{
    FileLock, FileSystem, RandomAccessFile, SequentialFile, WritableFile, WriteFileOptions,
};
use crate::error::{Error, Result};

/// Size of an open file's user-space buffer (as [`super::StdFileSystem`]).
const WRITE_BUFFER: usize = 1 << 20;

/// The kinds of call a [`FaultRule`] can fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FaultOp {
    /// `new_writable`, `new_appendable`, `lock_file` creating its file.
    Create,
    /// `append` (one call per append; the buffer write-out is part of it).
    Write,
    /// `WritableFile::sync`.
    Sync,
    /// `sync_dir`.
    SyncDir,
    /// `rename` (matched against both paths).
    Rename,
    /// `remove_file`.
    Remove,
    /// Opening a file for reading, and every read.
    Read,
    /// `truncate`.
    Truncate,
    /// `create_dir_all`.
    CreateDir,
    /// `list_dir`.
    List,
    /// `lock_file`.
    Lock,
}

impl FaultOp {
    /// Every kind.
    pub const ALL: [FaultOp; 11] = [
        FaultOp::Create,
        FaultOp::Write,
        FaultOp::Sync,
        FaultOp::SyncDir,
        FaultOp::Rename,
        FaultOp::Remove,
        FaultOp::Read,
        FaultOp::Truncate,
        FaultOp::CreateDir,
        FaultOp::List,
        FaultOp::Lock,
    ];

    /// The kinds that change what is on disk: the candidates for a crash
    /// point ([`FaultFs::freeze_after`]).
    pub const MUTATIONS: [FaultOp; 7] = [
        FaultOp::Create,
        FaultOp::Write,
        FaultOp::Sync,
        FaultOp::SyncDir,
        FaultOp::Rename,
        FaultOp::Remove,
        FaultOp::Truncate,
    ];

    /// True for the kinds in [`Self::MUTATIONS`].
    pub fn is_mutation(self) -> bool {
        Self::MUTATIONS.contains(&self)
    }

    fn name(self) -> &'static str {
        match self {
            FaultOp::Create => "create",
            FaultOp::Write => "append to",
            FaultOp::Sync => "sync",
            FaultOp::SyncDir => "sync directory",
            FaultOp::Rename => "rename",
            FaultOp::Remove => "remove",
            FaultOp::Read => "read",
            FaultOp::Truncate => "truncate",
            FaultOp::CreateDir => "create directory",
            FaultOp::List => "list",
            FaultOp::Lock => "lock",
        }
    }
}

/// The error an injected fault returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FaultError {
    /// EIO (errno 5).
    #[default]
    Eio,
    /// ENOSPC (errno 28): `Error::subcode()` is `NoSpace`.
    Enospc,
}

impl FaultError {
    fn errno(self) -> i32 {
        match self {
            FaultError::Eio => 5,
            FaultError::Enospc => 28,
        }
    }
}

/// Which calls to fail. Build with [`FaultRule::new`] and the setters.
#[derive(Clone, Debug)]
pub struct FaultRule {
    /// Kinds of call matched (empty: every kind).
    pub ops: Vec<FaultOp>,
    /// Only calls whose path contains this string (`None`: any path).
    pub path_contains: Option<String>,
    /// Matching calls let through before the first failure.
    pub skip: u64,
    /// Failures before the rule goes quiet (`None`: until cleared).
    pub times: Option<u64>,
    /// The error returned.
    pub error: FaultError,
    /// A failed write leaves the first half of its bytes behind.
    pub partial: bool,
}

impl FaultRule {
    /// Fails every call of the given kinds (every kind when empty), with EIO.
    pub fn new(ops: &[FaultOp]) -> Self {
        FaultRule {
            ops: ops.to_vec(),
            path_contains: None,
            skip: 0,
            times: None,
            error: FaultError::Eio,
            partial: false,
        }
    }

    /// Only paths containing `pattern` (e.g. `".log"`, `"MANIFEST-"`, `"CURRENT"`).
    pub fn path(mut self, pattern: &str) -> Self {
        self.path_contains = Some(pattern.to_string());
        self
    }

    /// Lets the first `n` matching calls through.
    pub fn skip(mut self, n: u64) -> Self {
        self.skip = n;
        self
    }

    /// Fails `n` matching calls, then none.
    pub fn times(mut self, n: u64) -> Self {
        self.times = Some(n);
        self
    }

    /// Returns `e` instead of EIO.
    pub fn error(mut self, e: FaultError) -> Self {
        self.error = e;
        self
    }

    /// A failed write leaves half its bytes behind.
    pub fn partial(mut self) -> Self {
        self.partial = true;
        self
    }

    fn matches(&self, op: FaultOp, path: &Path, path2: Option<&Path>) -> bool {
        if !self.ops.is_empty() && !self.ops.contains(&op) {
            return false;
        }
        match &self.path_contains {
            None => true,
            Some(p) => {
                let hit = |x: &Path| x.to_string_lossy().contains(p.as_str());
                hit(path) || path2.is_some_and(hit)
            }
        }
    }
}

/// How a simulated crash ends (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Crash {
    /// The process dies: what was handed to the OS survives, buffers do not.
    ProcessKill,
    /// The machine loses power: only synced bytes and synced directory
    /// entries survive.
    PowerLoss,
    /// The machine loses power, and the disk had written back some of the
    /// unsynced state: a random prefix of each file's unsynced bytes, and
    /// for each directory entry randomly its durable or its live binding.
    PowerLossRandom(u64),
}

struct Inode {
    data: Vec<u8>,
    synced: usize,
}

#[derive(Default)]
struct Dir {
    live: BTreeMap<String, u64>,
    durable: BTreeMap<String, u64>,
}

struct RuleState {
    rule: FaultRule,
    seen: u64,
    fired: u64,
}

struct State {
    dirs: BTreeMap<PathBuf, Dir>,
    inodes: HashMap<u64, Inode>,
    next_inode: u64,
    rules: Vec<RuleState>,
    faults: u64,
    mutations: u64,
    freeze_at: Option<u64>,
    frozen: bool,
    generation: u64,
    locks: BTreeSet<PathBuf>,
    rng: u64,
    crashes: u64,
    /// Directory renames (from, to) whose new parent was not synced since:
    /// undone by a power loss, newest first.
    dir_renames: Vec<(PathBuf, PathBuf)>,
}

/// What a checked call may do.
enum Verdict {
    Go,
    /// Fail; a write first keeps this many bytes of its data.
    Fail(Error, usize),
}

fn split_rng(state: &mut u64) -> u64 {
    // splitmix64: deterministic, no dependency.
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn os_error(what: &str, path: &Path, errno: i32, why: &str) -> Error {
    Error::io(
        format!("{why}: {what} {}", path.display()),
        &std::io::Error::from_raw_os_error(errno),
    )
}

fn not_found(what: &str, path: &Path) -> Error {
    Error::io_path(
        what,
        path,
        &std::io::Error::from(std::io::ErrorKind::NotFound),
    )
}

fn split(path: &Path) -> Result<(PathBuf, String)> {
    let parent = path.parent().unwrap_or(Path::new("")).to_path_buf();
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| Error::InvalidArgument(format!("bad path {}", path.display())))?;
    Ok((parent, name.to_string()))
}

impl State {
    /// Runs the fault and crash-point checks for one call by a handle of
    /// `generation` (`None`: a file-system call, always current). `len` is
    /// the byte count of a write (for torn writes).
    fn check(
        &mut self,
        op: FaultOp,
        path: &Path,
        path2: Option<&Path>,
        generation: Option<u64>,
        len: usize,
    ) -> Verdict {
        if generation.is_some_and(|g| g != self.generation) {
            return Verdict::Fail(
                os_error(op.name(), path, 5, "handle from before a simulated crash"),
                0,
            );
        }
        if op.is_mutation() {
            if self.frozen {
                return Verdict::Fail(os_error(op.name(), path, 5, "simulated crash"), 0);
            }
            self.mutations += 1;
            if self.freeze_at.is_some_and(|n| self.mutations >= n) {
                self.frozen = true;
                self.freeze_at = None;
                let keep = if len > 0 {
                    (split_rng(&mut self.rng) % (len as u64 + 1)) as usize
                } else {
                    0
                };
                return Verdict::Fail(os_error(op.name(), path, 5, "simulated crash"), keep);
            }
        }
        for r in &mut self.rules {
            if !r.rule.matches(op, path, path2) {
                continue;
            }
            r.seen += 1;
            if r.seen <= r.rule.skip || r.rule.times.is_some_and(|t| r.fired >= t) {
                continue;
            }
            r.fired += 1;
            self.faults += 1;
            let keep = if r.rule.partial { len / 2 } else { 0 };
            let why = match r.rule.error {
                FaultError::Eio => "injected EIO",
                FaultError::Enospc => "injected ENOSPC",
            };
            return Verdict::Fail(os_error(op.name(), path, r.rule.error.errno(), why), keep);
        }
        Verdict::Go
    }

    fn go(&mut self, op: FaultOp, path: &Path, path2: Option<&Path>) -> Result<()> {
        match self.check(op, path, path2, None, 0) {
            Verdict::Go => Ok(()),
            Verdict::Fail(e, _) => Err(e),
        }
    }

    fn lookup(&self, path: &Path) -> Option<u64> {
        let (parent, name) = split(path).ok()?;
        self.dirs.get(&parent)?.live.get(&name).copied()
    }

    fn new_inode(&mut self) -> u64 {
        let id = self.next_inode;
        self.next_inode += 1;
        self.inodes.insert(
            id,
            Inode {
                data: Vec::new(),
                synced: 0,
            },
        );
        id
    }

    /// Binds `path` to a new empty inode in the live map.
    fn create(&mut self, path: &Path) -> Result<u64> {
        let (parent, name) = split(path)?;
        if !self.dirs.contains_key(&parent) {
            return Err(not_found("create", path));
        }
        if self.dirs.contains_key(path) {
            return Err(Error::io_path(
                "create",
                path,
                &std::io::Error::from(std::io::ErrorKind::IsADirectory),
            ));
        }
        let id = self.new_inode();
        self.dirs
            .get_mut(&parent)
            .expect("checked above")
            .live
            .insert(name, id);
        Ok(id)
    }

    /// Moves directory `from` and everything under it to `to`.
    fn move_dir(&mut self, from: &Path, to: &Path) {
        let keys: Vec<PathBuf> = self
            .dirs
            .keys()
            .filter(|k| k.starts_with(from))
            .cloned()
            .collect();
        for k in keys {
            let d = self.dirs.remove(&k).expect("listed");
            let rest = k.strip_prefix(from).expect("filtered by prefix");
            let nk = if rest.as_os_str().is_empty() {
                to.to_path_buf()
            } else {
                to.join(rest)
            };
            self.dirs.insert(nk, d);
        }
    }

    /// Drops inodes no directory binds any more (no handle can use them
    /// after a crash).
    fn collect_garbage(&mut self) {
        let bound: BTreeSet<u64> = self
            .dirs
            .values()
            .flat_map(|d| d.live.values().chain(d.durable.values()).copied())
            .collect();
        self.inodes.retain(|id, _| bound.contains(id));
    }
}

struct Shared {
    state: Mutex<State>,
}

/// The fault-injecting in-memory file system. See the module docs.
#[derive(Clone)]
pub struct FaultFs {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for FaultFs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let st = self.shared.state.lock();
        f.debug_struct("FaultFs")
            .field("files", &st.inodes.len())
            .field("mutations", &st.mutations)
            .field("faults", &st.faults)
            .field("frozen", &st.frozen)
            .finish()
    }
}

impl Default for FaultFs {
    fn default() -> Self {
        Self::new(0)
    }
}

impl FaultFs {
    /// An empty file system holding only the root directory `/`. `seed`
    /// drives torn writes and [`Crash::PowerLossRandom`]'s choices.
    pub fn new(seed: u64) -> Self {
        let mut dirs = BTreeMap::new();
        dirs.insert(PathBuf::from("/"), Dir::default());
        FaultFs {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    dirs,
                    inodes: HashMap::new(),
                    next_inode: 1,
                    rules: Vec::new(),
                    faults: 0,
                    mutations: 0,
                    freeze_at: None,
                    frozen: false,
                    generation: 0,
                    locks: BTreeSet::new(),
                    rng: seed ^ 0x5EED_F00D,
                    crashes: 0,
                    dir_renames: Vec::new(),
                }),
            }),
        }
    }

    /// Adds a fault rule (checked in the order added; the first that fires wins).
    pub fn inject(&self, rule: FaultRule) {
        self.shared.state.lock().rules.push(RuleState {
            rule,
            seen: 0,
            fired: 0,
        });
    }

    /// Removes every fault rule: the "disk" works again.
    pub fn clear_faults(&self) {
        self.shared.state.lock().rules.clear();
    }

    /// Faults injected so far (by rules; crash points not counted).
    pub fn faults_injected(&self) -> u64 {
        self.shared.state.lock().faults
    }

    /// Mutating calls made so far (the unit of [`Self::freeze_after`]).
    pub fn mutations(&self) -> u64 {
        self.shared.state.lock().mutations
    }

    /// Sets the crash point `n ≥ 1` mutating calls from now (see the module docs).
    pub fn freeze_after(&self, n: u64) {
        let mut st = self.shared.state.lock();
        st.freeze_at = Some(st.mutations + n.max(1));
    }

    /// Crashes now: every later mutating call fails.
    pub fn freeze(&self) {
        let mut st = self.shared.state.lock();
        st.frozen = true;
        st.freeze_at = None;
    }

    /// True once the crash point was reached.
    pub fn is_frozen(&self) -> bool {
        self.shared.state.lock().frozen
    }

    /// Number of [`Self::crash`] calls so far.
    pub fn crashes(&self) -> u64 {
        self.shared.state.lock().crashes
    }

    /// Ends the simulated process (and, for a power loss, the machine's
    /// unsynced state); the file system is then usable again, as after a
    /// reboot. Fault rules are kept. Open handles become stale.
    pub fn crash(&self, how: Crash) {
        let mut st = self.shared.state.lock();
        st.generation += 1;
        st.crashes += 1;
        st.frozen = false;
        st.freeze_at = None;
        st.locks.clear();
        let renames = std::mem::take(&mut st.dir_renames);
        match how {
            Crash::ProcessKill => {}
            Crash::PowerLoss => {
                for (from, to) in renames.iter().rev() {
                    st.move_dir(to, from);
                }
                for d in st.dirs.values_mut() {
                    d.live = d.durable.clone();
                }
                st.collect_garbage();
                for ino in st.inodes.values_mut() {
                    ino.data.truncate(ino.synced);
                }
            }
            Crash::PowerLossRandom(seed) => {
                let mut rng = seed;
                for (from, to) in renames.iter().rev() {
                    if split_rng(&mut rng).is_multiple_of(2) {
                        st.move_dir(to, from);
                    }
                }
                for d in st.dirs.values_mut() {
                    let names: BTreeSet<String> =
                        d.live.keys().chain(d.durable.keys()).cloned().collect();
                    for n in names {
                        let (live, durable) = (d.live.get(&n).copied(), d.durable.get(&n).copied());
                        if live != durable && split_rng(&mut rng).is_multiple_of(2) {
                            match durable {
                                Some(id) => d.live.insert(n, id),
                                None => d.live.remove(&n),
                            };
                        }
                    }
                    d.durable = d.live.clone();
                }
                st.collect_garbage();
                let mut ids: Vec<u64> = st.inodes.keys().copied().collect();
                ids.sort_unstable();
                for id in ids {
                    let ino = st.inodes.get_mut(&id).expect("listed");
                    let unsynced = ino.data.len().saturating_sub(ino.synced);
                    let keep = (split_rng(&mut rng) % (unsynced as u64 + 1)) as usize;
                    ino.data.truncate(ino.synced + keep);
                }
            }
        }
        // After the reboot whatever is there is on disk.
        for d in st.dirs.values_mut() {
            d.durable = d.live.clone();
        }
        for ino in st.inodes.values_mut() {
            ino.synced = ino.data.len();
        }
    }

    /// The bytes of `path` as a reader would see them.
    pub fn contents(&self, path: &Path) -> Option<Vec<u8>> {
        let st = self.shared.state.lock();
        let id = st.lookup(path)?;
        Some(st.inodes[&id].data.clone())
    }

    /// Replaces the bytes of `path` (durably): for corruption tests.
    pub fn set_contents(&self, path: &Path, data: Vec<u8>) -> Result<()> {
        let mut st = self.shared.state.lock();
        let id = st.lookup(path).ok_or_else(|| not_found("open", path))?;
        let ino = st.inodes.get_mut(&id).expect("bound inode");
        ino.synced = data.len();
        ino.data = data;
        Ok(())
    }

    /// The synced length of `path`.
    pub fn synced_len(&self, path: &Path) -> Option<u64> {
        let st = self.shared.state.lock();
        let id = st.lookup(path)?;
        Some(st.inodes[&id].synced as u64)
    }

    /// True when `path`'s name is in its directory's durable map.
    pub fn name_is_durable(&self, path: &Path) -> bool {
        let st = self.shared.state.lock();
        let Ok((parent, name)) = split(path) else {
            return false;
        };
        st.dirs
            .get(&parent)
            .is_some_and(|d| d.durable.contains_key(&name))
    }

    fn state(&self) -> parking_lot::MutexGuard<'_, State> {
        self.shared.state.lock()
    }
}

struct FaultWritable {
    shared: Arc<Shared>,
    path: PathBuf,
    inode: u64,
    generation: u64,
    buf: Vec<u8>,
    len: u64,
}

impl FaultWritable {
    /// Hands the buffer to the "OS" (the inode). Not a counted call: the
    /// appends that filled the buffer were.
    fn write_out(&mut self, st: &mut State) -> Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        if st.frozen || st.generation != self.generation {
            self.buf.clear();
            return Err(os_error("append to", &self.path, 5, "simulated crash"));
        }
        if let Some(ino) = st.inodes.get_mut(&self.inode) {
            ino.data.extend_from_slice(&self.buf);
        }
        self.buf.clear();
        Ok(())
    }
}

impl WritableFile for FaultWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        let shared = self.shared.clone();
        let mut st = shared.state.lock();
        match st.check(
            FaultOp::Write,
            &self.path,
            None,
            Some(self.generation),
            data.len(),
        ) {
            Verdict::Go => {}
            Verdict::Fail(e, keep) => {
                if keep > 0 {
                    // A short write: the buffer and part of `data` reach the
                    // file, the rest is lost; later writes land after the gap.
                    let frozen = std::mem::replace(&mut st.frozen, false);
                    self.buf.extend_from_slice(&data[..keep]);
                    let _ = self.write_out(&mut st);
                    st.frozen = frozen;
                    self.len += keep as u64;
                }
                return Err(e);
            }
        }
        self.len += data.len() as u64;
        self.buf.extend_from_slice(data);
        if self.buf.len() > WRITE_BUFFER {
            self.write_out(&mut st)?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        let shared = self.shared.clone();
        let mut st = shared.state.lock();
        self.write_out(&mut st)
    }

    fn sync(&mut self) -> Result<()> {
        let shared = self.shared.clone();
        let mut st = shared.state.lock();
        self.write_out(&mut st)?;
        sync_inode(&mut st, &self.path, self.generation, self.inode)
    }

    /// As the real file's: syncs what was handed to the "OS" and leaves the
    /// buffer, so that `bytes_per_sync` makes durable here what it makes
    /// durable on a real disk.
    fn sync_written(&mut self) -> Result<()> {
        let shared = self.shared.clone();
        let mut st = shared.state.lock();
        sync_inode(&mut st, &self.path, self.generation, self.inode)
    }

    fn len(&self) -> u64 {
        self.len
    }

    fn sync_handle(&self) -> Option<Box<dyn super::SyncHandle>> {
        Some(Box::new(FaultSyncHandle {
            shared: self.shared.clone(),
            path: self.path.clone(),
            inode: self.inode,
            generation: self.generation,
        }))
    }
}

/// A second handle of a [`FaultWritable`], synced from another thread: it
/// covers what the file handed to the "OS", not its buffer.
struct FaultSyncHandle {
    shared: Arc<Shared>,
    path: PathBuf,
    inode: u64,
    generation: u64,
}

impl super::SyncHandle for FaultSyncHandle {
    fn sync(&mut self) -> Result<()> {
        let mut st = self.shared.state.lock();
        sync_inode(&mut st, &self.path, self.generation, self.inode)
    }
}

/// A counted sync of `inode`: everything handed to the "OS" becomes durable.
fn sync_inode(st: &mut State, path: &Path, generation: u64, inode: u64) -> Result<()> {
    match st.check(FaultOp::Sync, path, None, Some(generation), 0) {
        Verdict::Go => {}
        // Like a failed fsync: the bytes stay in the OS, not synced.
        Verdict::Fail(e, _) => return Err(e),
    }
    if let Some(ino) = st.inodes.get_mut(&inode) {
        ino.synced = ino.data.len();
    }
    Ok(())
}

struct FaultSequential {
    shared: Arc<Shared>,
    path: PathBuf,
    inode: u64,
    generation: u64,
    pos: usize,
}

impl SequentialFile for FaultSequential {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
        let mut st = self.shared.state.lock();
        if let Verdict::Fail(e, _) =
            st.check(FaultOp::Read, &self.path, None, Some(self.generation), 0)
        {
            return Err(e);
        }
        let data = st.inodes.get(&self.inode).map_or(&[][..], |i| &i.data[..]);
        let n = buf.len().min(data.len().saturating_sub(self.pos));
        buf[..n].copy_from_slice(&data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

struct FaultRandom {
    shared: Arc<Shared>,
    path: PathBuf,
    inode: u64,
    generation: u64,
}

impl RandomAccessFile for FaultRandom {
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let mut st = self.shared.state.lock();
        if let Verdict::Fail(e, _) =
            st.check(FaultOp::Read, &self.path, None, Some(self.generation), 0)
        {
            return Err(e);
        }
        let data = st.inodes.get(&self.inode).map_or(&[][..], |i| &i.data[..]);
        let end = offset.checked_add(buf.len() as u64);
        match end {
            Some(end) if end <= data.len() as u64 => {
                buf.copy_from_slice(&data[offset as usize..end as usize]);
                Ok(())
            }
            _ => Err(Error::io(
                format!(
                    "read {} bytes at offset {offset} of {}",
                    buf.len(),
                    self.path.display()
                ),
                &std::io::Error::from(std::io::ErrorKind::UnexpectedEof),
            )),
        }
    }

    fn size(&self) -> Result<u64> {
        let st = self.shared.state.lock();
        Ok(st.inodes.get(&self.inode).map_or(0, |i| i.data.len()) as u64)
    }
}

struct FaultLockGuard {
    shared: Arc<Shared>,
    path: PathBuf,
    generation: u64,
}

impl FileLock for FaultLockGuard {}

impl Drop for FaultLockGuard {
    fn drop(&mut self) {
        let mut st = self.shared.state.lock();
        if st.generation == self.generation {
            st.locks.remove(&self.path);
        }
    }
}

impl FileSystem for FaultFs {
    fn create_dir_all(&self, path: &Path) -> Result<()> {
        let mut st = self.state();
        st.go(FaultOp::CreateDir, path, None)?;
        let mut p = Some(path);
        while let Some(dir) = p {
            if dir.as_os_str().is_empty() {
                break;
            }
            if st.lookup(dir).is_some() {
                return Err(Error::io_path(
                    "create directory",
                    dir,
                    &std::io::Error::from(std::io::ErrorKind::AlreadyExists),
                ));
            }
            st.dirs.entry(dir.to_path_buf()).or_default();
            p = dir.parent();
        }
        Ok(())
    }

    fn new_writable(&self, path: &Path, _opts: WriteFileOptions) -> Result<Box<dyn WritableFile>> {
        let mut st = self.state();
        st.go(FaultOp::Create, path, None)?;
        // O_TRUNC is modelled as a new inode under the old name: until the
        // directory is synced, a power loss brings the old contents back.
        let inode = st.create(path)?;
        Ok(Box::new(FaultWritable {
            shared: self.shared.clone(),
            path: path.to_path_buf(),
            inode,
            generation: st.generation,
            buf: Vec::new(),
            len: 0,
        }))
    }

    fn new_appendable(
        &self,
        path: &Path,
        _opts: WriteFileOptions,
    ) -> Result<Box<dyn WritableFile>> {
        let mut st = self.state();
        st.go(FaultOp::Create, path, None)?;
        let inode = match st.lookup(path) {
            Some(id) => id,
            None => st.create(path)?,
        };
        let len = st.inodes[&inode].data.len() as u64;
        Ok(Box::new(FaultWritable {
            shared: self.shared.clone(),
            path: path.to_path_buf(),
            inode,
            generation: st.generation,
            buf: Vec::new(),
            len,
        }))
    }

    fn new_sequential(&self, path: &Path) -> Result<Box<dyn SequentialFile>> {
        let mut st = self.state();
        st.go(FaultOp::Read, path, None)?;
        let inode = st.lookup(path).ok_or_else(|| not_found("open", path))?;
        Ok(Box::new(FaultSequential {
            shared: self.shared.clone(),
            path: path.to_path_buf(),
            inode,
            generation: st.generation,
            pos: 0,
        }))
    }

    fn new_random_access(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        let mut st = self.state();
        st.go(FaultOp::Read, path, None)?;
        let inode = st.lookup(path).ok_or_else(|| not_found("open", path))?;
        Ok(Arc::new(FaultRandom {
            shared: self.shared.clone(),
            path: path.to_path_buf(),
            inode,
            generation: st.generation,
        }))
    }

    fn file_size(&self, path: &Path) -> Result<u64> {
        let st = self.state();
        let id = st.lookup(path).ok_or_else(|| not_found("stat", path))?;
        Ok(st.inodes[&id].data.len() as u64)
    }

    fn exists(&self, path: &Path) -> bool {
        let st = self.state();
        st.dirs.contains_key(path) || st.lookup(path).is_some()
    }

    /// The in-memory tree has no permissions, and no failure rule covers
    /// this check: it is [`FileSystem::exists`].
    fn try_exists(&self, path: &Path) -> Result<bool> {
        Ok(self.exists(path))
    }

    fn is_dir(&self, path: &Path) -> bool {
        self.state().dirs.contains_key(path)
    }

    fn list_dir(&self, path: &Path) -> Result<Vec<String>> {
        let mut st = self.state();
        st.go(FaultOp::List, path, None)?;
        let dir = st.dirs.get(path).ok_or_else(|| not_found("list", path))?;
        let mut names: Vec<String> = dir.live.keys().cloned().collect();
        names.extend(
            st.dirs
                .keys()
                .filter(|d| d.parent() == Some(path))
                .filter_map(|d| d.file_name()?.to_str().map(str::to_owned)),
        );
        names.sort();
        Ok(names)
    }

    fn remove_file(&self, path: &Path) -> Result<()> {
        let mut st = self.state();
        st.go(FaultOp::Remove, path, None)?;
        let (parent, name) = split(path)?;
        match st.dirs.get_mut(&parent).and_then(|d| d.live.remove(&name)) {
            Some(_) => Ok(()),
            None => Err(not_found("remove", path)),
        }
    }

    fn remove_dir(&self, path: &Path) -> Result<()> {
        let mut st = self.state();
        st.go(FaultOp::Remove, path, None)?;
        let Some(dir) = st.dirs.get(path) else {
            return Err(not_found("remove directory", path));
        };
        let has_subdirs = st.dirs.keys().any(|d| d.parent() == Some(path));
        if !dir.live.is_empty() || has_subdirs {
            return Err(Error::io_path(
                "remove directory",
                path,
                &std::io::Error::from(std::io::ErrorKind::DirectoryNotEmpty),
            ));
        }
        st.dirs.remove(path);
        Ok(())
    }

    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        let mut st = self.state();
        st.go(FaultOp::Rename, from, Some(to))?;
        if st.dirs.contains_key(from) {
            let to_parent = to.parent().unwrap_or(Path::new(""));
            if !st.dirs.contains_key(to_parent) {
                return Err(not_found("rename to", to));
            }
            if st.dirs.contains_key(to) || st.lookup(to).is_some() || to.starts_with(from) {
                return Err(Error::io_path(
                    "rename directory to",
                    to,
                    &std::io::Error::from(std::io::ErrorKind::AlreadyExists),
                ));
            }
            st.move_dir(from, to);
            st.dir_renames.push((from.to_path_buf(), to.to_path_buf()));
            return Ok(());
        }
        let (fp, fname) = split(from)?;
        let (tp, tname) = split(to)?;
        if !st.dirs.contains_key(&tp) {
            return Err(not_found("rename to", to));
        }
        let id = st
            .dirs
            .get_mut(&fp)
            .and_then(|d| d.live.remove(&fname))
            .ok_or_else(|| not_found("rename", from))?;
        st.dirs
            .get_mut(&tp)
            .expect("checked above")
            .live
            .insert(tname, id);
        Ok(())
    }

    /// A second name for the inode, in the live map only (as a rename:
    /// durable after `sync_dir`). Checked as a `Create` of `to` (it makes
    /// a directory entry), so it is a crash point like any create.
    fn link_file(&self, from: &Path, to: &Path) -> Result<()> {
        let mut st = self.state();
        st.go(FaultOp::Create, to, Some(from))?;
        let (tp, tname) = split(to)?;
        let id = st.lookup(from).ok_or_else(|| not_found("link", from))?;
        let dir = st
            .dirs
            .get_mut(&tp)
            .ok_or_else(|| not_found("link to", to))?;
        if dir.live.contains_key(&tname) {
            return Err(Error::io_path(
                "link to",
                to,
                &std::io::Error::from(std::io::ErrorKind::AlreadyExists),
            ));
        }
        dir.live.insert(tname, id);
        Ok(())
    }

    fn sync_dir(&self, dir: &Path) -> Result<()> {
        let mut st = self.state();
        st.go(FaultOp::SyncDir, dir, None)?;
        let d = st
            .dirs
            .get_mut(dir)
            .ok_or_else(|| not_found("open directory", dir))?;
        d.durable = d.live.clone();
        st.dir_renames
            .retain(|(_, to)| to.parent().unwrap_or(Path::new("")) != dir);
        Ok(())
    }

    fn hard_link(&self, from: &Path, to: &Path) -> Result<()> {
        let mut st = self.state();
        st.go(FaultOp::Create, to, Some(from))?;
        let id = st
            .lookup(from)
            .ok_or_else(|| not_found("hard link", from))?;
        let (parent, name) = split(to)?;
        if st.lookup(to).is_some() || st.dirs.contains_key(to) {
            return Err(Error::io_path(
                "hard link",
                to,
                &std::io::Error::from(std::io::ErrorKind::AlreadyExists),
            ));
        }
        st.dirs
            .get_mut(&parent)
            .ok_or_else(|| not_found("hard link into", to))?
            .live
            .insert(name, id);
        Ok(())
    }

    fn truncate(&self, path: &Path, len: u64) -> Result<()> {
        let mut st = self.state();
        st.go(FaultOp::Truncate, path, None)?;
        let id = st.lookup(path).ok_or_else(|| not_found("open", path))?;
        let ino = st.inodes.get_mut(&id).expect("bound inode");
        ino.data.resize(len as usize, 0);
        // As StdFileSystem::truncate, which syncs.
        ino.synced = ino.data.len();
        Ok(())
    }

    fn lock_file(&self, path: &Path) -> Result<Box<dyn FileLock>> {
        let mut st = self.state();
        st.go(FaultOp::Lock, path, None)?;
        if st.lookup(path).is_none() {
            st.go(FaultOp::Create, path, None)?;
            st.create(path)?;
        }
        if !st.locks.insert(path.to_path_buf()) {
            // As StdFileSystem: RocksDB's status and wording.
            return Err(Error::Io {
                context: format!("lock hold by current process: {}", path.display()),
                kind: std::io::ErrorKind::WouldBlock,
                errno: None,
                message: "No locks available (the database is already open in this process)".into(),
            });
        }
        Ok(Box::new(FaultLockGuard {
            shared: self.shared.clone(),
            path: path.to_path_buf(),
            generation: st.generation,
        }))
    }
}

#[cfg(test)]
mod tests;
