//! Integration tests of the engine through its public API, one module per
//! behaviour. `model` checks random operations against a `BTreeMap`;
//! `range_del_model` does the same for range deletions over tiny files and
//! several levels, at the latest state and at held snapshots;
//! `concurrent` runs writers, readers and background work at once and checks
//! invariants that hold whatever the interleaving; `merges` checks merge
//! operators and single deletes end to end; `prefix_seek` checks prefix
//! filters and prefix seek against a model; the other modules are tests of
//! one behaviour each and regression tests named after the bug they pin.

mod close;
mod column_families;
mod compaction_styles;
mod concurrent;
mod destroy;
mod files_out;
mod foreign_database;
mod ingest;
mod merges;
mod model;
mod multi_get;
mod obsolete_files;
mod open_errors;
mod prefix_seek;
mod range_del_model;
mod range_deletes;
mod snapshot_reads;
