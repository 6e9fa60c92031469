//! [`LevelIter`]: one [`InternalIterator`] over the files of a level ≥ 1
//! (sorted and disjoint in internal-key order), opening each file's table
//! iterator only when the walk reaches it.

use std::cmp::Ordering;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::iterator::InternalIterator;
use crate::key::compare_internal;
use crate::table::TableIter;
use crate::version::{FileMetaData, Version};

/// Opens the iterator of one file: a table iterator, held by the level's
/// iterator as itself rather than boxed, so that each step, key and value
/// of a scan is a direct call the compiler may inline, not two dynamic
/// calls (level, then table) per access.
pub(crate) type FileOpener = Arc<dyn Fn(&FileMetaData) -> Result<TableIter> + Send + Sync>;

/// The files a [`LevelIter`] walks.
pub(crate) enum LevelFiles {
    /// A list of its own (a compaction's inputs in one level).
    Listed(Vec<Arc<FileMetaData>>),
    /// One level of a version, shared: a user iterator is made per short
    /// scan, and cloning the level's list cost an atomic increment and a
    /// decrement on each file's count (shared by every reader thread), an
    /// allocation besides. A version's file lists never change.
    Level(Arc<Version>, usize),
}

impl LevelFiles {
    fn get(&self) -> &[Arc<FileMetaData>] {
        match self {
            LevelFiles::Listed(files) => files,
            LevelFiles::Level(version, level) => version.files(*level),
        }
    }
}

pub(crate) struct LevelIter {
    files: LevelFiles,
    opener: FileOpener,
    index: usize,
    cur: Option<TableIter>,
    err: Option<Error>,
}

impl LevelIter {
    /// Iterates `files` (in level order).
    pub(crate) fn new(files: LevelFiles, opener: FileOpener) -> Self {
        LevelIter {
            files,
            opener,
            index: 0,
            cur: None,
            err: None,
        }
    }

    fn open(&mut self, index: usize) -> bool {
        self.cur = None;
        self.index = index;
        if index >= self.files.get().len() {
            return false;
        }
        match (self.opener)(&self.files.get()[index]) {
            Ok(it) => {
                self.cur = Some(it);
                true
            }
            Err(e) => {
                if self.err.is_none() {
                    self.err = Some(e);
                }
                false
            }
        }
    }

    fn cur_valid(&self) -> bool {
        self.cur.as_ref().is_some_and(|c| c.valid())
    }

    /// Keeps the current child's error before moving off it.
    fn keep_child_error(&mut self) {
        if let Some(c) = &self.cur
            && let Err(e) = c.status()
            && self.err.is_none()
        {
            self.err = Some(e);
        }
    }

    fn skip_forward(&mut self) {
        while !self.cur_valid() && self.err.is_none() {
            self.keep_child_error();
            if self.err.is_some() || !self.open(self.index + 1) {
                self.cur = None;
                return;
            }
            if let Some(c) = self.cur.as_mut() {
                c.seek_to_first();
            }
        }
    }

    fn skip_backward(&mut self) {
        while !self.cur_valid() && self.err.is_none() {
            self.keep_child_error();
            if self.err.is_some() || self.index == 0 {
                self.cur = None;
                return;
            }
            if !self.open(self.index - 1) {
                self.cur = None;
                return;
            }
            if let Some(c) = self.cur.as_mut() {
                c.seek_to_last();
            }
        }
    }
}

impl InternalIterator for LevelIter {
    fn valid(&self) -> bool {
        self.err.is_none() && self.cur_valid()
    }

    fn seek_to_first(&mut self) {
        self.err = None;
        if self.open(0)
            && let Some(c) = self.cur.as_mut()
        {
            c.seek_to_first();
        }
        self.skip_forward();
    }

    fn seek_to_last(&mut self) {
        self.err = None;
        if let Some(last) = self.files.get().len().checked_sub(1)
            && self.open(last)
            && let Some(c) = self.cur.as_mut()
        {
            c.seek_to_last();
        }
        self.skip_backward();
    }

    fn seek(&mut self, target: &[u8]) {
        self.err = None;
        let i = self
            .files
            .get()
            .partition_point(|f| compare_internal(&f.largest, target) == Ordering::Less);
        if self.open(i)
            && let Some(c) = self.cur.as_mut()
        {
            c.seek(target);
        }
        self.skip_forward();
    }

    fn seek_prefix(&mut self, target: &[u8], prefix: &[u8]) -> bool {
        self.err = None;
        let i = self
            .files
            .get()
            .partition_point(|f| compare_internal(&f.largest, target) == Ordering::Less);
        if self.open(i)
            && let Some(c) = self.cur.as_mut()
            && c.seek_prefix(target, prefix)
        {
            // File i is the first that may hold keys ≥ target. Keys with one
            // prefix are contiguous in key order, so with none in it (its
            // largest key is ≥ target), no later file holds one ≥ target:
            // the level has nothing to show in this prefix.
            self.cur = None;
            return true;
        }
        self.skip_forward();
        false
    }

    fn seek_for_prev_prefix(&mut self, target: &[u8], prefix: &[u8]) -> bool {
        self.err = None;
        let i = self
            .files
            .get()
            .partition_point(|f| compare_internal(&f.smallest, target) != Ordering::Greater);
        let Some(i) = i.checked_sub(1) else {
            self.cur = None;
            return false;
        };
        if self.open(i)
            && let Some(c) = self.cur.as_mut()
            && c.seek_for_prev_prefix(target, prefix)
        {
            // As in `seek_prefix`, mirrored: file i's smallest key is ≤
            // target, so no earlier file holds a key of this prefix ≤ target.
            self.cur = None;
            return true;
        }
        self.skip_backward();
        false
    }

    fn seek_for_prev(&mut self, target: &[u8]) {
        self.err = None;
        let i = self
            .files
            .get()
            .partition_point(|f| compare_internal(&f.smallest, target) != Ordering::Greater);
        match i.checked_sub(1) {
            Some(i) => {
                if self.open(i)
                    && let Some(c) = self.cur.as_mut()
                {
                    c.seek_for_prev(target);
                }
                self.skip_backward();
            }
            None => self.cur = None,
        }
    }

    fn next(&mut self) {
        if let Some(c) = self.cur.as_mut() {
            c.next();
        }
        self.skip_forward();
    }

    fn prev(&mut self) {
        if let Some(c) = self.cur.as_mut() {
            c.prev();
        }
        self.skip_backward();
    }

    fn key(&self) -> &[u8] {
        self.cur
            .as_ref()
            .expect("LevelIter::key while invalid")
            .key()
    }

    fn value(&self) -> &[u8] {
        self.cur
            .as_ref()
            .expect("LevelIter::value while invalid")
            .value()
    }

    fn status(&self) -> Result<()> {
        if let Some(e) = &self.err {
            return Err(e.clone());
        }
        match &self.cur {
            Some(c) => c.status(),
            None => Ok(()),
        }
    }
}
