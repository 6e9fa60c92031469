//! The tickers and histograms Talus records, with stable indices, RocksDB's
//! enumerator names (also RocksJava's `TickerType`/`HistogramType` constant
//! names) and RocksDB's string names.
//!
//! The index of each entry is its byte value in `dev.talus.TickerType` /
//! `dev.talus.HistogramType` (a Talus mapping: RocksJava's own bytes differ).
//! **Indices are append-only**: never renumber or reuse one; add new entries
//! at the end. Names starting with `talus.` are Talus additions with no
//! RocksDB counterpart.

/// Declares [`Ticker`] or [`Histogram`] from one table, so the index, the
/// enumerator name and the string name of an entry cannot drift apart.
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        pub enum $ty:ident { $( $(#[doc = $doc:literal])* $variant:ident = $idx:literal, $enum_name:literal, $name:literal ; )* }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum $ty {
            $( $(#[doc = $doc])* $variant = $idx, )*
        }

        impl $ty {
            /// Every entry, in index order (`ALL[i] as usize == i`).
            pub const ALL: &'static [$ty] = &[$($ty::$variant),*];
            /// Number of entries.
            pub const COUNT: usize = Self::ALL.len();

            /// RocksDB's string name, e.g. `rocksdb.block.cache.miss`
            /// (`talus.` for Talus additions).
            pub const fn name(self) -> &'static str {
                match self { $($ty::$variant => $name),* }
            }

            /// RocksDB's enumerator name, which is also RocksJava's Java
            /// constant name, e.g. `BLOCK_CACHE_MISS`.
            pub const fn enum_name(self) -> &'static str {
                match self { $($ty::$variant => $enum_name),* }
            }

            /// The stable index, also the Java byte value.
            pub const fn index(self) -> usize {
                self as usize
            }

            /// The entry with index `i`, if any.
            pub fn from_index(i: usize) -> Option<Self> {
                Self::ALL.get(i).copied()
            }

            /// The entry named `name` (RocksDB string name), if any.
            pub fn from_name(name: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|t| t.name() == name)
            }
        }
    };
}

named_enum! {
    /// A counter. Recorded with [`Statistics::record_tick`](super::Statistics::record_tick).
    pub enum Ticker {
        /// Block cache lookups that missed, all block types.
        BlockCacheMiss = 0, "BLOCK_CACHE_MISS", "rocksdb.block.cache.miss";
        /// Block cache lookups that hit, all block types.
        BlockCacheHit = 1, "BLOCK_CACHE_HIT", "rocksdb.block.cache.hit";
        /// Blocks inserted into the block cache.
        BlockCacheAdd = 2, "BLOCK_CACHE_ADD", "rocksdb.block.cache.add";
        /// Block cache inserts that failed (strict capacity limit).
        BlockCacheAddFailures = 3, "BLOCK_CACHE_ADD_FAILURES", "rocksdb.block.cache.add.failures";
        /// Index block cache misses.
        BlockCacheIndexMiss = 4, "BLOCK_CACHE_INDEX_MISS", "rocksdb.block.cache.index.miss";
        /// Index block cache hits.
        BlockCacheIndexHit = 5, "BLOCK_CACHE_INDEX_HIT", "rocksdb.block.cache.index.hit";
        /// Index blocks inserted into the cache.
        BlockCacheIndexAdd = 6, "BLOCK_CACHE_INDEX_ADD", "rocksdb.block.cache.index.add";
        /// Bytes of index blocks inserted into the cache.
        BlockCacheIndexBytesInsert = 7, "BLOCK_CACHE_INDEX_BYTES_INSERT", "rocksdb.block.cache.index.bytes.insert";
        /// Filter block cache misses.
        BlockCacheFilterMiss = 8, "BLOCK_CACHE_FILTER_MISS", "rocksdb.block.cache.filter.miss";
        /// Filter block cache hits.
        BlockCacheFilterHit = 9, "BLOCK_CACHE_FILTER_HIT", "rocksdb.block.cache.filter.hit";
        /// Filter blocks inserted into the cache.
        BlockCacheFilterAdd = 10, "BLOCK_CACHE_FILTER_ADD", "rocksdb.block.cache.filter.add";
        /// Bytes of filter blocks inserted into the cache.
        BlockCacheFilterBytesInsert = 11, "BLOCK_CACHE_FILTER_BYTES_INSERT", "rocksdb.block.cache.filter.bytes.insert";
        /// Data block cache misses.
        BlockCacheDataMiss = 12, "BLOCK_CACHE_DATA_MISS", "rocksdb.block.cache.data.miss";
        /// Data block cache hits.
        BlockCacheDataHit = 13, "BLOCK_CACHE_DATA_HIT", "rocksdb.block.cache.data.hit";
        /// Data blocks inserted into the cache.
        BlockCacheDataAdd = 14, "BLOCK_CACHE_DATA_ADD", "rocksdb.block.cache.data.add";
        /// Bytes of data blocks inserted into the cache.
        BlockCacheDataBytesInsert = 15, "BLOCK_CACHE_DATA_BYTES_INSERT", "rocksdb.block.cache.data.bytes.insert";
        /// Bytes read from the block cache (sizes of the blocks hit).
        BlockCacheBytesRead = 16, "BLOCK_CACHE_BYTES_READ", "rocksdb.block.cache.bytes.read";
        /// Bytes written into the block cache (sizes of the blocks added).
        BlockCacheBytesWrite = 17, "BLOCK_CACHE_BYTES_WRITE", "rocksdb.block.cache.bytes.write";
        /// Point lookups the Bloom filter answered "absent", saving a block read.
        BloomFilterUseful = 18, "BLOOM_FILTER_USEFUL", "rocksdb.bloom.filter.useful";
        /// Point lookups the Bloom filter let through ("may be present").
        BloomFilterFullPositive = 19, "BLOOM_FILTER_FULL_POSITIVE", "rocksdb.bloom.filter.full.positive";
        /// Filter positives where the key was indeed in the table.
        BloomFilterFullTruePositive = 20, "BLOOM_FILTER_FULL_TRUE_POSITIVE", "rocksdb.bloom.filter.full.true.positive";
        /// Gets answered by a memtable.
        MemtableHit = 21, "MEMTABLE_HIT", "rocksdb.memtable.hit";
        /// Gets not answered by any memtable.
        MemtableMiss = 22, "MEMTABLE_MISS", "rocksdb.memtable.miss";
        /// Gets answered by an L0 table.
        GetHitL0 = 23, "GET_HIT_L0", "rocksdb.l0.hit";
        /// Gets answered by an L1 table.
        GetHitL1 = 24, "GET_HIT_L1", "rocksdb.l1.hit";
        /// Gets answered by a table at L2 or deeper.
        GetHitL2AndUp = 25, "GET_HIT_L2_AND_UP", "rocksdb.l2andup.hit";
        /// Keys written (puts, deletes, merges) by write batches.
        NumberKeysWritten = 26, "NUMBER_KEYS_WRITTEN", "rocksdb.number.keys.written";
        /// Keys read by Get.
        NumberKeysRead = 27, "NUMBER_KEYS_READ", "rocksdb.number.keys.read";
        /// Bytes of write batches written.
        BytesWritten = 28, "BYTES_WRITTEN", "rocksdb.bytes.written";
        /// Bytes of values returned by Get.
        BytesRead = 29, "BYTES_READ", "rocksdb.bytes.read";
        /// Iterator seeks.
        NumberDbSeek = 30, "NUMBER_DB_SEEK", "rocksdb.number.db.seek";
        /// Iterator `next` calls.
        NumberDbNext = 31, "NUMBER_DB_NEXT", "rocksdb.number.db.next";
        /// Iterator `prev` calls.
        NumberDbPrev = 32, "NUMBER_DB_PREV", "rocksdb.number.db.prev";
        /// Seeks that left the iterator on an entry.
        NumberDbSeekFound = 33, "NUMBER_DB_SEEK_FOUND", "rocksdb.number.db.seek.found";
        /// `next` calls that left the iterator on an entry.
        NumberDbNextFound = 34, "NUMBER_DB_NEXT_FOUND", "rocksdb.number.db.next.found";
        /// `prev` calls that left the iterator on an entry.
        NumberDbPrevFound = 35, "NUMBER_DB_PREV_FOUND", "rocksdb.number.db.prev.found";
        /// Key and value bytes returned by iterators.
        IterBytesRead = 36, "ITER_BYTES_READ", "rocksdb.db.iter.bytes.read";
        /// MultiGet calls.
        NumberMultigetCalls = 37, "NUMBER_MULTIGET_CALLS", "rocksdb.number.multiget.get";
        /// Keys looked up by MultiGet.
        NumberMultigetKeysRead = 38, "NUMBER_MULTIGET_KEYS_READ", "rocksdb.number.multiget.keys.read";
        /// Value bytes returned by MultiGet.
        NumberMultigetBytesRead = 39, "NUMBER_MULTIGET_BYTES_READ", "rocksdb.number.multiget.bytes.read";
        /// Keys MultiGet found.
        NumberMultigetKeysFound = 40, "NUMBER_MULTIGET_KEYS_FOUND", "rocksdb.number.multiget.keys.found";
        /// Bytes written by flushes.
        FlushWriteBytes = 41, "FLUSH_WRITE_BYTES", "rocksdb.flush.write.bytes";
        /// Bytes read by compactions.
        CompactReadBytes = 42, "COMPACT_READ_BYTES", "rocksdb.compact.read.bytes";
        /// Bytes written by compactions.
        CompactWriteBytes = 43, "COMPACT_WRITE_BYTES", "rocksdb.compact.write.bytes";
        /// Entries compaction dropped because a newer entry shadows them.
        CompactionKeyDropNewerEntry = 44, "COMPACTION_KEY_DROP_NEWER_ENTRY", "rocksdb.compaction.key.drop.new";
        /// Tombstones compaction dropped at the bottom level (obsolete).
        CompactionKeyDropObsolete = 45, "COMPACTION_KEY_DROP_OBSOLETE", "rocksdb.compaction.key.drop.obsolete";
        /// Entries compaction dropped because a range deletion covers them.
        CompactionKeyDropRangeDel = 46, "COMPACTION_KEY_DROP_RANGE_DEL", "rocksdb.compaction.key.drop.range_del";
        /// WAL syncs (fsync/fdatasync).
        WalFileSynced = 47, "WAL_FILE_SYNCED", "rocksdb.wal.synced";
        /// Bytes appended to the WAL.
        WalFileBytes = 48, "WAL_FILE_BYTES", "rocksdb.wal.bytes";
        /// Writes committed by their own thread (as group-commit leader).
        WriteDoneBySelf = 49, "WRITE_DONE_BY_SELF", "rocksdb.write.self";
        /// Writes committed by another thread's group commit.
        WriteDoneByOther = 50, "WRITE_DONE_BY_OTHER", "rocksdb.write.other";
        /// Writes that went through the WAL.
        WriteWithWal = 51, "WRITE_WITH_WAL", "rocksdb.write.wal";
        /// Microseconds writers spent delayed or stopped by write stalls (all causes).
        StallMicros = 52, "STALL_MICROS", "rocksdb.stall.micros";
        /// Times a rate limiter ran dry and a request waited for a refill.
        NumberRateLimiterDrains = 53, "NUMBER_RATE_LIMITER_DRAINS", "rocksdb.number.rate_limiter.drains";
        /// Block checksums computed (written or verified).
        BlockChecksumComputeCount = 54, "BLOCK_CHECKSUM_COMPUTE_COUNT", "rocksdb.block.checksum.compute.count";
        /// Block checksums that did not match on read.
        BlockChecksumMismatchCount = 55, "BLOCK_CHECKSUM_MISMATCH_COUNT", "rocksdb.block.checksum.mismatch.count";
        /// Blocks compressed.
        NumberBlockCompressed = 56, "NUMBER_BLOCK_COMPRESSED", "rocksdb.number.block.compressed";
        /// Blocks decompressed.
        NumberBlockDecompressed = 57, "NUMBER_BLOCK_DECOMPRESSED", "rocksdb.number.block.decompressed";
        /// Uncompressed bytes given to the compressor.
        BytesCompressedFrom = 58, "BYTES_COMPRESSED_FROM", "rocksdb.bytes.compressed.from";
        /// Compressed bytes the compressor produced.
        BytesCompressedTo = 59, "BYTES_COMPRESSED_TO", "rocksdb.bytes.compressed.to";
        /// Compressed bytes given to the decompressor.
        BytesDecompressedFrom = 60, "BYTES_DECOMPRESSED_FROM", "rocksdb.bytes.decompressed.from";
        /// Uncompressed bytes the decompressor produced.
        BytesDecompressedTo = 61, "BYTES_DECOMPRESSED_TO", "rocksdb.bytes.decompressed.to";
        /// Talus addition: stall microseconds because the memtables were full
        /// (`max_write_buffer_number` reached). Part of `STALL_MICROS`.
        StallMemtableLimitMicros = 62, "STALL_MEMTABLE_LIMIT_MICROS", "talus.stall.memtable.limit.micros";
        /// Talus addition: microseconds writes were delayed by the L0 slowdown
        /// trigger. Part of `STALL_MICROS`.
        StallL0SlowdownMicros = 63, "STALL_L0_SLOWDOWN_MICROS", "talus.stall.l0.slowdown.micros";
        /// Talus addition: microseconds writes were stopped by the L0 stop
        /// trigger. Part of `STALL_MICROS`.
        StallL0StopMicros = 64, "STALL_L0_STOP_MICROS", "talus.stall.l0.stop.micros";
        /// Talus addition: stall microseconds caused by the pending-compaction-bytes
        /// limits (soft: delayed, hard: stopped). Part of `STALL_MICROS`.
        StallPendingCompactionBytesMicros = 65, "STALL_PENDING_COMPACTION_BYTES_MICROS", "talus.stall.pending.compaction.bytes.micros";
        /// Nanoseconds spent in the merge operator (reads, flushes and
        /// compactions).
        MergeOperationTotalTime = 66, "MERGE_OPERATION_TOTAL_TIME", "rocksdb.merge.operation.time.nanos";
        /// Merges the merge operator could not do.
        NumberMergeFailures = 67, "NUMBER_MERGE_FAILURES", "rocksdb.number.merge.failures";
        /// Talus addition: times write admission (`max_concurrent_writers`)
        /// engaged, after a sustained demand of more continuous writers
        /// than slots.
        WriteAdmissionEngagements = 68, "WRITE_ADMISSION_ENGAGEMENTS", "talus.write.admission.engagements";
        /// Talus addition: writes that slept at the write admission gate
        /// for a turn.
        WriteAdmissionWaits = 69, "WRITE_ADMISSION_WAITS", "talus.write.admission.waits";
        /// Talus addition: microseconds writes slept at the write admission
        /// gate for a turn.
        WriteAdmissionWaitMicros = 70, "WRITE_ADMISSION_WAIT_MICROS", "talus.write.admission.wait.micros";
    }
}

// The Java byte values are the indices: keep them in 0..=127.
const _: () = assert!(
    Ticker::COUNT <= 128,
    "Ticker indices must fit a positive Java byte"
);

/// What a histogram's values measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unit {
    /// Microseconds.
    Micros,
    /// Nanoseconds.
    Nanos,
    /// Bytes.
    Bytes,
    /// A plain count.
    Count,
}

named_enum! {
    /// A distribution. Recorded with
    /// [`Statistics::record_in_histogram`](super::Statistics::record_in_histogram).
    pub enum Histogram {
        /// Get latency, µs.
        DbGet = 0, "DB_GET", "rocksdb.db.get.micros";
        /// Write (put/delete/batch) latency, µs.
        DbWrite = 1, "DB_WRITE", "rocksdb.db.write.micros";
        /// Iterator seek latency, µs.
        DbSeek = 2, "DB_SEEK", "rocksdb.db.seek.micros";
        /// MultiGet latency, µs.
        DbMultiget = 3, "DB_MULTIGET", "rocksdb.db.multiget.micros";
        /// Flush job duration, µs.
        FlushTime = 4, "FLUSH_TIME", "rocksdb.db.flush.micros";
        /// Compaction job duration, µs.
        CompactionTime = 5, "COMPACTION_TIME", "rocksdb.compaction.times.micros";
        /// Time one write spent in a write stall, µs.
        WriteStall = 6, "WRITE_STALL", "rocksdb.db.write.stall";
        /// Table file read latency, µs.
        SstReadMicros = 7, "SST_READ_MICROS", "rocksdb.sst.read.micros";
        /// Table file write latency, µs.
        SstWriteMicros = 8, "SST_WRITE_MICROS", "rocksdb.sst.write.micros";
        /// WAL sync latency, µs.
        WalFileSyncMicros = 9, "WAL_FILE_SYNC_MICROS", "rocksdb.wal.file.sync.micros";
        /// Table file sync latency, µs.
        TableSyncMicros = 10, "TABLE_SYNC_MICROS", "rocksdb.table.sync.micros";
        /// MANIFEST sync latency, µs.
        ManifestFileSyncMicros = 11, "MANIFEST_FILE_SYNC_MICROS", "rocksdb.manifest.file.sync.micros";
        /// Value bytes returned per Get.
        BytesPerRead = 12, "BYTES_PER_READ", "rocksdb.bytes.per.read";
        /// Bytes per write batch.
        BytesPerWrite = 13, "BYTES_PER_WRITE", "rocksdb.bytes.per.write";
        /// Time to compress one block, ns (stats level `EXCEPT_TIME_FOR_MUTEX` or higher).
        CompressionTimesNanos = 14, "COMPRESSION_TIMES_NANOS", "rocksdb.compression.times.nanos";
        /// Time to decompress one block, ns (stats level `EXCEPT_TIME_FOR_MUTEX` or higher).
        DecompressionTimesNanos = 15, "DECOMPRESSION_TIMES_NANOS", "rocksdb.decompression.times.nanos";
        /// Input files per compaction.
        NumFilesInSingleCompaction = 16, "NUM_FILES_IN_SINGLE_COMPACTION", "rocksdb.numfiles.in.singlecompaction";
        /// Merge operands a Get merged, per Get that merged any.
        ReadNumMergeOperands = 17, "READ_NUM_MERGE_OPERANDS", "rocksdb.read.num.merge_operands";
    }
}

impl Histogram {
    /// What this histogram's values measure.
    pub const fn unit(self) -> Unit {
        match self {
            Histogram::BytesPerRead | Histogram::BytesPerWrite => Unit::Bytes,
            Histogram::CompressionTimesNanos | Histogram::DecompressionTimesNanos => Unit::Nanos,
            Histogram::NumFilesInSingleCompaction | Histogram::ReadNumMergeOperands => Unit::Count,
            _ => Unit::Micros,
        }
    }
}

const _: () = assert!(
    Histogram::COUNT <= 128,
    "Histogram indices must fit a positive Java byte"
);
