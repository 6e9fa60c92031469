//! Bindings of `dev.talus.TalusIterator`: a movement is ONE JNI call that
//! also copies the new entry into a direct buffer the Java object owns, so
//! `key()`/`value()` read Java memory (RocksJava pays four crossings per
//! step: move, isValid, key, value). A `next` or `prev` may copy a *batch*:
//! the entry moved to and up to `batch - 1` more in the same direction, so
//! that a scan crosses once per batch, not once per entry; the Java side
//! then walks the batch without crossing.
//!
//! Buffer layout (part of the contract with `TalusIterator`): the batch's
//! entries back to back from offset 0, each
//! `[key_len: i32 LE][value_len: i32 LE][key][value]`, in the order of the
//! movement (a `prev` batch holds descending keys). A movement returns the
//! number of entries written (at least 1), `-1` when the iterator is not
//! valid, or `-2` when valid but the first entry does not fit (Java then
//! fetches key and value with `nativeKey`/`nativeValue` and may grow the
//! buffer). Only the first entry of a batch is ever too big: a later one
//! that does not fit ends the batch.
//!
//! Where the engine iterator is (invariant of `Cursor`): after a batch of
//! direction `dir`, it is on the batch's last entry, or, when `pending`, on
//! the entry after it in direction `dir` (the one that did not fit), or
//! past the end or failed (not valid). Java passes `lag`, how many entries
//! of the batch lie after its current one; a move computes from that where
//! the engine iterator is relative to Java's entry and steps there, so the
//! entries Java sees are exactly those a one-entry-per-call iterator shows
//! (pinned by the Java test `TalusIteratorTest`'s random walks, which turn
//! around inside batches).

#![expect(
    unsafe_code,
    reason = "JNI entry points are found by their #[unsafe(no_mangle)] names; \
              the iterator writes into a Java direct buffer"
)]

use jni::JNIEnv;
use jni::objects::{GlobalRef, JByteArray, JByteBuffer, JClass};
use jni::sys::{jbyteArray, jint, jlong};
use parking_lot::Mutex;

use talus::db::DbIterator;

use crate::bytes::{DirectFrame, read_region, with_buffers};
use crate::error::{JniError, JniResult, guard, require_non_null};
use crate::handle::{borrow_handle, drop_handle};

/// The native side of a `TalusIterator`.
pub struct IterHandle {
    it: Mutex<Cursor>,
    /// The Java direct buffer entries are copied into: a global reference,
    /// which keeps it from being freed while its address is here, and its
    /// address and capacity.
    buf: Mutex<(Option<GlobalRef>, usize, usize)>,
}

/// The engine iterator and where it stands relative to the batch last
/// copied to Java (module docs).
struct Cursor {
    it: DbIterator,
    /// Direction of the last batch: 1 forward, -1 backward; 0 after a seek
    /// or a buffer swap (the engine iterator is on Java's entry).
    dir: i8,
    /// The engine iterator is one entry beyond the batch's last (module docs).
    pending: bool,
    /// Key of the batch's last entry when `pending` and the engine
    /// iterator is not valid (a step ran past the end, or failed): such an
    /// iterator cannot step back, so a turn seeks to this key, which exists
    /// in the iterator's view. Stale otherwise, and then never read.
    last_key: Vec<u8>,
}

const NOT_VALID: jint = -1;
const TOO_BIG: jint = -2;

/// The most entries a batch may hold (and so the largest `lag`).
const MAX_BATCH: jint = 4096;

/// Movements of `nativeMove`.
const SEEK_TO_FIRST: jint = 0;
const SEEK_TO_LAST: jint = 1;
const NEXT: jint = 2;
const PREV: jint = 3;

impl Cursor {
    fn step(&mut self, dir: i8) {
        if dir > 0 {
            self.it.next();
        } else {
            self.it.prev();
        }
    }

    /// After a seek: the engine iterator is on the entry Java shows.
    fn at_entry(&mut self) {
        self.dir = 0;
        self.pending = false;
    }

    /// Moves the engine iterator to the entry one step in direction `dir`
    /// from the entry Java shows, which lies `lag` entries of the last batch
    /// behind the batch's last entry. Errors: Java's entry not valid, or a
    /// `lag` the batch does not have (misuse from several threads).
    fn move_from_java_entry(&mut self, dir: i8, lag: jint) -> JniResult<()> {
        if self.dir == 0 {
            if !self.it.valid() {
                return Err(JniError::IllegalState(
                    "the iterator is not positioned on an entry".into(),
                ));
            }
            self.step(dir);
            return Ok(());
        }
        if !(0..MAX_BATCH).contains(&lag) {
            return Err(JniError::IllegalArgument(format!(
                "iterator batch lag {lag} out of range (one iterator used from several threads?)"
            )));
        }
        // Positions counted along the last batch's direction, Java's entry
        // at 0: the engine iterator is at `lag + pending`, the target at +1
        // (same direction) or -1 (a turn).
        let mut at = i64::from(lag) + i64::from(self.pending);
        let target: i64 = if dir == self.dir { 1 } else { -1 };
        if at != target && self.pending && !self.it.valid() {
            // Past the end or failed: back onto the batch's last entry.
            let key = std::mem::take(&mut self.last_key);
            self.it.seek(&key);
            self.last_key = key;
            at = i64::from(lag);
        }
        let along = self.dir;
        while at < target && self.it.valid() {
            self.step(along);
            at += 1;
        }
        while at > target && self.it.valid() {
            self.step(-along);
            at -= 1;
        }
        Ok(())
    }
}

impl IterHandle {
    pub fn new(env: &mut JNIEnv<'_>, it: DbIterator, buffer: &JByteBuffer<'_>) -> JniResult<Self> {
        let h = IterHandle {
            it: Mutex::new(Cursor {
                it,
                dir: 0,
                pending: false,
                last_key: Vec::new(),
            }),
            buf: Mutex::new((None, 0, 0)),
        };
        h.set_buffer(env, buffer)?;
        Ok(h)
    }

    fn set_buffer(&self, env: &mut JNIEnv<'_>, buffer: &JByteBuffer<'_>) -> JniResult<()> {
        require_non_null(buffer, "buffer")?;
        let ptr = env.get_direct_buffer_address(buffer)? as usize;
        let cap = env.get_direct_buffer_capacity(buffer)?;
        // Held here rather than trusted to the Java object: two threads
        // misusing one iterator could otherwise leave this address naming a
        // buffer that the Java side no longer references, which the garbage
        // collector then frees under the next copy.
        let pin = env.new_global_ref(buffer)?;
        let old = std::mem::replace(&mut *self.buf.lock(), (Some(pin), ptr, cap));
        drop(old); // the previous buffer's reference, deleted outside the lock
        Ok(())
    }

    /// Copies the current entry, and when `batch > 1` up to `batch - 1`
    /// more in direction `dir`, into the buffer; the movement's return
    /// value (module docs). Leaves `c` as the module docs say.
    fn publish(&self, c: &mut Cursor, dir: i8, batch: jint) -> JniResult<jint> {
        c.pending = false;
        if !c.it.valid() {
            return Ok(NOT_VALID);
        }
        // Held through the copies: a thread misusing the iterator
        // concurrently cannot swap the buffer (`set_buffer`) under it, and
        // the Java side keeps the old buffer reachable until its swap
        // returns.
        let buf = self.buf.lock();
        let (_, ptr, cap) = *buf;
        let cap = cap.min(jint::MAX as usize);
        let mut used = match copy_entry(ptr, cap, 0, c.it.key(), c.it.value()) {
            Some(end) => end,
            None => return Ok(TOO_BIG),
        };
        // Where the last entry copied starts: its key is `last_key` when a
        // step runs off the end, copied back from the buffer then rather
        // than saved before every step (a copy per entry, for the one case).
        let mut last_at = 0;
        let mut n: jint = 1;
        while n < batch {
            c.step(dir);
            c.pending = true;
            if !c.it.valid() {
                save_last_key(&mut c.last_key, ptr, last_at);
                break;
            }
            match copy_entry(ptr, cap, used, c.it.key(), c.it.value()) {
                Some(end) => {
                    last_at = used;
                    used = end;
                }
                None => break,
            }
            c.pending = false;
            n += 1;
        }
        Ok(n)
    }
}

/// Sets `last_key` to the key of the entry [`copy_entry`] wrote at `at` in
/// the buffer at `ptr`, during the same locked [`IterHandle::publish`].
fn save_last_key(last_key: &mut Vec<u8>, ptr: usize, at: usize) {
    let base = ptr as *const u8;
    let mut len = [0u8; 4];
    // SAFETY: as in `copy_entry`: the buffer is alive and its address
    // current under the lock the caller holds, and `copy_entry` wrote a
    // whole entry at `at` in this call, inside the capacity. Java only
    // reads the buffer (`TalusIterator`), so these are the bytes written.
    unsafe { std::ptr::copy(base.add(at), len.as_mut_ptr(), 4) };
    let klen = i32::from_le_bytes(len) as usize;
    last_key.clear();
    last_key.reserve(klen);
    // SAFETY: as above; the key's `klen` bytes follow the 8-byte header,
    // and `last_key` has room for them (reserved), written before the
    // length is set.
    unsafe {
        std::ptr::copy(base.add(at + 8), last_key.as_mut_ptr(), klen);
        last_key.set_len(klen);
    }
}

/// Copies one entry (header, key, value) into the buffer `(ptr, cap)` at
/// `at`; its end, or `None` when it does not fit.
fn copy_entry(ptr: usize, cap: usize, at: usize, k: &[u8], v: &[u8]) -> Option<usize> {
    let end = at
        .checked_add(8)?
        .checked_add(k.len())?
        .checked_add(v.len())?;
    if end > cap {
        return None;
    }
    let header = [
        (k.len() as i32).to_le_bytes(),
        (v.len() as i32).to_le_bytes(),
    ];
    let out = ptr as *mut u8;
    // Raw copies, never a `&mut [u8]` of the Java buffer: a `&mut` asserts
    // that nothing else reads or writes the bytes while it lives, and Java
    // code may be reading them (an iterator misused from two threads).
    for (off, part) in [
        (at, &header[0][..]),
        (at + 4, &header[1]),
        (at + 8, k),
        (at + 8 + k.len(), v),
    ] {
        // SAFETY: (ptr, cap) describe the Java direct buffer held by the
        // global reference next to them, so not freed while they are here;
        // the caller holds the lock `set_buffer` replaces all three under,
        // through the copies, and `off + part.len() <= end <= cap`. The
        // sources are locals and the engine's memory, never a Java buffer;
        // no reference to the destination exists (the buffer is private to
        // its `TalusIterator`).
        unsafe { std::ptr::copy(part.as_ptr(), out.add(off), part.len()) };
    }
    Some(end)
}

/// The iterator behind a `TalusIterator` handle, for the native call whose
/// environment is `_env` (the lifetime `'l` ends with the call).
fn iter<'l>(_env: &JNIEnv<'l>, handle: jlong) -> JniResult<&'l IterHandle> {
    // SAFETY: TalusIterator handles come from into_handle::<IterHandle> in
    // TalusDB.nativeNewIterator; every TalusIterator method holds acquire()
    // for its native call, which 'l (the call's local frame) does not
    // outlive.
    unsafe { borrow_handle::<IterHandle>(handle) }
}

/// `op`: 0 seekToFirst, 1 seekToLast, 2 next, 3 prev. For next and prev,
/// `lag` is how many entries of the last batch follow the one Java shows
/// (0 after a seek) and `batch` the most entries to copy (module docs);
/// seeks copy one entry.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusIterator_nativeMove<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    op: jint,
    lag: jint,
    batch: jint,
) -> jint {
    guard(&mut env, |env| {
        let h = iter(env, handle)?;
        let mut c = h.it.lock();
        let dir = match op {
            SEEK_TO_FIRST => {
                c.it.seek_to_first();
                c.at_entry();
                return h.publish(&mut c, 1, 1);
            }
            SEEK_TO_LAST => {
                c.it.seek_to_last();
                c.at_entry();
                return h.publish(&mut c, -1, 1);
            }
            NEXT => 1,
            PREV => -1,
            _ => {
                return Err(JniError::IllegalArgument(format!(
                    "unknown iterator move {op}"
                )));
            }
        };
        if !(1..=MAX_BATCH).contains(&batch) {
            return Err(JniError::IllegalArgument(format!(
                "iterator batch {batch} out of range 1..={MAX_BATCH}"
            )));
        }
        c.move_from_java_entry(dir, lag)?;
        c.dir = dir;
        h.publish(&mut c, dir, batch)
    })
}

/// Seek (`for_prev` false) or seekForPrev (true) to `key[off..off+len]`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusIterator_nativeSeek<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    for_prev: jni::sys::jboolean,
    key: JByteArray<'l>,
    off: jint,
    len: jint,
) -> jint {
    guard(&mut env, |env| {
        require_non_null(&key, "target")?;
        let h = iter(env, handle)?;
        with_buffers(|k, _| {
            read_region(env, &key, "target", off, len, k)?;
            let mut c = h.it.lock();
            if for_prev != 0 {
                c.it.seek_for_prev(k);
            } else {
                c.it.seek(k);
            }
            c.at_entry();
            h.publish(&mut c, 1, 1)
        })
    })
}

/// Seek to a key held in a direct buffer.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusIterator_nativeSeekDirect<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    for_prev: jni::sys::jboolean,
    key: JByteBuffer<'l>,
    pos: jint,
    len: jint,
) -> jint {
    guard(&mut env, |env| {
        require_non_null(&key, "target")?;
        let h = iter(env, handle)?;
        let (frame, env) = DirectFrame::new(env);
        let target = frame.region(env, &key, "target", pos, len)?;
        let mut c = h.it.lock();
        // The seek keeps no reference to the target: the view ends here,
        // before `publish` writes the entry buffer.
        if for_prev != 0 {
            c.it.seek_for_prev(frame.read(target));
        } else {
            c.it.seek(frame.read(target));
        }
        c.at_entry();
        h.publish(&mut c, 1, 1)
    })
}

/// Replaces the entry buffer (after Java grew it for a first entry too big
/// for the old one, so the engine iterator is on that entry) and copies
/// that entry alone.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusIterator_nativeSetBuffer<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    buffer: JByteBuffer<'l>,
) -> jint {
    guard(&mut env, |env| {
        let h = iter(env, handle)?;
        h.set_buffer(env, &buffer)?;
        let mut c = h.it.lock();
        if c.pending {
            return Err(JniError::IllegalState(
                "the iterator's entry is not the one its buffer was grown for \
                 (one iterator used from several threads?)"
                    .into(),
            ));
        }
        c.at_entry();
        h.publish(&mut c, 1, 1)
    })
}

fn entry_part(env: &mut JNIEnv<'_>, handle: jlong, value: bool) -> JniResult<jbyteArray> {
    let h = iter(env, handle)?;
    let c = h.it.lock();
    let it = &c.it;
    // Java asks only for the first entry of a batch that did not fit, on
    // which the engine iterator stays (module docs).
    if c.pending || !it.valid() {
        return Err(JniError::IllegalState(
            "the iterator is not positioned on an entry".into(),
        ));
    }
    let bytes = if value { it.value() } else { it.key() };
    Ok(env.byte_array_from_slice(bytes)?.into_raw())
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusIterator_nativeKey<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
) -> jbyteArray {
    guard(&mut env, |env| entry_part(env, handle, false))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusIterator_nativeValue<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
) -> jbyteArray {
    guard(&mut env, |env| entry_part(env, handle, true))
}

/// Throws the iterator's error, if any.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusIterator_nativeStatus<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
) {
    guard(&mut env, |env| {
        Ok(iter(env, handle)?.it.lock().it.status()?)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusIterator_nativeDispose<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
) {
    guard(&mut env, |_| {
        // SAFETY: called once, from NativeHandle.disposeInternal, with no call in flight.
        unsafe { drop_handle::<IterHandle>(handle) };
        Ok(())
    })
}
