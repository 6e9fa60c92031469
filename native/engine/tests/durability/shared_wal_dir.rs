//! Two databases and one `wal_dir`: a database never replays, deletes or
//! overwrites a log it did not write.
//!
//! Each open database locks its `wal_dir` (a second database opening on it
//! is refused with an IO error naming it and the lock), and every log names its database in
//! its start record, so a database opened later on a `wal_dir` holding
//! another's logs leaves them alone.

use std::path::Path;

use talus::db::FlushOptions;
use talus::fs::{FaultFs, FileSystem};
use talus::{Code, Db, Options, ReadOptions};

use crate::common::*;

fn opts(fs: &FaultFs) -> Options {
    Options {
        create_if_missing: true,
        fs: std::sync::Arc::new(fs.clone()),
        stats_dump_period_sec: 0,
        wal_dir: Some("/wal".into()),
        max_write_buffer_number: 4,
        ..Options::default()
    }
}

fn key(db: &str, i: usize) -> Vec<u8> {
    format!("{db}{i:04}").into_bytes()
}

/// The logs in /wal and their bytes.
fn wal_files(fs: &FaultFs) -> std::collections::BTreeMap<String, Vec<u8>> {
    fs.list_dir(Path::new("/wal"))
        .unwrap()
        .into_iter()
        .filter(|n| n.ends_with(".log"))
        .map(|n| {
            let b = fs.contents(&Path::new("/wal").join(&n)).unwrap();
            (n, b)
        })
        .collect()
}

/// Regression (issue 30): a second database opened with the `wal_dir` of a
/// first deleted the first one's logs as obsolete (their numbers were
/// below its own log number): the first lost its synced writes and then
/// could not open ("oldest unflushed log is missing"). Now the second open
/// is refused while the first is open; opened after the first closed, the
/// second neither replays nor deletes the first's logs — across its own
/// flushes, reopens and closes — and the first opens with every write.
#[test]
fn regression_a_second_database_on_the_same_wal_dir_never_deletes_the_first_ones_logs() {
    let fs = FaultFs::new(5);
    for d in ["/a", "/b", "/wal"] {
        fs.create_dir_all(Path::new(d)).unwrap();
    }
    let a = Db::open(opts(&fs), "/a").unwrap();
    a.pause_background_work().unwrap();
    for i in 0..300 {
        if i == 150 {
            a.flush(&FlushOptions {
                wait: false,
                ..FlushOptions::default()
            })
            .unwrap();
        }
        a.put(&wo(true, false), &key("a", i), b"from a").unwrap();
    }

    // While the first is open: refused, naming the wal_dir.
    let e = Db::open(opts(&fs), "/b").unwrap_err();
    assert_eq!(e.code(), Code::IoError, "{e}");
    assert!(e.to_string().contains("/wal"), "{e}");
    assert!(e.to_string().contains("lock"), "{e}");
    assert!(e.to_string().contains("wal_dir"), "{e}");
    a.close().unwrap();
    drop(a);
    let a_logs = wal_files(&fs);
    assert!(a_logs.len() >= 2, "{a_logs:?}");

    // After it closed: the second opens, writes, flushes, reopens.
    for round in 0..3 {
        let b = Db::open(opts(&fs), "/b").unwrap();
        let ro = ReadOptions::default();
        assert_eq!(b.get(&ro, &key("a", 0)).unwrap(), None, "a's writes in b");
        for i in 0..100 {
            b.put(&wo(true, false), &key("b", round * 100 + i), b"from b")
                .unwrap();
        }
        flush(&b).unwrap();
        b.compact_range(None, None).unwrap();
        for i in 0..(round + 1) * 100 {
            assert_eq!(
                b.get(&ro, &key("b", i)).unwrap().as_deref(),
                Some(&b"from b"[..])
            );
        }
        b.close().unwrap();
        let now = wal_files(&fs);
        for (name, bytes) in &a_logs {
            assert_eq!(now.get(name), Some(bytes), "round {round}: {name} of a");
        }
    }
    let log = info_log_tail(&fs, Path::new("/b"), 10_000);
    assert!(log.contains("is not this database's"), "{log}");

    // The first database: every synced write is there.
    let a = Db::open(opts(&fs), "/a").unwrap();
    let ro = ReadOptions::default();
    for i in 0..300 {
        assert_eq!(
            a.get(&ro, &key("a", i)).unwrap().as_deref(),
            Some(&b"from a"[..]),
            "a{i:04}"
        );
    }
    assert_eq!(a.get(&ro, &key("b", 0)).unwrap(), None, "b's writes in a");
}

/// A database whose `wal_dir` is another database's directory: refused
/// while that one is open (its `LOCK` is the one taken).
#[test]
fn a_wal_dir_naming_an_open_database_directory_is_refused() {
    let fs = FaultFs::new(6);
    for d in ["/a", "/b"] {
        fs.create_dir_all(Path::new(d)).unwrap();
    }
    let a = Db::open(
        Options {
            wal_dir: None,
            ..opts(&fs)
        },
        "/a",
    )
    .unwrap();
    let e = Db::open(
        Options {
            wal_dir: Some("/a".into()),
            ..opts(&fs)
        },
        "/b",
    )
    .unwrap_err();
    assert_eq!(e.code(), Code::IoError, "{e}");
    assert!(e.to_string().contains("lock"), "{e}");
    assert!(e.to_string().contains("/a"), "{e}");
    drop(a);
}

/// A database whose only data is in its logs in a separate `wal_dir`
/// (nothing flushed) and whose `CURRENT` is lost: the open is refused with
/// `Corruption` naming `CURRENT` and the log (its start record names the
/// database `IDENTITY` holds), rather than creating an empty database over
/// it; another database's logs in the same `wal_dir` never count, so a new
/// database can be created next to them.
#[test]
fn a_lost_current_with_the_data_only_in_the_wal_dir_is_refused_not_recreated() {
    let fs = FaultFs::new(7);
    for d in ["/a", "/b", "/wal"] {
        fs.create_dir_all(Path::new(d)).unwrap();
    }
    let a = Db::open(opts(&fs), "/a").unwrap();
    for i in 0..50 {
        a.put(&wo(true, false), &key("a", i), b"from a").unwrap();
    }
    a.close().unwrap();
    drop(a);
    assert!(
        !fs.list_dir(Path::new("/a"))
            .unwrap()
            .iter()
            .any(|n| n.ends_with(".sst")),
        "nothing flushed"
    );
    fs.remove_file(Path::new("/a/CURRENT")).unwrap();
    let logs_before = wal_files(&fs);
    let e = Db::open(opts(&fs), "/a").unwrap_err();
    assert_eq!(e.code(), Code::Corruption, "{e}");
    let msg = e.to_string();
    assert!(msg.contains("CURRENT") && msg.contains("/wal/"), "{msg}");
    assert_eq!(
        wal_files(&fs),
        logs_before,
        "nothing changed in the wal_dir"
    );

    // A new database next to a's logs is created, and leaves them alone.
    let b = Db::open(opts(&fs), "/b").unwrap();
    b.put(&wo(true, false), b"b", b"1").unwrap();
    b.close().unwrap();
    let now = wal_files(&fs);
    for (name, bytes) in &logs_before {
        assert_eq!(now.get(name), Some(bytes), "{name} of a");
    }
}
