//! Compaction: deciding what to compact, as pure policy: [`picker`] for
//! leveled compaction, [`universal`] and [`fifo`] for the other styles.
//!
//! The picker reads a [`crate::version::Version`] and returns a
//! [`CompactionPlan`]; it performs no IO and takes no locks, so every rule is
//! tested from tables of hand-built versions.

pub mod fifo;
pub mod picker;
pub mod subcompaction;
pub mod universal;

pub use picker::{
    CompactionPlan, CompactionReason, LevelTargets, ManualPick, PickerOptions, compaction_scores,
    estimated_pending_compaction_bytes, level_targets, pick_compaction, pick_manual,
    target_file_size, try_pick_manual, try_pick_manual_in_place, try_pick_manual_whole,
};
