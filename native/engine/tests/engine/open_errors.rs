//! Opening a database whose directory the process cannot use reports the
//! OS error and the path, and never takes the directory for a missing
//! database.
//!
//! Tests run as root, where a directory of mode 000 denies nothing. So the
//! permission case runs on [`DeniedFs`], the real file system with one
//! directory made unreadable the way a mode-000 directory is for its
//! non-root owner (the directory itself can be stat'ed, nothing inside it
//! can, and `exists` says false for what is inside, as `Path::exists`
//! does); the Java suite runs the same open as a non-root user on a real
//! mode-000 directory (`TalusDBMisuseTest`). ENOTDIR, which root meets too,
//! runs on the real file system.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use talus::fs::{
    FileLock, FileSystem, RandomAccessFile, SequentialFile, StdFileSystem, WritableFile,
    WriteFileOptions,
};
use talus::{Code, Db, Error, Options};

/// [`StdFileSystem`] where every path strictly inside `denied` fails with
/// EACCES.
struct DeniedFs {
    denied: PathBuf,
}

impl DeniedFs {
    fn check(&self, what: &str, path: &Path) -> talus::Result<()> {
        if path != self.denied && path.starts_with(&self.denied) {
            return Err(Error::io_path(
                what,
                path,
                &io::Error::from_raw_os_error(13),
            ));
        }
        Ok(())
    }
}

impl FileSystem for DeniedFs {
    fn create_dir_all(&self, path: &Path) -> talus::Result<()> {
        self.check("create directory", path)?;
        StdFileSystem.create_dir_all(path)
    }
    fn new_writable(
        &self,
        path: &Path,
        opts: WriteFileOptions,
    ) -> talus::Result<Box<dyn WritableFile>> {
        self.check("create", path)?;
        StdFileSystem.new_writable(path, opts)
    }
    fn new_appendable(
        &self,
        path: &Path,
        opts: WriteFileOptions,
    ) -> talus::Result<Box<dyn WritableFile>> {
        self.check("open", path)?;
        StdFileSystem.new_appendable(path, opts)
    }
    fn new_sequential(&self, path: &Path) -> talus::Result<Box<dyn SequentialFile>> {
        self.check("open", path)?;
        StdFileSystem.new_sequential(path)
    }
    fn new_random_access(&self, path: &Path) -> talus::Result<Arc<dyn RandomAccessFile>> {
        self.check("open", path)?;
        StdFileSystem.new_random_access(path)
    }
    fn file_size(&self, path: &Path) -> talus::Result<u64> {
        self.check("stat", path)?;
        StdFileSystem.file_size(path)
    }
    fn exists(&self, path: &Path) -> bool {
        self.check("stat", path).is_ok() && StdFileSystem.exists(path)
    }
    fn try_exists(&self, path: &Path) -> talus::Result<bool> {
        self.check("stat", path)?;
        StdFileSystem.try_exists(path)
    }
    fn is_dir(&self, path: &Path) -> bool {
        self.check("stat", path).is_ok() && StdFileSystem.is_dir(path)
    }
    fn list_dir(&self, path: &Path) -> talus::Result<Vec<String>> {
        // Listing needs read permission on the directory itself.
        if path.starts_with(&self.denied) {
            return Err(Error::io_path(
                "list",
                path,
                &io::Error::from_raw_os_error(13),
            ));
        }
        StdFileSystem.list_dir(path)
    }
    fn remove_file(&self, path: &Path) -> talus::Result<()> {
        self.check("remove", path)?;
        StdFileSystem.remove_file(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> talus::Result<()> {
        self.check("rename", from)?;
        self.check("rename", to)?;
        StdFileSystem.rename(from, to)
    }
    fn sync_dir(&self, dir: &Path) -> talus::Result<()> {
        self.check("sync directory", dir)?;
        StdFileSystem.sync_dir(dir)
    }
    fn truncate(&self, path: &Path, len: u64) -> talus::Result<()> {
        self.check("truncate", path)?;
        StdFileSystem.truncate(path, len)
    }
    fn lock_file(&self, path: &Path) -> talus::Result<Box<dyn FileLock>> {
        self.check("lock", path)?;
        StdFileSystem.lock_file(path)
    }
}

fn expect_io_error(r: talus::Result<Db>, errno: i32, path: &Path) {
    let e = match r {
        Ok(_) => panic!("open succeeded"),
        Err(e) => e,
    };
    assert_eq!(e.code(), Code::IoError, "{e}");
    assert!(
        matches!(e, Error::Io { errno: Some(n), .. } if n == errno),
        "expected errno {errno}: {e}"
    );
    let text = e.to_string();
    assert!(text.contains(&path.display().to_string()), "{text}");
    assert!(
        text.contains(&io::Error::from_raw_os_error(errno).to_string()),
        "{text}"
    );
}

/// A database directory its user may not read (mode 000) failed with
/// `InvalidArgument: ... does not exist (create_if_missing is false)`: the
/// check for `CURRENT` took "permission denied" for "missing".
#[test]
fn regression_unreadable_database_directory_is_an_io_error_not_missing() {
    let dir = tempfile::tempdir().unwrap();
    let db_dir = dir.path().join("db");
    {
        let o = Options {
            create_if_missing: true,
            ..Options::default()
        };
        let db = Db::open(o, &db_dir).unwrap();
        db.put(&Default::default(), b"k", b"v").unwrap();
        db.close().unwrap();
    }
    for create_if_missing in [false, true] {
        let o = Options {
            create_if_missing,
            fs: Arc::new(DeniedFs {
                denied: db_dir.clone(),
            }),
            ..Options::default()
        };
        expect_io_error(Db::open(o, &db_dir), 13, &db_dir);
    }
    // Nothing was touched: the database opens as it was.
    let db = Db::open(Options::default(), &db_dir).unwrap();
    assert_eq!(
        db.get(&Default::default(), b"k").unwrap().as_deref(),
        Some(&b"v"[..])
    );
}

/// The same on the real file system, with the error root meets too: a
/// database path below a regular file (ENOTDIR) was "does not exist".
#[test]
fn regression_database_path_below_a_file_is_an_io_error_not_missing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, b"not a directory").unwrap();
    let db_dir = file.join("db");
    for create_if_missing in [false, true] {
        let o = Options {
            create_if_missing,
            ..Options::default()
        };
        expect_io_error(Db::open(o, &db_dir), 20, &db_dir);
    }
    assert_eq!(std::fs::read(&file).unwrap(), b"not a directory");
}
