//! # Talus
//!
//! An embedded LSM-tree key-value storage engine. See the repository README
//! for the user-facing promises; each module documents its own format,
//! invariants and thread-safety contract.

pub mod coding;
pub mod compaction;
pub mod error;
pub mod fs;
pub mod iterator;
pub mod key;
pub mod memtable;
pub mod options;
pub mod striped;
pub mod version;
pub mod wal;
pub mod write_batch;

pub use error::{Code, Error, Result, SubCode};
