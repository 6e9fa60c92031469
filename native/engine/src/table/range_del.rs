//! The range-deletion block: the table's range tombstones, loaded whole when
//! the table is opened.
//!
//! Format (**part of the table format**):
//!
//! ```text
//! block     := count: varint64  tombstone * count
//! tombstone := begin: varint64 length || bytes   end: varint64 length || bytes   seq: varint64
//! ```
//!
//! Tombstones appear in the order they were added; readers do not rely on an
//! order.

use crate::coding::{Reader, put_length_prefixed, put_varint64};
use crate::error::{Error, Result};
use crate::key::MAX_SEQUENCE;
use crate::memtable::RangeTombstone;

/// Encodes `tombstones` as a range-deletion block.
pub fn encode(tombstones: &[RangeTombstone]) -> Vec<u8> {
    let mut b = Vec::new();
    put_varint64(&mut b, tombstones.len() as u64);
    for t in tombstones {
        put_length_prefixed(&mut b, &t.begin);
        put_length_prefixed(&mut b, &t.end);
        put_varint64(&mut b, t.seq);
    }
    b
}

/// Decodes a range-deletion block read at `offset` of `file`.
pub fn decode(src: &[u8], file: &str, offset: u64) -> Result<Vec<RangeTombstone>> {
    let mut r = Reader::new(src);
    let bad = |r: &Reader<'_>| {
        Error::corruption(
            file,
            offset,
            format!("bad range tombstone at block byte {}", r.pos()),
        )
    };
    let count = r.varint64().ok_or_else(|| bad(&r))?;
    // Each tombstone takes at least 3 bytes: never trust a count beyond that.
    let mut out = Vec::with_capacity(count.min(r.remaining() as u64 / 3) as usize);
    for _ in 0..count {
        let (Some(begin), Some(end), Some(seq)) =
            (r.length_prefixed(), r.length_prefixed(), r.varint64())
        else {
            return Err(bad(&r));
        };
        if seq > MAX_SEQUENCE {
            return Err(bad(&r));
        }
        out.push(RangeTombstone {
            begin: begin.to_vec(),
            end: end.to_vec(),
            seq,
        });
    }
    if !r.is_empty() {
        return Err(bad(&r));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_bytes_and_round_trip() {
        let ts = vec![
            RangeTombstone {
                begin: b"a".to_vec(),
                end: b"c".to_vec(),
                seq: 300,
            },
            RangeTombstone {
                begin: b"".to_vec(),
                end: b"zz".to_vec(),
                seq: 1,
            },
        ];
        let b = encode(&ts);
        assert_eq!(b, [2, 1, b'a', 1, b'c', 0xac, 0x02, 0, 2, b'z', b'z', 1]);
        assert_eq!(decode(&b, "f", 0).unwrap(), ts);
        for cut in 0..b.len() {
            assert!(decode(&b[..cut], "f", 0).is_err());
        }
        assert!(decode(&[0xff, 0xff, 0xff, 0xff, 0x0f], "f", 0).is_err());
    }
}
