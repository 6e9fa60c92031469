//! [`VersionSet`]: the current version of every column family, the file and
//! sequence counters, and the manifest that persists them.
//!
//! Column families: each live family has its own current version, log
//! number and compaction cursors ([`FamilyVersions`]); the counters, the
//! WAL set, the id and the manifest are the database's. Each edit belongs
//! to one family (`VersionEdit::column_family`); a family is created by an
//! edit carrying `column_family_add` and removed by one carrying
//! `column_family_drop` (module docs of [`super::edit`]). The default
//! family (id 0, [`DEFAULT_FAMILY_NAME`]) always exists and is never
//! dropped.
//!
//! Thread-safety: single owner, `&mut self` for every change; see the
//! concurrency contract in [`super`].

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};

use super::builder::VersionBuilder;
use super::edit::{VersionEdit, WalMeta};
use super::filename::{self, CURRENT, FileType};
use super::levels::Version;
use crate::error::{Error, Result};
use crate::fs::{FileSystem, WriteFileOptions, read_all, write_file_atomic};
use crate::identity::DbId;
use crate::key::SequenceNumber;
use crate::options::Options;
use crate::wal::{LogReader, LogWriter, ReadEvent};

/// Name of the (only) comparator, recorded in every manifest snapshot.
pub const COMPARATOR_NAME: &str = "talus.BytewiseComparator";

/// Name of the default column family (id 0), as RocksDB names it.
pub const DEFAULT_FAMILY_NAME: &str = "default";

/// What the manifest holds of one column family.
#[derive(Debug)]
pub struct FamilyVersions {
    /// The family's name.
    pub name: String,
    current: Arc<Version>,
    /// Logs below this hold none of the family's unflushed writes (before
    /// the database's `min_log_to_keep` is applied: [`VersionSet::family_log_number`]).
    log_number: u64,
    /// Round-robin cursor per level (empty = start of the level).
    compact_cursors: Vec<Vec<u8>>,
}

impl FamilyVersions {
    fn new(name: &str, levels: usize) -> Self {
        FamilyVersions {
            name: name.to_string(),
            current: Arc::new(Version::new(levels)),
            log_number: 0,
            compact_cursors: vec![Vec::new(); levels],
        }
    }
}

/// Size at which the manifest is rewritten as one snapshot (64 MiB).
pub const DEFAULT_MAX_MANIFEST_FILE_SIZE: u64 = 64 << 20;

/// The state the DB persists through the manifest. See the module docs.
pub struct VersionSet {
    dir: ManifestDir,
    /// The live column families by id; always holds the default one (0).
    families: BTreeMap<u32, FamilyVersions>,
    /// Largest family id ever handed out (ids are never reused).
    max_column_family: u32,
    /// Logs below this hold nothing any family still needs.
    min_log_to_keep: u64,
    /// Levels of a family created from now on: set per family by the
    /// database before it adds one ([`Self::prepare_edit`]).
    levels_of_new_family: usize,
    /// Every version installed, for [`Self::live_files`]; dead ones are pruned on install.
    versions: Vec<Weak<Version>>,
    next_file_number: u64,
    last_sequence: SequenceNumber,
    prev_log_number: u64,
    manifest_number: u64,
    /// The database's id as the manifest records it (`None`: a database
    /// from before ids, until [`Self::set_db_id`]).
    db_id: Option<DbId>,
    /// The id is not in the live manifest yet: the next edit carries it.
    db_id_unrecorded: bool,
    /// The live write-ahead logs the manifest records (all ≥ `log_number`),
    /// with what it knows of each: see [`Self::wals`].
    wals: BTreeMap<u64, WalMeta>,
    /// `None` after recovery and after a failed manifest write: the next
    /// [`Self::log_and_apply`] then starts a new manifest with a snapshot
    /// rather than appending after a possibly torn record.
    manifest: Option<LogWriter>,
    max_manifest_file_size: u64,
    obsolete_manifests: Vec<u64>,
    /// Manifests from rolls that failed after `CURRENT` may have been
    /// switched to them: not obsolete until a later roll succeeds.
    abandoned_manifests: Vec<u64>,
    /// Tables added by edits whose manifest write failed: the edit may be
    /// on disk anyway (a failed sync after the append reached the OS), so
    /// recovery may find them named. Live until a later `log_and_apply`
    /// succeeds, which writes a new manifest without them.
    uncertain_files: Vec<u64>,
    /// Tables added by the edit between [`Self::prepare_edit`] and
    /// [`Self::commit_edit`]; `Some` exactly while one is pending.
    pending_files: Option<Vec<u64>>,
    recovery_warnings: Vec<String>,
}

impl std::fmt::Debug for VersionSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VersionSet")
            .field("dbname", &self.dir.dbname)
            .field("families", &self.families.len())
            .field("next_file_number", &self.next_file_number)
            .field("last_sequence", &self.last_sequence)
            .field("log_number", &self.log_number())
            .field("manifest_number", &self.manifest_number)
            .finish_non_exhaustive()
    }
}

fn num_levels(opts: &Options) -> usize {
    usize::try_from(opts.num_levels.max(1)).unwrap_or(1)
}

impl VersionSet {
    fn empty(fs: Arc<dyn FileSystem>, dbname: &Path, opts: &Options) -> Self {
        let levels = num_levels(opts);
        let default = FamilyVersions::new(DEFAULT_FAMILY_NAME, levels);
        VersionSet {
            dir: ManifestDir {
                fs,
                dbname: dbname.to_path_buf(),
                write_opts: WriteFileOptions {
                    use_fsync: opts.use_fsync,
                },
            },
            versions: vec![Arc::downgrade(&default.current)],
            families: BTreeMap::from([(0, default)]),
            max_column_family: 0,
            min_log_to_keep: 0,
            levels_of_new_family: levels,
            next_file_number: 2,
            last_sequence: 0,
            prev_log_number: 0,
            manifest_number: 0,
            db_id: None,
            db_id_unrecorded: false,
            wals: BTreeMap::new(),
            manifest: None,
            max_manifest_file_size: DEFAULT_MAX_MANIFEST_FILE_SIZE,
            obsolete_manifests: Vec::new(),
            abandoned_manifests: Vec::new(),
            uncertain_files: Vec::new(),
            pending_files: None,
            recovery_warnings: Vec::new(),
        }
    }

    /// Creates the manifest of a new, empty database with id `db_id`:
    /// `MANIFEST-000001` holding one snapshot edit (comparator, the id, log
    /// number 0, next file number 2, last sequence 0), then `CURRENT` naming
    /// it.
    ///
    /// Preconditions: `dbname` exists and holds no database (the DB checks
    /// `create_if_missing` / `error_if_exists` and holds the `LOCK`).
    pub fn create_new(
        fs: Arc<dyn FileSystem>,
        dbname: &Path,
        opts: &Options,
        db_id: DbId,
    ) -> Result<Self> {
        let mut vs = Self::empty(fs, dbname, opts);
        vs.db_id = Some(db_id);
        let number = 1;
        let edit = vs.snapshot_edit(number + 1);
        let writer = vs
            .dir
            .write_new_manifest(number, &edit, None)
            .map_err(|f| f.error)?;
        vs.manifest_number = number;
        vs.manifest = Some(writer);
        Ok(vs)
    }

    /// Rebuilds the state from `CURRENT` and the manifest it names.
    ///
    /// - `CURRENT` missing or not naming a manifest, or the manifest missing:
    ///   `Corruption` naming that file. (The DB tells "no database" from
    ///   "damaged database" by checking `CURRENT` exists before calling.)
    /// - A torn last record (what a crash during an append leaves, with
    ///   nothing after it) is dropped and reported in
    ///   [`Self::recovery_warnings`]; a checksum mismatch or malformed
    ///   record anywhere else, or an undecodable edit, is `Corruption` naming
    ///   the manifest and offset.
    /// - A manifest without next-file-number, log-number or last-sequence
    ///   entries is `Corruption`; one written with another comparator, or
    ///   with files at levels ≥ `opts.num_levels`, is `InvalidArgument`.
    ///
    /// The recovered manifest is not appended to: the first
    /// [`Self::log_and_apply`] writes a new one. Whether the table files
    /// exist is the caller's check. WAL files found in the directory must be
    /// passed to [`Self::mark_file_number_used`] before new numbers are handed out.
    pub fn recover(fs: Arc<dyn FileSystem>, dbname: &Path, opts: &Options) -> Result<Self> {
        Self::recover_with(fs, dbname, opts, &|_| num_levels(opts))
    }

    /// [`Self::recover`] with the number of levels of each family by name
    /// (each family has its own `num_levels`).
    pub fn recover_with(
        fs: Arc<dyn FileSystem>,
        dbname: &Path,
        opts: &Options,
        levels_of: &dyn Fn(&str) -> usize,
    ) -> Result<Self> {
        let mut vs = Self::empty(fs, dbname, opts);
        let current_path = dbname.join(CURRENT);
        if !vs.dir.fs.try_exists(&current_path)? {
            return Err(Error::corruption(
                current_path.display(),
                0,
                "CURRENT file is missing",
            ));
        }
        let contents = read_all(vs.dir.fs.as_ref(), &current_path)?;
        let number = std::str::from_utf8(&contents)
            .ok()
            .and_then(|s| s.strip_suffix('\n'))
            .and_then(filename::parse_file_name)
            .and_then(|t| match t {
                FileType::Manifest(n) => Some(n),
                _ => None,
            })
            .ok_or_else(|| {
                Error::corruption(
                    current_path.display(),
                    0,
                    format!(
                        "CURRENT does not name a manifest: {:?}",
                        String::from_utf8_lossy(&contents[..contents.len().min(64)])
                    ),
                )
            })?;
        let path = dbname.join(filename::manifest_file_name(number));
        let name = path.display().to_string();
        if !vs.dir.fs.try_exists(&path)? {
            return Err(Error::corruption(
                &name,
                0,
                "the manifest named by CURRENT is missing",
            ));
        }

        let mut reader = LogReader::new(vs.dir.fs.new_sequential(&path)?);
        let mut builders: BTreeMap<u32, VersionBuilder> = BTreeMap::from([(
            0,
            VersionBuilder::new(&vs.families[&0].current, name.as_str()),
        )]);
        let (mut next_file, mut log_number, mut last_seq) = (None, None, None);
        loop {
            match reader.next()? {
                ReadEvent::Record { offset } => {
                    let edit = VersionEdit::decode(reader.record(), &name, offset)?;
                    if let Some(c) = &edit.comparator
                        && c != COMPARATOR_NAME
                    {
                        return Err(Error::InvalidArgument(format!(
                            "{name}: database was written with comparator {c:?}, Talus uses {COMPARATOR_NAME:?}"
                        )));
                    }
                    let cf = edit.column_family;
                    let bad = |reason: String| Error::corruption(&name, offset, reason);
                    if let Some(fam) = &edit.column_family_add {
                        if cf == 0 || vs.families.contains_key(&cf) {
                            return Err(bad(format!("column family {cf} ({fam:?}) added twice")));
                        }
                        let levels = levels_of(fam);
                        let f = FamilyVersions::new(fam, levels);
                        builders.insert(cf, VersionBuilder::new(&f.current, name.as_str()));
                        vs.families.insert(cf, f);
                        vs.max_column_family = vs.max_column_family.max(cf);
                    }
                    let Some(builder) = builders.get_mut(&cf) else {
                        return Err(bad(format!("edit of unknown column family {cf}")));
                    };
                    if edit.column_family_drop {
                        if cf == 0 {
                            return Err(bad("the default column family dropped".into()));
                        }
                        builders.remove(&cf);
                        vs.families.remove(&cf);
                    } else {
                        builder.apply(&edit, offset)?;
                        let fam = vs.families.get_mut(&cf).expect("built with its builder");
                        if let Some(n) = edit.log_number {
                            fam.log_number = n;
                            if cf == 0 {
                                log_number = Some(n);
                            }
                        }
                        apply_cursors(fam, &edit);
                    }
                    if let Some(id) = edit.db_id {
                        vs.db_id = Some(id);
                    }
                    if let Some(m) = edit.max_column_family {
                        vs.max_column_family = vs.max_column_family.max(m);
                    }
                    if let Some(m) = edit.min_log_to_keep {
                        vs.min_log_to_keep = vs.min_log_to_keep.max(m);
                    }
                    vs.wals.extend(edit.wal_additions.iter().copied());
                    next_file = edit.next_file_number.or(next_file);
                    last_seq = edit.last_sequence.or(last_seq);
                    if let Some(p) = edit.prev_log_number {
                        vs.prev_log_number = p;
                    }
                }
                ReadEvent::Eof => break,
                ReadEvent::TornTail { offset, reason } => {
                    // The log reader reports a torn tail only when nothing
                    // follows it: an append interrupted by a crash, never
                    // acknowledged, safe to drop.
                    vs.recovery_warnings.push(format!(
                        "{name}: dropped an incomplete record at offset {offset}: {reason}"
                    ));
                    break;
                }
                ReadEvent::Corrupt { offset, reason } => {
                    return Err(Error::corruption(&name, offset, reason));
                }
            }
        }
        let missing =
            |what: &str| Error::corruption(&name, 0, format!("manifest has no {what} entry"));
        vs.next_file_number = next_file.ok_or_else(|| missing("next_file_number"))?;
        log_number.ok_or_else(|| missing("log_number"))?;
        vs.last_sequence = last_seq.ok_or_else(|| missing("last_sequence"))?;
        let min_log = vs.log_number();
        vs.wals.retain(|&n, _| n >= min_log);
        vs.manifest_number = number;
        let mut used = vec![number, min_log, vs.prev_log_number];
        for (cf, builder) in builders {
            let version = builder.finish()?;
            used.extend(version.live_file_numbers());
            used.push(vs.families[&cf].log_number);
            vs.install(cf, version);
        }
        // Never hand out a number some file may already carry.
        for n in used {
            vs.mark_file_number_used(n);
        }
        Ok(vs)
    }

    /// The database's id, as the manifest records it; `None` for a database
    /// written before ids existed, until [`Self::set_db_id`].
    pub fn db_id(&self) -> Option<DbId> {
        self.db_id
    }

    /// Gives a database without an id its id: the next edit records it.
    /// An id already recorded is never replaced.
    pub fn set_db_id(&mut self, id: DbId) {
        if self.db_id.is_none() {
            self.db_id = Some(id);
            self.db_id_unrecorded = true;
        }
    }

    /// The live write-ahead logs the manifest records, by number, with
    /// what it knows of each (RocksDB's `WalSet`): every one must exist at
    /// recovery, no shorter than its `synced_size`. All are at or above
    /// [`Self::log_number`]: an edit moving the log number forgets the logs
    /// below it (RocksDB's `WalDeletion`).
    pub fn wals(&self) -> &BTreeMap<u64, WalMeta> {
        &self.wals
    }

    /// Notes from recovery about damage that was tolerated (for the info log).
    pub fn recovery_warnings(&self) -> &[String] {
        &self.recovery_warnings
    }

    /// The database directory.
    pub fn dbname(&self) -> &Path {
        &self.dir.dbname
    }

    /// Number of levels of the default family.
    pub fn num_levels(&self) -> usize {
        self.families[&0].current.num_levels()
    }

    /// The live column families by id.
    pub fn families(&self) -> &BTreeMap<u32, FamilyVersions> {
        &self.families
    }

    /// Largest family id ever handed out.
    pub fn max_column_family(&self) -> u32 {
        self.max_column_family
    }

    /// Hands out the id of a new family (recorded by the edit adding it).
    pub fn new_column_family_id(&mut self) -> u32 {
        self.max_column_family += 1;
        self.max_column_family
    }

    /// Sets the number of levels the next family added gets.
    pub fn set_levels_of_new_family(&mut self, levels: usize) {
        self.levels_of_new_family = levels.max(1);
    }

    /// Sets the size at which the manifest is rewritten as a snapshot.
    pub fn set_max_manifest_file_size(&mut self, bytes: u64) {
        self.max_manifest_file_size = bytes;
    }

    /// Hands out a new file number. It becomes durable with the next
    /// [`Self::log_and_apply`]; until then, after a crash, recovery may hand
    /// it out again, so a file must not be trusted (referenced by an edit)
    /// before an edit that covers its number is written — `log_and_apply`
    /// of the edit adding it does exactly that.
    pub fn new_file_number(&mut self) -> u64 {
        let n = self.next_file_number;
        self.next_file_number += 1;
        n
    }

    /// The next number [`Self::new_file_number`] would return.
    pub fn next_file_number(&self) -> u64 {
        self.next_file_number
    }

    /// Makes sure `number` is never handed out (e.g. a WAL found at recovery).
    pub fn mark_file_number_used(&mut self, number: u64) {
        if self.next_file_number <= number {
            self.next_file_number = number + 1;
        }
    }

    /// The current version of the default family.
    pub fn current(&self) -> Arc<Version> {
        self.families[&0].current.clone()
    }

    /// The current version of family `cf`; `None` when it does not exist
    /// (dropped).
    pub fn current_cf(&self, cf: u32) -> Option<Arc<Version>> {
        self.families.get(&cf).map(|f| f.current.clone())
    }

    /// The last sequence number the next edit will persist.
    pub fn last_sequence(&self) -> SequenceNumber {
        self.last_sequence
    }

    /// Sets the sequence number the next [`Self::log_and_apply`] records.
    /// The DB sets it to its published sequence before a flush commits.
    pub fn set_last_sequence(&mut self, seq: SequenceNumber) {
        debug_assert!(seq >= self.last_sequence, "last_sequence going backwards");
        self.last_sequence = seq;
    }

    /// WALs with numbers below this hold nothing that is not in tables, in
    /// any family: the smallest family log number, at least the database's
    /// `min_log_to_keep`.
    pub fn log_number(&self) -> u64 {
        self.families
            .keys()
            .map(|&cf| self.family_log_number(cf))
            .min()
            .unwrap_or(self.min_log_to_keep)
    }

    /// Logs below this hold nothing unflushed of family `cf` (0 when the
    /// family does not exist).
    pub fn family_log_number(&self, cf: u32) -> u64 {
        self.families
            .get(&cf)
            .map_or(0, |f| f.log_number.max(self.min_log_to_keep))
    }

    /// Older WAL still needed (0 = none).
    pub fn prev_log_number(&self) -> u64 {
        self.prev_log_number
    }

    /// Number of the live manifest (what `CURRENT` names).
    pub fn manifest_file_number(&self) -> u64 {
        self.manifest_number
    }

    /// Round-robin compaction cursors of the default family, one per level
    /// (empty = none).
    pub fn compact_cursors(&self) -> &[Vec<u8>] {
        &self.families[&0].compact_cursors
    }

    /// [`Self::compact_cursors`] of family `cf` (empty when it does not exist).
    pub fn compact_cursors_cf(&self, cf: u32) -> &[Vec<u8>] {
        self.families
            .get(&cf)
            .map_or(&[][..], |f| &f.compact_cursors)
    }

    /// Table numbers referenced by any version still alive (the current one
    /// and those held by readers and compactions), ascending. A table file
    /// not in this set and below [`Self::next_file_number`] is obsolete,
    /// unless a flush or compaction is still writing it.
    pub fn live_files(&self) -> Vec<u64> {
        let mut live: BTreeSet<u64> = self
            .uncertain_files
            .iter()
            .chain(self.pending_files.iter().flatten())
            .copied()
            .collect();
        for v in self.versions.iter().filter_map(Weak::upgrade) {
            live.extend(v.live_file_numbers());
        }
        live.into_iter().collect()
    }

    /// Manifests this set has replaced and nobody reads any more; the DB
    /// deletes them. Leftovers of crashes are found by listing the
    /// directory: a `MANIFEST-n` with `n < manifest_file_number()` is
    /// obsolete. (Not `n != ...`: after a failed roll, `CURRENT` may name a
    /// manifest numbered above the one this set still calls live.)
    pub fn obsolete_manifests(&self) -> &[u64] {
        &self.obsolete_manifests
    }

    /// Returns the obsolete manifests and forgets them.
    pub fn take_obsolete_manifests(&mut self) -> Vec<u64> {
        std::mem::take(&mut self.obsolete_manifests)
    }

    /// Persists `edit` and installs the version it produces: the three steps
    /// of [`Self::prepare_edit`], [`PendingEdit::write`] and
    /// [`Self::commit_edit`] in one call, for owners that may hold their lock
    /// across the manifest IO (open, recovery, tests).
    ///
    /// Fills in `next_file_number` (past every number handed out and every
    /// file the edit adds) and, when the edit leaves them unset,
    /// `last_sequence` (from [`Self::set_last_sequence`]), `log_number` and
    /// `prev_log_number` (the current ones). The new version is built and
    /// checked first, so an inconsistent edit never reaches the manifest.
    /// The edit is then appended to the manifest and synced — or, when the
    /// manifest has reached its size limit or there is no open manifest
    /// (after recovery or a failed write), written to a new manifest after a
    /// full snapshot, which `CURRENT` is switched to. Only then is the new
    /// version installed and returned.
    ///
    /// On error nothing observable changes (current version, sequence, log
    /// numbers, cursors), except that the file-number counter may have
    /// moved past a manifest that was being created, so that number is never
    /// reused. The manifest that failed is abandoned: the next call writes a
    /// new one. An edit whose write failed may still have reached the disk,
    /// so the files it adds stay in [`Self::live_files`] until a later call
    /// succeeds.
    pub fn log_and_apply(&mut self, edit: VersionEdit) -> Result<Arc<Version>> {
        let mut pending = self.prepare_edit(edit)?;
        let written = pending.write();
        self.commit_edit(pending, written)
    }

    /// Step one of [`Self::log_and_apply`], under the owner's lock: fills in
    /// the edit's counters, builds and checks the new version, reserves the
    /// file numbers the edit and a new manifest need, and takes the manifest
    /// writer out of the set. The returned [`PendingEdit`] does the IO
    /// without any lock; [`Self::commit_edit`] must follow, under the lock,
    /// whatever the write returned.
    ///
    /// While an edit is pending (see [`Self::manifest_write_pending`]):
    /// - no other edit may be prepared (an error says so: the owner waits
    ///   first), so the current version cannot change under it;
    /// - the files it adds count as live, so nobody deletes them as
    ///   obsolete before the version naming them is installed;
    /// - numbers handed out by [`Self::new_file_number`] lie above every
    ///   number the edit persists, so a crash cannot make a used number
    ///   fresh again for anything this edit names.
    pub fn prepare_edit(&mut self, mut edit: VersionEdit) -> Result<PendingEdit> {
        if self.pending_files.is_some() {
            return Err(Error::Busy(
                "another manifest write is in flight; wait for its commit".into(),
            ));
        }
        let cf = edit.column_family;
        let added;
        let base = match (&edit.column_family_add, self.families.get(&cf)) {
            (Some(name), None) if cf != 0 && cf <= self.max_column_family => {
                added = FamilyVersions::new(name, self.levels_of_new_family);
                edit.max_column_family = Some(self.max_column_family);
                &added
            }
            (Some(name), _) => {
                return Err(Error::InvalidArgument(format!(
                    "column family {cf} ({name:?}) cannot be added: the id is in use or was not handed out"
                )));
            }
            (None, Some(f)) => f,
            (None, None) => {
                return Err(Error::InvalidArgument(format!(
                    "column family {cf} does not exist (dropped?)"
                )));
            }
        };
        if edit.column_family_drop && cf == 0 {
            return Err(Error::InvalidArgument(
                "the default column family cannot be dropped".into(),
            ));
        }
        debug_assert!(
            edit.log_number.is_none_or(|n| n >= base.log_number),
            "log_number going backwards"
        );
        if !edit.column_family_drop {
            edit.log_number.get_or_insert(base.log_number);
        }
        edit.prev_log_number.get_or_insert(self.prev_log_number);
        edit.last_sequence.get_or_insert(self.last_sequence);
        edit.comparator = None;
        edit.db_id = if self.db_id_unrecorded {
            self.db_id
        } else {
            None
        };

        let mut builder = VersionBuilder::new(&base.current, "version edit");
        builder.apply(&edit, 0)?;
        let version = builder.finish()?;
        // The database's oldest log still needed, with this edit applied:
        // written in every edit, so that a family whose log number is not
        // rewritten (it had nothing to flush) does not keep old logs alive.
        if self.families.len() > 1 || edit.column_family != 0 {
            let mut min = u64::MAX;
            for (&id, f) in &self.families {
                let n = if id == cf {
                    if edit.column_family_drop {
                        continue;
                    }
                    edit.log_number.unwrap_or(f.log_number)
                } else {
                    f.log_number
                };
                min = min.min(n);
            }
            if edit.column_family_add.is_some() {
                min = min.min(edit.log_number.unwrap_or(0));
            }
            // The database may know more (a family it advanced in memory
            // because it had nothing unflushed): it sets the field itself.
            let min = min
                .max(self.min_log_to_keep)
                .max(edit.min_log_to_keep.unwrap_or(0));
            if min != u64::MAX {
                edit.min_log_to_keep = Some(min);
            }
        }

        let mut next = edit
            .new_files
            .iter()
            .map(|(_, f)| f.number + 1)
            .chain(edit.log_number.map(|n| n + 1))
            .fold(self.next_file_number, u64::max);
        let roll = match &self.manifest {
            None => true,
            Some(w) => w.file_size() >= self.max_manifest_file_size,
        };
        let roll_to = roll.then(|| {
            next += 1;
            next - 1
        });
        edit.next_file_number = Some(next);
        // Reserved now: a number handed out while the edit is written must
        // not be the new manifest's or one the edit persists as used.
        self.next_file_number = next;
        let target = match roll_to {
            Some(number) => ManifestTarget::New {
                number,
                snapshot: self.snapshot_edit(next),
                writer: None,
            },
            None => ManifestTarget::Append(self.manifest.take().expect("checked above")),
        };
        self.pending_files = Some(edit.new_files.iter().map(|(_, f)| f.number).collect());
        Ok(PendingEdit {
            dir: self.dir.clone(),
            edit,
            version,
            target,
        })
    }

    /// Bytes written to the live manifest, when this set has it open (not
    /// after recovery before the first edit, nor after a failed write).
    pub fn manifest_file_size(&self) -> Option<u64> {
        self.manifest.as_ref().map(LogWriter::file_size)
    }

    /// Whether an edit is between [`Self::prepare_edit`] and
    /// [`Self::commit_edit`]; no other edit may be prepared until it is not.
    pub fn manifest_write_pending(&self) -> bool {
        self.pending_files.is_some()
    }

    /// Step three of [`Self::log_and_apply`], under the owner's lock: with
    /// the result of [`PendingEdit::write`], installs the new version and
    /// counters, or — on error — abandons the manifest as described at
    /// [`Self::log_and_apply`] and returns the error.
    pub fn commit_edit(
        &mut self,
        pending: PendingEdit,
        written: Result<(), WriteFailure>,
    ) -> Result<Arc<Version>> {
        let new_files = self.pending_files.take().unwrap_or_default();
        let PendingEdit {
            edit,
            version,
            target,
            ..
        } = pending;
        let rolled = match (written, target) {
            (Ok(()), ManifestTarget::New { number, writer, .. }) => {
                // CURRENT names the new manifest: recovery no longer reads
                // the old ones, which may now be deleted.
                self.obsolete_manifests.push(self.manifest_number);
                self.obsolete_manifests
                    .append(&mut self.abandoned_manifests);
                self.manifest_number = number;
                self.manifest = writer;
                true
            }
            (Ok(()), ManifestTarget::Append(writer)) => {
                self.manifest = Some(writer);
                false
            }
            (
                Err(WriteFailure {
                    error,
                    may_be_durable,
                }),
                target,
            ) => {
                // The writer is dropped: the next edit starts a new manifest
                // rather than appending after a possibly torn record.
                self.manifest = None;
                if may_be_durable {
                    if let ManifestTarget::New { number, .. } = target {
                        self.abandoned_manifests.push(number);
                    }
                    self.uncertain_files.extend(new_files);
                }
                return Err(error);
            }
        };

        // A roll succeeded (a failed write always forces one): the new
        // manifest is definitive, and a table only an earlier failed edit
        // named is now an orphan.
        if rolled {
            self.uncertain_files.clear();
        }
        // The id is in the manifest now: in this edit, or in the snapshot
        // of a roll.
        self.db_id_unrecorded = false;
        let cf = edit.column_family;
        if let Some(name) = &edit.column_family_add {
            self.families
                .insert(cf, FamilyVersions::new(name, version.num_levels()));
        }
        if let Some(m) = edit.min_log_to_keep {
            self.min_log_to_keep = self.min_log_to_keep.max(m);
        }
        if edit.column_family_drop {
            self.families.remove(&cf);
        } else {
            let fam = self.families.get_mut(&cf).expect("checked by prepare_edit");
            fam.log_number = edit.log_number.unwrap_or(fam.log_number);
            apply_cursors(fam, &edit);
        }
        self.wals.extend(edit.wal_additions.iter().copied());
        let min_log = self.log_number();
        self.wals.retain(|&n, _| n >= min_log);
        self.prev_log_number = edit.prev_log_number.unwrap_or(self.prev_log_number);
        // The owner may have published a later sequence while the edit was
        // written; the edit's is a lower bound, never a step back.
        self.last_sequence = self
            .last_sequence
            .max(edit.last_sequence.unwrap_or(self.last_sequence));
        if edit.column_family_drop {
            // The dropped family's last version stays in `versions` while
            // readers hold it, so its tables stay live until then.
            let v = Arc::new(version);
            self.versions.retain(|w| w.strong_count() > 0);
            self.versions.push(Arc::downgrade(&v));
            return Ok(v);
        }
        Ok(self.install(cf, version))
    }

    fn install(&mut self, cf: u32, version: Version) -> Arc<Version> {
        let v = Arc::new(version);
        self.versions.retain(|w| w.strong_count() > 0);
        self.versions.push(Arc::downgrade(&v));
        if let Some(f) = self.families.get_mut(&cf) {
            f.current = v.clone();
        }
        v
    }

    /// Edits that rebuild the whole current state from nothing: the
    /// default family's with the database's fields first, then one per
    /// other family, adding it.
    fn snapshot_edit(&self, next_file_number: u64) -> Vec<VersionEdit> {
        let mut edits = Vec::with_capacity(self.families.len());
        for (&cf, fam) in &self.families {
            let mut e = if cf == 0 {
                VersionEdit {
                    comparator: Some(COMPARATOR_NAME.to_string()),
                    db_id: self.db_id,
                    prev_log_number: Some(self.prev_log_number),
                    next_file_number: Some(next_file_number),
                    last_sequence: Some(self.last_sequence),
                    ..VersionEdit::default()
                }
            } else {
                VersionEdit {
                    column_family: cf,
                    column_family_add: Some(fam.name.clone()),
                    ..VersionEdit::default()
                }
            };
            e.log_number = Some(fam.log_number);
            if cf == 0 {
                if self.max_column_family != 0 {
                    e.max_column_family = Some(self.max_column_family);
                }
                if self.min_log_to_keep != 0 {
                    e.min_log_to_keep = Some(self.min_log_to_keep);
                }
            }
            for (level, key) in fam.compact_cursors.iter().enumerate() {
                if !key.is_empty() {
                    e.set_compact_cursor(level, key.clone());
                }
            }
            for level in 0..fam.current.num_levels() {
                for f in fam.current.files(level) {
                    e.add_file(level, f.clone());
                }
            }
            if cf == 0 {
                for (&number, &meta) in &self.wals {
                    e.add_wal(number, meta);
                }
            }
            edits.push(e);
        }
        edits
    }
}

fn apply_cursors(fam: &mut FamilyVersions, edit: &VersionEdit) {
    for (level, key) in &edit.compact_cursors {
        // A cursor beyond the configured levels is only a hint: ignore it.
        if let Some(slot) = fam.compact_cursors.get_mut(*level) {
            slot.clone_from(key);
        }
    }
}

/// Where manifests are written: the parts of a [`VersionSet`] a
/// [`PendingEdit`] carries out of the owner's lock.
#[derive(Clone)]
struct ManifestDir {
    fs: Arc<dyn FileSystem>,
    dbname: PathBuf,
    write_opts: WriteFileOptions,
}

/// Where a pending edit goes.
enum ManifestTarget {
    /// Appended to the open manifest, whose writer the edit holds meanwhile.
    Append(LogWriter),
    /// Into a new manifest `number`, after `snapshot` (the state before the
    /// edit), then `CURRENT` switched to it; `writer` is its writer once
    /// that succeeded.
    New {
        number: u64,
        snapshot: Vec<VersionEdit>,
        writer: Option<LogWriter>,
    },
}

/// A failed manifest write.
#[derive(Debug)]
pub struct WriteFailure {
    /// What went wrong.
    pub error: Error,
    /// Whether the edit may be on disk anyway (a failed sync after the
    /// bytes reached the OS, or a `CURRENT` rename that may have happened),
    /// so the files it adds must stay until a later edit succeeds.
    pub may_be_durable: bool,
}

/// An edit prepared by [`VersionSet::prepare_edit`], to be written with
/// [`Self::write`] (no lock needed) and handed back to
/// [`VersionSet::commit_edit`]. Dropping it without committing leaves the
/// set refusing every further edit.
#[must_use = "a pending edit must be committed"]
pub struct PendingEdit {
    dir: ManifestDir,
    edit: VersionEdit,
    version: Version,
    target: ManifestTarget,
}

impl std::fmt::Debug for PendingEdit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingEdit")
            .field("edit", &self.edit)
            .finish_non_exhaustive()
    }
}

impl PendingEdit {
    /// The manifest IO of the edit: append and sync, or a new manifest and
    /// `CURRENT` (see [`VersionSet::log_and_apply`]). Call at most once.
    pub fn write(&mut self) -> Result<(), WriteFailure> {
        let mut record = Vec::new();
        self.edit.encode(&mut record);
        match &mut self.target {
            // The edit is committed once synced; the version is installed
            // only after (by commit_edit), so readers never see state a
            // crash could undo.
            ManifestTarget::Append(w) => {
                w.add_record(&record)
                    .and_then(|()| w.sync())
                    .map_err(|error| WriteFailure {
                        error,
                        may_be_durable: true,
                    })
            }
            ManifestTarget::New {
                number,
                snapshot,
                writer,
            } => {
                *writer = Some(
                    self.dir
                        .write_new_manifest(*number, snapshot, Some(&self.edit))?,
                );
                Ok(())
            }
        }
    }
}

impl ManifestDir {
    /// Writes `MANIFEST-{number}` holding `snapshot` (and `edit`), makes it
    /// durable and points `CURRENT` at it. The order of the steps is what
    /// recovery relies on; see the comments. The failure says whether the new
    /// file was left behind because `CURRENT` may name it.
    fn write_new_manifest(
        &self,
        number: u64,
        snapshot: &[VersionEdit],
        edit: Option<&VersionEdit>,
    ) -> Result<LogWriter, WriteFailure> {
        let name = filename::manifest_file_name(number);
        let path = self.dbname.join(&name);
        let written = (|| {
            let file = self.fs.new_writable(&path, self.write_opts)?;
            let mut w = LogWriter::new(file, number);
            let mut record = Vec::new();
            for e in snapshot {
                record.clear();
                e.encode(&mut record);
                w.add_record(&record)?;
            }
            if let Some(edit) = edit {
                record.clear();
                edit.encode(&mut record);
                w.add_record(&record)?;
            }
            // (1) The manifest's records must be durable before CURRENT names
            // it: recovery trusts every complete record of that manifest, and
            // a torn *first* record would leave it with no state at all.
            w.sync()?;
            // (2) So must its directory entry: otherwise a power loss could
            // keep the CURRENT rename below but lose the new file's name,
            // and recovery would find CURRENT naming a missing manifest.
            self.fs.sync_dir(&self.dbname)?;
            Ok(w)
        })();
        let w = match written {
            Ok(w) => w,
            Err(e) => {
                // CURRENT never named this file: removing it is safe, and
                // failing to remove it is harmless (a later directory scan
                // finds it obsolete).
                let _ = self.fs.remove_file(&path);
                return Err(WriteFailure {
                    error: e,
                    may_be_durable: false,
                });
            }
        };
        // (3) Switch CURRENT: write CURRENT.dbtmp, sync it, rename it over
        // CURRENT, sync the directory. The rename is the commit point: before
        // it recovery reads the old manifest (still whole: it only ever got
        // synced appends), after it the new one. On failure the new manifest
        // is left in place — the rename may already have happened — and the
        // caller abandons both writers; the next roll makes CURRENT
        // definitive again. (4) Only after this returns does the caller
        // forget the old manifest.
        let current = format!("{name}\n");
        write_file_atomic(self.fs.as_ref(), &self.dbname, CURRENT, current.as_bytes()).map_err(
            |error| WriteFailure {
                error,
                may_be_durable: true,
            },
        )?;
        Ok(w)
    }
}

#[cfg(test)]
mod tests;
