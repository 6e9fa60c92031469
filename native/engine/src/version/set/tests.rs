use std::sync::atomic::{AtomicU32, Ordering};

use super::*;
use crate::fs::{FileLock, RandomAccessFile, SequentialFile, StdFileSystem, WritableFile};
use crate::key::{ValueKind, make_internal_key};
use crate::version::FileMetaData;

/// Operations the test file system can be told to fail.
const FAIL_SYNC: u32 = 1;
const FAIL_RENAME: u32 = 2;
const FAIL_SYNC_DIR: u32 = 4;

/// `StdFileSystem` with switchable failures.
#[derive(Default)]
struct FaultyFs {
    fail: Arc<AtomicU32>,
}

struct FaultyFile {
    inner: Box<dyn WritableFile>,
    fail: Arc<AtomicU32>,
}

fn injected(what: &str) -> Error {
    Error::io(what, &std::io::Error::other("injected fault"))
}

impl WritableFile for FaultyFile {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        self.inner.append(data)
    }
    fn flush(&mut self) -> Result<()> {
        self.inner.flush()
    }
    fn sync(&mut self) -> Result<()> {
        if self.fail.load(Ordering::SeqCst) & FAIL_SYNC != 0 {
            // Like a real failed fsync: bytes may or may not have reached the OS.
            self.inner.flush()?;
            return Err(injected("sync"));
        }
        self.inner.sync()
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
}

impl FileSystem for FaultyFs {
    fn create_dir_all(&self, path: &Path) -> Result<()> {
        StdFileSystem.create_dir_all(path)
    }
    fn new_writable(&self, path: &Path, opts: WriteFileOptions) -> Result<Box<dyn WritableFile>> {
        Ok(Box::new(FaultyFile {
            inner: StdFileSystem.new_writable(path, opts)?,
            fail: self.fail.clone(),
        }))
    }
    fn new_appendable(&self, path: &Path, opts: WriteFileOptions) -> Result<Box<dyn WritableFile>> {
        StdFileSystem.new_appendable(path, opts)
    }
    fn new_sequential(&self, path: &Path) -> Result<Box<dyn SequentialFile>> {
        StdFileSystem.new_sequential(path)
    }
    fn new_random_access(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        StdFileSystem.new_random_access(path)
    }
    fn file_size(&self, path: &Path) -> Result<u64> {
        StdFileSystem.file_size(path)
    }
    fn exists(&self, path: &Path) -> bool {
        StdFileSystem.exists(path)
    }
    fn try_exists(&self, path: &Path) -> Result<bool> {
        StdFileSystem.try_exists(path)
    }
    fn is_dir(&self, path: &Path) -> bool {
        StdFileSystem.is_dir(path)
    }
    fn list_dir(&self, path: &Path) -> Result<Vec<String>> {
        StdFileSystem.list_dir(path)
    }
    fn remove_file(&self, path: &Path) -> Result<()> {
        StdFileSystem.remove_file(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        if self.fail.load(Ordering::SeqCst) & FAIL_RENAME != 0 {
            return Err(injected("rename"));
        }
        StdFileSystem.rename(from, to)
    }
    fn sync_dir(&self, dir: &Path) -> Result<()> {
        if self.fail.load(Ordering::SeqCst) & FAIL_SYNC_DIR != 0 {
            return Err(injected("sync_dir"));
        }
        StdFileSystem.sync_dir(dir)
    }
    fn truncate(&self, path: &Path, len: u64) -> Result<()> {
        StdFileSystem.truncate(path, len)
    }
    fn lock_file(&self, path: &Path) -> Result<Box<dyn FileLock>> {
        StdFileSystem.lock_file(path)
    }
}

fn table(number: u64, lo: &str, hi: &str, seq: u64) -> Arc<FileMetaData> {
    Arc::new(FileMetaData {
        number,
        file_size: 1000 + number,
        smallest: make_internal_key(lo.as_bytes(), seq, ValueKind::Value),
        largest: make_internal_key(hi.as_bytes(), seq, ValueKind::Value),
        smallest_seq: seq,
        largest_seq: seq,
        num_entries: 10,
        creation_time: 1_700_000_000,
        ..FileMetaData::default()
    })
}

fn opts() -> Options {
    Options::default()
}

fn std_fs() -> Arc<dyn FileSystem> {
    Arc::new(StdFileSystem)
}

fn read_current(dir: &Path) -> String {
    std::fs::read_to_string(dir.join(CURRENT)).unwrap()
}

/// Flushes two tables and compacts them into one, as a DB would.
fn flush_and_compact(vs: &mut VersionSet) -> (u64, u64, u64) {
    let (a, b) = (vs.new_file_number(), vs.new_file_number());
    let mut e = VersionEdit::new();
    e.add_file(0, table(a, "a", "m", 10));
    vs.set_last_sequence(10);
    vs.log_and_apply(e).unwrap();
    let mut e = VersionEdit::new();
    e.add_file(0, table(b, "k", "z", 20));
    e.log_number = Some(b);
    vs.set_last_sequence(20);
    vs.log_and_apply(e).unwrap();
    let c = vs.new_file_number();
    let mut e = VersionEdit::new();
    e.delete_file(0, a);
    e.delete_file(0, b);
    e.add_file(1, table(c, "a", "z", 20));
    e.set_compact_cursor(1, make_internal_key(b"q", 5, ValueKind::Value));
    vs.log_and_apply(e).unwrap();
    (a, b, c)
}

#[test]
fn create_new_writes_manifest_and_current() {
    let dir = tempfile::tempdir().unwrap();
    let vs = VersionSet::create_new(std_fs(), dir.path(), &opts(), DbId::generate()).unwrap();
    assert_eq!(read_current(dir.path()), "MANIFEST-000001\n");
    assert_eq!(vs.manifest_file_number(), 1);
    assert_eq!(vs.next_file_number(), 2);
    assert_eq!(vs.current().level_summary(), "files[0 0 0 0 0 0 0]");
    let r = VersionSet::recover(std_fs(), dir.path(), &opts()).unwrap();
    assert_eq!(r.next_file_number(), 2);
    assert_eq!(r.last_sequence(), 0);
    assert_eq!(r.log_number(), 0);
    assert!(r.recovery_warnings().is_empty());
}

#[test]
fn recover_replays_every_edit() {
    let dir = tempfile::tempdir().unwrap();
    let mut vs = VersionSet::create_new(std_fs(), dir.path(), &opts(), DbId::generate()).unwrap();
    let (_, b, c) = flush_and_compact(&mut vs);
    let before = vs.current();
    let r = VersionSet::recover(std_fs(), dir.path(), &opts()).unwrap();
    let after = r.current();
    assert_eq!(after.level_summary(), "files[0 1 0 0 0 0 0]");
    assert_eq!(*after.files(1)[0], *before.files(1)[0]);
    assert_eq!(after.files(1)[0].number, c);
    assert_eq!(r.last_sequence(), 20);
    assert_eq!(r.log_number(), b);
    assert_eq!(r.next_file_number(), vs.next_file_number());
    assert_eq!(
        r.compact_cursors()[1],
        make_internal_key(b"q", 5, ValueKind::Value)
    );
    assert_eq!(r.manifest_file_number(), 1);
}

#[test]
fn first_apply_after_recovery_rolls_to_a_new_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let mut vs = VersionSet::create_new(std_fs(), dir.path(), &opts(), DbId::generate()).unwrap();
    flush_and_compact(&mut vs);
    drop(vs);
    let mut r = VersionSet::recover(std_fs(), dir.path(), &opts()).unwrap();
    let n = r.new_file_number();
    let mut e = VersionEdit::new();
    e.add_file(0, table(n, "b", "c", 30));
    r.set_last_sequence(30);
    r.log_and_apply(e).unwrap();
    let m = r.manifest_file_number();
    assert!(m > n, "manifest number {m} must be fresh");
    assert_eq!(read_current(dir.path()), format!("MANIFEST-{m:06}\n"));
    assert_eq!(r.obsolete_manifests(), [1]);
    assert_eq!(r.take_obsolete_manifests(), [1]);
    assert!(r.obsolete_manifests().is_empty());
    let again = VersionSet::recover(std_fs(), dir.path(), &opts()).unwrap();
    assert_eq!(again.current().level_summary(), "files[1 1 0 0 0 0 0]");
    assert_eq!(again.last_sequence(), 30);
    assert_eq!(again.compact_cursors()[1], r.compact_cursors()[1]);
}

#[test]
fn manifest_rolls_at_the_size_limit() {
    let dir = tempfile::tempdir().unwrap();
    let mut vs = VersionSet::create_new(std_fs(), dir.path(), &opts(), DbId::generate()).unwrap();
    vs.set_max_manifest_file_size(1);
    flush_and_compact(&mut vs);
    // Three edits, three rolls: 1 -> a -> b -> c.
    assert_eq!(vs.obsolete_manifests().len(), 3);
    assert_eq!(vs.obsolete_manifests()[0], 1);
    let m = vs.manifest_file_number();
    assert_eq!(read_current(dir.path()), format!("MANIFEST-{m:06}\n"));
    // The old manifests stay until the DB deletes them; recovery ignores them.
    for old in vs.take_obsolete_manifests() {
        std::fs::remove_file(dir.path().join(filename::manifest_file_name(old))).unwrap();
    }
    let r = VersionSet::recover(std_fs(), dir.path(), &opts()).unwrap();
    assert_eq!(r.current().level_summary(), "files[0 1 0 0 0 0 0]");
    assert_eq!(r.next_file_number(), vs.next_file_number());
}

#[test]
fn torn_tail_is_dropped_but_corruption_fails() {
    let dir = tempfile::tempdir().unwrap();
    let mut vs = VersionSet::create_new(std_fs(), dir.path(), &opts(), DbId::generate()).unwrap();
    flush_and_compact(&mut vs);
    drop(vs);
    let path = dir.path().join("MANIFEST-000001");
    let full = std::fs::read(&path).unwrap();

    // Cut the last record (the compaction) short.
    std::fs::write(&path, &full[..full.len() - 5]).unwrap();
    let r = VersionSet::recover(std_fs(), dir.path(), &opts()).unwrap();
    assert_eq!(r.current().level_summary(), "files[2 0 0 0 0 0 0]");
    assert_eq!(
        r.recovery_warnings().len(),
        1,
        "{:?}",
        r.recovery_warnings()
    );
    assert!(r.recovery_warnings()[0].contains("MANIFEST-000001"));

    // Damage inside the first record: a checksum mismatch with data after it.
    let mut bad = full.clone();
    bad[10] ^= 0x55;
    std::fs::write(&path, &bad).unwrap();
    let err = VersionSet::recover(std_fs(), dir.path(), &opts()).unwrap_err();
    assert!(err.is_corruption(), "{err}");
    assert!(err.to_string().contains("MANIFEST-000001"), "{err}");
}

#[test]
fn missing_or_bad_current_and_manifest_are_corruption() {
    let dir = tempfile::tempdir().unwrap();
    let err = VersionSet::recover(std_fs(), dir.path(), &opts()).unwrap_err();
    assert!(
        err.is_corruption() && err.to_string().contains("CURRENT"),
        "{err}"
    );

    VersionSet::create_new(std_fs(), dir.path(), &opts(), DbId::generate()).unwrap();
    for contents in ["MANIFEST-000001", "000001.sst\n", "", "MANIFEST-x\n"] {
        std::fs::write(dir.path().join(CURRENT), contents).unwrap();
        let err = VersionSet::recover(std_fs(), dir.path(), &opts()).unwrap_err();
        assert!(
            err.is_corruption() && err.to_string().contains("CURRENT"),
            "{contents:?}: {err}"
        );
    }
    std::fs::write(dir.path().join(CURRENT), "MANIFEST-000009\n").unwrap();
    let err = VersionSet::recover(std_fs(), dir.path(), &opts()).unwrap_err();
    assert!(
        err.is_corruption() && err.to_string().contains("MANIFEST-000009"),
        "{err}"
    );
}

#[test]
fn incompatible_databases_are_invalid_argument() {
    let dir = tempfile::tempdir().unwrap();
    let mut vs = VersionSet::create_new(std_fs(), dir.path(), &opts(), DbId::generate()).unwrap();
    let mut e = VersionEdit::new();
    e.add_file(6, table(vs.new_file_number(), "a", "b", 1));
    vs.log_and_apply(e).unwrap();
    let few = Options {
        num_levels: 3,
        ..Options::default()
    };
    let err = VersionSet::recover(std_fs(), dir.path(), &few).unwrap_err();
    assert!(
        matches!(err, Error::InvalidArgument(ref m) if m.contains("num_levels")),
        "{err}"
    );

    // A manifest written with another comparator.
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    let mut w = LogWriter::new(
        StdFileSystem
            .new_writable(&other.join("MANIFEST-000001"), WriteFileOptions::default())
            .unwrap(),
        1,
    );
    let mut rec = Vec::new();
    VersionEdit {
        comparator: Some("leveldb.BytewiseComparator".into()),
        log_number: Some(0),
        next_file_number: Some(2),
        last_sequence: Some(0),
        ..VersionEdit::default()
    }
    .encode(&mut rec);
    w.add_record(&rec).unwrap();
    w.sync().unwrap();
    std::fs::write(other.join(CURRENT), "MANIFEST-000001\n").unwrap();
    let err = VersionSet::recover(std_fs(), &other, &opts()).unwrap_err();
    assert!(
        matches!(err, Error::InvalidArgument(ref m) if m.contains("comparator")),
        "{err}"
    );
}

#[test]
fn manifest_without_counters_is_corruption() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = LogWriter::new(
        StdFileSystem
            .new_writable(
                &dir.path().join("MANIFEST-000003"),
                WriteFileOptions::default(),
            )
            .unwrap(),
        3,
    );
    let mut rec = Vec::new();
    VersionEdit {
        log_number: Some(0),
        ..VersionEdit::default()
    }
    .encode(&mut rec);
    w.add_record(&rec).unwrap();
    w.sync().unwrap();
    std::fs::write(dir.path().join(CURRENT), "MANIFEST-000003\n").unwrap();
    let err = VersionSet::recover(std_fs(), dir.path(), &opts()).unwrap_err();
    assert!(
        err.is_corruption() && err.to_string().contains("next_file_number"),
        "{err}"
    );
}

#[test]
fn inconsistent_edit_is_rejected_before_it_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let mut vs = VersionSet::create_new(std_fs(), dir.path(), &opts(), DbId::generate()).unwrap();
    let size = std::fs::metadata(dir.path().join("MANIFEST-000001"))
        .unwrap()
        .len();
    let mut e = VersionEdit::new();
    e.delete_file(1, 42);
    assert!(vs.log_and_apply(e).is_err());
    assert_eq!(
        std::fs::metadata(dir.path().join("MANIFEST-000001"))
            .unwrap()
            .len(),
        size
    );
}

#[test]
fn failed_manifest_writes_change_nothing_and_the_next_apply_rolls() {
    for (fail, what) in [
        (FAIL_SYNC, "sync of the manifest"),
        (FAIL_SYNC_DIR, "directory sync"),
        (FAIL_RENAME, "CURRENT rename"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let fs = Arc::new(FaultyFs::default());
        let mut vs =
            VersionSet::create_new(fs.clone(), dir.path(), &opts(), DbId::generate()).unwrap();
        if fail != FAIL_SYNC {
            // Make the next apply roll, so the failure hits the roll steps.
            vs.set_max_manifest_file_size(1);
        }
        let before = vs.current();
        let n = vs.new_file_number();
        let mut e = VersionEdit::new();
        e.add_file(0, table(n, "a", "b", 5));
        vs.set_last_sequence(5);
        fs.fail.store(fail, Ordering::SeqCst);
        assert!(vs.log_and_apply(e.clone()).is_err(), "{what}");
        assert!(Arc::ptr_eq(&vs.current(), &before), "{what}");
        assert_eq!(vs.log_number(), 0, "{what}");
        assert_eq!(vs.manifest_file_number(), 1, "{what}");
        assert_eq!(read_current(dir.path()), "MANIFEST-000001\n", "{what}");

        fs.fail.store(0, Ordering::SeqCst);
        vs.log_and_apply(e).unwrap();
        let m = vs.manifest_file_number();
        assert!(m > 1, "{what}: a failed manifest must be abandoned");
        assert_eq!(
            read_current(dir.path()),
            format!("MANIFEST-{m:06}\n"),
            "{what}"
        );
        assert!(vs.obsolete_manifests().contains(&1), "{what}");
        let r = VersionSet::recover(std_fs(), dir.path(), &opts()).unwrap();
        assert_eq!(
            r.current().level_summary(),
            "files[1 0 0 0 0 0 0]",
            "{what}"
        );
        assert_eq!(r.last_sequence(), 5, "{what}");
        assert!(r.next_file_number() > m, "{what}");
    }
}

/// Regression (io_errors::regression_failed_manifest_sync_keeps_*): the
/// tables of an edit whose manifest sync failed stay live until a later
/// apply succeeds, because the edit may be on disk.
#[test]
fn regression_tables_of_a_failed_edit_stay_live_until_the_next_success() {
    let dir = tempfile::tempdir().unwrap();
    let fs = Arc::new(FaultyFs::default());
    let mut vs = VersionSet::create_new(fs.clone(), dir.path(), &opts(), DbId::generate()).unwrap();
    let n = vs.new_file_number();
    let mut e = VersionEdit::new();
    e.add_file(0, table(n, "a", "b", 5));
    fs.fail.store(FAIL_SYNC, Ordering::SeqCst);
    vs.log_and_apply(e).unwrap_err();
    assert_eq!(vs.current().level_summary(), "files[0 0 0 0 0 0 0]");
    assert_eq!(vs.live_files(), [n], "the failed edit may be on disk");
    fs.fail.store(0, Ordering::SeqCst);
    vs.log_and_apply(VersionEdit::new()).unwrap();
    assert_eq!(vs.live_files(), Vec::<u64>::new(), "now an orphan");
}

#[test]
fn live_files_cover_versions_still_held() {
    let dir = tempfile::tempdir().unwrap();
    let mut vs = VersionSet::create_new(std_fs(), dir.path(), &opts(), DbId::generate()).unwrap();
    let n = vs.new_file_number();
    let mut e = VersionEdit::new();
    e.add_file(0, table(n, "a", "b", 1));
    let reader = vs.log_and_apply(e).unwrap();
    let m = vs.new_file_number();
    let mut e = VersionEdit::new();
    e.delete_file(0, n);
    e.add_file(1, table(m, "a", "b", 1));
    vs.log_and_apply(e).unwrap();
    assert_eq!(vs.live_files(), [n, m]);
    drop(reader);
    assert_eq!(vs.live_files(), [m]);
}

#[test]
fn file_numbers_are_never_reused() {
    let dir = tempfile::tempdir().unwrap();
    let mut vs = VersionSet::create_new(std_fs(), dir.path(), &opts(), DbId::generate()).unwrap();
    assert_eq!(vs.new_file_number(), 2);
    vs.mark_file_number_used(10);
    assert_eq!(vs.new_file_number(), 11);
    vs.mark_file_number_used(5);
    assert_eq!(vs.new_file_number(), 12);
    // A file added with a number the set did not hand out still moves the counter.
    let mut e = VersionEdit::new();
    e.add_file(0, table(100, "a", "b", 1));
    vs.log_and_apply(e).unwrap();
    assert_eq!(vs.next_file_number(), 101);
    let r = VersionSet::recover(std_fs(), dir.path(), &opts()).unwrap();
    assert_eq!(r.next_file_number(), 101);
}

#[test]
fn shared_types_cross_threads() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<Version>();
    send_sync::<FileMetaData>();
    send_sync::<Arc<Version>>();
    // Owned by the DB inside its mutex: Send is what a Mutex needs.
    send::<VersionSet>();
}

/// The three steps the DB runs with its mutex released during the write:
/// while an edit is pending nothing else can be prepared, its tables count
/// as live, and numbers handed out lie above what it persists.
#[test]
fn a_pending_edit_holds_the_manifest_and_its_tables() {
    let dir = tempfile::tempdir().unwrap();
    let mut vs = VersionSet::create_new(std_fs(), dir.path(), &opts(), DbId::generate()).unwrap();
    let n = vs.new_file_number();
    let mut e = VersionEdit::new();
    e.add_file(0, table(n, "a", "b", 3));
    vs.set_last_sequence(3);
    let mut pending = vs.prepare_edit(e).unwrap();
    assert!(vs.manifest_write_pending());
    let busy = vs.prepare_edit(VersionEdit::new()).unwrap_err();
    assert_eq!(busy.code(), crate::error::Code::Busy, "{busy}");
    assert_eq!(vs.live_files(), [n], "not yet in a version, still live");
    assert_eq!(vs.current().level_summary(), "files[0 0 0 0 0 0 0]");
    // Allocated during the write (a new WAL, the next flush's table).
    let later = vs.new_file_number();
    // The DB publishes a later sequence while the edit is written.
    vs.set_last_sequence(9);
    let written = pending.write();
    vs.commit_edit(pending, written).unwrap();
    assert!(!vs.manifest_write_pending());
    assert_eq!(vs.current().level_summary(), "files[1 0 0 0 0 0 0]");
    assert_eq!(vs.last_sequence(), 9, "a commit never moves it back");
    assert!(vs.next_file_number() > later);
    let r = VersionSet::recover(std_fs(), dir.path(), &opts()).unwrap();
    assert_eq!(r.current().level_summary(), "files[1 0 0 0 0 0 0]");
    assert!(r.next_file_number() > n);
    assert_eq!(r.last_sequence(), 3, "the edit persisted its own sequence");
    assert!(
        r.next_file_number() <= later,
        "numbers handed out during the write lie above the persisted counter"
    );
}

/// The id given at creation is in every manifest, survives rolls, and is
/// never replaced; a database from before ids gets one with its next edit.
#[test]
fn the_db_id_is_recorded_kept_across_rolls_and_given_to_old_databases() {
    let dir = tempfile::tempdir().unwrap();
    let id = DbId::generate();
    let mut vs = VersionSet::create_new(std_fs(), dir.path(), &opts(), id).unwrap();
    vs.set_db_id(DbId::generate());
    assert_eq!(vs.db_id(), Some(id), "an id is never replaced");
    vs.set_max_manifest_file_size(1);
    flush_and_compact(&mut vs);
    let r = VersionSet::recover(std_fs(), dir.path(), &opts()).unwrap();
    assert_eq!(r.db_id(), Some(id));

    // A manifest written before ids existed.
    let old = dir.path().join("old");
    std::fs::create_dir(&old).unwrap();
    let mut w = LogWriter::new(
        StdFileSystem
            .new_writable(&old.join("MANIFEST-000001"), WriteFileOptions::default())
            .unwrap(),
        1,
    );
    let mut rec = Vec::new();
    VersionEdit {
        comparator: Some(COMPARATOR_NAME.into()),
        log_number: Some(0),
        next_file_number: Some(2),
        last_sequence: Some(0),
        ..VersionEdit::default()
    }
    .encode(&mut rec);
    w.add_record(&rec).unwrap();
    w.sync().unwrap();
    std::fs::write(old.join(CURRENT), "MANIFEST-000001\n").unwrap();
    let mut r = VersionSet::recover(std_fs(), &old, &opts()).unwrap();
    assert_eq!(r.db_id(), None);
    let given = DbId::generate();
    r.set_db_id(given);
    // The first edit after recovery rolls: the new snapshot carries it.
    r.log_and_apply(VersionEdit::new()).unwrap();
    r.log_and_apply(VersionEdit::new()).unwrap();
    let again = VersionSet::recover(std_fs(), &old, &opts()).unwrap();
    assert_eq!(again.db_id(), Some(given));
}

/// WAL additions accumulate, a later one replaces an earlier one for the
/// same log, a log number past a log forgets it (RocksDB's WalDeletion),
/// and a roll's snapshot keeps every tracked log.
#[test]
fn wal_additions_are_tracked_replaced_forgotten_below_the_log_number_and_rolled() {
    let dir = tempfile::tempdir().unwrap();
    let mut vs = VersionSet::create_new(std_fs(), dir.path(), &opts(), DbId::generate()).unwrap();
    let synced = |n: u64| WalMeta {
        synced_size: Some(n),
        last_sequence: None,
    };
    let closed = |n: u64, seq: u64| WalMeta {
        synced_size: Some(n),
        last_sequence: Some(seq),
    };
    let mut e = VersionEdit::new();
    e.log_number = Some(5);
    e.add_wal(5, synced(47));
    vs.log_and_apply(e).unwrap();
    let mut e = VersionEdit::new();
    e.add_wal(5, closed(900, 20));
    e.add_wal(7, WalMeta::default());
    vs.log_and_apply(e).unwrap();
    let want: BTreeMap<u64, WalMeta> = [(5, closed(900, 20)), (7, WalMeta::default())].into();
    assert_eq!(vs.wals(), &want);
    assert_eq!(
        VersionSet::recover(std_fs(), dir.path(), &opts())
            .unwrap()
            .wals(),
        &want
    );

    // The log number moves past log 5: forgotten, in memory and on disk.
    let mut e = VersionEdit::new();
    e.log_number = Some(7);
    e.add_wal(7, synced(100));
    vs.log_and_apply(e).unwrap();
    let want: BTreeMap<u64, WalMeta> = [(7, synced(100))].into();
    assert_eq!(vs.wals(), &want);
    let mut r = VersionSet::recover(std_fs(), dir.path(), &opts()).unwrap();
    assert_eq!(r.wals(), &want);
    // The first edit after recovery rolls: the snapshot carries the logs.
    r.log_and_apply(VersionEdit::new()).unwrap();
    assert!(r.manifest_file_number() > 1);
    assert_eq!(
        VersionSet::recover(std_fs(), dir.path(), &opts())
            .unwrap()
            .wals(),
        &want
    );
}

/// Column families in the manifest: each family's tables, log number and
/// cursors survive recovery, appended and rolled into a snapshot; a
/// dropped family is gone, its id never handed out again; the database's
/// log number is the smallest family log number.
#[test]
fn families_are_added_edited_dropped_and_recovered_across_rolls() {
    let dir = tempfile::tempdir().unwrap();
    let mut vs = VersionSet::create_new(std_fs(), dir.path(), &opts(), DbId::generate()).unwrap();
    let add = |vs: &mut VersionSet, name: &str, log: u64| {
        let id = vs.new_column_family_id();
        vs.log_and_apply(VersionEdit {
            column_family: id,
            column_family_add: Some(name.into()),
            log_number: Some(log),
            ..VersionEdit::default()
        })
        .unwrap();
        id
    };
    let a = add(&mut vs, "a", 3);
    let b = add(&mut vs, "b", 3);
    assert_eq!((a, b), (1, 2));
    // An id not handed out, or in use, is refused before anything is written.
    let bad = VersionEdit {
        column_family: 9,
        column_family_add: Some("x".into()),
        ..VersionEdit::default()
    };
    assert!(vs.log_and_apply(bad).is_err());
    let n = vs.new_file_number();
    let mut e = VersionEdit {
        column_family: a,
        log_number: Some(7),
        ..VersionEdit::default()
    };
    e.add_file(0, table(n, "a", "b", 5));
    e.set_compact_cursor(1, make_internal_key(b"c", 1, ValueKind::Value));
    vs.set_last_sequence(5);
    vs.log_and_apply(e).unwrap();
    let mut e = VersionEdit::new();
    e.log_number = Some(6);
    vs.log_and_apply(e).unwrap();
    // Family b still needs log 3.
    assert_eq!(vs.log_number(), 3);
    assert_eq!(vs.family_log_number(a), 7);

    let check = |r: &VersionSet| {
        let names: Vec<_> = r.families().values().map(|f| f.name.clone()).collect();
        assert_eq!(names, ["default", "a", "b"]);
        assert_eq!(r.current_cf(a).unwrap().files(0)[0].number, n);
        assert_eq!(r.current().num_files(0), 0);
        assert_eq!(r.family_log_number(a), 7);
        assert_eq!(r.family_log_number(0), 6);
        assert_eq!(r.log_number(), 3);
        assert_eq!(
            r.compact_cursors_cf(a)[1],
            make_internal_key(b"c", 1, ValueKind::Value)
        );
        assert_eq!(r.max_column_family(), 2);
    };
    check(&VersionSet::recover(std_fs(), dir.path(), &opts()).unwrap());
    // Rolled into a snapshot: the same.
    vs.set_max_manifest_file_size(0);
    vs.log_and_apply(VersionEdit::new()).unwrap();
    let mut r = VersionSet::recover(std_fs(), dir.path(), &opts()).unwrap();
    check(&r);

    // Drop b: the database's log number moves on; a drops its table too.
    r.log_and_apply(VersionEdit {
        column_family: b,
        column_family_drop: true,
        ..VersionEdit::default()
    })
    .unwrap();
    assert_eq!(r.log_number(), 6);
    assert!(
        r.log_and_apply(VersionEdit {
            column_family: 0,
            column_family_drop: true,
            ..VersionEdit::default()
        })
        .is_err(),
        "the default family is never dropped"
    );
    let mut r = VersionSet::recover(std_fs(), dir.path(), &opts()).unwrap();
    assert!(r.current_cf(b).is_none());
    assert_eq!(r.families().len(), 2);
    assert_eq!(r.new_column_family_id(), 3, "ids are never reused");
    // An edit of a dropped family is refused.
    assert!(
        r.log_and_apply(VersionEdit {
            column_family: b,
            ..VersionEdit::default()
        })
        .is_err()
    );
}
