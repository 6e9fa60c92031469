//! `getProperty`: RocksDB's `rocksdb.*` property names over Talus's state.

use std::fmt::Write as _;
use std::sync::atomic::Ordering;

use super::DbInner;
use crate::compaction::{estimated_pending_compaction_bytes, level_targets};

const PREFIX: &str = "rocksdb.";

impl DbInner {
    /// The value of property `name`, or `None` when the name is unknown.
    pub(crate) fn property(&self, name: &str) -> Option<String> {
        if let Some(v) = self.int_property(name) {
            return Some(v.to_string());
        }
        let short = name.strip_prefix(PREFIX)?;
        match short {
            "levelstats" => Some(self.levelstats()),
            "sstables" => Some(self.sstables()),
            _ => None,
        }
    }

    /// A numeric property, or `None` when unknown or not numeric.
    pub(crate) fn int_property(&self, name: &str) -> Option<u64> {
        let short = name.strip_prefix(PREFIX)?;
        let sv = self.super_version.load();
        let v = &sv.version;
        if let Some(level) = short.strip_prefix("num-files-at-level") {
            let level: usize = level.parse().ok()?;
            return (level < v.num_levels()).then(|| v.num_files(level) as u64);
        }
        let mems = || std::iter::once(&sv.mem).chain(sv.imm.iter());
        Some(match short {
            "num-immutable-mem-table" => sv.imm.len() as u64,
            "num-immutable-mem-table-flushed" => 0,
            "cur-size-active-mem-table" => sv.mem.approximate_memory_usage(),
            "cur-size-all-mem-tables" | "size-all-mem-tables" => {
                mems().map(|m| m.approximate_memory_usage()).sum()
            }
            "num-entries-active-mem-table" => sv.mem.num_entries(),
            "num-entries-imm-mem-tables" => sv.imm.iter().map(|m| m.num_entries()).sum(),
            "num-deletes-active-mem-table" => sv.mem.num_deletes(),
            "estimate-num-keys" => {
                let mut n: i128 = 0;
                for m in mems() {
                    n += i128::from(m.num_entries()) - 2 * i128::from(m.num_deletes());
                }
                for level in 0..v.num_levels() {
                    for f in v.files(level) {
                        n += i128::from(f.num_entries) - 2 * i128::from(f.num_deletions);
                    }
                }
                n.max(0) as u64
            }
            "total-sst-files-size" | "live-sst-files-size" => v.total_bytes(),
            "estimate-live-data-size" => v.total_bytes(),
            "num-snapshots" => self.snapshots.len() as u64,
            "oldest-snapshot-sequence" => self.snapshots.oldest().unwrap_or(0),
            "num-live-versions" => 1,
            "estimate-pending-compaction-bytes" | "compaction-pending-bytes" => {
                estimated_pending_compaction_bytes(v, &self.picker_opts)
            }
            "base-level" => level_targets(v, &self.picker_opts).base_level as u64,
            "block-cache-capacity" => self.block_cache.as_ref().map_or(0, |c| c.capacity() as u64),
            "block-cache-usage" => self.block_cache.as_ref().map_or(0, |c| c.usage() as u64),
            "block-cache-pinned-usage" => self
                .block_cache
                .as_ref()
                .map_or(0, |c| c.pinned_usage() as u64),
            "estimate-table-readers-mem" => 0,
            "num-running-flushes" => u64::from(self.state.lock().flush_running),
            "num-running-compactions" => self.state.lock().compactions_running as u64,
            "mem-table-flush-pending" => {
                let st = self.state.lock();
                u64::from(st.flush_scheduled || self.flush_needed(&st))
            }
            "compaction-pending" => {
                let st = self.state.lock();
                u64::from(st.compactions_scheduled > 0 || self.compaction_needed(&st))
            }
            "background-errors" => self.state.lock().bg_error_count,
            "current-super-version-number" => 0,
            "latest-sequence-number" => self.last_sequence.load(Ordering::Acquire),
            _ => return None,
        })
    }

    fn levelstats(&self) -> String {
        let v = self.super_version.load().version.clone();
        let mut s = String::from("Level Files Size(MB)\n--------------------\n");
        for level in 0..v.num_levels() {
            let _ = writeln!(
                s,
                "{level:>5} {:>5} {:>8.0}",
                v.num_files(level),
                v.level_bytes(level) as f64 / 1_048_576.0
            );
        }
        s
    }

    fn sstables(&self) -> String {
        let v = self.super_version.load().version.clone();
        let mut s = String::new();
        for level in 0..v.num_levels() {
            let files = v.files(level);
            if files.is_empty() {
                continue;
            }
            let _ = writeln!(s, "--- level {level} --- version# 1 ---");
            for f in files {
                let _ = writeln!(
                    s,
                    " {}:{}[{} .. {}]",
                    f.number, f.file_size, f.smallest_seq, f.largest_seq
                );
            }
        }
        s
    }
}
