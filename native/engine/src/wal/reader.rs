//! Reads records back from a log file, classifying damage as a torn tail or
//! corruption (see [`super`]).

use super::{BLOCK_SIZE, HEADER_LEN, fragment, fragment_crc};
use crate::error::Result;
use crate::fs::SequentialFile;

/// What the reader found next.
#[derive(Debug, PartialEq, Eq)]
pub enum ReadEvent {
    /// A whole record starting at file offset `offset`.
    Record {
        /// Offset of the record's first fragment header.
        offset: u64,
    },
    /// Clean end of the log.
    Eof,
    /// The log ends inside a record that starts at `offset`: what a crash
    /// during an append leaves. Nothing follows.
    TornTail {
        /// Where the incomplete record starts.
        offset: u64,
        /// What was incomplete.
        reason: String,
    },
    /// A damaged fragment at `offset`. The reader has skipped to the next
    /// block; reading on yields the records after the damage.
    Corrupt {
        /// Offset of the damaged fragment.
        offset: u64,
        /// What was wrong.
        reason: String,
    },
}

/// Reads records. The last record's payload is in [`LogReader::record`].
pub struct LogReader {
    file: Box<dyn SequentialFile>,
    block: Vec<u8>,
    /// Valid bytes in `block`.
    block_len: usize,
    /// Read position within `block`.
    pos: usize,
    /// File offset of `block[0]`.
    block_start: u64,
    eof: bool,
    record: Vec<u8>,
    /// Offset of an all-zero region seen before: zeros are only allowed at the end.
    zeros_at: Option<u64>,
}

enum Fragment {
    Ok {
        ty: u8,
        offset: u64,
        start: usize,
        len: usize,
    },
    Eof,
    Torn {
        offset: u64,
        reason: String,
    },
    Bad {
        offset: u64,
        reason: String,
    },
}

impl LogReader {
    /// Reads `file` from its start.
    pub fn new(file: Box<dyn SequentialFile>) -> Self {
        LogReader {
            file,
            block: vec![0; BLOCK_SIZE],
            block_len: 0,
            pos: 0,
            block_start: 0,
            eof: false,
            record: Vec::new(),
            zeros_at: None,
        }
    }

    /// Payload of the last [`ReadEvent::Record`].
    pub fn record(&self) -> &[u8] {
        &self.record
    }

    /// File offset just past the last fragment consumed.
    pub fn position(&self) -> u64 {
        self.block_start + self.pos as u64
    }

    fn fill_block(&mut self) -> Result<bool> {
        self.block_start += self.block_len as u64;
        self.block_len = 0;
        self.pos = 0;
        while self.block_len < BLOCK_SIZE {
            let n = self.file.read(&mut self.block[self.block_len..])?;
            if n == 0 {
                self.eof = true;
                break;
            }
            self.block_len += n;
        }
        Ok(self.block_len > 0)
    }

    fn next_fragment(&mut self) -> Result<Fragment> {
        loop {
            let left = self.block_len - self.pos;
            if left < HEADER_LEN {
                if self.eof {
                    if left > 0 && self.block[self.pos..self.block_len].iter().any(|&b| b != 0) {
                        let offset = self.position();
                        self.pos = self.block_len;
                        return Ok(Fragment::Torn {
                            offset,
                            reason: format!("log ends inside a fragment header ({left} bytes)"),
                        });
                    }
                    self.pos = self.block_len;
                    return Ok(Fragment::Eof);
                }
                // Block trailer padding (or the first read).
                if !self.fill_block()? {
                    return Ok(Fragment::Eof);
                }
                continue;
            }
            let h = &self.block[self.pos..self.pos + HEADER_LEN];
            let crc = u32::from_le_bytes([h[0], h[1], h[2], h[3]]);
            let len = usize::from(u16::from_le_bytes([h[4], h[5]]));
            let ty = h[6];
            let offset = self.position();
            if crc == 0 && len == 0 && ty == fragment::ZERO {
                // Unused space: legal only if zeros run to the end of the file
                // (preallocated or never-written space after a crash).
                let all_zero = self.block[self.pos..self.block_len].iter().all(|&b| b == 0);
                self.pos = self.block_len;
                if !all_zero {
                    return Ok(Fragment::Bad {
                        offset,
                        reason: "zeroed fragment header followed by data in the same block".into(),
                    });
                }
                self.zeros_at.get_or_insert(offset);
                if self.eof {
                    return Ok(Fragment::Eof);
                }
                continue;
            }
            if let Some(zeros) = self.zeros_at.take() {
                return Ok(Fragment::Bad {
                    offset: zeros,
                    reason: format!(
                        "zeroed region in the middle of the log, data resumes at offset {offset}"
                    ),
                });
            }
            if HEADER_LEN + len > left {
                if self.pos + HEADER_LEN + len > BLOCK_SIZE {
                    // No writer makes a fragment cross a block boundary.
                    self.pos = self.block_len;
                    return Ok(Fragment::Bad {
                        offset,
                        reason: format!("fragment length {len} crosses the block boundary"),
                    });
                }
                if self.eof {
                    if let Some(real) = self.damaged_length(ty, crc) {
                        self.pos = self.block_len;
                        return Ok(Fragment::Bad {
                            offset,
                            reason: format!(
                                "damaged length field: header says {len} bytes, but a complete \
                                 fragment of {real} bytes with a valid checksum is there"
                            ),
                        });
                    }
                    self.pos = self.block_len;
                    return Ok(Fragment::Torn {
                        offset,
                        reason: format!(
                            "log ends inside a fragment: header says {len} bytes, {} present",
                            left - HEADER_LEN
                        ),
                    });
                }
                self.pos = self.block_len;
                return Ok(Fragment::Bad {
                    offset,
                    reason: format!("fragment length {len} crosses the block boundary"),
                });
            }
            let start = self.pos + HEADER_LEN;
            let payload = &self.block[start..start + len];
            if !(fragment::FULL..=fragment::LAST).contains(&ty) {
                self.pos = self.block_len;
                return Ok(Fragment::Bad {
                    offset,
                    reason: format!("unknown fragment type {ty}"),
                });
            }
            if fragment_crc(ty, payload) != crc {
                self.pos = self.block_len;
                return Ok(Fragment::Bad {
                    offset,
                    reason: "checksum mismatch".to_string(),
                });
            }
            self.pos = start + len;
            return Ok(Fragment::Ok {
                ty,
                offset,
                start,
                len,
            });
        }
    }

    /// The fragment at `self.pos` claims more bytes than the file holds:
    /// a torn tail, or a damaged length field. It is the latter when, for
    /// some shorter length, the stored checksum matches *and* the fragment
    /// so delimited is followed by the end of the data, block padding, or
    /// another whole fragment with a valid checksum — what a complete
    /// record followed by more log looks like. Returns that length.
    /// A torn record passes only by a checksum coincidence at a plausible
    /// boundary (about 2^-32 at the end of the data, 2^-64 elsewhere).
    fn damaged_length(&self, ty: u8, crc: u32) -> Option<usize> {
        let start = self.pos + HEADER_LEN;
        let end = self.block_len;
        let whole_at = |q: usize| -> bool {
            let rest = &self.block[q..end];
            if rest.len() < HEADER_LEN {
                return rest.iter().all(|&b| b == 0);
            }
            let t = rest[6];
            let n = usize::from(u16::from_le_bytes([rest[4], rest[5]]));
            (fragment::FULL..=fragment::LAST).contains(&t)
                && HEADER_LEN + n <= rest.len()
                && fragment_crc(t, &rest[HEADER_LEN..HEADER_LEN + n])
                    == u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]])
        };
        (0..=end - start)
            .filter(|&l| start + l == end || whole_at(start + l))
            .find(|&l| fragment_crc(ty, &self.block[start..start + l]) == crc)
    }

    /// Reads the next record or reports what stopped it.
    // `allow`, not `expect`: the lint fires only where the reader is public
    // (with the feature `internals`).
    #[allow(
        clippy::should_implement_trait,
        reason = "lending read: the payload borrows the reader, so this cannot be Iterator::next"
    )]
    pub fn next(&mut self) -> Result<ReadEvent> {
        self.record.clear();
        // Offset of the FIRST fragment of a record in progress.
        let mut in_record: Option<u64> = None;
        loop {
            match self.next_fragment()? {
                Fragment::Eof => {
                    return Ok(match in_record {
                        None => ReadEvent::Eof,
                        Some(offset) => ReadEvent::TornTail {
                            offset,
                            reason: "log ends before the last fragment of a record".into(),
                        },
                    });
                }
                Fragment::Torn { offset, reason } => {
                    return Ok(ReadEvent::TornTail {
                        offset: in_record.unwrap_or(offset),
                        reason,
                    });
                }
                Fragment::Bad { offset, reason } => {
                    self.record.clear();
                    return Ok(ReadEvent::Corrupt { offset, reason });
                }
                Fragment::Ok {
                    ty,
                    offset,
                    start,
                    len,
                } => {
                    let data = start..start + len;
                    match (ty, in_record) {
                        (fragment::FULL, None) => {
                            self.record.extend_from_slice(&self.block[data]);
                            return Ok(ReadEvent::Record { offset });
                        }
                        (fragment::FIRST, None) => {
                            self.record.extend_from_slice(&self.block[data]);
                            in_record = Some(offset);
                        }
                        (fragment::MIDDLE, Some(_)) => {
                            self.record.extend_from_slice(&self.block[data]);
                        }
                        (fragment::LAST, Some(first)) => {
                            self.record.extend_from_slice(&self.block[data]);
                            return Ok(ReadEvent::Record { offset: first });
                        }
                        (_, Some(first)) => {
                            // A new record began before the old one ended.
                            self.record.clear();
                            return Ok(ReadEvent::Corrupt {
                                offset: first,
                                reason: format!(
                                    "record has no last fragment (fragment of type {ty} at offset {offset} follows)"
                                ),
                            });
                        }
                        (_, None) => {
                            return Ok(ReadEvent::Corrupt {
                                offset,
                                reason: format!("fragment of type {ty} without a first fragment"),
                            });
                        }
                    }
                }
            }
        }
    }
}
