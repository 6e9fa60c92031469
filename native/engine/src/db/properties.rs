//! `getProperty`: RocksDB's `rocksdb.*` property names over Talus's state.

use std::fmt::Write as _;
use std::time::Instant;

use super::stall::HELD_NAMES;
use super::stats::{LevelStats, WriteTotals};
use std::sync::atomic::Ordering;

use super::DbInner;
use super::family::ColumnFamilyData;
use crate::compaction::{estimated_pending_compaction_bytes, level_targets};

const PREFIX: &str = "rocksdb.";

impl DbInner {
    /// The value of property `name` of family `cfd`, or `None` when the
    /// name is unknown. Properties of the LSM shape, memtables, compaction
    /// statistics and the block cache (the cache the family's tables are
    /// read through, perhaps shared with other families) are the family's;
    /// the others (snapshots, write stalls, background errors, `dbstats`)
    /// the database's, as in RocksDB.
    pub(crate) fn property(&self, cfd: &ColumnFamilyData, name: &str) -> Option<String> {
        if let Some(v) = self.int_property(cfd, name) {
            return Some(v.to_string());
        }
        let short = name.strip_prefix(PREFIX)?;
        match short {
            "levelstats" => Some(self.levelstats(cfd)),
            "sstables" => Some(self.sstables(cfd)),
            // The string forms advance the interval baseline, as RocksDB's do.
            "stats" => Some(format!("{}{}", self.cfstats(cfd, true), self.dbstats(true))),
            "cfstats" | "cfstats-no-file-histogram" => Some(self.cfstats(cfd, true)),
            "dbstats" => Some(self.dbstats(true)),
            "cf-write-stall-stats" => Some(self.write_stall_counts()),
            _ => None,
        }
    }

    /// A numeric property, or `None` when unknown or not numeric.
    pub(crate) fn int_property(&self, cfd: &ColumnFamilyData, name: &str) -> Option<u64> {
        let short = name.strip_prefix(PREFIX)?;
        let sv = cfd.super_version.load();
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
            // RocksDB estimates the debt for leveled compaction only.
            "estimate-pending-compaction-bytes" | "compaction-pending-bytes" => {
                match cfd.opts.compaction_style {
                    crate::options::CompactionStyle::Level => {
                        estimated_pending_compaction_bytes(v, &cfd.picker_opts)
                    }
                    _ => 0,
                }
            }
            "base-level" => level_targets(v, &cfd.picker_opts).base_level as u64,
            "block-cache-capacity" => cfd
                .tables
                .block_cache
                .as_ref()
                .map_or(0, |c| c.capacity() as u64),
            "block-cache-usage" => cfd
                .tables
                .block_cache
                .as_ref()
                .map_or(0, |c| c.usage() as u64),
            "block-cache-pinned-usage" => cfd
                .tables
                .block_cache
                .as_ref()
                .map_or(0, |c| c.pinned_usage() as u64),
            "estimate-table-readers-mem" => 0,
            "num-running-flushes" => u64::from(self.state.lock().flush_running),
            "num-running-compactions" => self.state.lock().compactions_running as u64,
            "mem-table-flush-pending" => {
                let st = self.state.lock();
                u64::from(
                    st.families.get(&cfd.id).is_some_and(|f| {
                        f.flush_needed() || (st.flush_scheduled && f.idle_imm() > 0)
                    }),
                )
            }
            "compaction-pending" => {
                let st = self.state.lock();
                u64::from(
                    self.pick_family_to_compact(&st)
                        .is_some_and(|(cf, _)| cf == cfd.id)
                        || (st.compactions_scheduled > 0 && cfd.id == super::DEFAULT_FAMILY_ID),
                )
            }
            "background-errors" => self.state.lock().bg_error_count,
            "actual-delayed-write-rate" => self.state.lock().stall.actual_delayed_rate(),
            "is-write-stopped" => u64::from(matches!(
                self.state.lock().stall.condition,
                crate::write_controller::WriteCondition::Stopped(_)
            )),
            "stall-micros" => self.state.lock().stall.total_micros,
            "current-super-version-number" => 0,
            "latest-sequence-number" => self.last_sequence.load(Ordering::Acquire),
            _ => return None,
        })
    }

    fn levelstats(&self, cfd: &ColumnFamilyData) -> String {
        let v = cfd.super_version.load().version.clone();
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

    fn sstables(&self, cfd: &ColumnFamilyData) -> String {
        let v = cfd.super_version.load().version.clone();
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

const GB: f64 = 1_073_741_824.0;
const MB: f64 = 1_048_576.0;

/// `1.23 MB`-style size, never below KB (RocksDB's `Size` column).
fn human_size(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= GB * 1024.0 {
        format!("{:.2} TB", b / GB / 1024.0)
    } else if b >= GB {
        format!("{:.2} GB", b / GB)
    } else if b >= MB {
        format!("{:.2} MB", b / MB)
    } else {
        format!("{:.2} KB", b / 1024.0)
    }
}

/// `12K`/`3M`-style counts (RocksDB's KeyIn/KeyDrop columns).
fn human_count(n: u64) -> String {
    if n >= 10_000_000_000 {
        format!("{}G", n / 1_000_000_000)
    } else if n >= 10_000_000 {
        format!("{}M", n / 1_000_000)
    } else if n >= 10_000 {
        format!("{}K", n / 1_000)
    } else {
        n.to_string()
    }
}

fn stall_duration(micros: u64) -> String {
    let ms = micros / 1000;
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        ms / 3_600_000,
        (ms / 60_000) % 60,
        (ms / 1000) % 60,
        ms % 1000
    )
}

impl DbInner {
    fn compaction_row(
        name: &str,
        files: &str,
        size: u64,
        score: f64,
        s: &LevelStats,
        w_amp_input: u64,
    ) -> String {
        let read = (s.read_rn + s.read_rnp1) as f64;
        let secs = s.micros as f64 / 1e6;
        let w_amp = if w_amp_input > 0 {
            s.written as f64 / w_amp_input as f64
        } else {
            0.0
        };
        let (rd, wr) = if secs > 0.0 {
            (read / MB / secs, s.written as f64 / MB / secs)
        } else {
            (0.0, 0.0)
        };
        format!(
            "{name:>5} {files:>9} {:>10} {score:5.1} {:8.1} {:7.1} {:8.1} {:9.1} {:8.1} {:9.1} {w_amp:5.1} {rd:8.1} {wr:8.1} {secs:9.2} {:9} {:8.3} {:>7} {:>7}\n",
            human_size(size),
            read / GB,
            s.read_rn as f64 / GB,
            s.read_rnp1 as f64 / GB,
            s.written as f64 / GB,
            s.written.saturating_sub(s.read_rnp1) as f64 / GB,
            s.moved as f64 / GB,
            s.count,
            if s.count > 0 {
                secs / s.count as f64
            } else {
                0.0
            },
            human_count(s.keys_in),
            human_count(s.keys_dropped),
        )
    }

    /// The per-level compaction table, CF summary and write-stall counts.
    pub(crate) fn cfstats(&self, cfd: &ColumnFamilyData, advance_interval: bool) -> String {
        let sv = cfd.super_version.load();
        let v = sv.version.clone();
        let targets = level_targets(&v, &cfd.picker_opts);
        let scores: std::collections::HashMap<usize, f64> =
            crate::compaction::compaction_scores(&v, &cfd.picker_opts, &targets)
                .into_iter()
                .collect();
        let pending = estimated_pending_compaction_bytes(&v, &cfd.picker_opts);
        let mut guard = self.state.lock();
        let st = &mut *guard;
        let Some(fam) = st.families.get_mut(&cfd.id) else {
            return String::new();
        };
        let stats = &mut fam.stats;
        let now = Instant::now();
        let header = "Level    Files   Size     Score Read(GB)  Rn(GB) Rnp1(GB) Write(GB) Wnew(GB) Moved(GB) W-Amp Rd(MB/s) Wr(MB/s) Comp(sec) Comp(cnt) Avg(sec)   KeyIn KeyDrop";
        let mut out = format!("\n** Compaction Stats [{}] **\n", cfd.name);
        out.push_str(header);
        out.push('\n');
        out.push_str(&"-".repeat(header.len()));
        out.push('\n');
        let mut sum = LevelStats::default();
        let mut sum_files = 0usize;
        let mut sum_compacting = 0usize;
        let flushed = stats.flushed;
        // What entered the tree: flushed and ingested bytes, the input of
        // L0's and the sum's write amplification, as in RocksDB.
        let entered = flushed + stats.add_file.bytes;
        for level in 0..v.num_levels() {
            let s = stats.levels.get(level).copied().unwrap_or_default();
            let files = v.files(level);
            if files.is_empty() && s.count == 0 && s.moved == 0 {
                continue;
            }
            let compacting = files.iter().filter(|f| f.is_being_compacted()).count();
            sum_files += files.len();
            sum_compacting += compacting;
            sum.add(&s);
            let input = if level == 0 { entered } else { s.read_rn };
            out.push_str(&Self::compaction_row(
                &format!("L{level}"),
                &format!("{}/{}", files.len(), compacting),
                v.level_bytes(level),
                scores.get(&level).copied().unwrap_or(0.0),
                &s,
                input,
            ));
        }
        out.push_str(&Self::compaction_row(
            "Sum",
            &format!("{sum_files}/{sum_compacting}"),
            v.total_bytes(),
            0.0,
            &sum,
            entered,
        ));
        let mut int_sum = LevelStats::default();
        for (level, s) in stats.levels.iter().enumerate() {
            let base = stats
                .interval_levels
                .get(level)
                .copied()
                .unwrap_or_default();
            int_sum.add(&s.minus(&base));
        }
        let int_flushed = stats.flushed - stats.interval_flushed;
        let int_add = stats.add_file.minus(&stats.interval_add_file);
        out.push_str(&Self::compaction_row(
            "Int",
            "0/0",
            0,
            0.0,
            &int_sum,
            int_flushed + int_add.bytes + 1,
        ));
        let uptime = now.duration_since(stats.started).as_secs_f64();
        let interval = now.duration_since(stats.interval_start).as_secs_f64();
        let _ = writeln!(
            out,
            "\nUptime(secs): {uptime:.1} total, {interval:.1} interval"
        );
        let _ = writeln!(
            out,
            "Flush(GB): cumulative {:.3}, interval {:.3}",
            flushed as f64 / GB,
            int_flushed as f64 / GB
        );
        let add = stats.add_file;
        let _ = writeln!(
            out,
            "AddFile(GB): cumulative {:.3}, interval {:.3}",
            add.bytes as f64 / GB,
            int_add.bytes as f64 / GB
        );
        let _ = writeln!(
            out,
            "AddFile(Total Files): cumulative {}, interval {}",
            add.files, int_add.files
        );
        let _ = writeln!(
            out,
            "AddFile(L0 Files): cumulative {}, interval {}",
            add.l0_files, int_add.l0_files
        );
        let _ = writeln!(
            out,
            "AddFile(Keys): cumulative {}, interval {}",
            add.keys, int_add.keys
        );
        let comp_w = sum.written.saturating_sub(flushed) as f64;
        let comp_r = (sum.read_rn + sum.read_rnp1) as f64;
        let comp_secs = sum.micros as f64 / 1e6;
        let _ = writeln!(
            out,
            "Cumulative compaction: {:.2} GB write, {:.2} MB/s write, {:.2} GB read, {:.2} MB/s read, {comp_secs:.1} seconds",
            comp_w / GB,
            comp_w / MB / uptime.max(1e-9),
            comp_r / GB,
            comp_r / MB / uptime.max(1e-9)
        );
        let icomp_w = int_sum.written.saturating_sub(int_flushed) as f64;
        let icomp_r = (int_sum.read_rn + int_sum.read_rnp1) as f64;
        let _ = writeln!(
            out,
            "Interval compaction: {:.2} GB write, {:.2} MB/s write, {:.2} GB read, {:.2} MB/s read, {:.1} seconds",
            icomp_w / GB,
            icomp_w / MB / interval.max(1e-9),
            icomp_r / GB,
            icomp_r / MB / interval.max(1e-9),
            int_sum.micros as f64 / 1e6
        );
        let _ = writeln!(out, "Estimated pending compaction bytes: {pending}");
        let _ = writeln!(
            out,
            "Write Stall (count): {}",
            Self::stall_counts_line(&st.stall)
        );
        let total_stalls: u64 = st.stall.delays.iter().chain(st.stall.stops.iter()).sum();
        if total_stalls > 0 {
            let _ = writeln!(
                out,
                "interval: {} total count",
                total_stalls - stats.interval_stall_counts
            );
        }
        let micros: Vec<String> = HELD_NAMES
            .iter()
            .zip(st.stall.micros.iter())
            .map(|(n, m)| format!("{n}: {m}"))
            .collect();
        let _ = writeln!(out, "Write Stall (micros): {}", micros.join(", "));
        if advance_interval {
            stats.interval_levels = stats.levels.clone();
            stats.interval_flushed = stats.flushed;
            stats.interval_add_file = stats.add_file;
            stats.interval_stall_counts = total_stalls;
        }
        out
    }

    fn stall_counts_line(sc: &super::stall::StallControl) -> String {
        use crate::write_controller::StallCause;
        let mut kv: Vec<(String, u64)> = Vec::new();
        for c in StallCause::ALL {
            kv.push((format!("{}-delays", c.name()), sc.delays[c as usize]));
            kv.push((format!("{}-stops", c.name()), sc.stops[c as usize]));
        }
        kv.push(("total-delays".into(), sc.delays.iter().sum()));
        kv.push(("total-stops".into(), sc.stops.iter().sum()));
        kv.sort();
        kv.iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn write_stall_counts(&self) -> String {
        let st = self.state.lock();
        Self::stall_counts_line(&st.stall)
    }

    /// DB-wide write, WAL and stall totals, cumulative and for the interval.
    pub(crate) fn dbstats(&self, advance_interval: bool) -> String {
        let mut guard = self.state.lock();
        let st = &mut *guard;
        // The database's interval counters live with the default family's
        // statistics.
        let stats = &mut st
            .families
            .get_mut(&super::DEFAULT_FAMILY_ID)
            .expect("the default family is never dropped")
            .stats;
        let now = Instant::now();
        let cum = self.stats.writes.totals(st.stall.total_micros);
        let base = stats.interval_writes;
        let uptime = now.duration_since(stats.started).as_secs_f64().max(1e-9);
        let interval = now
            .duration_since(stats.interval_start)
            .as_secs_f64()
            .max(1e-9);
        let int = WriteTotals {
            writes: cum.writes - base.writes,
            keys: cum.keys - base.keys,
            groups: cum.groups - base.groups,
            ingest_bytes: cum.ingest_bytes - base.ingest_bytes,
            wal_writes: cum.wal_writes - base.wal_writes,
            wal_syncs: cum.wal_syncs - base.wal_syncs,
            wal_bytes: cum.wal_bytes - base.wal_bytes,
            stall_micros: cum.stall_micros - base.stall_micros,
        };
        let mut out = String::from("\n** DB Stats **\n");
        let _ = writeln!(
            out,
            "Uptime(secs): {uptime:.1} total, {interval:.1} interval"
        );
        for (name, t, secs, unit, div) in [
            ("Cumulative", &cum, uptime, "GB", GB),
            ("Interval", &int, interval, "MB", MB),
        ] {
            let _ = writeln!(
                out,
                "{name} writes: {} writes, {} keys, {} commit groups, {:.1} writes per commit group, ingest: {:.2} {unit}, {:.2} MB/s",
                t.writes,
                t.keys,
                t.groups,
                t.writes as f64 / (t.groups.max(1)) as f64,
                t.ingest_bytes as f64 / div,
                t.ingest_bytes as f64 / MB / secs
            );
            let _ = writeln!(
                out,
                "{name} WAL: {} writes, {} syncs, {:.2} writes per sync, written: {:.2} {unit}, {:.2} MB/s",
                t.wal_writes,
                t.wal_syncs,
                t.wal_writes as f64 / (t.wal_syncs.max(1)) as f64,
                t.wal_bytes as f64 / div,
                t.wal_bytes as f64 / MB / secs
            );
            let _ = writeln!(
                out,
                "{name} stall: {} H:M:S, {:.1} percent",
                stall_duration(t.stall_micros),
                t.stall_micros as f64 / 1e4 / secs
            );
        }
        if advance_interval {
            stats.interval_writes = cum;
            stats.interval_start = now;
        }
        out
    }
}
