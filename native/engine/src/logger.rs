//! The info log: a human-readable `LOG` file in the database directory, plus
//! an optional user callback receiving the same lines (RocksJava's `Logger`).
//!
//! Line format: `YYYY/MM/DD-HH:MM:SS.micros <thread-id> [LEVEL] message`.
//! At open the previous `LOG` is renamed to `LOG.old.<unix-micros>`; when the
//! file exceeds `max_log_file_size` it is rotated the same way, and only the
//! newest `keep_log_file_num` old files are kept.
//!
//! Thread-safety: [`InfoLog`] is shared by all threads of a database;
//! writes are serialised by an internal mutex (the log is not on a hot path:
//! it is written at open, per flush/compaction, on stall changes and at the
//! periodic stats dump).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use parking_lot::Mutex;

use crate::error::Result;
use crate::fs::{FileSystem, WritableFile, WriteFileOptions};

/// Severity of an info log line (RocksJava `InfoLogLevel` byte values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[repr(u8)]
pub enum InfoLogLevel {
    /// Debugging detail.
    Debug = 0,
    /// Normal operation (the default threshold).
    #[default]
    Info = 1,
    /// Something unexpected but handled.
    Warn = 2,
    /// An operation failed.
    Error = 3,
    /// The database cannot continue.
    Fatal = 4,
    /// Header lines (options at open).
    Header = 5,
}

impl InfoLogLevel {
    /// Decodes the RocksJava byte.
    pub fn from_u8(b: u8) -> Option<Self> {
        Some(match b {
            0 => Self::Debug,
            1 => Self::Info,
            2 => Self::Warn,
            3 => Self::Error,
            4 => Self::Fatal,
            5 => Self::Header,
            _ => return None,
        })
    }

    fn tag(self) -> &'static str {
        match self {
            Self::Debug => "DEBUG",
            Self::Info => "INFO",
            Self::Warn => "WARN",
            Self::Error => "ERROR",
            Self::Fatal => "FATAL",
            Self::Header => "HEADER",
        }
    }
}

/// A user sink for info log lines (implemented over JNI by `dev.talus.Logger`).
pub trait LogSink: Send + Sync {
    /// Lowest level this sink wants.
    fn level(&self) -> InfoLogLevel;
    /// Receives one finished message (without timestamp).
    fn log(&self, level: InfoLogLevel, message: &str);
}

/// Settings of the info log.
#[derive(Clone)]
pub struct InfoLogOptions {
    /// Lines below this level are dropped. Default INFO.
    pub level: InfoLogLevel,
    /// Rotate `LOG` once it exceeds this many bytes (0 = never). Default 0.
    pub max_log_file_size: u64,
    /// Old log files kept. Default 1000.
    pub keep_log_file_num: usize,
    /// A user sink; when set, lines go to it instead of the `LOG` file
    /// (as RocksDB does with a user `Logger`).
    pub sink: Option<Arc<dyn LogSink>>,
}

impl Default for InfoLogOptions {
    fn default() -> Self {
        InfoLogOptions {
            level: InfoLogLevel::Info,
            max_log_file_size: 0,
            keep_log_file_num: 1000,
            sink: None,
        }
    }
}

struct FileState {
    file: Box<dyn WritableFile>,
}

/// The info log of one database.
pub struct InfoLog {
    opts: InfoLogOptions,
    fs: Arc<dyn FileSystem>,
    dir: PathBuf,
    file: Mutex<Option<FileState>>,
}

impl std::fmt::Debug for InfoLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InfoLog").field("dir", &self.dir).finish()
    }
}

fn now_micros() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_micros() as u64)
        .unwrap_or(0)
}

/// Formats unix microseconds as `YYYY/MM/DD-HH:MM:SS.micros` (UTC).
pub fn format_timestamp(micros: u64) -> String {
    let secs = micros / 1_000_000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil-from-days (proleptic Gregorian), valid for all u64 timestamps we meet.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}/{m:02}/{d:02}-{:02}:{:02}:{:02}.{:06}",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60,
        micros % 1_000_000
    )
}

fn thread_tag() -> String {
    let t = std::thread::current();
    match t.name() {
        Some(n) => n.to_string(),
        None => format!("{:?}", t.id()),
    }
}

impl InfoLog {
    /// Opens the info log of database directory `dir`, moving an existing
    /// `LOG` aside. With a user sink no file is written.
    pub fn open(fs: Arc<dyn FileSystem>, dir: &Path, opts: InfoLogOptions) -> Result<InfoLog> {
        let log = InfoLog {
            opts,
            fs,
            dir: dir.to_path_buf(),
            file: Mutex::new(None),
        };
        if log.opts.sink.is_none() {
            let mut guard = log.file.lock();
            *guard = Some(log.start_file()?);
        }
        Ok(log)
    }

    /// An info log that drops everything (for tools and tests).
    pub fn disabled(fs: Arc<dyn FileSystem>) -> InfoLog {
        InfoLog {
            opts: InfoLogOptions {
                level: InfoLogLevel::Header,
                ..InfoLogOptions::default()
            },
            fs,
            dir: PathBuf::new(),
            file: Mutex::new(None),
        }
    }

    fn start_file(&self) -> Result<FileState> {
        let path = self.dir.join("LOG");
        if self.fs.exists(&path) {
            let old = self.dir.join(format!("LOG.old.{}", now_micros()));
            self.fs.rename(&path, &old)?;
            self.prune_old();
        }
        let file = self.fs.new_writable(&path, WriteFileOptions::default())?;
        Ok(FileState { file })
    }

    fn prune_old(&self) {
        let Ok(names) = self.fs.list_dir(&self.dir) else {
            return;
        };
        let mut old: Vec<String> = names
            .into_iter()
            .filter(|n| n.starts_with("LOG.old."))
            .collect();
        // Names embed microseconds of equal width for centuries: lexical = chronological.
        old.sort();
        let keep = self.opts.keep_log_file_num.max(1);
        if old.len() > keep {
            for n in &old[..old.len() - keep] {
                let _ = self.fs.remove_file(&self.dir.join(n));
            }
        }
    }

    /// True when a line at `level` would be written.
    pub fn enabled(&self, level: InfoLogLevel) -> bool {
        level >= self.opts.level && self.opts.sink.as_ref().is_none_or(|s| level >= s.level())
    }

    /// Writes one line. IO errors on the info log are swallowed: losing a
    /// diagnostic line must not fail a user write.
    pub fn log(&self, level: InfoLogLevel, message: &str) {
        if !self.enabled(level) {
            return;
        }
        if let Some(sink) = &self.opts.sink {
            sink.log(level, message);
            return;
        }
        let line = format!(
            "{} {} [{}] {}\n",
            format_timestamp(now_micros()),
            thread_tag(),
            level.tag(),
            message
        );
        let mut guard = self.file.lock();
        let rotate = match guard.as_mut() {
            Some(st) => {
                let _ = st.file.append(line.as_bytes());
                let _ = st.file.flush();
                self.opts.max_log_file_size > 0 && st.file.len() >= self.opts.max_log_file_size
            }
            None => false,
        };
        if rotate {
            *guard = None;
            if let Ok(st) = self.start_file() {
                *guard = Some(st);
            }
        }
    }

    /// Flushes the file (the log is flushed per line; this syncs it).
    pub fn sync(&self) {
        if let Some(st) = self.file.lock().as_mut() {
            let _ = st.file.sync();
        }
    }
}

/// Logs a formatted line at a level: `info_log!(log, Info, "flushed {}", n)`.
#[macro_export]
macro_rules! info_log {
    ($log:expr, $level:ident, $($arg:tt)*) => {{
        let l: &$crate::logger::InfoLog = &$log;
        if l.enabled($crate::logger::InfoLogLevel::$level) {
            l.log($crate::logger::InfoLogLevel::$level, &format!($($arg)*));
        }
    }};
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::StdFileSystem;

    #[test]
    fn timestamps_are_civil_utc() {
        assert_eq!(format_timestamp(0), "1970/01/01-00:00:00.000000");
        // Monday 30 November 2026, 41.5 s after midnight UTC.
        assert_eq!(
            format_timestamp(1_795_996_841_500_000),
            "2026/11/30-00:00:41.500000"
        );
        assert_eq!(
            format_timestamp(951_782_400_000_001),
            "2000/02/29-00:00:00.000001"
        );
    }

    struct Collect(Mutex<Vec<(InfoLogLevel, String)>>);
    impl LogSink for Collect {
        fn level(&self) -> InfoLogLevel {
            InfoLogLevel::Warn
        }
        fn log(&self, level: InfoLogLevel, message: &str) {
            self.0.lock().push((level, message.to_string()));
        }
    }

    #[test]
    fn file_rotation_keeps_the_newest_old_logs() {
        let dir = tempfile::tempdir().unwrap();
        let fs = StdFileSystem::shared();
        let opts = InfoLogOptions {
            max_log_file_size: 200,
            keep_log_file_num: 2,
            ..InfoLogOptions::default()
        };
        let log = InfoLog::open(fs.clone(), dir.path(), opts).unwrap();
        for i in 0..50 {
            info_log!(log, Info, "line number {i} with some padding text");
            std::thread::sleep(std::time::Duration::from_micros(50));
        }
        info_log!(log, Debug, "dropped");
        let names = fs.list_dir(dir.path()).unwrap();
        let old = names.iter().filter(|n| n.starts_with("LOG.old.")).count();
        assert_eq!(old, 2, "{names:?}");
        let mut text = String::new();
        for n in &names {
            text.push_str(&std::fs::read_to_string(dir.path().join(n)).unwrap());
        }
        assert!(text.contains("[INFO] line number 49"));
        assert!(!text.contains("dropped"));
    }

    #[test]
    fn sink_receives_lines_at_its_level() {
        let dir = tempfile::tempdir().unwrap();
        let sink = Arc::new(Collect(Mutex::new(Vec::new())));
        let opts = InfoLogOptions {
            sink: Some(sink.clone()),
            ..InfoLogOptions::default()
        };
        let log = InfoLog::open(StdFileSystem::shared(), dir.path(), opts).unwrap();
        info_log!(log, Info, "not wanted");
        info_log!(log, Warn, "Stopping writes because of {}", "x");
        assert_eq!(
            sink.0.lock().as_slice(),
            &[(
                InfoLogLevel::Warn,
                "Stopping writes because of x".to_string()
            )]
        );
        assert!(!dir.path().join("LOG").exists());
    }
}
