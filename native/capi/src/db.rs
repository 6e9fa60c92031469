//! The database: open and close, column families, writes and write
//! batches, reads (owned and pinned values), snapshots, iterators, flush,
//! compaction and properties.
//!
//! Thread safety: `talus_t` and `talus_column_family_handle_t` are safe
//! from any number of threads at once (every read and write call may run
//! concurrently on one database); `talus_snapshot_t` is immutable and
//! shareable. `talus_iterator_t`, `talus_writebatch_t` and
//! `talus_pinnableslice_t` are single-threaded: one thread at a time, as in
//! RocksDB.

#![expect(
    unsafe_code,
    reason = "C entry points (#[unsafe(no_mangle)]) that borrow handles through ffi"
)]

use std::cell::RefCell;
use std::ffi::{c_char, c_int};

use talus::db::{ColumnFamilyHandle, DbIterator, Snapshot};
use talus::{Db, Error, Options, WriteBatch};

use crate::ffi::{
    array, bytes, c_string, destroy, free_string_array, guard, handle, handle_mut, malloc_copy,
    malloc_string_array, new_handle, null_arg, opt_bytes, opt_handle, out, out_array, path_arg,
    quiet, str_arg, take, value_bytes,
};
use crate::options::{
    talus_flushoptions_t, talus_options_t, talus_readoptions_t, talus_writeoptions_t,
};

/// An open database.
pub struct talus_t {
    db: Db,
}

/// A column family of an open database.
pub struct talus_column_family_handle_t {
    h: ColumnFamilyHandle,
}

/// A snapshot: reads with it see the database as it was when it was taken.
pub struct talus_snapshot_t {
    s: Snapshot,
}

/// A batch of writes applied atomically by `talus_write`.
pub struct talus_writebatch_t {
    b: WriteBatch,
}

/// An iterator over a database or column family.
pub struct talus_iterator_t {
    it: DbIterator,
    /// The error of a seek to a NULL key: the iterator is invalid until the
    /// next seek, and `talus_iter_get_error` reports it.
    err: Option<Error>,
}

impl talus_iterator_t {
    fn valid(&self) -> bool {
        self.err.is_none() && self.it.valid()
    }
}

/// A value read without a copy at the boundary: the engine reads it into
/// the slice's buffer, which C reads in place; reusable across reads.
pub struct talus_pinnableslice_t {
    v: Vec<u8>,
    found: bool,
}

/// Borrows the database handle `p` for the call.
///
/// # Safety
/// `p` is NULL or a live `talus_t*` (ffi contract 1).
unsafe fn db<'a>(p: *const talus_t, func: &str) -> Result<&'a Db, Error> {
    // SAFETY: forwarded contract; `Db` is Sync, shared borrows only.
    Ok(&unsafe { handle(p, func, "db") }?.db)
}

/// Borrows the family handle `p` for the call.
///
/// # Safety
/// `p` is NULL or a live `talus_column_family_handle_t*`.
unsafe fn cf<'a>(
    p: *const talus_column_family_handle_t,
    func: &str,
) -> Result<&'a ColumnFamilyHandle, Error> {
    // SAFETY: forwarded contract.
    Ok(&unsafe { handle(p, func, "column_family") }?.h)
}

/// Borrows read options `p`.
///
/// # Safety
/// `p` is NULL or a live `talus_readoptions_t*` not being set meanwhile.
unsafe fn ro<'a>(
    p: *const talus_readoptions_t,
    func: &str,
) -> Result<&'a talus::ReadOptions, Error> {
    // SAFETY: forwarded contract.
    Ok(&unsafe { handle(p, func, "options") }?.ro)
}

/// Borrows write options `p`.
///
/// # Safety
/// `p` is NULL or a live `talus_writeoptions_t*` not being set meanwhile.
unsafe fn wo<'a>(
    p: *const talus_writeoptions_t,
    func: &str,
) -> Result<&'a talus::WriteOptions, Error> {
    // SAFETY: forwarded contract.
    Ok(&unsafe { handle(p, func, "options") }?.wo)
}

/// Borrows options `p`.
///
/// # Safety
/// `p` is NULL or a live `talus_options_t*` not being set meanwhile.
unsafe fn opts<'a>(p: *const talus_options_t, func: &str) -> Result<&'a Options, Error> {
    // SAFETY: forwarded contract.
    Ok(&unsafe { handle(p, func, "options") }?.opts)
}

// ---- open, close, destroy ----

/// Opens (with `create_if_missing`, creates) the database at directory
/// `name` with its default column family; NULL on error. A database that
/// has other families fails: open it with `talus_open_column_families`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_open(
    options: *const talus_options_t,
    name: *const c_char,
    errptr: *mut *mut c_char,
) -> *mut talus_t {
    const F: &str = "talus_open";
    guard(F, errptr, std::ptr::null_mut(), || {
        // SAFETY: header conventions: `options` a live handle or NULL, `name` a C string or NULL.
        let (o, path) = unsafe { (opts(options, F)?, path_arg(name, F, "name")?) };
        Ok(new_handle(talus_t {
            db: Db::open(o.clone(), path)?,
        }))
    })
}

/// Opens the database with the `num_column_families` families named in
/// `column_family_names`, each with its options in
/// `column_family_options` (only the per-family settings count). The list
/// must include "default" and every family on disk; missing ones are
/// created with `create_missing_column_families`. On success writes one new
/// handle per family to `column_family_handles` (an array of
/// `num_column_families` slots, in the list's order; destroy each). NULL on
/// error, with nothing written.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_open_column_families(
    options: *const talus_options_t,
    name: *const c_char,
    num_column_families: usize,
    column_family_names: *const *const c_char,
    column_family_options: *const *const talus_options_t,
    column_family_handles: *mut *mut talus_column_family_handle_t,
    errptr: *mut *mut c_char,
) -> *mut talus_t {
    const F: &str = "talus_open_column_families";
    guard(F, errptr, std::ptr::null_mut(), || {
        let n = num_column_families;
        // SAFETY: header conventions: each array holds `n` elements, each
        // name a C string, each options a live handle; the output array
        // `n` writable slots.
        unsafe {
            let (o, path) = (opts(options, F)?, path_arg(name, F, "name")?);
            let names = array(column_family_names, n, F, "column_family_names")?;
            let cf_opts = array(column_family_options, n, F, "column_family_options")?;
            let outs = out_array(column_family_handles, n, F, "column_family_handles")?;
            let mut families = Vec::with_capacity(n);
            for (&nm, &op) in names.iter().zip(cf_opts) {
                families.push((
                    str_arg(nm, F, "column_family_names[i]")?.to_owned(),
                    opts(op, F)?.clone(),
                ));
            }
            let (db, handles) = Db::open_cf(o.clone(), path, families)?;
            for (slot, h) in outs.iter_mut().zip(handles) {
                *slot = new_handle(talus_column_family_handle_t { h });
            }
            Ok(new_handle(talus_t { db }))
        }
    })
}

/// Closes and frees `db` (NULL is ignored): waits for background work,
/// flushes memtables holding unlogged writes, releases the lock. The handle
/// is freed even when closing reports an error (in `errptr`, which may be
/// NULL). Destroy iterators and family handles, and release snapshots,
/// first; an iterator destroyed after the close is only freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_close(db: *mut talus_t, errptr: *mut *mut c_char) {
    guard("talus_close", errptr, (), || {
        if db.is_null() {
            return Ok(());
        }
        // SAFETY: header conventions: `db` is a live handle, closed once.
        let t = unsafe { take(db) };
        t.db.close()
    })
}

/// Deletes the database at `name` (every file it owns) (RocksDB `DestroyDB`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_destroy_db(
    options: *const talus_options_t,
    name: *const c_char,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_destroy_db";
    guard(F, errptr, (), || {
        // SAFETY: header conventions: live handle, C string.
        let (o, path) = unsafe { (opts(options, F)?, path_arg(name, F, "name")?) };
        talus::destroy_db(path, o)
    })
}

// ---- column families ----

/// The names of the families of the database at `name` ("default" first),
/// as an array of `*lencf` C strings; free it with
/// `talus_list_column_families_destroy`. NULL on error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_list_column_families(
    options: *const talus_options_t,
    name: *const c_char,
    lencf: *mut usize,
    errptr: *mut *mut c_char,
) -> *mut *mut c_char {
    const F: &str = "talus_list_column_families";
    guard(F, errptr, std::ptr::null_mut(), || {
        if lencf.is_null() {
            return Err(null_arg(F, "lencf"));
        }
        // SAFETY: header conventions: live handle, C string.
        let (o, path) = unsafe { (opts(options, F)?, path_arg(name, F, "name")?) };
        let names = Db::list_column_families(o, path)?;
        let list = malloc_string_array(&names)?;
        // SAFETY: `lencf` is non-NULL and writable by the conventions.
        unsafe { out(lencf, names.len()) };
        Ok(list)
    })
}

/// Frees a list from `talus_list_column_families` (NULL is ignored).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_list_column_families_destroy(list: *mut *mut c_char, len: usize) {
    quiet("talus_list_column_families_destroy", (), || {
        // SAFETY: header conventions: `list` came from
        // talus_list_column_families with `len` names, freed once.
        unsafe { free_string_array(list, len) };
        Ok(())
    })
}

/// Creates family `name` with the per-family settings of `options`; NULL
/// on error (a family of that name exists, ...). Destroy the handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_create_column_family(
    db: *const talus_t,
    options: *const talus_options_t,
    name: *const c_char,
    errptr: *mut *mut c_char,
) -> *mut talus_column_family_handle_t {
    const F: &str = "talus_create_column_family";
    guard(F, errptr, std::ptr::null_mut(), || {
        // SAFETY: header conventions: live handles or NULL, a C string.
        let (d, o, n) = unsafe {
            (
                self::db(db, F)?,
                opts(options, F)?,
                str_arg(name, F, "name")?,
            )
        };
        let h = d.create_column_family(o, n)?;
        Ok(new_handle(talus_column_family_handle_t { h }))
    })
}

/// Drops the family of `handle` (not the default one). Later calls through
/// any handle of it fail; still destroy the handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_drop_column_family(
    db: *const talus_t,
    handle: *const talus_column_family_handle_t,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_drop_column_family";
    guard(F, errptr, (), || {
        // SAFETY: header conventions: live handles or NULL.
        let (d, h) = unsafe { (self::db(db, F)?, cf(handle, F)?) };
        d.drop_column_family(h)
    })
}

/// A new handle of the default family (NULL for a NULL `db`); destroy it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_get_default_column_family_handle(
    db: *const talus_t,
) -> *mut talus_column_family_handle_t {
    const F: &str = "talus_get_default_column_family_handle";
    quiet(F, std::ptr::null_mut(), || {
        // SAFETY: header conventions: live handle or NULL.
        let d = unsafe { self::db(db, F) }?;
        Ok(new_handle(talus_column_family_handle_t {
            h: d.default_column_family(),
        }))
    })
}

/// Frees a family handle (NULL is ignored); the family itself stays.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_column_family_handle_destroy(
    handle: *mut talus_column_family_handle_t,
) {
    // SAFETY: header conventions: NULL or a live handle, destroyed once.
    unsafe { destroy("talus_column_family_handle_destroy", handle) }
}

/// The family's id (0 for the default family; 0 for NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_column_family_handle_get_id(
    handle: *const talus_column_family_handle_t,
) -> u32 {
    quiet("talus_column_family_handle_get_id", 0, || {
        // SAFETY: header conventions: NULL or a live handle.
        Ok(unsafe { cf(handle, "") }?.id())
    })
}

/// The family's name, `*name_len` bytes; free with `talus_free`. NULL for NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_column_family_handle_get_name(
    handle: *const talus_column_family_handle_t,
    name_len: *mut usize,
) -> *mut c_char {
    quiet(
        "talus_column_family_handle_get_name",
        std::ptr::null_mut(),
        || {
            // SAFETY: header conventions: NULL or a live handle; `name_len`
            // NULL or writable.
            unsafe {
                let n = cf(handle, "")?.name();
                out(name_len, n.len());
                Ok(malloc_copy(n.as_bytes()))
            }
        },
    )
}

// ---- writes ----

/// Sets `key` to `val`. A NULL key is an error; a NULL value with `vallen`
/// 0 is the empty value.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_put(
    db: *const talus_t,
    options: *const talus_writeoptions_t,
    key: *const c_char,
    keylen: usize,
    val: *const c_char,
    vallen: usize,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_put";
    guard(F, errptr, (), || {
        // SAFETY: header conventions: live handles or NULL; `key`/`val`
        // hold `keylen`/`vallen` bytes.
        let (d, w, k, v) = unsafe {
            (
                self::db(db, F)?,
                wo(options, F)?,
                bytes(key, keylen, F, "key")?,
                value_bytes(val, vallen, F, "val")?,
            )
        };
        d.put(w, k, v)
    })
}

/// `talus_put` in family `column_family`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_put_cf(
    db: *const talus_t,
    options: *const talus_writeoptions_t,
    column_family: *const talus_column_family_handle_t,
    key: *const c_char,
    keylen: usize,
    val: *const c_char,
    vallen: usize,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_put_cf";
    guard(F, errptr, (), || {
        // SAFETY: header conventions (see talus_put).
        let (d, w, c, k, v) = unsafe {
            (
                self::db(db, F)?,
                wo(options, F)?,
                cf(column_family, F)?,
                bytes(key, keylen, F, "key")?,
                value_bytes(val, vallen, F, "val")?,
            )
        };
        d.put_cf(w, c, k, v)
    })
}

/// Deletes `key`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_delete(
    db: *const talus_t,
    options: *const talus_writeoptions_t,
    key: *const c_char,
    keylen: usize,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_delete";
    guard(F, errptr, (), || {
        // SAFETY: header conventions (see talus_put).
        let (d, w, k) = unsafe {
            (
                self::db(db, F)?,
                wo(options, F)?,
                bytes(key, keylen, F, "key")?,
            )
        };
        d.delete(w, k)
    })
}

/// `talus_delete` in family `column_family`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_delete_cf(
    db: *const talus_t,
    options: *const talus_writeoptions_t,
    column_family: *const talus_column_family_handle_t,
    key: *const c_char,
    keylen: usize,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_delete_cf";
    guard(F, errptr, (), || {
        // SAFETY: header conventions (see talus_put).
        let (d, w, c, k) = unsafe {
            (
                self::db(db, F)?,
                wo(options, F)?,
                cf(column_family, F)?,
                bytes(key, keylen, F, "key")?,
            )
        };
        d.delete_cf(w, c, k)
    })
}

/// Deletes `key`'s only put (RocksDB `SingleDelete`; Talus reads it as a
/// delete, so misuse never resurrects an older value).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_single_delete(
    db: *const talus_t,
    options: *const talus_writeoptions_t,
    key: *const c_char,
    keylen: usize,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_single_delete";
    guard(F, errptr, (), || {
        // SAFETY: header conventions (see talus_put).
        let (d, w, k) = unsafe {
            (
                self::db(db, F)?,
                wo(options, F)?,
                bytes(key, keylen, F, "key")?,
            )
        };
        d.single_delete(w, k)
    })
}

/// Deletes every key in `[start_key, end_key)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_delete_range(
    db: *const talus_t,
    options: *const talus_writeoptions_t,
    start_key: *const c_char,
    start_key_len: usize,
    end_key: *const c_char,
    end_key_len: usize,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_delete_range";
    guard(F, errptr, (), || {
        // SAFETY: header conventions (see talus_put).
        let (d, w, s, e) = unsafe {
            (
                self::db(db, F)?,
                wo(options, F)?,
                bytes(start_key, start_key_len, F, "start_key")?,
                bytes(end_key, end_key_len, F, "end_key")?,
            )
        };
        d.delete_range(w, s, e)
    })
}

/// `talus_delete_range` in family `column_family`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_delete_range_cf(
    db: *const talus_t,
    options: *const talus_writeoptions_t,
    column_family: *const talus_column_family_handle_t,
    start_key: *const c_char,
    start_key_len: usize,
    end_key: *const c_char,
    end_key_len: usize,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_delete_range_cf";
    guard(F, errptr, (), || {
        // SAFETY: header conventions (see talus_put).
        let (d, w, c, s, e) = unsafe {
            (
                self::db(db, F)?,
                wo(options, F)?,
                cf(column_family, F)?,
                bytes(start_key, start_key_len, F, "start_key")?,
                bytes(end_key, end_key_len, F, "end_key")?,
            )
        };
        d.delete_range_cf(w, c, s, e)
    })
}

/// Merges `val` into `key` with the merge operator; `Not implemented` when
/// the database has none.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_merge(
    db: *const talus_t,
    options: *const talus_writeoptions_t,
    key: *const c_char,
    keylen: usize,
    val: *const c_char,
    vallen: usize,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_merge";
    guard(F, errptr, (), || {
        // SAFETY: header conventions (see talus_put).
        let (d, w, k, v) = unsafe {
            (
                self::db(db, F)?,
                wo(options, F)?,
                bytes(key, keylen, F, "key")?,
                value_bytes(val, vallen, F, "val")?,
            )
        };
        d.merge(w, k, v)
    })
}

/// `talus_merge` in family `column_family`, with its merge operator.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_merge_cf(
    db: *const talus_t,
    options: *const talus_writeoptions_t,
    column_family: *const talus_column_family_handle_t,
    key: *const c_char,
    keylen: usize,
    val: *const c_char,
    vallen: usize,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_merge_cf";
    guard(F, errptr, (), || {
        // SAFETY: header conventions (see talus_put).
        let (d, w, c, k, v) = unsafe {
            (
                self::db(db, F)?,
                wo(options, F)?,
                cf(column_family, F)?,
                bytes(key, keylen, F, "key")?,
                value_bytes(val, vallen, F, "val")?,
            )
        };
        d.merge_cf(w, c, k, v)
    })
}

/// Applies `batch` atomically. The batch is not consumed: clear, reuse or
/// destroy it afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_write(
    db: *const talus_t,
    options: *const talus_writeoptions_t,
    batch: *const talus_writebatch_t,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_write";
    guard(F, errptr, (), || {
        // SAFETY: header conventions: live handles or NULL; the batch is
        // not used by another thread during the call.
        let (d, w, b) = unsafe {
            (
                self::db(db, F)?,
                wo(options, F)?,
                handle(batch, F, "batch")?,
            )
        };
        d.write(w, b.b.clone())
    })
}

// ---- write batches ----

/// A new, empty write batch.
#[unsafe(no_mangle)]
pub extern "C" fn talus_writebatch_create() -> *mut talus_writebatch_t {
    quiet("talus_writebatch_create", std::ptr::null_mut(), || {
        Ok(new_handle(talus_writebatch_t {
            b: WriteBatch::new(),
        }))
    })
}

/// Frees `batch` (NULL is ignored).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_writebatch_destroy(batch: *mut talus_writebatch_t) {
    // SAFETY: header conventions: NULL or a live handle, destroyed once.
    unsafe { destroy("talus_writebatch_destroy", batch) }
}

/// Empties `batch`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_writebatch_clear(batch: *mut talus_writebatch_t) {
    quiet("talus_writebatch_clear", (), || {
        // SAFETY: header conventions: NULL or a live handle, one thread.
        unsafe { handle_mut(batch, "", "batch") }?.b.clear();
        Ok(())
    })
}

/// Operations in `batch` (0 for NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_writebatch_count(batch: *const talus_writebatch_t) -> c_int {
    quiet("talus_writebatch_count", 0, || {
        // SAFETY: header conventions: NULL or a live handle.
        let n = unsafe { handle(batch, "", "batch") }?.b.count();
        Ok(c_int::try_from(n).unwrap_or(c_int::MAX))
    })
}

/// Runs a batch edit: borrows `batch` mutably, reports through `errptr`.
///
/// # Safety
/// `batch` is NULL or a live batch used by this thread only.
unsafe fn edit(
    batch: *mut talus_writebatch_t,
    func: &str,
    errptr: *mut *mut c_char,
    f: impl FnOnce(&mut WriteBatch) -> Result<(), Error>,
) {
    guard(func, errptr, (), || {
        // SAFETY: forwarded contract.
        f(&mut unsafe { handle_mut(batch, func, "batch") }?.b)
    })
}

/// Adds a put of `key` to `batch`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_writebatch_put(
    batch: *mut talus_writebatch_t,
    key: *const c_char,
    klen: usize,
    val: *const c_char,
    vlen: usize,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_writebatch_put";
    // SAFETY: header conventions: batch as in `edit`; key/val hold their lengths.
    unsafe {
        edit(batch, F, errptr, |b| {
            b.put(
                bytes(key, klen, F, "key")?,
                value_bytes(val, vlen, F, "val")?,
            );
            Ok(())
        })
    }
}

/// Adds a put of `key` in family `column_family` to `batch`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_writebatch_put_cf(
    batch: *mut talus_writebatch_t,
    column_family: *const talus_column_family_handle_t,
    key: *const c_char,
    klen: usize,
    val: *const c_char,
    vlen: usize,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_writebatch_put_cf";
    // SAFETY: header conventions (see talus_writebatch_put).
    unsafe {
        edit(batch, F, errptr, |b| {
            let id = cf(column_family, F)?.id();
            b.put_cf(
                id,
                bytes(key, klen, F, "key")?,
                value_bytes(val, vlen, F, "val")?,
            );
            Ok(())
        })
    }
}

/// Adds a delete of `key` to `batch`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_writebatch_delete(
    batch: *mut talus_writebatch_t,
    key: *const c_char,
    klen: usize,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_writebatch_delete";
    // SAFETY: header conventions (see talus_writebatch_put).
    unsafe {
        edit(batch, F, errptr, |b| {
            b.delete(bytes(key, klen, F, "key")?);
            Ok(())
        })
    }
}

/// Adds a delete of `key` in family `column_family` to `batch`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_writebatch_delete_cf(
    batch: *mut talus_writebatch_t,
    column_family: *const talus_column_family_handle_t,
    key: *const c_char,
    klen: usize,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_writebatch_delete_cf";
    // SAFETY: header conventions (see talus_writebatch_put).
    unsafe {
        edit(batch, F, errptr, |b| {
            let id = cf(column_family, F)?.id();
            b.delete_cf(id, bytes(key, klen, F, "key")?);
            Ok(())
        })
    }
}

/// Adds a single delete of `key` to `batch`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_writebatch_single_delete(
    batch: *mut talus_writebatch_t,
    key: *const c_char,
    klen: usize,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_writebatch_single_delete";
    // SAFETY: header conventions (see talus_writebatch_put).
    unsafe {
        edit(batch, F, errptr, |b| {
            b.single_delete(bytes(key, klen, F, "key")?);
            Ok(())
        })
    }
}

/// Adds a deletion of `[start_key, end_key)` to `batch`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_writebatch_delete_range(
    batch: *mut talus_writebatch_t,
    start_key: *const c_char,
    start_key_len: usize,
    end_key: *const c_char,
    end_key_len: usize,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_writebatch_delete_range";
    // SAFETY: header conventions (see talus_writebatch_put).
    unsafe {
        edit(batch, F, errptr, |b| {
            b.delete_range(
                bytes(start_key, start_key_len, F, "start_key")?,
                bytes(end_key, end_key_len, F, "end_key")?,
            );
            Ok(())
        })
    }
}

/// Adds a deletion of `[start_key, end_key)` in family `column_family`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_writebatch_delete_range_cf(
    batch: *mut talus_writebatch_t,
    column_family: *const talus_column_family_handle_t,
    start_key: *const c_char,
    start_key_len: usize,
    end_key: *const c_char,
    end_key_len: usize,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_writebatch_delete_range_cf";
    // SAFETY: header conventions (see talus_writebatch_put).
    unsafe {
        edit(batch, F, errptr, |b| {
            let id = cf(column_family, F)?.id();
            b.delete_range_cf(
                id,
                bytes(start_key, start_key_len, F, "start_key")?,
                bytes(end_key, end_key_len, F, "end_key")?,
            );
            Ok(())
        })
    }
}

/// Adds a merge of `val` into `key` to `batch`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_writebatch_merge(
    batch: *mut talus_writebatch_t,
    key: *const c_char,
    klen: usize,
    val: *const c_char,
    vlen: usize,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_writebatch_merge";
    // SAFETY: header conventions (see talus_writebatch_put).
    unsafe {
        edit(batch, F, errptr, |b| {
            b.merge(
                bytes(key, klen, F, "key")?,
                value_bytes(val, vlen, F, "val")?,
            );
            Ok(())
        })
    }
}

/// Adds a merge into `key` of family `column_family` to `batch`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_writebatch_merge_cf(
    batch: *mut talus_writebatch_t,
    column_family: *const talus_column_family_handle_t,
    key: *const c_char,
    klen: usize,
    val: *const c_char,
    vlen: usize,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_writebatch_merge_cf";
    // SAFETY: header conventions (see talus_writebatch_put).
    unsafe {
        edit(batch, F, errptr, |b| {
            let id = cf(column_family, F)?.id();
            b.merge_cf(
                id,
                bytes(key, klen, F, "key")?,
                value_bytes(val, vlen, F, "val")?,
            );
            Ok(())
        })
    }
}

// ---- reads ----

thread_local! {
    /// The value buffer of `talus_get` on this thread: one malloc per found
    /// value (the copy handed to C), not two.
    static GET_BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Reads `key` into the calling thread's buffer and hands C a malloc'd copy.
fn get_copy(
    vallen: *mut usize,
    read: impl FnOnce(&mut Vec<u8>) -> Result<bool, Error>,
) -> Result<*mut c_char, Error> {
    GET_BUF.with(|b| {
        // A panic inside `read` leaves the cell unborrowed (the guard
        // catches it); re-entrancy is impossible (no callbacks into C).
        let mut buf = b.borrow_mut();
        let found = read(&mut buf)?;
        let (p, n) = if found {
            (malloc_copy(&buf), buf.len())
        } else {
            (std::ptr::null_mut(), 0)
        };
        if buf.capacity() > 1 << 20 {
            // Do not keep one large value's memory on the thread for ever.
            *buf = Vec::new();
        }
        // SAFETY: header conventions: `vallen` is NULL or writable.
        unsafe { out(vallen, n) };
        Ok(p)
    })
}

/// Reads `key`: a malloc'd copy of its value (`*vallen` bytes, then a NUL
/// not counted) that the caller frees with `talus_free`, or NULL when the
/// key is absent (`*vallen` 0) or on error (`*errptr` set).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_get(
    db: *const talus_t,
    options: *const talus_readoptions_t,
    key: *const c_char,
    keylen: usize,
    vallen: *mut usize,
    errptr: *mut *mut c_char,
) -> *mut c_char {
    const F: &str = "talus_get";
    // SAFETY: header conventions: `vallen` NULL or writable.
    unsafe { out(vallen, 0) };
    guard(F, errptr, std::ptr::null_mut(), || {
        // SAFETY: header conventions (see talus_put).
        let (d, r, k) = unsafe {
            (
                self::db(db, F)?,
                ro(options, F)?,
                bytes(key, keylen, F, "key")?,
            )
        };
        get_copy(vallen, |buf| d.get_into(r, k, buf))
    })
}

/// `talus_get` in family `column_family`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_get_cf(
    db: *const talus_t,
    options: *const talus_readoptions_t,
    column_family: *const talus_column_family_handle_t,
    key: *const c_char,
    keylen: usize,
    vallen: *mut usize,
    errptr: *mut *mut c_char,
) -> *mut c_char {
    const F: &str = "talus_get_cf";
    // SAFETY: header conventions: `vallen` NULL or writable.
    unsafe { out(vallen, 0) };
    guard(F, errptr, std::ptr::null_mut(), || {
        // SAFETY: header conventions (see talus_put).
        let (d, r, c, k) = unsafe {
            (
                self::db(db, F)?,
                ro(options, F)?,
                cf(column_family, F)?,
                bytes(key, keylen, F, "key")?,
            )
        };
        get_copy(vallen, |buf| d.get_into_cf(r, c, k, buf))
    })
}

/// Reads `key` into a new pinnable slice (destroy it), without copying the
/// value again at the boundary; NULL when the key is absent or on error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_get_pinned(
    db: *const talus_t,
    options: *const talus_readoptions_t,
    key: *const c_char,
    keylen: usize,
    errptr: *mut *mut c_char,
) -> *mut talus_pinnableslice_t {
    // SAFETY: header conventions (forwarded).
    unsafe { talus_get_pinned_cf(db, options, std::ptr::null(), key, keylen, errptr) }
}

/// `talus_get_pinned` in family `column_family` (NULL = the default family).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_get_pinned_cf(
    db: *const talus_t,
    options: *const talus_readoptions_t,
    column_family: *const talus_column_family_handle_t,
    key: *const c_char,
    keylen: usize,
    errptr: *mut *mut c_char,
) -> *mut talus_pinnableslice_t {
    const F: &str = "talus_get_pinned_cf";
    guard(F, errptr, std::ptr::null_mut(), || {
        let mut s = talus_pinnableslice_t {
            v: Vec::new(),
            found: false,
        };
        // SAFETY: header conventions (see talus_put).
        unsafe { read_into(db, options, column_family, key, keylen, &mut s, F) }?;
        Ok(if s.found {
            new_handle(s)
        } else {
            std::ptr::null_mut()
        })
    })
}

/// Reads into `s`; a NULL family is the default one.
///
/// # Safety
/// As `talus_put`'s arguments; `column_family` NULL or live.
unsafe fn read_into(
    db: *const talus_t,
    options: *const talus_readoptions_t,
    column_family: *const talus_column_family_handle_t,
    key: *const c_char,
    keylen: usize,
    s: &mut talus_pinnableslice_t,
    func: &str,
) -> Result<(), Error> {
    // SAFETY: forwarded contract.
    let (d, r, k) = unsafe {
        (
            self::db(db, func)?,
            ro(options, func)?,
            bytes(key, keylen, func, "key")?,
        )
    };
    s.found = false;
    s.found = if column_family.is_null() {
        d.get_into(r, k, &mut s.v)?
    } else {
        // SAFETY: forwarded contract.
        d.get_into_cf(r, unsafe { cf(column_family, func) }?, k, &mut s.v)?
    };
    Ok(())
}

/// An empty pinnable slice to reuse with `talus_get_into_pinnableslice`.
#[unsafe(no_mangle)]
pub extern "C" fn talus_pinnableslice_create() -> *mut talus_pinnableslice_t {
    quiet("talus_pinnableslice_create", std::ptr::null_mut(), || {
        Ok(new_handle(talus_pinnableslice_t {
            v: Vec::new(),
            found: false,
        }))
    })
}

/// Reads `key` of family `column_family` (NULL = default) into `slice`,
/// reusing its buffer (no allocation once it is large enough); returns 1
/// when found, 0 when absent or on error. The previous value of the slice
/// is gone.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_get_into_pinnableslice(
    db: *const talus_t,
    options: *const talus_readoptions_t,
    column_family: *const talus_column_family_handle_t,
    key: *const c_char,
    keylen: usize,
    slice: *mut talus_pinnableslice_t,
    errptr: *mut *mut c_char,
) -> u8 {
    const F: &str = "talus_get_into_pinnableslice";
    guard(F, errptr, 0, || {
        // SAFETY: header conventions: `slice` NULL or a live slice of this
        // thread; the rest as talus_put.
        unsafe {
            let s = handle_mut(slice, F, "slice")?;
            s.found = false;
            read_into(db, options, column_family, key, keylen, s, F)?;
            Ok(u8::from(s.found))
        }
    })
}

/// The value in `slice` (`*vlen` bytes), valid until the slice's next read
/// or destroy; NULL (and 0) when it holds none.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_pinnableslice_value(
    slice: *const talus_pinnableslice_t,
    vlen: *mut usize,
) -> *const c_char {
    // SAFETY: header conventions: `vlen` NULL or writable.
    unsafe { out(vlen, 0) };
    quiet("talus_pinnableslice_value", std::ptr::null(), || {
        // SAFETY: header conventions: NULL or a live slice.
        let s = unsafe { handle(slice, "", "slice") }?;
        if !s.found {
            return Ok(std::ptr::null());
        }
        // SAFETY: as above for `vlen`.
        unsafe { out(vlen, s.v.len()) };
        Ok(s.v.as_ptr().cast())
    })
}

/// Frees `slice` (NULL is ignored).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_pinnableslice_destroy(slice: *mut talus_pinnableslice_t) {
    // SAFETY: header conventions: NULL or a live handle, destroyed once.
    unsafe { destroy("talus_pinnableslice_destroy", slice) }
}

// ---- snapshots ----

/// Takes a snapshot; release it with `talus_release_snapshot` before
/// closing the database. NULL on error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_create_snapshot(
    db: *const talus_t,
    errptr: *mut *mut c_char,
) -> *mut talus_snapshot_t {
    const F: &str = "talus_create_snapshot";
    guard(F, errptr, std::ptr::null_mut(), || {
        // SAFETY: header conventions: NULL or a live handle.
        let d = unsafe { self::db(db, F) }?;
        Ok(new_handle(talus_snapshot_t { s: d.snapshot()? }))
    })
}

/// Releases and frees `snapshot` (NULL is ignored). Read options still
/// naming it read as of its sequence number without protection: reset them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_release_snapshot(
    db: *const talus_t,
    snapshot: *mut talus_snapshot_t,
) {
    const F: &str = "talus_release_snapshot";
    quiet(F, (), || {
        if snapshot.is_null() {
            return Ok(());
        }
        // SAFETY: header conventions: `db` NULL or live; `snapshot` a live
        // handle released once. With a NULL `db` the snapshot is only freed.
        unsafe {
            let s = take(snapshot);
            if let Ok(d) = self::db(db, F) {
                d.release_snapshot(s.s);
            }
        }
        Ok(())
    })
}

/// The sequence number `snapshot` reads at (0 for NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_snapshot_get_sequence_number(
    snapshot: *const talus_snapshot_t,
) -> u64 {
    quiet("talus_snapshot_get_sequence_number", 0, || {
        // SAFETY: header conventions: NULL or a live handle.
        Ok(unsafe { handle(snapshot, "", "snapshot") }?
            .s
            .sequence_number())
    })
}

/// Reads with `ro` see `snapshot` (NULL = the latest state, the default).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_readoptions_set_snapshot(
    ro: *mut talus_readoptions_t,
    snapshot: *const talus_snapshot_t,
) {
    quiet("talus_readoptions_set_snapshot", (), || {
        // SAFETY: header conventions: `ro` NULL or live, set by one thread;
        // `snapshot` NULL or live.
        unsafe {
            let seq = opt_handle(snapshot).map(|s| s.s.sequence_number());
            handle_mut(ro, "", "ro")?.ro.snapshot = seq;
        }
        Ok(())
    })
}

/// The newest sequence number written (0 for NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_get_latest_sequence_number(db: *const talus_t) -> u64 {
    quiet("talus_get_latest_sequence_number", 0, || {
        // SAFETY: header conventions: NULL or a live handle.
        Ok(unsafe { self::db(db, "") }?.latest_sequence_number())
    })
}

// ---- iterators ----

/// A new iterator (unpositioned: seek first) over the database as of the
/// options' snapshot, or now; NULL on error. Destroy it before closing.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_create_iterator(
    db: *const talus_t,
    options: *const talus_readoptions_t,
    errptr: *mut *mut c_char,
) -> *mut talus_iterator_t {
    const F: &str = "talus_create_iterator";
    guard(F, errptr, std::ptr::null_mut(), || {
        // SAFETY: header conventions: NULL or live handles.
        let (d, r) = unsafe { (self::db(db, F)?, ro(options, F)?) };
        Ok(new_handle(talus_iterator_t {
            it: d.iter(r)?,
            err: None,
        }))
    })
}

/// `talus_create_iterator` over family `column_family`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_create_iterator_cf(
    db: *const talus_t,
    options: *const talus_readoptions_t,
    column_family: *const talus_column_family_handle_t,
    errptr: *mut *mut c_char,
) -> *mut talus_iterator_t {
    const F: &str = "talus_create_iterator_cf";
    guard(F, errptr, std::ptr::null_mut(), || {
        // SAFETY: header conventions: NULL or live handles.
        let (d, r, c) = unsafe { (self::db(db, F)?, ro(options, F)?, cf(column_family, F)?) };
        Ok(new_handle(talus_iterator_t {
            it: d.iter_cf(r, c)?,
            err: None,
        }))
    })
}

/// Frees `iter` (NULL is ignored), unpinning what it read.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_iter_destroy(iter: *mut talus_iterator_t) {
    // SAFETY: header conventions: NULL or a live handle, destroyed once.
    unsafe { destroy("talus_iter_destroy", iter) }
}

/// Moves `iter` with `f` (a NULL iterator is ignored).
///
/// # Safety
/// `iter` is NULL or a live iterator used by this thread only.
unsafe fn step(iter: *mut talus_iterator_t, func: &str, f: impl FnOnce(&mut talus_iterator_t)) {
    quiet(func, (), || {
        // SAFETY: forwarded contract.
        f(unsafe { handle_mut(iter, func, "iter") }?);
        Ok(())
    })
}

/// 1 when `iter` is at an entry (0 at the end, on error, or for NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_iter_valid(iter: *const talus_iterator_t) -> u8 {
    quiet("talus_iter_valid", 0, || {
        // SAFETY: header conventions: NULL or a live iterator of this thread.
        Ok(u8::from(unsafe { handle(iter, "", "iter") }?.valid()))
    })
}

/// Moves to the first entry (within the bounds).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_iter_seek_to_first(iter: *mut talus_iterator_t) {
    // SAFETY: header conventions (see `step`).
    unsafe {
        step(iter, "talus_iter_seek_to_first", |i| {
            i.err = None;
            i.it.seek_to_first()
        })
    }
}

/// Moves to the last entry (within the bounds).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_iter_seek_to_last(iter: *mut talus_iterator_t) {
    // SAFETY: header conventions (see `step`).
    unsafe {
        step(iter, "talus_iter_seek_to_last", |i| {
            i.err = None;
            i.it.seek_to_last()
        })
    }
}

/// Moves to the first entry at or after `k`; a NULL `k` leaves the
/// iterator invalid with an error (`talus_iter_get_error`) until the next
/// seek.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_iter_seek(
    iter: *mut talus_iterator_t,
    k: *const c_char,
    klen: usize,
) {
    // SAFETY: header conventions: `k` NULL or `klen` bytes; iter (see `step`).
    unsafe { seek(iter, k, klen, "talus_iter_seek", DbIterator::seek) }
}

/// Moves to the last entry at or before `k`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_iter_seek_for_prev(
    iter: *mut talus_iterator_t,
    k: *const c_char,
    klen: usize,
) {
    // SAFETY: header conventions (see talus_iter_seek).
    unsafe {
        seek(
            iter,
            k,
            klen,
            "talus_iter_seek_for_prev",
            DbIterator::seek_for_prev,
        )
    }
}

/// A seek; a NULL target becomes the iterator's error.
///
/// # Safety
/// As `step`; `k` NULL or `klen` readable bytes.
unsafe fn seek(
    iter: *mut talus_iterator_t,
    k: *const c_char,
    klen: usize,
    func: &str,
    f: impl FnOnce(&mut DbIterator, &[u8]),
) {
    quiet(func, (), || {
        // SAFETY: forwarded contract.
        let it = unsafe { handle_mut(iter, func, "iter") }?;
        // SAFETY: forwarded contract.
        match unsafe { bytes(k, klen, func, "k") } {
            Ok(k) => {
                it.err = None;
                f(&mut it.it, k)
            }
            Err(e) => it.err = Some(e),
        }
        Ok(())
    })
}

/// Moves to the next entry.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_iter_next(iter: *mut talus_iterator_t) {
    // SAFETY: header conventions (see `step`).
    unsafe {
        step(iter, "talus_iter_next", |i| {
            if i.valid() {
                i.it.next()
            }
        })
    }
}

/// Moves to the previous entry.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_iter_prev(iter: *mut talus_iterator_t) {
    // SAFETY: header conventions (see `step`).
    unsafe {
        step(iter, "talus_iter_prev", |i| {
            if i.valid() {
                i.it.prev()
            }
        })
    }
}

/// The current key (`*klen` bytes), valid until the iterator moves or is
/// destroyed; NULL (and 0) when not valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_iter_key(
    iter: *const talus_iterator_t,
    klen: *mut usize,
) -> *const c_char {
    // SAFETY: header conventions: `klen` NULL or writable.
    unsafe { out(klen, 0) };
    quiet("talus_iter_key", std::ptr::null(), || {
        // SAFETY: header conventions: NULL or a live iterator of this thread.
        let i = unsafe { handle(iter, "", "iter") }?;
        if !i.valid() {
            return Ok(std::ptr::null());
        }
        let k = i.it.key();
        // SAFETY: as above.
        unsafe { out(klen, k.len()) };
        Ok(k.as_ptr().cast())
    })
}

/// The current value (`*vlen` bytes), valid until the iterator moves or is
/// destroyed; NULL (and 0) when not valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_iter_value(
    iter: *const talus_iterator_t,
    vlen: *mut usize,
) -> *const c_char {
    // SAFETY: header conventions: `vlen` NULL or writable.
    unsafe { out(vlen, 0) };
    quiet("talus_iter_value", std::ptr::null(), || {
        // SAFETY: header conventions: NULL or a live iterator of this thread.
        let i = unsafe { handle(iter, "", "iter") }?;
        if !i.valid() {
            return Ok(std::ptr::null());
        }
        let v = i.it.value();
        // SAFETY: as above.
        unsafe { out(vlen, v.len()) };
        Ok(v.as_ptr().cast())
    })
}

/// The iterator's error, if any (an iterator that stops early on an error
/// is not valid; check this after the loop).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_iter_get_error(
    iter: *const talus_iterator_t,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_iter_get_error";
    guard(F, errptr, (), || {
        // SAFETY: header conventions: NULL or a live iterator of this thread.
        let it = unsafe { handle(iter, F, "iter") }?;
        match &it.err {
            Some(e) => Err(e.clone()),
            None => it.it.status(),
        }
    })
}

// ---- flush, compaction, properties, maintenance ----

/// Flushes the memtables to table files (waits unless the options say not).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_flush(
    db: *const talus_t,
    options: *const talus_flushoptions_t,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_flush";
    guard(F, errptr, (), || {
        // SAFETY: header conventions: NULL or live handles.
        let (d, o) = unsafe { (self::db(db, F)?, handle(options, F, "options")?) };
        d.flush(&o.fo)
    })
}

/// Flushes family `column_family`'s memtables.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_flush_cf(
    db: *const talus_t,
    options: *const talus_flushoptions_t,
    column_family: *const talus_column_family_handle_t,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_flush_cf";
    guard(F, errptr, (), || {
        // SAFETY: header conventions: NULL or live handles.
        let (d, o, c) = unsafe {
            (
                self::db(db, F)?,
                handle(options, F, "options")?,
                cf(column_family, F)?,
            )
        };
        d.flush_cf(&o.fo, c)
    })
}

/// Writes the WAL buffer to its file, and syncs it when `sync` is non-zero.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_flush_wal(db: *const talus_t, sync: u8, errptr: *mut *mut c_char) {
    const F: &str = "talus_flush_wal";
    guard(F, errptr, (), || {
        // SAFETY: header conventions: NULL or a live handle.
        unsafe { self::db(db, F) }?.flush_wal(sync != 0)
    })
}

/// Compacts the keys in `[start_key, limit_key]` down to the last level
/// holding data; a NULL bound is unbounded on that side (the one place a
/// NULL key is not an error, as in RocksDB).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_compact_range(
    db: *const talus_t,
    start_key: *const c_char,
    start_key_len: usize,
    limit_key: *const c_char,
    limit_key_len: usize,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_compact_range";
    guard(F, errptr, (), || {
        // SAFETY: header conventions: NULL or live; bounds NULL or their length.
        let (d, s, l) = unsafe {
            (
                self::db(db, F)?,
                opt_bytes(start_key, start_key_len),
                opt_bytes(limit_key, limit_key_len),
            )
        };
        d.compact_range(s, l)
    })
}

/// `talus_compact_range` of family `column_family`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_compact_range_cf(
    db: *const talus_t,
    column_family: *const talus_column_family_handle_t,
    start_key: *const c_char,
    start_key_len: usize,
    limit_key: *const c_char,
    limit_key_len: usize,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_compact_range_cf";
    guard(F, errptr, (), || {
        // SAFETY: header conventions (see talus_compact_range).
        let (d, c, s, l) = unsafe {
            (
                self::db(db, F)?,
                cf(column_family, F)?,
                opt_bytes(start_key, start_key_len),
                opt_bytes(limit_key, limit_key_len),
            )
        };
        d.compact_range_cf(c, s, l)
    })
}

/// Waits until no flush or compaction is pending or running.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_wait_for_compactions(db: *const talus_t, errptr: *mut *mut c_char) {
    const F: &str = "talus_wait_for_compactions";
    guard(F, errptr, (), || {
        // SAFETY: header conventions: NULL or a live handle.
        unsafe { self::db(db, F) }?.wait_for_compactions()
    })
}

/// Leaves the read-only state a failed background write put the database
/// in, once its cause is gone (RocksDB `DB::Resume`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_resume(db: *const talus_t, errptr: *mut *mut c_char) {
    const F: &str = "talus_resume";
    guard(F, errptr, (), || {
        // SAFETY: header conventions: NULL or a live handle.
        unsafe { self::db(db, F) }?.resume()
    })
}

/// Reads every block of every live table and checks its checksum.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_verify_checksum(db: *const talus_t, errptr: *mut *mut c_char) {
    const F: &str = "talus_verify_checksum";
    guard(F, errptr, (), || {
        // SAFETY: header conventions: NULL or a live handle.
        unsafe { self::db(db, F) }?.verify_checksum()
    })
}

/// Property `propname` ("rocksdb.stats", "rocksdb.num-files-at-level0",
/// ...) as text, freed with `talus_free`; NULL when unknown (or NULL args).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_property_value(
    db: *const talus_t,
    propname: *const c_char,
) -> *mut c_char {
    quiet("talus_property_value", std::ptr::null_mut(), || {
        // SAFETY: header conventions: NULL or a live handle, NULL or a C string.
        let (d, n) = unsafe { (self::db(db, "")?, str_arg(propname, "", "propname")?) };
        Ok(d.property(n).map_or(std::ptr::null_mut(), |v| c_string(&v)))
    })
}

/// `talus_property_value` of family `column_family`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_property_value_cf(
    db: *const talus_t,
    column_family: *const talus_column_family_handle_t,
    propname: *const c_char,
) -> *mut c_char {
    quiet("talus_property_value_cf", std::ptr::null_mut(), || {
        // SAFETY: header conventions (see talus_property_value).
        let (d, c, n) = unsafe {
            (
                self::db(db, "")?,
                cf(column_family, "")?,
                str_arg(propname, "", "propname")?,
            )
        };
        Ok(d.property_cf(c, n)
            .map_or(std::ptr::null_mut(), |v| c_string(&v)))
    })
}

/// A numeric property into `*out_val`: 0 on success, -1 when unknown, not
/// numeric, or an argument is NULL (RocksDB `rocksdb_property_int`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_property_int(
    db: *const talus_t,
    propname: *const c_char,
    out_val: *mut u64,
) -> c_int {
    // SAFETY: header conventions (forwarded).
    unsafe { talus_property_int_cf(db, std::ptr::null(), propname, out_val) }
}

/// `talus_property_int` of family `column_family` (NULL = default).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_property_int_cf(
    db: *const talus_t,
    column_family: *const talus_column_family_handle_t,
    propname: *const c_char,
    out_val: *mut u64,
) -> c_int {
    quiet("talus_property_int_cf", -1, || {
        if out_val.is_null() {
            return Ok(-1);
        }
        // SAFETY: header conventions (see talus_property_value); `out_val`
        // writable.
        unsafe {
            let (d, n) = (self::db(db, "")?, str_arg(propname, "", "propname")?);
            let v = if column_family.is_null() {
                d.int_property(n)
            } else {
                d.int_property_cf(cf(column_family, "")?, n)
            };
            Ok(match v {
                Some(v) => {
                    out(out_val, v);
                    0
                }
                None => -1,
            })
        }
    })
}
