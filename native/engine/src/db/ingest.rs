//! Ingestion of external table files (RocksDB's `IngestExternalFile`):
//! tables written by [`crate::sst_file_writer::SstFileWriter`] become part
//! of a column family in one manifest edit.
//!
//! # Steps
//!
//! 1. **Inspect** each file (no lock held): it must be a Talus table marked
//!    external (property `EXTERNAL_FILE_VERSION`) naming no database, with
//!    every entry and tombstone at sequence 0 and strictly increasing user
//!    keys. Every block is read and its checksum verified, and the XXH64
//!    of the whole file computed (the manifest records it, as for every
//!    table). The files, sorted by smallest key, must not overlap each
//!    other. Anything else is `InvalidArgument` (or `Corruption` for a
//!    damaged file), naming the file, and nothing has changed.
//! 2. **Place the bytes**: each file gets a new file number (held in
//!    `pending_outputs`, so the obsolete-file sweep leaves it) and is hard
//!    linked as `NNNNNN.sst` with `move_files` (copied when the link fails,
//!    e.g. across file systems), else copied. Each linked or copied file is
//!    synced, then the database directory is synced.
//! 3. **Flush** the family's memtables if they overlap a file (only with
//!    `allow_blocking_flush`; else `InvalidArgument`).
//! 4. **Writes stopped** (the ingestion leads the write queue alone, kind
//!    `Exclusive`: no write group is in flight and none starts): check the
//!    memtables again (a write that arrived since the flush: flush again,
//!    a few times, then `Busy`); under the DB mutex, with compaction
//!    picking held off (`DbState::ingestions`), pick each file's level and
//!    whether a global sequence number is needed (below); take the number
//!    from the WAL's counter; record every file in **one** manifest edit
//!    (with the new last sequence); install the new version; publish the
//!    sequence number. Then writes resume.
//! 5. With `move_files` the original names are removed.
//!
//! # Levels and the global sequence number
//!
//! Walking down from L0, a file goes to the lowest level such that no file
//! of that level or any level above overlaps its user-key range, and no
//! running compaction's inputs at those levels span it (their outputs may
//! land there: the hull of the files being compacted per level is taken).
//! If anything in the family overlaps it — a level, a running compaction,
//! or (before the flush) a memtable — or if `snapshot_consistency` is set
//! and snapshots exist, the files take a *global sequence number* `G`, one
//! past the last one handed out: every entry of the files reads as written
//! at `G`, newer than all data already in the family and invisible to
//! snapshots taken before. Otherwise `G = 0` (the rows are older than
//! everything, which nothing contradicts). `G` is recorded as the manifest
//! entry's sequence range (`smallest_seq == largest_seq == G`) and applied
//! by the reader ([`crate::table::TableReader::apply_global_seqno`]); the
//! file is never rewritten. All files of one call share one `G` (they do
//! not overlap each other). `ingest_behind` puts every file in the last
//! level at `G = 0` (under everything; it must not overlap that level).
//!
//! # Crash safety
//!
//! A crash at any point leaves all files in or none, and never a manifest
//! naming a file that is not whole and durable:
//! - the manifest edit is the commit point: the files are in iff the edit
//!   is durable, and it is one edit for all files;
//! - before the edit, every file's bytes are synced and its name made
//!   durable by the directory sync (step 2), so the edit never names a
//!   half-copied file or a link a power loss undoes;
//! - the edit also records the last sequence number `G`, so that after a
//!   recovery no new write can take a number at or below the files'
//!   (WALs only carry the numbers of logged writes: their start records
//!   follow `last_logged`, which the ingestion leaves alone);
//! - a crash before the edit leaves files not named by the manifest, which
//!   the next open's obsolete-file sweep deletes; the user's files are
//!   untouched (a link leaves the original, which is removed only after
//!   the edit is durable).
//!
//! The crash tests: `tests/durability/ingest.rs` (power loss at every
//! mutating file-system call of an ingestion).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::family::ColumnFamilyData;
use super::write_thread::{LEADER, WriteKind, Writer};
use super::{ColumnFamilyHandle, Db, DbInner, FlushOptions};
use crate::error::{Error, Result};
use crate::fs::{RandomAccessFile, WriteFileOptions};
use crate::info_log;
use crate::iterator::InternalIterator;
use crate::key::{self, MAX_SEQUENCE, SequenceNumber, ValueKind};
use crate::memtable::{MemTable, MemTableIter, RangeTombstone};
use crate::options::WriteOptions;
use crate::table::{
    EXTERNAL_FILE_VERSION, TableProperties, TableReadOptions, TableReader, TableReaderOptions,
};
use crate::version::{FileMetaData, VersionEdit, filename};
use crate::write_batch::WriteBatch;

/// Options of an ingestion (RocksJava `IngestExternalFileOptions`), with
/// RocksDB's defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IngestExternalFileOptions {
    /// Hard link the files into the database and remove the original names
    /// once ingested; when the link fails (another file system) the file is
    /// copied. Default false: copy, and leave the originals.
    pub move_files: bool,
    /// Give the files a global sequence number when snapshots exist, so
    /// that snapshots taken before the ingestion do not see its rows.
    /// Default true.
    pub snapshot_consistency: bool,
    /// Allow a global sequence number; when one is needed and this is
    /// false, the ingestion fails with `InvalidArgument`. Default true.
    pub allow_global_seqno: bool,
    /// Flush the memtables when they overlap a file (writes wait while it
    /// runs); when false, such an ingestion fails with `InvalidArgument`.
    /// Default true.
    pub allow_blocking_flush: bool,
    /// Put the files under all existing data, in the last level, at
    /// sequence 0 (existing versions of their keys win). Needs the
    /// database option `allow_ingest_behind`. Default false.
    pub ingest_behind: bool,
    /// Fail (`InvalidArgument`; RocksDB's `TryAgain`) unless every file
    /// goes to the last level. Default false.
    pub fail_if_not_bottommost_level: bool,
}

impl Default for IngestExternalFileOptions {
    fn default() -> Self {
        IngestExternalFileOptions {
            move_files: false,
            snapshot_consistency: true,
            allow_global_seqno: true,
            allow_blocking_flush: true,
            ingest_behind: false,
            fail_if_not_bottommost_level: false,
        }
    }
}

/// One file being ingested.
struct External {
    /// The user's path.
    src: PathBuf,
    /// Properties (with `file_size` and `file_checksum`), stored sequence 0.
    props: TableProperties,
    tombs: Vec<RangeTombstone>,
    /// User-key range, range tombstone ends included (inclusive: a
    /// conservative overlap test).
    smallest: Vec<u8>,
    largest: Vec<u8>,
    /// The number in the database, once given.
    number: u64,
}

/// Times the memtables are flushed again for writes that arrived in the
/// ingested range between a flush and the writes being stopped.
const MAX_FLUSH_ATTEMPTS: usize = 3;

impl Db {
    /// Ingests the external table files `paths` into the default family.
    /// See the module docs of `db::ingest`.
    pub fn ingest_external_file<P: AsRef<Path>>(
        &self,
        paths: &[P],
        opts: &IngestExternalFileOptions,
    ) -> Result<()> {
        let cfd = self.inner.default_cf.clone();
        self.inner.ingest(&cfd, paths, opts)
    }

    /// [`Db::ingest_external_file`] into family `cf`.
    pub fn ingest_external_file_cf<P: AsRef<Path>>(
        &self,
        cf: &ColumnFamilyHandle,
        paths: &[P],
        opts: &IngestExternalFileOptions,
    ) -> Result<()> {
        let cfd = self.family(cf)?.clone();
        self.inner.ingest(&cfd, paths, opts)
    }
}

/// Leads the write queue alone while it lives: writes are stopped.
struct WritesStopped<'a> {
    db: &'a DbInner,
}

impl Drop for WritesStopped<'_> {
    fn drop(&mut self) {
        // Hands leadership to the next writer (never combines: ours is not
        // a batch group).
        self.db.write_queue.exit_or_combine(1, false);
    }
}

impl DbInner {
    fn stop_writes(&self) -> Result<WritesStopped<'_>> {
        let w = Writer::new(
            WriteBatch::new(),
            WriteOptions::default(),
            WriteKind::Exclusive,
            None,
        );
        match self.write_queue.join(&w) {
            LEADER => Ok(WritesStopped { db: self }),
            s => Err(Error::Aborted(format!(
                "ingestion: the write queue woke it in state {s} instead of leading"
            ))),
        }
    }

    pub(crate) fn ingest<P: AsRef<Path>>(
        self: &Arc<Self>,
        cfd: &Arc<ColumnFamilyData>,
        paths: &[P],
        o: &IngestExternalFileOptions,
    ) -> Result<()> {
        self.lifecycle.check_open()?;
        self.live_family(cfd)?;
        self.check_bg_error()?;
        if paths.is_empty() {
            return Err(Error::InvalidArgument("no files to ingest".into()));
        }
        if o.ingest_behind && !self.opts.allow_ingest_behind {
            return Err(Error::InvalidArgument(
                "ingest_behind needs the database option allow_ingest_behind".into(),
            ));
        }
        let started = std::time::Instant::now();
        // 1. Inspect.
        let mut files = Vec::with_capacity(paths.len());
        for p in paths {
            let p = p.as_ref();
            if files.iter().any(|f: &External| f.src == p) {
                return Err(Error::InvalidArgument(format!(
                    "{} is listed twice",
                    p.display()
                )));
            }
            files.push(self.inspect(p, cfd.opts.prefix_extractor)?);
        }
        files.sort_by(|a, b| a.smallest.cmp(&b.smallest));
        for w in files.windows(2) {
            if w[0].largest >= w[1].smallest {
                return Err(Error::InvalidArgument(format!(
                    "files to ingest overlap: {} and {} (files ingested together must \
                     hold disjoint key ranges)",
                    w[0].src.display(),
                    w[1].src.display()
                )));
            }
        }
        // 2. Numbers, then the bytes in place.
        {
            let mut st = self.state.lock();
            for f in &mut files {
                f.number = st.versions.new_file_number();
                st.pending_outputs.insert(f.number);
            }
        }
        let r = self.place_and_install(cfd, &mut files, o);
        {
            let mut st = self.state.lock();
            for f in &files {
                st.pending_outputs.remove(&f.number);
            }
        }
        match &r {
            Ok(g) => {
                if o.move_files {
                    for f in &files {
                        if let Err(e) = self.fs.remove_file(&f.src) {
                            info_log!(
                                self.info_log,
                                Warn,
                                "Ingestion: could not remove the moved file {}: {e}",
                                f.src.display()
                            );
                        }
                    }
                }
                info_log!(
                    self.info_log,
                    Info,
                    "Ingested {} files ({} bytes) into column family {:?} at sequence {g} in {} ms",
                    files.len(),
                    files.iter().map(|f| f.props.file_size).sum::<u64>(),
                    cfd.name,
                    started.elapsed().as_millis()
                );
            }
            Err(e) => info_log!(self.info_log, Warn, "Ingestion failed: {e}"),
        }
        r.map(|_| ())
    }

    /// Steps 2 to 4 of the module docs; returns the global sequence number.
    fn place_and_install(
        self: &Arc<Self>,
        cfd: &Arc<ColumnFamilyData>,
        files: &mut [External],
        o: &IngestExternalFileOptions,
    ) -> Result<SequenceNumber> {
        let mut placed: Vec<PathBuf> = Vec::new();
        let r = self.place_files(files, o, &mut placed);
        if let Err(e) = r {
            // Not named by any manifest: safe to remove (a crash before
            // this leaves them to the next open's obsolete-file sweep).
            for p in &placed {
                let _ = self.fs.remove_file(p);
            }
            return Err(e);
        }
        let r = self.install(cfd, files, o);
        if let Err(e) = &r
            && !matches!(e, Error::Io { .. } | Error::Corruption { .. })
        {
            // Refused before the manifest edit: the files are named
            // nowhere. (After a failed manifest write they are left to the
            // obsolete-file sweep, which keeps a table an edit that may be
            // durable names.)
            for p in &placed {
                let _ = self.fs.remove_file(p);
            }
        }
        r
    }

    /// Reads and checks one external file (step 1), as the target family
    /// (its extractor `prefix_extractor`) reads its tables.
    fn inspect(
        &self,
        path: &Path,
        prefix_extractor: Option<crate::options::PrefixExtractor>,
    ) -> Result<External> {
        let name = path.display().to_string();
        let size = self.fs.file_size(path)?;
        let file: Arc<dyn RandomAccessFile> = self.fs.new_random_access(path)?;
        let reader = TableReader::open(
            file.clone(),
            size,
            TableReaderOptions {
                file_name: name.clone(),
                verify_checksums: true,
                prefix_extractor,
                ..TableReaderOptions::default()
            },
        )?;
        let not_external = |why: &str| {
            Error::InvalidArgument(format!(
                "{name}: not an external table file ({why}); write files to ingest with \
                 SstFileWriter"
            ))
        };
        let p = reader.properties().clone();
        match p.external_file_version {
            None => return Err(not_external("it was written by a database")),
            Some(v) if v > EXTERNAL_FILE_VERSION => {
                return Err(Error::NotSupported(format!(
                    "{name}: external file version {v} (this build reads up to \
                     {EXTERNAL_FILE_VERSION})"
                )));
            }
            Some(_) => {}
        }
        if p.db_id.is_some() || p.orig_file_number.is_some() {
            return Err(not_external("it names a database"));
        }
        let bad = |reason: String| Error::corruption(&name, 0, reason);
        if p.smallest_seqno != 0 || p.largest_seqno != 0 {
            return Err(bad(format!(
                "external table with sequence numbers {}..{} (must all be 0)",
                p.smallest_seqno, p.largest_seqno
            )));
        }
        if p.num_entries == 0 && p.num_range_deletions == 0 {
            return Err(Error::InvalidArgument(format!(
                "{name}: the file holds no entries"
            )));
        }
        // Every data block read, checksums verified; keys checked.
        let reader = Arc::new(reader);
        let mut it = reader.iter(TableReadOptions {
            verify_checksums: true,
            fill_cache: false,
            ..TableReadOptions::default()
        });
        it.seek_to_first();
        let mut prev: Option<Vec<u8>> = None;
        let mut n = 0u64;
        while it.valid() {
            let k = it.key();
            let Some(parsed) = key::parse_internal_key(k) else {
                return Err(bad("malformed internal key".into()));
            };
            if parsed.seq != 0 || parsed.kind == ValueKind::RangeDeletion {
                return Err(bad(format!(
                    "entry at sequence {} of kind {:?} (an external table holds entries at \
                     sequence 0)",
                    parsed.seq, parsed.kind
                )));
            }
            if let Some(pk) = &prev
                && parsed.user_key <= pk.as_slice()
            {
                return Err(bad(
                    "user keys not strictly increasing (out of order or duplicated)".into(),
                ));
            }
            prev = Some(parsed.user_key.to_vec());
            n += 1;
            it.next();
        }
        it.status()?;
        if n != p.num_entries {
            return Err(bad(format!(
                "{n} entries read, the properties say {}",
                p.num_entries
            )));
        }
        let tombs = reader.range_tombstones().to_vec();
        if tombs.iter().any(|t| t.seq != 0 || t.begin >= t.end) {
            return Err(bad("bad range tombstone in an external table".into()));
        }
        let mut props = p;
        props.file_checksum = Some(xxh64_of(file.as_ref(), size)?);
        props.file_size = size;
        let meta = super::compaction::file_meta(0, &props, &tombs);
        Ok(External {
            src: path.to_path_buf(),
            smallest: meta.smallest_user_key().to_vec(),
            largest: meta.largest_user_key().to_vec(),
            props,
            tombs,
            number: 0,
        })
    }

    /// Step 2: links or copies every file in, syncs each, then the
    /// directory. `placed` gets each name made, for removal on failure.
    fn place_files(
        &self,
        files: &[External],
        o: &IngestExternalFileOptions,
        placed: &mut Vec<PathBuf>,
    ) -> Result<()> {
        let wo = WriteFileOptions {
            use_fsync: self.opts.use_fsync,
        };
        for f in files {
            let dst = self.path.join(filename::table_file_name(f.number));
            let linked = o.move_files && self.fs.link_file(&f.src, &dst).is_ok();
            placed.push(dst.clone());
            if linked {
                // The bytes must be durable under the new name before the
                // manifest names it: sync through it (the writer of the
                // source may not have).
                self.fs.new_appendable(&dst, wo)?.sync()?;
                let size = self.fs.file_size(&dst)?;
                if size != f.props.file_size {
                    return Err(Error::InvalidArgument(format!(
                        "{} changed while being ingested ({size} bytes, {} when inspected)",
                        f.src.display(),
                        f.props.file_size
                    )));
                }
            } else {
                self.copy_file(f, &dst, wo)?;
            }
        }
        // The names, durable before the manifest edit that names them (a
        // power loss could otherwise keep the edit and lose a name).
        self.fs.sync_dir(&self.path)
    }

    /// Copies `f` to `dst`, checking it is the file inspected (its XXH64),
    /// and syncs the copy.
    fn copy_file(&self, f: &External, dst: &Path, wo: WriteFileOptions) -> Result<()> {
        let mut src = self.fs.new_sequential(&f.src)?;
        let mut out = self.fs.new_writable(dst, wo)?;
        let mut buf = vec![0u8; 1 << 20];
        let mut sum = crate::xxh64::Xxh64::new();
        let mut len = 0u64;
        loop {
            let n = src.read(&mut buf)?;
            if n == 0 {
                break;
            }
            sum.update(&buf[..n]);
            out.append(&buf[..n])?;
            len += n as u64;
        }
        // Durable before the directory sync and the manifest edit.
        out.sync()?;
        if len != f.props.file_size || Some(sum.digest()) != f.props.file_checksum {
            return Err(Error::InvalidArgument(format!(
                "{} changed while being ingested",
                f.src.display()
            )));
        }
        Ok(())
    }

    /// Steps 3 and 4: flush if needed, then with writes stopped place the
    /// files in the version and the manifest. Returns `G`.
    fn install(
        self: &Arc<Self>,
        cfd: &Arc<ColumnFamilyData>,
        files: &mut [External],
        o: &IngestExternalFileOptions,
    ) -> Result<SequenceNumber> {
        let mut attempts = 0;
        loop {
            if !o.ingest_behind && overlaps_memtables(cfd, files) {
                if !o.allow_blocking_flush {
                    return Err(Error::InvalidArgument(
                        "the files to ingest overlap the memtable and allow_blocking_flush is \
                         false"
                            .into(),
                    ));
                }
                if attempts == MAX_FLUSH_ATTEMPTS {
                    return Err(Error::Busy(
                        "writes to the ingested key range kept arriving while the memtable \
                         was flushed for the ingestion"
                            .into(),
                    ));
                }
                attempts += 1;
                self.flush_cf(
                    &FlushOptions {
                        wait: true,
                        allow_write_stall: true,
                    },
                    cfd,
                )?;
            }
            let stopped = self.stop_writes()?;
            // No write group is in flight: every acknowledged write is in
            // a memtable this check sees.
            if !o.ingest_behind && overlaps_memtables(cfd, files) {
                // A write arrived since the flush: flush again.
                drop(stopped);
                continue;
            }
            let r = self.install_stopped(cfd, files, o);
            drop(stopped);
            return r;
        }
    }

    /// Step 4, writes stopped.
    fn install_stopped(
        self: &Arc<Self>,
        cfd: &Arc<ColumnFamilyData>,
        files: &mut [External],
        o: &IngestExternalFileOptions,
    ) -> Result<SequenceNumber> {
        self.lifecycle.check_open()?;
        let mut st = self.state.lock();
        if let Some(e) = &st.bg_error {
            return Err(e.clone());
        }
        cfd.check_live()?;
        // Held off compaction picking first, then waited for any manifest
        // write in progress: the version examined below is the one the
        // edit applies to, and no compaction picked later can write over
        // the chosen ranges.
        st.ingestions += 1;
        let r = (|| {
            while st.versions.manifest_write_pending() {
                self.bg_cv.wait(&mut st);
            }
            let v = st
                .versions
                .current_cf(cfd.id)
                .ok_or_else(|| Error::InvalidArgument("the column family was dropped".into()))?;
            let last = v.num_levels() - 1;
            let base = cfd.base_level(&v);
            let mut levels = Vec::with_capacity(files.len());
            let mut overlap = false;
            for f in files.iter() {
                let (level, hit) = if o.ingest_behind {
                    if range_blocked(&v, last, f) {
                        return Err(Error::InvalidArgument(format!(
                            "{}: cannot ingest behind: the last level (L{last}) holds keys in \
                             its range",
                            f.src.display()
                        )));
                    }
                    (last, false)
                } else {
                    pick_level(&v, f, base)
                };
                overlap |= hit;
                if o.fail_if_not_bottommost_level && level != last {
                    return Err(Error::InvalidArgument(format!(
                        "{}: cannot be ingested into the last level (L{last}): its key range \
                         overlaps data there or above (fail_if_not_bottommost_level)",
                        f.src.display()
                    )));
                }
                levels.push(level);
            }
            let need_seqno = !o.ingest_behind
                && (overlap || (o.snapshot_consistency && self.snapshots.len() > 0));
            if need_seqno && !o.allow_global_seqno {
                return Err(Error::InvalidArgument(
                    "the files need a global sequence number (they overlap data in the \
                     column family, or snapshots exist) and allow_global_seqno is false"
                        .into(),
                ));
            }
            // The number: one past every number handed out (writes are
            // stopped, so none is in use by a group in flight).
            let g = if need_seqno {
                let mut wal = self.wal.lock();
                let g = wal
                    .last_allocated
                    .max(self.last_sequence.load(Ordering::Acquire))
                    + 1;
                if g > MAX_SEQUENCE {
                    return Err(Error::InvalidArgument("sequence numbers exhausted".into()));
                }
                wal.last_allocated = g;
                g
            } else {
                0
            };
            let mut edit = VersionEdit {
                column_family: cfd.id,
                ..VersionEdit::default()
            };
            if g > 0 {
                edit.last_sequence = Some(g);
            }
            for (f, &level) in files.iter().zip(&levels) {
                let (mut props, mut tombs) = (f.props.clone(), f.tombs.clone());
                if g > 0 {
                    crate::table::external_view(&mut props, &mut tombs, g);
                }
                let meta: FileMetaData = super::compaction::file_meta(f.number, &props, &tombs);
                edit.add_file(level, Arc::new(meta));
            }
            // The commit point (module docs, "Crash safety"): every file
            // and its name are durable (`place_files`) before this edit.
            if let Err(e) = self.log_and_apply(&mut st, edit) {
                self.set_bg_error(&mut st, &e);
                return Err(e);
            }
            if let Some(fam) = st.families.get_mut(&cfd.id) {
                let a = &mut fam.stats.add_file;
                for (f, &level) in files.iter().zip(&levels) {
                    a.bytes += f.props.file_size;
                    a.files += 1;
                    a.l0_files += u64::from(level == 0);
                    a.keys += f.props.num_entries;
                }
            }
            self.refresh_super_version(&mut st, cfd.id);
            // Published after the version that holds the files: a reader
            // that sees `g` sees them.
            if g > 0 {
                self.last_sequence.fetch_max(g, Ordering::AcqRel);
            }
            Ok(g)
        })();
        st.ingestions -= 1;
        self.maybe_schedule_work(&mut st);
        drop(st);
        self.bg_cv.notify_all();
        r
    }
}

/// Whether any memtable of the family (active or immutable) holds a key or
/// range tombstone in a file's range.
fn overlaps_memtables(cfd: &ColumnFamilyData, files: &[External]) -> bool {
    let sv = cfd.super_version.load();
    std::iter::once(&sv.mem)
        .chain(sv.imm.iter())
        .any(|m| files.iter().any(|f| memtable_overlaps(m, f)))
}

fn memtable_overlaps(m: &Arc<MemTable>, f: &External) -> bool {
    if m.is_empty() {
        return false;
    }
    let mut it = MemTableIter::new(m.clone());
    it.seek(&key::make_internal_key(
        &f.smallest,
        MAX_SEQUENCE,
        ValueKind::SingleDeletion,
    ));
    if it.valid() && key::user_key(it.key()) <= f.largest.as_slice() {
        return true;
    }
    m.range_tombstones().iter().any(|t| {
        t.begin.as_slice() <= f.largest.as_slice() && t.end.as_slice() > f.smallest.as_slice()
    })
}

/// Whether level `l` of `v` holds a file overlapping `f`, or a running
/// compaction's inputs there span `f` (the hull of the level's files being
/// compacted: their outputs may fill the gaps between them).
fn range_blocked(v: &crate::version::Version, l: usize, f: &External) -> bool {
    let files = v.files(l);
    let (lo, hi) = (Some(f.smallest.as_slice()), Some(f.largest.as_slice()));
    if files.iter().any(|m| m.overlaps_user_range(lo, hi)) {
        return true;
    }
    let mut hull: Option<(&[u8], &[u8])> = None;
    for m in files.iter().filter(|m| m.is_being_compacted()) {
        let (s, e) = (m.smallest_user_key(), m.largest_user_key());
        hull = Some(match hull {
            None => (s, e),
            Some((hs, he)) => (hs.min(s), he.max(e)),
        });
    }
    hull.is_some_and(|(s, e)| s <= f.largest.as_slice() && e >= f.smallest.as_slice())
}

/// The lowest level `f` fits (nothing at it or above in its range), and
/// whether anything in the family overlaps it. Levels between L0 and
/// `base_level` are never chosen (as RocksDB's ingestion skips them): with
/// dynamic level sizing they are empty by construction (the base level is
/// at or above the first non-empty level), and a file placed there would
/// become the first non-empty level, pulling the base level up to it, so
/// that every later compaction out of L0 went there and each level below
/// was rewritten once more on the way down (an ingestion of overlapping
/// files into an empty database walked one file per level from L6 up to
/// L1). Pinned by `ingest::overlapping_files_skip_the_levels_above_the_base`.
fn pick_level(v: &crate::version::Version, f: &External, base_level: usize) -> (usize, bool) {
    let mut target = 0;
    for l in 0..v.num_levels() {
        if l > 0 && l < base_level {
            continue;
        }
        if range_blocked(v, l, f) {
            return (target, true);
        }
        target = l;
    }
    (target, false)
}

/// XXH64 of the whole file.
fn xxh64_of(file: &dyn RandomAccessFile, size: u64) -> Result<u64> {
    let mut sum = crate::xxh64::Xxh64::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut at = 0u64;
    while at < size {
        let n = (size - at).min(buf.len() as u64) as usize;
        file.read_exact_at(at, &mut buf[..n])?;
        sum.update(&buf[..n]);
        at += n as u64;
    }
    Ok(sum.digest())
}
