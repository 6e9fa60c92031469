use super::*;
use crate::fs::{FileSystem, StdFileSystem, WriteFileOptions};
use std::path::Path;

fn write_log(path: &Path, records: &[Vec<u8>]) {
    let fs = StdFileSystem;
    let f = fs.new_writable(path, WriteFileOptions::default()).unwrap();
    let mut w = LogWriter::new(f, 1);
    for r in records {
        w.add_record(r).unwrap();
    }
    w.sync().unwrap();
}

fn read_log(path: &Path) -> (Vec<Vec<u8>>, Vec<ReadEvent>) {
    let fs = StdFileSystem;
    let mut r = LogReader::new(fs.new_sequential(path).unwrap());
    let mut recs = Vec::new();
    let mut events = Vec::new();
    loop {
        match r.next().unwrap() {
            ReadEvent::Record { .. } => recs.push(r.record().to_vec()),
            ReadEvent::Eof => break,
            e @ ReadEvent::TornTail { .. } => {
                events.push(e);
                break;
            }
            e => events.push(e),
        }
    }
    (recs, events)
}

fn rec(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

#[test]
fn golden_bytes_of_one_full_fragment() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.log");
    write_log(&p, &[b"abc".to_vec()]);
    let bytes = std::fs::read(&p).unwrap();
    let crc = fragment_crc(fragment::FULL, b"abc").to_le_bytes();
    assert_eq!(
        bytes,
        [crc[0], crc[1], crc[2], crc[3], 3, 0, 1, b'a', b'b', b'c']
    );
}

#[test]
fn round_trip_small_empty_and_block_spanning_records() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.log");
    let records = vec![
        rec(10, 1),
        Vec::new(),
        rec(BLOCK_SIZE * 3 + 17, 2), // FIRST, MIDDLE, MIDDLE, LAST
        rec(BLOCK_SIZE - HEADER_LEN - 3, 3),
        rec(1, 4),
    ];
    write_log(&p, &records);
    let (got, events) = read_log(&p);
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(got, records);
}

#[test]
fn block_trailer_shorter_than_a_header_is_padded() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.log");
    // Leaves 3 bytes in the first block: the writer pads them.
    let records = vec![rec(BLOCK_SIZE - HEADER_LEN - 3, 1), rec(5, 2)];
    write_log(&p, &records);
    let len = std::fs::metadata(&p).unwrap().len() as usize;
    assert_eq!(len, BLOCK_SIZE + HEADER_LEN + 5);
    assert_eq!(read_log(&p).0, records);
}

#[test]
fn torn_tail_keeps_every_whole_record_before_the_cut() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.log");
    let records: Vec<_> = (0..20).map(|i| rec(5000 + i * 100, i as u8)).collect();
    write_log(&p, &records);
    let full = std::fs::read(&p).unwrap();
    // Cut at many points; every cut keeps a prefix of the records.
    for cut in (1..full.len()).step_by(997) {
        std::fs::write(&p, &full[..cut]).unwrap();
        let (got, events) = read_log(&p);
        assert_eq!(got[..], records[..got.len()], "cut at {cut}");
        match events.as_slice() {
            [] => {}
            [ReadEvent::TornTail { .. }] => {}
            other => panic!("cut at {cut}: {other:?}"),
        }
    }
}

#[test]
fn flipped_byte_in_the_middle_is_corruption() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.log");
    let records: Vec<_> = (0..10).map(|i| rec(1000, i as u8)).collect();
    write_log(&p, &records);
    let mut bytes = std::fs::read(&p).unwrap();
    bytes[3 * (1000 + HEADER_LEN) + 500] ^= 0x40; // inside record 3
    std::fs::write(&p, &bytes).unwrap();
    let (got, events) = read_log(&p);
    assert!(matches!(
        events[0],
        ReadEvent::Corrupt { offset, .. } if offset == 3 * (1000 + HEADER_LEN) as u64
    ));
    // The rest of the block was dropped; records before the damage are intact.
    assert_eq!(got[..3], records[..3]);
}

#[test]
fn zeros_at_the_end_are_a_clean_end_but_zeros_before_data_are_corruption() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.log");
    write_log(&p, &[rec(100, 1)]);
    let mut bytes = std::fs::read(&p).unwrap();
    bytes.extend(std::iter::repeat_n(0u8, BLOCK_SIZE * 2));
    std::fs::write(&p, &bytes).unwrap();
    let (got, events) = read_log(&p);
    assert_eq!(got.len(), 1);
    assert!(events.is_empty());

    // A block of zeros followed by a valid block: data was lost in between.
    let dir2 = tempfile::tempdir().unwrap();
    let p2 = dir2.path().join("y.log");
    write_log(&p2, &[rec(BLOCK_SIZE, 1), rec(BLOCK_SIZE, 2), rec(10, 3)]);
    let mut bytes = std::fs::read(&p2).unwrap();
    for b in &mut bytes[..BLOCK_SIZE] {
        *b = 0;
    }
    std::fs::write(&p2, &bytes).unwrap();
    let (_, events) = read_log(&p2);
    assert!(
        matches!(events.first(), Some(ReadEvent::Corrupt { offset: 0, .. })),
        "{events:?}"
    );
}

#[test]
fn missing_first_fragment_is_corruption() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.log");
    write_log(&p, &[rec(BLOCK_SIZE * 2, 1), rec(10, 2)]);
    let bytes = std::fs::read(&p).unwrap();
    // Drop the first block: the log now starts with a MIDDLE fragment.
    std::fs::write(&p, &bytes[BLOCK_SIZE..]).unwrap();
    let (got, events) = read_log(&p);
    assert!(matches!(events[0], ReadEvent::Corrupt { .. }));
    assert_eq!(got, vec![rec(10, 2)]);
}

/// Regression (corruption suite, random flips, seed 90): a bit flip that
/// raised the length field of a fragment in the last block made the
/// fragment run past the end of the file, and the reader took it for a torn
/// tail: every record after it was dropped silently (in a manifest, every
/// later edit — the database opened empty).
#[test]
fn regression_a_damaged_length_in_the_last_block_is_corruption_not_a_torn_tail() {
    for (victim, n) in [(3usize, 10usize), (9, 10)] {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.log");
        let records: Vec<_> = (0..n).map(|i| rec(100, i as u8)).collect();
        write_log(&p, &records);
        let mut bytes = std::fs::read(&p).unwrap();
        let at = victim * (100 + HEADER_LEN);
        bytes[at + 5] ^= 0x04; // length 100 -> 1124: past the end of the file
        std::fs::write(&p, &bytes).unwrap();
        let (got, events) = read_log(&p);
        assert_eq!(got[..victim], records[..victim], "victim {victim}");
        assert!(
            matches!(&events[0], ReadEvent::Corrupt { offset, reason }
                if *offset == at as u64 && reason.contains("length")),
            "victim {victim}: {events:?}"
        );
    }
}

#[test]
fn a_record_cut_short_by_a_crash_is_still_a_torn_tail() {
    for cut in [1usize, 7, 8, 50, 106] {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.log");
        let records: Vec<_> = (0..10).map(|i| rec(100, i as u8)).collect();
        write_log(&p, &records);
        let mut bytes = std::fs::read(&p).unwrap();
        bytes.truncate(bytes.len() - cut);
        std::fs::write(&p, &bytes).unwrap();
        let (got, events) = read_log(&p);
        assert_eq!(got, records[..9], "cut {cut}");
        assert!(
            matches!(events[..], [ReadEvent::TornTail { .. }]),
            "cut {cut}: {events:?}"
        );
    }
}

/// The start record with the log's owner (issue 30): its bytes are part of
/// the format; the legacy form and other first records decode as such.
#[test]
fn start_record_golden_bytes_and_legacy_forms() {
    let id = crate::identity::DbId(*b"0123456789abcdef");
    let b = encode_start_record(0x0102, id, 7);
    #[rustfmt::skip]
    let want: Vec<u8> = [
        &[2, 1, 0, 0, 0, 0, 0, 0][..], // sequence 0x0102
        &[0, 0, 0, 0],                  // count 0
        &[1],                           // owner: database id and log number
        b"0123456789abcdef",
        &[7, 0, 0, 0, 0, 0, 0, 0],      // log 7
    ]
    .concat();
    assert_eq!(b, want);
    assert_eq!(b.len(), START_PAYLOAD_LEN);
    assert_eq!(
        decode_start_record(&b),
        Some(StartRecord {
            sequence: 0x0102,
            owner: Some((id, 7))
        })
    );
    // The start record of a log written before owners: a bare empty batch.
    let mut legacy = crate::write_batch::WriteBatch::new();
    legacy.set_sequence(9);
    assert_eq!(
        decode_start_record(legacy.data()),
        Some(StartRecord {
            sequence: 9,
            owner: None
        })
    );
    // A write (a log older than start records), a truncated or padded
    // owner, another owner kind: not start records.
    let mut write = crate::write_batch::WriteBatch::new();
    write.put(b"k", b"v");
    assert_eq!(decode_start_record(write.data()), None);
    assert_eq!(decode_start_record(&b[..b.len() - 1]), None);
    let mut longer = b.clone();
    longer.push(0);
    assert_eq!(decode_start_record(&longer), None);
    let mut other = b.clone();
    other[12] = 2;
    assert_eq!(decode_start_record(&other), None);
    assert_eq!(decode_start_record(&[]), None);
    // Written as a log record, it is START_RECORD_LEN bytes.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("000007.log");
    write_log(&p, &[b]);
    assert_eq!(std::fs::metadata(&p).unwrap().len(), START_RECORD_LEN);
}
