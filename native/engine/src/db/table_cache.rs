//! The table cache: open [`TableReader`]s by file number.
//!
//! With `max_open_files = -1` (the default) every table stays open and its
//! reader is kept in the file's [`FileMetaData`] (`table_reader`), so a
//! point lookup reaches it with one atomic load and no shared lock. With a
//! limit, readers live in an LRU cache of that many entries and are opened
//! again after eviction.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::cache::{CacheKey, LruCache, Priority, new_cache_owner_id};
use crate::error::{Error, Result};
use crate::fs::FileSystem;
use crate::options::Options;
use crate::table::{BlockCache, TableReader, TableReaderOptions};
use crate::version::{FileMetaData, filename};

/// A table the manifest names must exist with the recorded size: a missing
/// or truncated (or grown) file is `Corruption` naming it, not an IO error
/// about a path — the database, not the disk, is damaged.
pub(crate) fn check_table_file(fs: &dyn FileSystem, path: &Path, f: &FileMetaData) -> Result<()> {
    match fs.file_size(path) {
        Ok(size) if size == f.file_size => Ok(()),
        Ok(size) => Err(wrong_size(path, size, f)),
        Err(e) => Err(missing_as_corruption(e, path)),
    }
}

fn wrong_size(path: &Path, size: u64, f: &FileMetaData) -> Error {
    Error::corruption(
        path.display(),
        0,
        format!(
            "table file is {size} bytes, the manifest says {}",
            f.file_size
        ),
    )
}

fn missing_as_corruption(e: Error, path: &Path) -> Error {
    match e {
        Error::Io {
            kind: std::io::ErrorKind::NotFound,
            ..
        } => Error::corruption(
            path.display(),
            0,
            "table file named by the manifest is missing",
        ),
        e => e,
    }
}

pub(crate) struct TableCache {
    fs: Arc<dyn FileSystem>,
    dir: PathBuf,
    block_cache: Option<Arc<BlockCache>>,
    cache_index_and_filter_blocks: bool,
    pin_l0: bool,
    statistics: Option<Arc<crate::statistics::Statistics>>,
    /// `None` = unlimited: readers are kept in the file metadata.
    lru: Option<LruCache<Arc<TableReader>>>,
    owner: u64,
}

impl TableCache {
    pub(crate) fn new(
        fs: Arc<dyn FileSystem>,
        dir: &Path,
        opts: &Options,
        block_cache: Option<Arc<BlockCache>>,
    ) -> Result<Self> {
        let lru = if opts.max_open_files > 0 {
            // Keep a few descriptors for logs, manifest and the info log.
            let n = (opts.max_open_files as usize).saturating_sub(10).max(16);
            Some(LruCache::new(n, 4, false, 0.0)?)
        } else {
            None
        };
        Ok(TableCache {
            fs,
            dir: dir.to_path_buf(),
            block_cache,
            cache_index_and_filter_blocks: opts.table.cache_index_and_filter_blocks,
            pin_l0: opts.table.pin_l0_filter_and_index_blocks_in_cache,
            statistics: opts.statistics.clone(),
            lru,
            owner: new_cache_owner_id(),
        })
    }

    fn open(&self, f: &FileMetaData, level: usize) -> Result<Arc<TableReader>> {
        let path = self.dir.join(filename::table_file_name(f.number));
        let file = self
            .fs
            .new_random_access(&path)
            .map_err(|e| missing_as_corruption(e, &path))?;
        // The size through the open file (an fstat), not a second lookup by path.
        let size = file.size()?;
        if size != f.file_size {
            return Err(wrong_size(&path, size, f));
        }
        let reader = TableReader::open(
            file,
            f.file_size,
            TableReaderOptions {
                file_name: path.display().to_string(),
                block_cache: self.block_cache.clone(),
                cache_index_and_filter_blocks: self.cache_index_and_filter_blocks,
                pin_index_and_filter: self.pin_l0 && level == 0,
                verify_checksums: true,
                statistics: self.statistics.clone(),
            },
        )?;
        Ok(Arc::new(reader))
    }

    /// The reader of `f`, opening it when needed. `level` is where the file
    /// lives (L0 readers may pin their index and filter).
    pub(crate) fn reader(&self, f: &FileMetaData, level: usize) -> Result<Arc<TableReader>> {
        match &self.lru {
            None => {
                if let Some(r) = f.table_reader.0.get() {
                    return Ok(r.clone());
                }
                let r = self.open(f, level)?;
                // A racing opener may have won; both readers are equivalent.
                Ok(f.table_reader.0.get_or_init(|| r).clone())
            }
            Some(lru) => {
                let key = CacheKey {
                    owner: self.owner,
                    offset: f.number,
                };
                if let Some(r) = lru.lookup(&key) {
                    return Ok(r);
                }
                let r = self.open(f, level)?;
                // Best effort: a full strict cache just means reopening later.
                let _ = lru.insert(key, r.clone(), 1, Priority::Low);
                Ok(r)
            }
        }
    }

    /// Checks that every table of `files` exists with the size the manifest
    /// records (see [`check_table_file`]).
    pub(crate) fn check_files<'a>(
        &self,
        files: impl IntoIterator<Item = &'a Arc<FileMetaData>>,
    ) -> Result<()> {
        for f in files {
            let path = self.dir.join(filename::table_file_name(f.number));
            check_table_file(self.fs.as_ref(), &path, f)?;
        }
        Ok(())
    }

    /// Forgets the reader of a deleted file.
    pub(crate) fn evict(&self, number: u64) {
        if let Some(lru) = &self.lru {
            lru.erase(&CacheKey {
                owner: self.owner,
                offset: number,
            });
        }
    }
}
