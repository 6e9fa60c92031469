//! The durability suites of issue 7, one module per behaviour, all on the
//! in-memory fault-injecting file system `talus::fs::FaultFs` (the kill test
//! with real processes is `tests/kill.rs`).

mod column_families;
mod common;
mod corruption;
mod files_out;
mod ingest;
mod io_errors;
mod power_loss;
mod recovery_modes;
mod shared_wal_dir;
mod subcompactions;
