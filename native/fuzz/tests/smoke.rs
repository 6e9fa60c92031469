//! The CI smoke run: every target for a couple of seconds from the
//! committed corpus, and every saved regression input once. The long run is
//! `cargo run --release -p talus-fuzz -- --seconds 600` (see docs/internals/testing.md).

use std::path::PathBuf;
use std::time::Duration;

use talus_fuzz::targets::TARGETS;
use talus_fuzz::{Limits, QuietPanics, read_dir_inputs, run, run_one, seeds};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_target_survives_a_short_run_from_the_committed_corpus() {
    let _quiet = QuietPanics::new();
    for (name, target) in TARGETS {
        let corpus = read_dir_inputs(&root().join("corpus").join(name));
        assert!(
            !corpus.is_empty(),
            "{name}: the committed corpus is missing"
        );
        let mut inputs: Vec<Vec<u8>> = corpus.into_iter().map(|(_, b)| b).collect();
        inputs.extend(seeds::for_target(name));
        let limits = Limits {
            max_execs: 200_000,
            max_time: Duration::from_secs(2),
        };
        let tmp = std::env::temp_dir();
        let r = run(name, *target, inputs, limits, 7, &tmp);
        eprintln!(
            "{name}: {} execs, corpus {}, signatures {}",
            r.execs, r.corpus, r.signatures
        );
        assert!(r.execs > 0);
        assert!(
            r.findings.is_empty(),
            "{name}: {}",
            r.findings
                .iter()
                .map(|f| format!(
                    "{} (input {:?})",
                    f.message,
                    &f.input[..f.input.len().min(64)]
                ))
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
}

/// Inputs that once made a target panic, kept under
/// `regressions/<target>/<bug name>`.
#[test]
fn saved_regression_inputs_do_not_panic() {
    let _quiet = QuietPanics::new();
    for (name, target) in TARGETS {
        for (file, input) in read_dir_inputs(&root().join("regressions").join(name)) {
            if let Err(m) = run_one(*target, &input) {
                panic!("{name}/{file}: {m}");
            }
        }
    }
}
