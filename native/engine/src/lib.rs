//! # Talus
//!
//! An embedded LSM-tree key-value storage engine. See the repository README
//! for the user-facing promises; each module documents its own format,
//! invariants and thread-safety contract.

pub mod cache;
pub mod coding;
pub mod compaction;
pub mod db;
pub mod error;
pub mod fs;
pub mod iterator;
pub mod key;
pub mod logger;
pub mod memtable;
pub mod options;
pub mod perf_context;
pub mod range_del;
pub mod rate_limiter;
pub mod statistics;
pub mod striped;
pub mod table;
pub mod version;
pub mod wal;
pub mod write_batch;
pub mod write_controller;

pub use db::Db;
pub use error::{Code, Error, Result, SubCode};
pub use options::{Options, ReadOptions, WriteOptions};
pub use write_batch::WriteBatch;
