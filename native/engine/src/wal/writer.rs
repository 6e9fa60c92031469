//! Appends records to a log file in the format of [`super`].

use super::{BLOCK_SIZE, HEADER_LEN, fragment, fragment_crc};
use crate::error::Result;
use crate::fs::WritableFile;

/// Writes log records. Not thread-safe: the write path's group leader owns it.
pub struct LogWriter {
    file: Box<dyn WritableFile>,
    block_offset: usize,
    number: u64,
}

impl LogWriter {
    /// Starts a log in a new, empty file with file number `number`.
    pub fn new(file: Box<dyn WritableFile>, number: u64) -> Self {
        let block_offset = (file.len() % BLOCK_SIZE as u64) as usize;
        LogWriter {
            file,
            block_offset,
            number,
        }
    }

    /// File number of this log.
    pub fn number(&self) -> u64 {
        self.number
    }

    /// Bytes written to the file so far.
    pub fn file_size(&self) -> u64 {
        self.file.len()
    }

    /// Appends one record. It reaches the OS only at [`flush`](Self::flush) or
    /// [`sync`](Self::sync) (or when the file's buffer fills).
    pub fn add_record(&mut self, mut payload: &[u8]) -> Result<()> {
        let mut first = true;
        loop {
            let left_in_block = BLOCK_SIZE - self.block_offset;
            if left_in_block < HEADER_LEN {
                // Too small for a header: pad and move to the next block.
                const ZEROS: [u8; HEADER_LEN] = [0; HEADER_LEN];
                if left_in_block > 0 {
                    self.file.append(&ZEROS[..left_in_block])?;
                }
                self.block_offset = 0;
            }
            let avail = BLOCK_SIZE - self.block_offset - HEADER_LEN;
            let n = payload.len().min(avail);
            let last = n == payload.len();
            let ty = match (first, last) {
                (true, true) => fragment::FULL,
                (true, false) => fragment::FIRST,
                (false, true) => fragment::LAST,
                (false, false) => fragment::MIDDLE,
            };
            self.emit(ty, &payload[..n])?;
            payload = &payload[n..];
            first = false;
            if last {
                return Ok(());
            }
        }
    }

    fn emit(&mut self, ty: u8, data: &[u8]) -> Result<()> {
        let mut header = [0u8; HEADER_LEN];
        header[..4].copy_from_slice(&fragment_crc(ty, data).to_le_bytes());
        header[4..6].copy_from_slice(&(data.len() as u16).to_le_bytes());
        header[6] = ty;
        self.file.append(&header)?;
        self.file.append(data)?;
        self.block_offset += HEADER_LEN + data.len();
        Ok(())
    }

    /// Hands buffered bytes to the OS: they survive a process crash.
    pub fn flush(&mut self) -> Result<()> {
        self.file.flush()
    }

    /// A handle that syncs what was flushed so far from another thread, or
    /// `None` when the file system cannot provide one.
    pub fn sync_handle(&self) -> Option<Box<dyn crate::fs::SyncHandle>> {
        self.file.sync_handle()
    }

    /// Makes everything appended durable: it survives a power loss.
    pub fn sync(&mut self) -> Result<()> {
        self.file.sync()
    }
}
