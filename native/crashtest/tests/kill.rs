//! The short kill test of CI: six cycles of a child writing from four
//! threads, SIGKILLed at a random moment or during a flush or a compaction;
//! after each kill every acknowledged write must be there and nothing damaged.
//! The long form: `scripts/crash-soak` (same binary, more cycles).

use std::process::Command;

#[test]
fn sigkill_loses_no_acknowledged_write_and_damages_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_talus-crash"))
        .args(["run", "--cycles", "6", "--seed", "7", "--threads", "4"])
        .args(["--max-ms", "400", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{stdout}{stderr}");
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let summary = stdout
        .lines()
        .find(|l| l.starts_with("crash-soak:"))
        .expect("a summary line");
    assert!(summary.contains("cycles 6,"), "{summary}");
    assert!(summary.contains("losses 0,"), "{summary}");
    assert!(summary.contains("damaged 0,"), "{summary}");
    // The verification saw acknowledged writes (the children did write).
    let checked: u64 = summary
        .split("writes checked ")
        .nth(1)
        .and_then(|s| s.split(',').next())
        .and_then(|s| s.parse().ok())
        .unwrap();
    assert!(checked > 100, "{summary}");
}
