//! The table cache: open [`TableReader`]s by file number.
//!
//! With `max_open_files = -1` (the default) every table stays open and its
//! reader is kept in the file's [`FileMetaData`] (`table_reader`), so a
//! point lookup reaches it with one atomic load and no shared lock. With a
//! limit, readers live in an LRU cache of that many entries and are opened
//! again after eviction.
//!
//! Every table file open for reading is counted ([`OpenTables`]) until
//! closed. The last close of an unlinked file frees its blocks (with the
//! `discard` mount option, a synchronous discard of the whole file, slow for
//! a large table), and that work must not fall to whichever
//! foreground thread drops the last reader of a table the purge deleted:
//! the purge claims a table before unlinking it ([`TableCache::claim_for_unlink`]),
//! which sends later closes of it to a background thread, and waits for a
//! later purge when a close is running on a dropping thread right then. A
//! close sets the database's "something was released" flag, so the next
//! foreground call schedules that purge.
//!
//! Every table opened is checked against the manifest entry it is opened
//! for ([`check_binding`]), at no extra IO (the properties and range
//! tombstones are read at open anyway): a table written for another
//! database (its `db_id` property), or as another file number
//! (`orig_file_number`), or whose contents do not give the entry the
//! manifest recorded (key range, sequence range, counts, sizes, creation
//! time: every field is a function of the table's contents, see
//! `compaction::file_meta`), is `Corruption` naming the file — never read
//! as if it were the table the manifest means. With `paranoid_checks` the
//! open of the database runs the same check on every table
//! ([`TableCache::check_files`], reading only footer, properties and range
//! tombstones), and `verify_checksum()` also compares the XXH64 of the
//! whole file with the one the manifest recorded when it was written
//! ([`TableCache::verify_file_checksum`]).
//!
//! The table cache is the database's, shared by every family; how a table
//! is read (its block cache, whether index and filter blocks go through
//! that cache, the prefix extractor probing its filter) is its family's
//! ([`FamilyTables`], passed with each lookup). A file belongs to exactly
//! one family for its whole life (compaction and ingestion never move a
//! table between families), so the reader kept for it is always made with
//! its family's options. Blocks in a block cache shared by several
//! families stay apart: each reader keys its blocks by an owner id of its
//! own (`table::reader`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, mpsc};

use parking_lot::Mutex;

use crate::cache::{CacheKey, LruCache, Priority, new_cache_owner_id};
use crate::error::{Error, Result};
use crate::fs::{FileSystem, RandomAccessFile};
use crate::identity::DbId;
use crate::key;
use crate::memtable::RangeTombstone;
use crate::options::Options;
use crate::rate_limiter::ReadCharger;
use crate::table::{BlockCache, Held, TableProperties, TableReader, TableReaderOptions};
use crate::version::{FileMetaData, filename};

/// A table the manifest names must exist with the recorded size: a missing
/// or truncated (or grown) file is `Corruption` naming it, not an IO error
/// about a path — the database, not the disk, is damaged.
pub(crate) fn check_table_file(fs: &dyn FileSystem, path: &Path, f: &FileMetaData) -> Result<()> {
    match fs.file_size(path) {
        Ok(size) if size == f.file_size => Ok(()),
        Ok(size) => Err(wrong_size(path, size, f)),
        Err(e) => Err(missing_as_corruption(e, path)),
    }
}

fn wrong_size(path: &Path, size: u64, f: &FileMetaData) -> Error {
    Error::corruption(
        path.display(),
        0,
        format!(
            "table file is {size} bytes, the manifest says {}",
            f.file_size
        ),
    )
}

fn missing_as_corruption(e: Error, path: &Path) -> Error {
    match e {
        Error::Io {
            kind: std::io::ErrorKind::NotFound,
            ..
        } => Error::corruption(
            path.display(),
            0,
            "table file named by the manifest is missing",
        ),
        e => e,
    }
}

/// Checks that the table at `path`, whose properties and range tombstones
/// are `props` and `tombs`, is the one the manifest entry `f` was made for
/// in database `db_id` (see the module docs). Tables written before the
/// binding properties existed are checked on their contents alone.
pub(crate) fn check_binding(
    path: &Path,
    f: &FileMetaData,
    props: &TableProperties,
    tombs: &[RangeTombstone],
    db_id: DbId,
) -> Result<()> {
    let bad = |reason: String| Error::corruption(path.display(), 0, reason);
    if let Some(id) = props.db_id
        && id != db_id
    {
        return Err(bad(format!(
            "table file belongs to another database (its id {id}, this database's {db_id})"
        )));
    }
    if let Some(n) = props.orig_file_number
        && n != f.number
    {
        return Err(bad(format!(
            "table file was written as table #{n}, the manifest names it #{}",
            f.number
        )));
    }
    let got = super::compaction::file_meta(f.number, props, tombs);
    let key = |k: &[u8]| {
        if k.len() < key::TRAILER_LEN {
            return "(none)".to_string();
        }
        let u = key::user_key(k);
        format!(
            "{:?}@{}",
            String::from_utf8_lossy(&u[..u.len().min(32)]),
            key::sequence(k)
        )
    };
    let fields: [(&str, String, String); 9] = [
        ("smallest key", key(&f.smallest), key(&got.smallest)),
        ("largest key", key(&f.largest), key(&got.largest)),
        (
            "smallest sequence",
            f.smallest_seq.to_string(),
            got.smallest_seq.to_string(),
        ),
        (
            "largest sequence",
            f.largest_seq.to_string(),
            got.largest_seq.to_string(),
        ),
        (
            "entries",
            f.num_entries.to_string(),
            got.num_entries.to_string(),
        ),
        (
            "deletions",
            f.num_deletions.to_string(),
            got.num_deletions.to_string(),
        ),
        (
            "raw key bytes",
            f.raw_key_size.to_string(),
            got.raw_key_size.to_string(),
        ),
        (
            "raw value bytes",
            f.raw_value_size.to_string(),
            got.raw_value_size.to_string(),
        ),
        (
            "creation time",
            f.creation_time.to_string(),
            got.creation_time.to_string(),
        ),
    ];
    let keys_differ = f.smallest != got.smallest || f.largest != got.largest;
    for (i, (what, manifest, file)) in fields.iter().enumerate() {
        let differs = if i < 2 { keys_differ } else { manifest != file };
        if differs {
            return Err(bad(format!(
                "table file does not match its manifest entry: {what} is {file}, the manifest \
                 recorded {manifest} (a table of another database, or another table copied over it?)"
            )));
        }
    }
    Ok(())
}

/// Table files open for reading, by number. Opens and closes are rare
/// (once per table and reader); the mutex is never taken on a read.
pub(crate) struct OpenTables {
    files: Mutex<HashMap<u64, OpenState>>,
    /// Set on every close: `PurgeFlags::sv_released` (`files`).
    closed: Arc<AtomicBool>,
}

#[derive(Default)]
struct OpenState {
    /// Opens not closed yet (two readers may race to open one table).
    open: usize,
    /// Of those, being closed on the thread that dropped them.
    closing: usize,
    /// The purge unlinked the file: closes go to a background thread.
    unlinked: bool,
}

/// What the purge may do with an obsolete table, from [`TableCache::claim_for_unlink`].
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum UnlinkClaim {
    /// Unlink it; any reader still open will close it on a background
    /// thread.
    Unlink,
    /// A thread is closing a reader of it right now: unlinked meanwhile,
    /// that close would free the file's blocks on that thread. Try later.
    Later,
}

impl OpenTables {
    /// Counts an open of table `number`.
    fn opened(&self, number: u64) {
        self.files.lock().entry(number).or_default().open += 1;
    }

    /// A close of `number` finished (`inline`: on the dropping thread,
    /// counted in `closing`).
    fn done(&self, number: u64, inline: bool) {
        let mut files = self.files.lock();
        if let Some(s) = files.get_mut(&number) {
            s.open = s.open.saturating_sub(1);
            if inline {
                s.closing = s.closing.saturating_sub(1);
            }
            if s.open == 0 {
                files.remove(&number);
            }
        }
        drop(files);
        self.closed.store(true, Ordering::Release);
    }
}

/// A table file open for reading, counted until closed. Its close runs on
/// the dropping thread, unless the purge unlinked the file: then this close
/// would free the file's blocks (with the `discard` mount option, a
/// synchronous discard of the whole file), so it goes to the closer thread
/// ([`close_in_background`]) instead.
struct CountedFile {
    /// `Some` until dropped.
    inner: Option<Arc<dyn RandomAccessFile>>,
    /// The table's number, counted open in `tables`.
    number: u64,
    tables: Arc<OpenTables>,
}

impl CountedFile {
    fn file(&self) -> &Arc<dyn RandomAccessFile> {
        self.inner
            .as_ref()
            .expect("a counted file is read only before it is dropped")
    }
}

impl RandomAccessFile for CountedFile {
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        self.file().read_exact_at(offset, buf)
    }
    fn size(&self) -> Result<u64> {
        self.file().size()
    }
}

impl Drop for CountedFile {
    fn drop(&mut self) {
        let Some(inner) = self.inner.take() else {
            return;
        };
        let number = self.number;
        let tables = self.tables.clone();
        let unlinked = match tables.files.lock().get_mut(&number) {
            Some(s) if s.unlinked => true,
            Some(s) => {
                s.closing += 1;
                false
            }
            None => false,
        };
        if !unlinked {
            drop(inner);
            tables.done(number, true);
            return;
        }
        close_in_background(move || {
            drop(inner);
            tables.done(number, false);
        });
    }
}

/// A close the closer thread runs: drops the file, then records the close.
type Close = Box<dyn FnOnce() + Send>;

/// Runs `close` (the drop of an unlinked table's last reader, and what
/// follows it) on the process's one closer thread (`talus-close`, started
/// at the first use and kept).
///
/// One long-lived thread rather than one per close: the closes of a
/// compaction's inputs come in bursts, each spending kernel CPU freeing the
/// file's blocks, and on a machine with more runnable threads than cores
/// each new thread is a fresh task the scheduler runs ahead of the waiting
/// writers (a `perf sched` profile of the bulk import showed it;
/// docs/results/design-measurements.md). One thread competes as one task
/// and the closes queue behind each other. It keeps the process's CPU priority: a close holds filesystem
/// locks and a journal handle while it frees blocks, and a thread at a
/// lower priority preempted there could hold up other file operations.
/// Nothing waits for a queued close but the file's blocks: the table was
/// already unlinked.
///
/// If the thread cannot be started, or is gone, `close` runs on the calling
/// thread: slowly, but the file is closed.
fn close_in_background(close: impl FnOnce() + Send + 'static) {
    static CLOSER: OnceLock<Option<mpsc::Sender<Close>>> = OnceLock::new();
    let closer = CLOSER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Close>();
        let closer = move || {
            for close in rx {
                close();
            }
        };
        std::thread::Builder::new()
            .name("talus-close".into())
            .spawn(closer)
            .ok()
            .map(|_| tx)
    });
    let close: Close = Box::new(close);
    match closer {
        Some(tx) => {
            if let Err(mpsc::SendError(close)) = tx.send(close) {
                close();
            }
        }
        None => close(),
    }
}

/// How one family's tables are read: the reader half of its table options
/// (RocksDB keeps these in each family's table factory).
#[derive(Clone, Debug)]
pub(crate) struct FamilyTables {
    /// The family's block cache: one of its own, or a cache it shares with
    /// the families (and databases) whose options name the same object;
    /// `None` with `no_block_cache`.
    pub(crate) block_cache: Option<Arc<BlockCache>>,
    pub(crate) cache_index_and_filter_blocks: bool,
    /// Pin L0 tables' index and filter blocks in the cache.
    pub(crate) pin_l0: bool,
    /// The family's extractor: a table's filter is probed with its
    /// prefixes only if the table recorded the same extractor's name.
    pub(crate) prefix_extractor: Option<crate::options::PrefixExtractor>,
}

impl FamilyTables {
    /// The reader options of a family whose options are `opts`, with its
    /// block cache already resolved ([`resolve_block_cache`]).
    pub(crate) fn of(opts: &Options) -> Self {
        FamilyTables {
            block_cache: if opts.table.no_block_cache {
                None
            } else {
                opts.table.block_cache.clone()
            },
            cache_index_and_filter_blocks: opts.table.cache_index_and_filter_blocks,
            pin_l0: opts.table.pin_l0_filter_and_index_blocks_in_cache,
            prefix_extractor: opts.prefix_extractor,
        }
    }
}

/// Gives a family's table options their block cache, as RocksDB's table
/// factory does: none with `no_block_cache`; the cache named (shared with
/// whoever else names it); else a new cache of `block_cache_size` bytes,
/// the family's own.
pub(crate) fn resolve_block_cache(t: &mut crate::options::BlockBasedTableOptions) -> Result<()> {
    if t.no_block_cache {
        t.block_cache = None;
    } else if t.block_cache.is_none() {
        t.block_cache = Some(Arc::new(BlockCache::new(
            t.block_cache_size,
            -1,
            false,
            0.5,
        )?));
    }
    Ok(())
}

pub(crate) struct TableCache {
    open: Arc<OpenTables>,
    fs: Arc<dyn FileSystem>,
    dir: PathBuf,
    statistics: Option<Arc<crate::statistics::Statistics>>,
    read_charger: Option<ReadCharger>,
    /// `None` = unlimited: readers are kept in the file metadata.
    lru: Option<LruCache<Arc<TableReader>>>,
    owner: u64,
    /// The database's id: every table opened must carry it (or none).
    db_id: DbId,
}

impl TableCache {
    /// `closed` is set whenever a table file is closed; `read_charger` is
    /// given to every reader (compaction reads are charged to it); `db_id`
    /// is the database's id, which every table opened must carry (or none).
    pub(crate) fn new(
        fs: Arc<dyn FileSystem>,
        dir: &Path,
        opts: &Options,
        closed: Arc<AtomicBool>,
        read_charger: Option<ReadCharger>,
        db_id: DbId,
    ) -> Result<Self> {
        let lru = if opts.max_open_files > 0 {
            // Keep a few descriptors for logs, manifest and the info log.
            let n = (opts.max_open_files as usize).saturating_sub(10).max(16);
            Some(LruCache::new(n, 4, false, 0.0)?)
        } else {
            None
        };
        Ok(TableCache {
            open: Arc::new(OpenTables {
                files: Mutex::new(HashMap::new()),
                closed,
            }),
            fs,
            dir: dir.to_path_buf(),
            statistics: opts.statistics.clone(),
            read_charger,
            lru,
            owner: new_cache_owner_id(),
            db_id,
        })
    }

    fn open(&self, f: &FileMetaData, level: usize, fam: &FamilyTables) -> Result<Arc<TableReader>> {
        let path = self.dir.join(filename::table_file_name(f.number));
        let file = self
            .fs
            .new_random_access(&path)
            .map_err(|e| missing_as_corruption(e, &path))?;
        self.reader_on(f, level, file, fam)
    }

    /// Opens the file of table `f` without reading it. A missing file is
    /// the file system's `NotFound` IO error, not `Corruption`: a read-only
    /// or secondary instance takes it for a table the primary deleted
    /// (`readonly`), and [`Self::keep_open`] makes the reader from the handle.
    pub(crate) fn open_file(&self, f: &FileMetaData) -> Result<Arc<dyn RandomAccessFile>> {
        self.fs
            .new_random_access(&self.dir.join(filename::table_file_name(f.number)))
    }

    /// Makes `f`'s reader from `file`, a handle [`Self::open_file`] gave,
    /// and keeps it as [`Self::reader`] would, unless one is open already.
    /// With `max_open_files = -1` the reader lives as long as `f`: a table
    /// unlinked after this still reads through the handle. `fam`: how
    /// `f`'s family reads its tables.
    pub(crate) fn keep_open(
        &self,
        f: &FileMetaData,
        level: usize,
        file: Arc<dyn RandomAccessFile>,
        fam: &FamilyTables,
    ) -> Result<()> {
        if self.open_reader(f).is_ok() {
            return Ok(());
        }
        let r = self.reader_on(f, level, file, fam)?;
        match &self.lru {
            None => {
                let _ = f.table_reader.0.set(r);
            }
            Some(lru) => {
                let key = CacheKey {
                    owner: self.owner,
                    offset: f.number,
                };
                // Best effort, as in `reader`.
                let _ = lru.insert(key, r, 1, Priority::Low);
            }
        }
        Ok(())
    }

    /// The reader of table `f` over `file`, its open file, checked against
    /// `f` (module docs), reading as `f`'s family `fam` does.
    fn reader_on(
        &self,
        f: &FileMetaData,
        level: usize,
        file: Arc<dyn RandomAccessFile>,
        fam: &FamilyTables,
    ) -> Result<Arc<TableReader>> {
        let path = self.dir.join(filename::table_file_name(f.number));
        self.open.opened(f.number);
        let file: Arc<dyn RandomAccessFile> = Arc::new(CountedFile {
            inner: Some(file),
            number: f.number,
            tables: self.open.clone(),
        });
        // The size through the open file (an fstat), not a second lookup by path.
        let size = file.size()?;
        if size != f.file_size {
            return Err(wrong_size(&path, size, f));
        }
        let mut reader = TableReader::open(
            file,
            f.file_size,
            TableReaderOptions {
                file_name: path.display().to_string(),
                block_cache: fam.block_cache.clone(),
                cache_index_and_filter_blocks: fam.cache_index_and_filter_blocks,
                pin_index_and_filter: fam.pin_l0 && level == 0,
                verify_checksums: true,
                statistics: self.statistics.clone(),
                read_charger: self.read_charger.clone(),
                prefix_extractor: fam.prefix_extractor,
            },
        )?;
        // An ingested external table: its entries take the global sequence
        // number its manifest entry records (module docs of `db::ingest`).
        reader.apply_global_seqno(f.largest_seq);
        check_binding(
            &path,
            f,
            reader.properties(),
            reader.range_tombstones(),
            self.db_id,
        )?;
        Ok(Arc::new(reader))
    }

    /// The reader of `f`, opening it when needed. `level` is where the file
    /// lives (L0 readers may pin their index and filter); `fam` how `f`'s
    /// family reads its tables.
    pub(crate) fn reader(
        &self,
        f: &FileMetaData,
        level: usize,
        fam: &FamilyTables,
    ) -> Result<Arc<TableReader>> {
        match &self.lru {
            None => {
                if let Some(r) = f.table_reader.0.get() {
                    return Ok(r.clone());
                }
                let r = self.open(f, level, fam)?;
                // A racing opener may have won; both readers are equivalent.
                Ok(f.table_reader.0.get_or_init(|| r).clone())
            }
            Some(lru) => {
                let key = CacheKey {
                    owner: self.owner,
                    offset: f.number,
                };
                if let Some(r) = lru.lookup(&key) {
                    return Ok(r);
                }
                let r = self.open(f, level, fam)?;
                // Best effort: a full strict cache just means reopening later.
                let _ = lru.insert(key, r.clone(), 1, Priority::Low);
                Ok(r)
            }
        }
    }

    /// The reader of `f` if it is open, without opening it (reads that may
    /// not do IO, `ReadTier::BlockCache`): `Incomplete` otherwise.
    pub(crate) fn open_reader(&self, f: &FileMetaData) -> Result<Arc<TableReader>> {
        let open = match &self.lru {
            None => f.table_reader.0.get().cloned(),
            Some(lru) => lru.lookup(&CacheKey {
                owner: self.owner,
                offset: f.number,
            }),
        };
        open.ok_or_else(|| {
            Error::Incomplete(format!(
                "table {} is not open and the read may not do IO (read tier BLOCK_CACHE_TIER)",
                filename::table_file_name(f.number)
            ))
        })
    }

    /// The reader of `f` when it lives in `f` (`max_open_files = -1`) and
    /// is open; `None` otherwise. Opens nothing: for hints
    /// ([`DbInner::prefetch_filters`](super::DbInner)).
    #[inline]
    pub(crate) fn held_reader<'a>(&self, f: &'a FileMetaData) -> Option<&'a TableReader> {
        if self.lru.is_none() {
            f.table_reader.0.get().map(|r| &**r)
        } else {
            None
        }
    }

    /// The reader of `f` for one point lookup: borrowed from `f` when the
    /// reader lives there (`max_open_files = -1`, the default) and is open,
    /// else [`Self::reader_for`]'s. The caller's super version keeps `f`,
    /// and so its reader, alive for the borrow; a slot once filled is never
    /// emptied. Why not a clone: many reader threads doing lookups in the
    /// same few tables would all increment and decrement one shared count
    /// per lookup, a cache line moving between cores on every get.
    pub(crate) fn reader_ref<'a>(
        &self,
        f: &'a FileMetaData,
        level: usize,
        no_io: bool,
        fam: &FamilyTables,
    ) -> Result<Held<'a, TableReader>> {
        if let Some(r) = self.held_reader(f) {
            return Ok(Held::Borrowed(r));
        }
        self.reader_for(f, level, no_io, fam).map(Held::Owned)
    }

    /// The reader of `f` for a read: [`Self::reader`], or with `no_io`
    /// [`Self::open_reader`].
    pub(crate) fn reader_for(
        &self,
        f: &FileMetaData,
        level: usize,
        no_io: bool,
        fam: &FamilyTables,
    ) -> Result<Arc<TableReader>> {
        if no_io {
            self.open_reader(f)
        } else {
            self.reader(f, level, fam)
        }
    }

    /// Checks that every table of `files` exists with the size the manifest
    /// records (see [`check_table_file`]) and is the table its entry was
    /// made for ([`check_binding`]): the open-time check of
    /// `paranoid_checks`, three small reads per table (footer, properties,
    /// range tombstones), never the whole file.
    pub(crate) fn check_files<'a>(
        &self,
        files: impl IntoIterator<Item = &'a Arc<FileMetaData>>,
    ) -> Result<()> {
        for f in files {
            let path = self.dir.join(filename::table_file_name(f.number));
            check_table_file(self.fs.as_ref(), &path, f)?;
            let file = self
                .fs
                .new_random_access(&path)
                .map_err(|e| missing_as_corruption(e, &path))?;
            let (mut props, mut tombs) =
                TableReader::read_metadata(file, f.file_size, &path.display().to_string())?;
            if props.external_file_version.is_some() && f.largest_seq > 0 {
                crate::table::external_view(&mut props, &mut tombs, f.largest_seq);
            }
            check_binding(&path, f, &props, &tombs, self.db_id)?;
        }
        Ok(())
    }

    /// Reads the whole of table `f` and compares its XXH64 with the one the
    /// manifest recorded when it was written (nothing to compare for tables
    /// recorded before checksums): part of `verify_checksum()`.
    pub(crate) fn verify_file_checksum(&self, f: &FileMetaData) -> Result<()> {
        let Some(want) = f.file_checksum else {
            return Ok(());
        };
        let path = self.dir.join(filename::table_file_name(f.number));
        let file = self
            .fs
            .new_random_access(&path)
            .map_err(|e| missing_as_corruption(e, &path))?;
        let size = file.size()?;
        if size != f.file_size {
            return Err(wrong_size(&path, size, f));
        }
        let mut sum = crate::xxh64::Xxh64::new();
        let mut buf = vec![0u8; 1 << 20];
        let mut at = 0u64;
        while at < size {
            let n = (size - at).min(buf.len() as u64) as usize;
            file.read_exact_at(at, &mut buf[..n])?;
            sum.update(&buf[..n]);
            at += n as u64;
        }
        let got = sum.digest();
        if got != want {
            return Err(Error::corruption(
                path.display(),
                0,
                format!(
                    "table file checksum mismatch: the file's XXH64 is {got:016x}, the manifest \
                     recorded {want:016x} when it was written"
                ),
            ));
        }
        Ok(())
    }

    /// Called by the purge just before it unlinks table `number`: says
    /// whether it may, and if readers still hold the file, makes their
    /// closes run on a background thread (see [`CountedFile`]).
    pub(crate) fn claim_for_unlink(&self, number: u64) -> UnlinkClaim {
        let mut files = self.open.files.lock();
        match files.get_mut(&number) {
            Some(s) if s.closing > 0 => UnlinkClaim::Later,
            Some(s) => {
                s.unlinked = true;
                UnlinkClaim::Unlink
            }
            None => UnlinkClaim::Unlink,
        }
    }

    /// Forgets the reader of a deleted file.
    pub(crate) fn evict(&self, number: u64) {
        if let Some(lru) = &self.lru {
            lru.erase(&CacheKey {
                owner: self.owner,
                offset: number,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::thread::ThreadId;

    /// A file that reports, when dropped, the thread that dropped it.
    struct Closed(mpsc::Sender<(&'static str, ThreadId)>);

    impl RandomAccessFile for Closed {
        fn read_exact_at(&self, _offset: u64, _buf: &mut [u8]) -> Result<()> {
            Ok(())
        }
        fn size(&self) -> Result<u64> {
            Ok(0)
        }
    }

    impl Drop for Closed {
        fn drop(&mut self) {
            let _ = self.0.send(("file", std::thread::current().id()));
        }
    }

    /// A burst of closes (a compaction's inputs) runs on one long-lived
    /// thread, not on the caller's and not on a new thread each: each new
    /// thread was a fresh task the scheduler put ahead of waiting writers.
    #[test]
    fn a_burst_of_background_closes_runs_on_one_thread_in_order() {
        let (tx, rx) = mpsc::channel();
        for _ in 0..8 {
            let file: Arc<dyn RandomAccessFile> = Arc::new(Closed(tx.clone()));
            let then = tx.clone();
            close_in_background(move || {
                drop(file);
                let _ = then.send(("then", std::thread::current().id()));
            });
        }
        let events: Vec<_> = (0..16)
            .map(|_| rx.recv_timeout(std::time::Duration::from_secs(10)).unwrap())
            .collect();
        let closer = events[0].1;
        assert_ne!(closer, std::thread::current().id(), "closed on the caller");
        assert!(
            events.iter().all(|(_, t)| *t == closer),
            "closes ran on more than one thread: {events:?}"
        );
        let order: Vec<&str> = events.iter().map(|(what, _)| *what).collect();
        assert_eq!(
            order,
            ["file", "then"].repeat(8),
            "each close, then its follow-up"
        );
    }
}
