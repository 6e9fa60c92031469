use super::*;
use crate::error::{Code, SubCode};

fn p(s: &str) -> PathBuf {
    PathBuf::from(s)
}

fn fs_with_dir() -> FaultFs {
    let fs = FaultFs::new(7);
    fs.create_dir_all(&p("/db")).unwrap();
    fs
}

fn write(fs: &FaultFs, path: &str, data: &[u8], sync: bool) -> Box<dyn WritableFile> {
    let mut f = fs
        .new_writable(&p(path), WriteFileOptions::default())
        .unwrap();
    f.append(data).unwrap();
    if sync {
        f.sync().unwrap();
    } else {
        f.flush().unwrap();
    }
    f
}

#[test]
fn power_loss_keeps_synced_bytes_of_durable_names_only() {
    let fs = fs_with_dir();
    let mut a = write(&fs, "/db/a", b"synced", true);
    a.append(b"+unsynced").unwrap();
    a.flush().unwrap();
    fs.sync_dir(&p("/db")).unwrap();
    // Synced bytes, but the name was never made durable.
    let _b = write(&fs, "/db/b", b"lost name", true);
    assert_eq!(fs.contents(&p("/db/a")).unwrap(), b"synced+unsynced");
    assert_eq!(fs.synced_len(&p("/db/a")), Some(6));
    assert!(!fs.name_is_durable(&p("/db/b")));
    fs.crash(Crash::PowerLoss);
    assert_eq!(fs.contents(&p("/db/a")).unwrap(), b"synced");
    assert!(!fs.exists(&p("/db/b")));
    assert_eq!(fs.list_dir(&p("/db")).unwrap(), vec!["a".to_string()]);
}

#[test]
fn rename_and_remove_without_directory_sync_are_undone_by_power_loss() {
    let fs = fs_with_dir();
    write(&fs, "/db/CURRENT", b"old", true);
    write(&fs, "/db/gone", b"x", true);
    fs.sync_dir(&p("/db")).unwrap();
    write(&fs, "/db/CURRENT.dbtmp", b"new", true);
    fs.rename(&p("/db/CURRENT.dbtmp"), &p("/db/CURRENT"))
        .unwrap();
    fs.remove_file(&p("/db/gone")).unwrap();
    assert_eq!(fs.contents(&p("/db/CURRENT")).unwrap(), b"new");
    fs.crash(Crash::PowerLoss);
    assert_eq!(fs.contents(&p("/db/CURRENT")).unwrap(), b"old");
    assert_eq!(fs.contents(&p("/db/gone")).unwrap(), b"x");
    assert!(!fs.exists(&p("/db/CURRENT.dbtmp")));

    // The same, with the directory synced: all of it sticks.
    write(&fs, "/db/CURRENT.dbtmp", b"new", true);
    fs.rename(&p("/db/CURRENT.dbtmp"), &p("/db/CURRENT"))
        .unwrap();
    fs.remove_file(&p("/db/gone")).unwrap();
    fs.sync_dir(&p("/db")).unwrap();
    fs.crash(Crash::PowerLoss);
    assert_eq!(fs.contents(&p("/db/CURRENT")).unwrap(), b"new");
    assert!(!fs.exists(&p("/db/gone")));
}

#[test]
fn process_kill_keeps_what_reached_the_os_and_loses_buffers() {
    let fs = fs_with_dir();
    let mut f = write(&fs, "/db/log", b"flushed", false);
    f.append(b"+buffered").unwrap();
    fs.crash(Crash::ProcessKill);
    assert_eq!(fs.contents(&p("/db/log")).unwrap(), b"flushed");
    // The stale handle can do nothing any more.
    assert!(f.flush().is_err());
    assert!(f.append(b"x").is_err());
    assert_eq!(fs.contents(&p("/db/log")).unwrap(), b"flushed");
    // Unsynced names survive a process kill.
    assert!(fs.exists(&p("/db/log")));
}

#[test]
fn random_power_loss_keeps_synced_prefix_and_part_of_the_rest() {
    let mut lengths = BTreeSet::new();
    for seed in 0..40 {
        let fs = fs_with_dir();
        let mut f = write(&fs, "/db/f", &[1; 100], true);
        fs.sync_dir(&p("/db")).unwrap();
        f.append(&[2; 100]).unwrap();
        f.flush().unwrap();
        fs.crash(Crash::PowerLossRandom(seed));
        let c = fs.contents(&p("/db/f")).unwrap();
        assert!((100..=200).contains(&c.len()), "{}", c.len());
        assert!(c[..100].iter().all(|&b| b == 1));
        assert!(c[100..].iter().all(|&b| b == 2));
        lengths.insert(c.len());
    }
    assert!(lengths.len() > 5, "{lengths:?}");
}

#[test]
fn rules_fail_by_kind_path_and_count_with_the_chosen_errno() {
    let fs = fs_with_dir();
    fs.inject(
        FaultRule::new(&[FaultOp::Sync])
            .path(".log")
            .skip(1)
            .times(2)
            .error(FaultError::Enospc),
    );
    let mut f = fs
        .new_writable(&p("/db/000001.log"), WriteFileOptions::default())
        .unwrap();
    let mut other = fs
        .new_writable(&p("/db/000002.sst"), WriteFileOptions::default())
        .unwrap();
    f.append(b"a").unwrap();
    f.sync().unwrap(); // skipped
    let e = f.sync().unwrap_err();
    assert_eq!(e.code(), Code::IoError);
    assert_eq!(e.subcode(), SubCode::NoSpace);
    assert!(e.to_string().contains("000001.log"), "{e}");
    assert!(e.to_string().contains("injected ENOSPC"), "{e}");
    other.sync().unwrap(); // path does not match
    f.sync().unwrap_err();
    f.sync().unwrap(); // times(2) used up
    assert_eq!(fs.faults_injected(), 2);

    fs.inject(FaultRule::new(&[FaultOp::Rename]).path("CURRENT"));
    let err = fs
        .rename(&p("/db/000002.sst"), &p("/db/CURRENT"))
        .unwrap_err();
    assert_eq!(err.subcode(), SubCode::None);
    fs.clear_faults();
    fs.rename(&p("/db/000002.sst"), &p("/db/CURRENT")).unwrap();
}

#[test]
fn a_partial_write_leaves_half_and_later_writes_land_after_the_gap() {
    let fs = fs_with_dir();
    fs.inject(FaultRule::new(&[FaultOp::Write]).times(1).partial());
    let mut f = fs
        .new_writable(&p("/db/x"), WriteFileOptions::default())
        .unwrap();
    f.append(b"abcd").unwrap_err();
    f.append(b"ef").unwrap();
    f.flush().unwrap();
    assert_eq!(fs.contents(&p("/db/x")).unwrap(), b"abef");
}

#[test]
fn freeze_after_tears_the_crash_write_and_fails_every_later_mutation() {
    let fs = fs_with_dir();
    let mut f = fs
        .new_writable(&p("/db/x"), WriteFileOptions::default())
        .unwrap();
    f.append(b"0123").unwrap();
    f.sync().unwrap();
    fs.sync_dir(&p("/db")).unwrap();
    fs.freeze_after(1);
    assert!(!fs.is_frozen());
    f.append(&[9; 1000]).unwrap_err();
    assert!(fs.is_frozen());
    let torn = fs.contents(&p("/db/x")).unwrap();
    assert!(torn.len() >= 4 && torn.len() <= 1004);
    assert!(f.sync().is_err());
    assert!(fs.remove_file(&p("/db/x")).is_err());
    assert!(
        fs.new_writable(&p("/db/y"), WriteFileOptions::default())
            .is_err()
    );
    // Reads still work while frozen.
    assert!(fs.new_sequential(&p("/db/x")).is_ok());
    fs.crash(Crash::PowerLoss);
    assert_eq!(fs.contents(&p("/db/x")).unwrap(), b"0123");
    assert!(!fs.is_frozen());
    fs.remove_file(&p("/db/x")).unwrap();
}

#[test]
fn locks_are_exclusive_and_released_by_drop_or_crash() {
    let fs = fs_with_dir();
    let l = fs.lock_file(&p("/db/LOCK")).unwrap();
    // RocksDB's status for a held lock.
    assert_eq!(
        fs.lock_file(&p("/db/LOCK")).err().unwrap().code(),
        Code::IoError
    );
    drop(l);
    let _l2 = fs.lock_file(&p("/db/LOCK")).unwrap();
    fs.crash(Crash::ProcessKill);
    let _l3 = fs.lock_file(&p("/db/LOCK")).unwrap();
}

#[test]
fn readers_see_flushed_bytes_and_short_reads_fail() {
    let fs = fs_with_dir();
    let mut f = write(&fs, "/db/t", b"hello", false);
    f.append(b" world").unwrap();
    let r = fs.new_random_access(&p("/db/t")).unwrap();
    assert_eq!(r.size().unwrap(), 5);
    let mut b = [0u8; 3];
    r.read_exact_at(1, &mut b).unwrap();
    assert_eq!(&b, b"ell");
    assert!(r.read_exact_at(3, &mut [0u8; 3]).is_err());
    f.flush().unwrap();
    assert_eq!(
        super::super::read_all(&fs, &p("/db/t")).unwrap(),
        b"hello world"
    );
    fs.inject(FaultRule::new(&[FaultOp::Read]).path("/db/t"));
    assert!(r.read_exact_at(0, &mut b).is_err());
    assert!(fs.new_sequential(&p("/db/t")).is_err());
}
