//! Valid inputs for every target, written by the engine's own writers.

use std::path::Path;
use std::sync::Arc;

use talus::fs::{FaultFs, FileSystem, WriteFileOptions};
use talus::key::{ValueKind, make_internal_key};
use talus::memtable::RangeTombstone;
use talus::options::CompressionType;
use talus::table::{TableBuildOptions, TableBuilder};
use talus::version::{FileMetaData, VersionEdit};
use talus::wal::LogWriter;
use talus::{Options, WriteBatch};

fn table_bytes(compression: CompressionType, filter: bool, tombstones: bool, n: usize) -> Vec<u8> {
    let fs = FaultFs::new(0);
    let dir = Path::new("/t");
    fs.create_dir_all(dir).expect("in memory");
    let path = dir.join("000001.sst");
    let file = fs
        .new_writable(&path, WriteFileOptions::default())
        .expect("in memory");
    let mut opts = Options {
        compression,
        ..Options::default()
    };
    opts.table.block_size = 256;
    opts.table.block_restart_interval = 4;
    opts.table.filter_bits_per_key = filter.then_some(10.0);
    let mut b = TableBuilder::new(file, TableBuildOptions::from_options(&opts, "seed.sst"));
    for i in 0..n {
        let kind = match i % 7 {
            3 => ValueKind::Deletion,
            5 => ValueKind::Merge,
            6 if i % 2 == 0 => ValueKind::SingleDeletion,
            _ => ValueKind::Value,
        };
        let k = make_internal_key(format!("key{i:05}").as_bytes(), 100 + i as u64, kind);
        let v = if matches!(kind, ValueKind::Value | ValueKind::Merge) {
            format!("value-{i}-{}", "x".repeat(i % 40)).into_bytes()
        } else {
            Vec::new()
        };
        b.add(&k, &v).expect("in memory");
    }
    if tombstones {
        b.add_range_tombstone(&RangeTombstone {
            begin: b"key00010".to_vec(),
            end: b"key00020".to_vec(),
            seq: 99,
        });
    }
    b.finish().expect("in memory");
    fs.contents(&path).expect("written")
}

/// The index block of a table without compression: a valid block.
fn blocks_of(table: &[u8]) -> Vec<Vec<u8>> {
    let f = &table[table.len() - 80..];
    let at = |i: usize| u64::from_le_bytes(f[i..i + 8].try_into().expect("8 bytes")) as usize;
    let (index_off, index_size) = (at(0), at(8));
    let index = table[index_off..index_off + index_size].to_vec();
    // The first data block: offset 0, its size in the first index value
    // (varint offset, varint size). The separator key is prefix-free at a
    // restart point: shared 0, so the value follows the key directly.
    let mut out = vec![index.clone()];
    let mut p = 0;
    let varint = |p: &mut usize| -> usize {
        let mut v = 0usize;
        let mut shift = 0;
        while *p < index.len() {
            let b = index[*p];
            *p += 1;
            v |= usize::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
        }
        v
    };
    let _shared = varint(&mut p);
    let non_shared = varint(&mut p);
    let _value_len = varint(&mut p);
    p += non_shared;
    let _offset = varint(&mut p);
    let size = varint(&mut p);
    if size > 0 && size <= table.len() {
        out.push(table[..size].to_vec());
    }
    out
}

fn batch(ops: usize, seq: u64) -> WriteBatch {
    let mut b = WriteBatch::new();
    for i in 0..ops {
        match i % 7 {
            3 => b.delete(format!("k{i}").as_bytes()),
            4 => b.delete_range(b"a", b"c"),
            5 => b.merge(format!("k{i}").as_bytes(), b"+1"),
            6 => b.single_delete(format!("k{i}").as_bytes()),
            _ => b.put(format!("k{i}").as_bytes(), format!("v{i}").as_bytes()),
        }
    }
    b.set_sequence(seq);
    b
}

fn log_bytes() -> Vec<u8> {
    let fs = FaultFs::new(0);
    let dir = Path::new("/l");
    fs.create_dir_all(dir).expect("in memory");
    let path = dir.join("000003.log");
    let f = fs
        .new_writable(&path, WriteFileOptions::default())
        .expect("in memory");
    let mut w = LogWriter::new(f, 3);
    // A log opens with its start record: its owner and first sequence.
    w.add_record(&talus::wal::encode_start_record(
        1,
        talus::identity::DbId(*b"fuzz-database-id"),
        3,
    ))
    .expect("in memory");
    let mut seq = 1;
    for n in [1usize, 3, 10] {
        let b = batch(n, seq);
        seq += n as u64;
        w.add_record(b.data()).expect("in memory");
    }
    // A record spanning blocks (FIRST, MIDDLE, LAST fragments).
    let mut big = WriteBatch::new();
    big.put(b"big", &vec![b'z'; 40_000]);
    big.set_sequence(seq);
    w.add_record(big.data()).expect("in memory");
    w.sync().expect("in memory");
    fs.contents(&path).expect("written")
}

fn edit_bytes(files: usize) -> Vec<u8> {
    let mut e = VersionEdit {
        comparator: Some(talus::version::COMPARATOR_NAME.to_string()),
        log_number: Some(9),
        prev_log_number: Some(0),
        next_file_number: Some(100),
        last_sequence: Some(5000),
        ..VersionEdit::default()
    };
    for i in 0..files {
        e.add_file(
            i % 3 * 3,
            Arc::new(FileMetaData {
                number: 10 + i as u64,
                file_size: 4096,
                smallest: make_internal_key(format!("a{i}").as_bytes(), 10, ValueKind::Value),
                largest: make_internal_key(format!("a{i}z").as_bytes(), 20, ValueKind::Value),
                smallest_seq: 10,
                largest_seq: 20,
                num_entries: 50,
                creation_time: 1_700_000_000,
                ..FileMetaData::default()
            }),
        );
    }
    if files > 1 {
        e.delete_file(0, 10);
        e.set_compact_cursor(3, b"m".to_vec());
    }
    let mut out = Vec::new();
    e.encode(&mut out);
    out
}

/// A snapshot as a database writes it now: its id, tables with their
/// checksums (`new_file2`), and the live logs it tracks.
fn tracked_edit_bytes() -> Vec<u8> {
    use talus::version::edit::WalMeta;
    let mut e = VersionEdit {
        comparator: Some(talus::version::COMPARATOR_NAME.to_string()),
        db_id: Some(talus::identity::DbId(*b"fuzz-database-id")),
        log_number: Some(9),
        prev_log_number: Some(0),
        next_file_number: Some(100),
        last_sequence: Some(5000),
        ..VersionEdit::default()
    };
    for i in 0..3u64 {
        e.add_file(
            i as usize * 2,
            Arc::new(FileMetaData {
                number: 20 + i,
                file_size: 4096,
                smallest: make_internal_key(format!("b{i}").as_bytes(), 10, ValueKind::Value),
                largest: make_internal_key(format!("b{i}z").as_bytes(), 20, ValueKind::Value),
                smallest_seq: 10,
                largest_seq: 20,
                num_entries: 50,
                creation_time: 1_700_000_000,
                file_checksum: Some(0x1234_5678_9abc_0000 + i),
                ..FileMetaData::default()
            }),
        );
    }
    e.add_wal(
        9,
        WalMeta {
            synced_size: Some(70_000),
            last_sequence: Some(4000),
        },
    );
    e.add_wal(
        12,
        WalMeta {
            synced_size: Some(44),
            last_sequence: None,
        },
    );
    let mut out = Vec::new();
    e.encode(&mut out);
    out
}

/// Valid inputs for the target called `name`.
pub fn for_target(name: &str) -> Vec<Vec<u8>> {
    match name {
        "block" => {
            let mut v = blocks_of(&table_bytes(CompressionType::None, false, false, 40));
            v.extend(blocks_of(&table_bytes(
                CompressionType::None,
                true,
                true,
                5,
            )));
            v
        }
        "table" => vec![
            table_bytes(CompressionType::None, true, true, 60),
            table_bytes(CompressionType::Lz4, false, false, 30),
            table_bytes(CompressionType::Lz4, true, true, 3),
        ],
        "log" => vec![log_bytes()],
        "write_batch" => vec![batch(1, 1).data().to_vec(), batch(9, 77).data().to_vec()],
        "manifest" => vec![
            edit_bytes(0),
            edit_bytes(1),
            edit_bytes(6),
            tracked_edit_bytes(),
        ],
        _ => Vec::new(),
    }
}
