//! Bindings of `dev.talus.TalusIterator`: each movement is ONE JNI call that
//! also copies the new entry into a direct buffer the Java object owns, so
//! `key()`/`value()` read Java memory (RocksJava pays four crossings per
//! step: move, isValid, key, value).
//!
//! Entry layout in the buffer (part of the contract with `TalusIterator`):
//! `[key_len: i32 LE][value_len: i32 LE][key][value]`. A movement returns
//! the number of bytes written, `-1` when the iterator is not valid, or `-2`
//! when valid but the entry does not fit (Java then fetches key and value
//! with `nativeKey`/`nativeValue` and may grow the buffer).

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
    it: Mutex<DbIterator>,
    /// The Java direct buffer entries are copied into: a global reference,
    /// which keeps it from being freed while its address is here, and its
    /// address and capacity.
    buf: Mutex<(Option<GlobalRef>, usize, usize)>,
}

const NOT_VALID: jint = -1;
const TOO_BIG: jint = -2;

impl IterHandle {
    pub fn new(env: &mut JNIEnv<'_>, it: DbIterator, buffer: &JByteBuffer<'_>) -> JniResult<Self> {
        let h = IterHandle {
            it: Mutex::new(it),
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

    /// Copies the current entry into the buffer; the movement's return value.
    fn publish(&self, it: &DbIterator) -> JniResult<jint> {
        if !it.valid() {
            return Ok(NOT_VALID);
        }
        let (k, v) = (it.key(), it.value());
        let need = 8 + k.len() + v.len();
        // Held through the copy: a thread misusing the iterator concurrently
        // cannot swap the buffer (`set_buffer`) under it, and the Java side
        // keeps the old buffer reachable until its swap returns.
        let buf = self.buf.lock();
        let (_, ptr, cap) = *buf;
        if need > cap || need > jint::MAX as usize {
            return Ok(TOO_BIG);
        }
        let header = [
            (k.len() as i32).to_le_bytes(),
            (v.len() as i32).to_le_bytes(),
        ];
        let out = ptr as *mut u8;
        // Raw copies, never a `&mut [u8]` of the Java buffer: a `&mut`
        // asserts that nothing else reads or writes the bytes while it
        // lives, and Java code may be reading them (an iterator misused
        // from two threads).
        for (at, part) in [
            (0, &header[0][..]),
            (4, &header[1]),
            (8, k),
            (8 + k.len(), v),
        ] {
            // SAFETY: (ptr, cap) describe the Java direct buffer held by the
            // global reference next to them, so not freed while they are
            // here; `set_buffer` replaces all three under this lock, which is
            // held through the copies, and `at + part.len() <= need <= cap`.
            // The sources are this function's locals and the engine's
            // memory, never a Java buffer; no reference to the destination
            // exists (the buffer is private to its `TalusIterator`).
            unsafe { std::ptr::copy(part.as_ptr(), out.add(at), part.len()) };
        }
        Ok(need as jint)
    }
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

/// `op`: 0 seekToFirst, 1 seekToLast, 2 next, 3 prev.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusIterator_nativeMove<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    op: jint,
) -> jint {
    guard(&mut env, |env| {
        let h = iter(env, handle)?;
        let mut it = h.it.lock();
        match op {
            0 => it.seek_to_first(),
            1 => it.seek_to_last(),
            2 | 3 if !it.valid() => {
                return Err(JniError::IllegalState(
                    "the iterator is not positioned on an entry".into(),
                ));
            }
            2 => it.next(),
            3 => it.prev(),
            _ => {
                return Err(JniError::IllegalArgument(format!(
                    "unknown iterator move {op}"
                )));
            }
        }
        h.publish(&it)
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
            let mut it = h.it.lock();
            if for_prev != 0 {
                it.seek_for_prev(k);
            } else {
                it.seek(k);
            }
            h.publish(&it)
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
        let mut it = h.it.lock();
        // The seek keeps no reference to the target: the view ends here,
        // before `publish` writes the entry buffer.
        if for_prev != 0 {
            it.seek_for_prev(frame.read(target));
        } else {
            it.seek(frame.read(target));
        }
        h.publish(&it)
    })
}

/// Replaces the entry buffer (after Java grew it) and re-publishes the entry.
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
        let it = h.it.lock();
        h.publish(&it)
    })
}

fn entry_part(env: &mut JNIEnv<'_>, handle: jlong, value: bool) -> JniResult<jbyteArray> {
    let h = iter(env, handle)?;
    let it = h.it.lock();
    if !it.valid() {
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
    guard(&mut env, |env| Ok(iter(env, handle)?.it.lock().status()?))
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
