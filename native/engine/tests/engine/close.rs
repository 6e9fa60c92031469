//! What `close()` waits for.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use parking_lot::{Condvar, Mutex};
use talus::db::FlushOptions;
use talus::fs::{
    FileLock, FileSystem, RandomAccessFile, SequentialFile, StdFileSystem, WritableFile,
    WriteFileOptions,
};
use talus::{Code, Db, Options, ReadOptions, WriteOptions};

/// Holds the flush thread's first append to a table file while the gate is
/// closed, and counts the bytes appended to table files.
#[derive(Default)]
struct Gate {
    closed: Mutex<bool>,
    cv: Condvar,
    held: AtomicBool,
    table_bytes: AtomicU64,
}

impl Gate {
    fn pass(&self) {
        let mut closed = self.closed.lock();
        if *closed {
            self.held.store(true, Ordering::Release);
        }
        while *closed {
            self.cv.wait(&mut closed);
        }
    }
    fn open(&self) {
        *self.closed.lock() = false;
        self.cv.notify_all();
    }
}

struct GatedTable {
    inner: Box<dyn WritableFile>,
    gate: Arc<Gate>,
    flush_thread: bool,
}

impl WritableFile for GatedTable {
    fn append(&mut self, data: &[u8]) -> talus::Result<()> {
        if self.flush_thread {
            self.gate.pass();
        }
        self.gate
            .table_bytes
            .fetch_add(data.len() as u64, Ordering::Relaxed);
        self.inner.append(data)
    }
    fn flush(&mut self) -> talus::Result<()> {
        self.inner.flush()
    }
    fn sync(&mut self) -> talus::Result<()> {
        self.inner.sync()
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
}

struct GateFs(Arc<Gate>);

impl FileSystem for GateFs {
    fn create_dir_all(&self, p: &Path) -> talus::Result<()> {
        StdFileSystem.create_dir_all(p)
    }
    fn new_writable(&self, p: &Path, o: WriteFileOptions) -> talus::Result<Box<dyn WritableFile>> {
        let inner = StdFileSystem.new_writable(p, o)?;
        if p.extension().is_none_or(|e| e != "sst") {
            return Ok(inner);
        }
        let flush_thread = std::thread::current()
            .name()
            .is_some_and(|n| n.starts_with("talus-flush"));
        Ok(Box::new(GatedTable {
            inner,
            gate: self.0.clone(),
            flush_thread,
        }))
    }
    fn new_appendable(
        &self,
        p: &Path,
        o: WriteFileOptions,
    ) -> talus::Result<Box<dyn WritableFile>> {
        StdFileSystem.new_appendable(p, o)
    }
    fn new_sequential(&self, p: &Path) -> talus::Result<Box<dyn SequentialFile>> {
        StdFileSystem.new_sequential(p)
    }
    fn new_random_access(&self, p: &Path) -> talus::Result<Arc<dyn RandomAccessFile>> {
        StdFileSystem.new_random_access(p)
    }
    fn file_size(&self, p: &Path) -> talus::Result<u64> {
        StdFileSystem.file_size(p)
    }
    fn exists(&self, p: &Path) -> bool {
        StdFileSystem.exists(p)
    }
    fn try_exists(&self, p: &Path) -> talus::Result<bool> {
        StdFileSystem.try_exists(p)
    }
    fn is_dir(&self, p: &Path) -> bool {
        StdFileSystem.is_dir(p)
    }
    fn list_dir(&self, p: &Path) -> talus::Result<Vec<String>> {
        StdFileSystem.list_dir(p)
    }
    fn remove_file(&self, p: &Path) -> talus::Result<()> {
        StdFileSystem.remove_file(p)
    }
    fn rename(&self, from: &Path, to: &Path) -> talus::Result<()> {
        StdFileSystem.rename(from, to)
    }
    fn sync_dir(&self, d: &Path) -> talus::Result<()> {
        StdFileSystem.sync_dir(d)
    }
    fn truncate(&self, p: &Path, len: u64) -> talus::Result<()> {
        StdFileSystem.truncate(p, len)
    }
    fn lock_file(&self, p: &Path) -> talus::Result<Box<dyn FileLock>> {
        StdFileSystem.lock_file(p)
    }
}

fn key(i: u32) -> Vec<u8> {
    format!("key{i:07}").into_bytes()
}

const KEYS: u32 = 20_000;
const VALUE: usize = 100;

/// `close()` waited for a running flush to its end, however slow (29 s for
/// a 32 MB memtable under a 1 MB/s rate limiter), though every write in it
/// was in the WAL, which the next open replays. RocksDB's close does not
/// flush such memtables; now a flush running at close stops too. The flush
/// is held at its first table write until close has begun, then let go: it
/// must stop within a few hundred entries instead of writing them all, and
/// the reopened database must hold every write.
#[test]
fn regression_close_abandons_a_flush_whose_writes_are_in_the_wal() {
    let dir = tempfile::tempdir().unwrap();
    let gate = Arc::new(Gate::default());
    let o = Options {
        create_if_missing: true,
        fs: Arc::new(GateFs(gate.clone())),
        stats_dump_period_sec: 0,
        ..Options::default()
    };
    let db = Arc::new(Db::open(o, dir.path()).unwrap());
    let wo = WriteOptions::default();
    for i in 0..KEYS {
        db.put(&wo, &key(i), &[b'v'; VALUE]).unwrap();
    }
    *gate.closed.lock() = true;
    db.flush(&FlushOptions {
        wait: false,
        ..FlushOptions::default()
    })
    .unwrap();
    while !gate.held.load(Ordering::Acquire) {
        std::thread::yield_now();
    }
    let closer = {
        let db = db.clone();
        std::thread::spawn(move || db.close())
    };
    // Close has begun once new calls fail.
    loop {
        match db.get(&ReadOptions::default(), b"x") {
            Err(e) if e.code() == Code::ShutdownInProgress => break,
            _ => std::thread::yield_now(),
        }
    }
    gate.open();
    closer.join().unwrap().unwrap();
    let written = gate.table_bytes.load(Ordering::Relaxed);
    let data = u64::from(KEYS) * VALUE as u64;
    assert!(
        written < data / 4,
        "the flush wrote {written} of about {data} bytes after close began"
    );
    let log = std::fs::read_to_string(dir.path().join("LOG")).unwrap();
    assert!(log.contains("abandoned at close"), "{log}");
    drop(db);

    let db = Db::open(
        Options {
            stats_dump_period_sec: 0,
            ..Options::default()
        },
        dir.path(),
    )
    .unwrap();
    for i in (0..KEYS).step_by(97).chain([KEYS - 1]) {
        assert_eq!(
            db.get(&ReadOptions::default(), &key(i)).unwrap().as_deref(),
            Some(&[b'v'; VALUE][..]),
            "key {i}"
        );
    }
}

/// The other half of the rule: writes made without the WAL are flushed by
/// close even when the flush is already running as close begins.
#[test]
fn close_finishes_a_running_flush_of_writes_made_without_the_wal() {
    let dir = tempfile::tempdir().unwrap();
    let gate = Arc::new(Gate::default());
    let o = Options {
        create_if_missing: true,
        fs: Arc::new(GateFs(gate.clone())),
        stats_dump_period_sec: 0,
        ..Options::default()
    };
    let db = Arc::new(Db::open(o, dir.path()).unwrap());
    let unlogged = WriteOptions {
        disable_wal: true,
        ..WriteOptions::default()
    };
    for i in 0..KEYS {
        db.put(&unlogged, &key(i), &[b'u'; VALUE]).unwrap();
    }
    *gate.closed.lock() = true;
    db.flush(&FlushOptions {
        wait: false,
        ..FlushOptions::default()
    })
    .unwrap();
    while !gate.held.load(Ordering::Acquire) {
        std::thread::yield_now();
    }
    let closer = {
        let db = db.clone();
        std::thread::spawn(move || db.close())
    };
    // Close has begun once writes fail; new calls fail only after its
    // flush, which waits for the held one.
    loop {
        match db.put(&WriteOptions::default(), b"probe", b"") {
            Err(e) if e.code() == Code::ShutdownInProgress => break,
            _ => std::thread::yield_now(),
        }
    }
    gate.open();
    closer.join().unwrap().unwrap();
    let log = std::fs::read_to_string(dir.path().join("LOG")).unwrap();
    assert!(!log.contains("abandoned at close"), "{log}");
    drop(db);
    let db = Db::open(Options::default(), dir.path()).unwrap();
    for i in (0..KEYS).step_by(97).chain([KEYS - 1]) {
        assert_eq!(
            db.get(&ReadOptions::default(), &key(i)).unwrap().as_deref(),
            Some(&[b'u'; VALUE][..]),
            "key {i}"
        );
    }
}
