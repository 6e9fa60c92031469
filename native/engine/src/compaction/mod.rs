//! Compaction: deciding what to compact ([`picker`], pure policy) and, in
//! later modules, doing it.
//!
//! The picker reads a [`crate::version::Version`] and returns a
//! [`CompactionPlan`]; it performs no IO and takes no locks, so every rule is
//! tested from tables of hand-built versions.

pub mod picker;

pub use picker::{
    CompactionPlan, CompactionReason, LevelTargets, ManualPick, PickerOptions, compaction_scores,
    estimated_pending_compaction_bytes, level_targets, pick_compaction, pick_manual,
    target_file_size, try_pick_manual,
};
