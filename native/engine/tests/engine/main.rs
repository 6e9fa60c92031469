//! Integration tests of the engine through its public API, one module per
//! behaviour. `model` checks random operations against a `BTreeMap`; the
//! other modules are regression tests named after the bug they pin.

mod model;
mod obsolete_files;
mod range_deletes;
mod snapshot_reads;
