//! talus-bench: RocksDB's db_bench for Talus — the same benchmarks, flags
//! and output, so that one command line runs against either engine.
//! See docs/talus-bench.md and `talus-bench --help`.

mod allocator;
mod bench;
mod config;
mod engine_features;
mod flags;
mod generator;
mod histogram;
mod pacer;
mod report;
mod stats;

use std::process::ExitCode;

use flags::{Flags, Parsed};

fn main() -> ExitCode {
    allocator::configure();
    let flags = match Flags::parse(std::env::args().skip(1)) {
        Ok(Parsed::Flags(f)) => f,
        Ok(Parsed::Help) => {
            print!("{}", flags::help_text());
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("talus-bench: {e}");
            return ExitCode::from(2);
        }
    };
    let cfg = match config::Config::from_flags(&flags) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("talus-bench: {e}");
            return ExitCode::from(2);
        }
    };
    let mut stdout = std::io::stdout().lock();
    let result = bench::Runner::new(cfg, &mut stdout).and_then(bench::Runner::run);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("talus-bench: {e}");
            ExitCode::FAILURE
        }
    }
}
