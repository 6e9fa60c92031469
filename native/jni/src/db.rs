//! Bindings of `dev.talus.TalusDB`: one JNI call per operation.
//!
//! Per-call options cross as plain values: write options as a flag word
//! (1 sync, 2 disableWAL, 4 noSlowdown, 8 lowPri), read options as a flag
//! word (1 verifyChecksums, 2 fillCache, 4 totalOrderSeek,
//! 8 prefixSameAsStart, 16 autoPrefixMode, 32 ignoreRangeDeletions,
//! 64 tailing, bits 8–9 the `ReadTier` byte) plus the snapshot's sequence
//! number (-1 = latest).

#![expect(
    unsafe_code,
    reason = "JNI entry points are found by their #[unsafe(no_mangle)] names"
)]

use jni::JNIEnv;
use jni::objects::{JByteArray, JByteBuffer, JClass, JIntArray, JLongArray, JObjectArray, JString};
use jni::sys::{jboolean, jbyteArray, jint, jlong, jobjectArray, jstring};

use talus::options::{ReadOptions, ReadTier, WriteOptions};
use talus::write_batch::MAX_BATCH_BYTES;
use talus::{Db, WriteBatch};

use crate::bytes::{
    DirectFrame, fill_from, new_array, read_all, read_region, try_grow, with_buffers,
};
use crate::error::{
    JniError, JniResult, decode_modified_utf8, guard, require_non_null, string_arg,
};
use crate::handle::{borrow_handle, drop_handle, into_handle};
use crate::iterator::IterHandle;
use crate::packed::{Packer, read_packed};

/// Write option flags (see the module docs).
pub fn write_options(flags: jint) -> WriteOptions {
    WriteOptions {
        sync: flags & 1 != 0,
        disable_wal: flags & 2 != 0,
        no_slowdown: flags & 4 != 0,
        low_pri: flags & 8 != 0,
    }
}

/// Read option flags and snapshot (see the module docs).
pub fn read_options(flags: jint, snapshot: jlong) -> JniResult<ReadOptions> {
    Ok(ReadOptions {
        snapshot: u64::try_from(snapshot).ok(),
        verify_checksums: flags & 1 != 0,
        fill_cache: flags & 2 != 0,
        total_order_seek: flags & 4 != 0,
        prefix_same_as_start: flags & 8 != 0,
        auto_prefix_mode: flags & 16 != 0,
        ignore_range_deletions: flags & 32 != 0,
        tailing: flags & 64 != 0,
        read_tier: ReadTier::from_u8(((flags >> 8) & 3) as u8)?,
        ..ReadOptions::default()
    })
}

/// The database behind a `TalusDB` handle, for the native call whose
/// environment is `_env` (the lifetime `'l` ends with the call).
pub(crate) fn db<'l>(_env: &JNIEnv<'l>, handle: jlong) -> JniResult<&'l Db> {
    // SAFETY: handles of TalusDB come from into_handle::<Db> in nativeOpen,
    // and every TalusDB method holds acquire() around its native call, which
    // 'l (the call's local frame) does not outlive.
    unsafe { borrow_handle::<Db>(handle) }
}

fn jlen(n: usize, what: &str) -> JniResult<jint> {
    jint::try_from(n).map_err(|_| {
        JniError::IllegalState(format!("{what} of {n} bytes does not fit a Java array"))
    })
}

/// The option string of `dev.talus.Options`, decoded line by line so that a
/// value that is not valid Unicode (a `walDir` with an unpaired surrogate)
/// is refused naming its option (see [`string_arg`]).
pub(crate) fn options_text(env: &mut JNIEnv<'_>, options: &JString<'_>) -> JniResult<String> {
    let java = env.get_string(options)?;
    let mut text = String::with_capacity(java.to_bytes().len());
    for line in java.to_bytes().split(|&b| b == b'\n') {
        let name = line.split(|&b| b == b'=').next().unwrap_or_default();
        let what = format!("option {}", String::from_utf8_lossy(name));
        text.push_str(&decode_modified_utf8(line, &what)?);
        text.push('\n');
    }
    Ok(text)
}

/// The options text of an open applied to default options, with the
/// database-wide shared objects of `shared` (rate limiter, statistics,
/// logger) set; returns the handles too, for the caller's own slots
/// (block cache 0, merge operator 4). Shared by every open.
pub(crate) fn database_options(
    env: &mut JNIEnv<'_>,
    options: &JString<'_>,
    shared: &JLongArray<'_>,
) -> JniResult<(talus::Options, [jlong; 5])> {
    let text = options_text(env, options)?;
    let mut handles = [0 as jlong; 5];
    if env.get_array_length(shared)? as usize != handles.len() {
        return Err(JniError::IllegalArgument(
            "shared handle array has the wrong length".into(),
        ));
    }
    env.get_long_array_region(shared, 0, &mut handles)?;
    let mut opts = talus::Options::default();
    crate::options::apply(&mut opts, &text)?;
    if handles[1] != 0 {
        opts.rate_limiter = Some(crate::rate_limiter::rate_limiter(env, handles[1])?.clone());
    }
    if handles[2] != 0 {
        opts.statistics = Some(crate::statistics::statistics(env, handles[2])?.clone());
    }
    if handles[3] != 0 {
        let sink: std::sync::Arc<dyn talus::logger::LogSink> =
            crate::logger::logger(env, handles[3])?.clone();
        opts.logger = Some(sink);
    }
    Ok((opts, handles))
}

/// `static native long nativeOpen(String path, String options, long[] shared)`:
/// `shared` holds the handles of the block cache, rate limiter, statistics,
/// logger and merge operator, 0 for each one not set.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeOpen<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    path: JString<'l>,
    options: JString<'l>,
    shared: JLongArray<'l>,
) -> jlong {
    guard(&mut env, |env| {
        require_non_null(&path, "path")?;
        require_non_null(&options, "options")?;
        require_non_null(&shared, "shared")?;
        let path = string_arg(env, &path, "database path")?;
        let (mut opts, handles) = database_options(env, &options, &shared)?;
        if handles[0] != 0 {
            opts.table.block_cache = Some(crate::cache::cache(env, handles[0])?.clone());
        }
        if handles[4] != 0 {
            opts.merge_operator = Some(crate::merge_operator::merge_operator(handles[4])?.clone());
        }
        let db = Db::open(opts, &path)?;
        Ok(into_handle(Box::new(db)))
    })
}

/// `static native void nativePrepareClose(long handle)`: flushes unlogged
/// writes and wakes stalled writers; errors are thrown.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativePrepareClose<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
) {
    guard(&mut env, |env| Ok(db(env, handle)?.begin_close()?))
}

/// `static native void nativeDispose(long handle)`: closes and frees.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeDispose<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
) {
    guard(&mut env, |env| {
        let r = db(env, handle)?.close();
        // SAFETY: called once, from NativeHandle.disposeInternal, with no call in flight.
        unsafe { drop_handle::<Db>(handle) };
        Ok(r?)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativePut<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    wflags: jint,
    key: JByteArray<'l>,
    koff: jint,
    klen: jint,
    value: JByteArray<'l>,
    voff: jint,
    vlen: jint,
) {
    guard(&mut env, |env| {
        require_non_null(&key, "key")?;
        require_non_null(&value, "value")?;
        let b = pair_batch(env, false, (&key, koff, klen), (&value, voff, vlen))?;
        Ok(db(env, handle)?.write(&write_options(wflags), b)?)
    })
}

/// A key or value range of a Java array: (array, offset, length).
type ArrayRange<'a, 'l> = (&'a JByteArray<'l>, jint, jint);

/// The batch of one put (or, with `merge`, one merge) of the ranges `key`
/// and `value`, copied straight into the batch.
fn pair_batch(
    env: &mut JNIEnv<'_>,
    merge: bool,
    (key, koff, klen): ArrayRange<'_, '_>,
    (value, voff, vlen): ArrayRange<'_, '_>,
) -> JniResult<WriteBatch> {
    let what = if merge { "merge" } else { "put" };
    if klen < 0 || vlen < 0 {
        return Err(JniError::IndexOutOfBounds(format!(
            "negative length: key {klen}, value {vlen}"
        )));
    }
    // Checked before the copy is allocated: a put of two 2 GiB arrays
    // would otherwise be copied only to be refused by the write path.
    let bytes = klen as usize + vlen as usize + 12;
    if bytes > MAX_BATCH_BYTES {
        return Err(JniError::IllegalArgument(format!(
            "a {what} of a {klen}-byte key and a {vlen}-byte value exceeds the write batch \
             limit of {MAX_BATCH_BYTES} bytes"
        )));
    }
    let mut b = WriteBatch::try_with_capacity(bytes).ok_or_else(|| {
        JniError::OutOfMemory(format!(
            "cannot allocate {bytes} bytes of native memory for a {what}"
        ))
    })?;
    {
        let (k, v) = if merge {
            b.merge_slots(klen as usize, vlen as usize)
        } else {
            b.put_slots(klen as usize, vlen as usize)
        };
        fill_from(env, key, "key", koff, k)?;
        fill_from(env, value, "value", voff, v)?;
    }
    Ok(b)
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativePutDirect<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    wflags: jint,
    key: JByteBuffer<'l>,
    kpos: jint,
    klen: jint,
    value: JByteBuffer<'l>,
    vpos: jint,
    vlen: jint,
) {
    guard(&mut env, |env| {
        let wo = write_options(wflags);
        direct_pair_write(
            env,
            handle,
            &wo,
            false,
            (&key, kpos, klen),
            (&value, vpos, vlen),
        )
    })
}

/// A key or value range of a direct buffer: (buffer, position, length).
type BufferRange<'a, 'l> = (&'a JByteBuffer<'l>, jint, jint);

/// A put (or, with `merge`, a merge) of two direct-buffer ranges, read in
/// place. Key and value may be overlapping views of one buffer: two shared
/// views, which the write copies into its batch.
fn direct_pair_write(
    env: &mut JNIEnv<'_>,
    handle: jlong,
    wo: &WriteOptions,
    merge: bool,
    (key, kpos, klen): BufferRange<'_, '_>,
    (value, vpos, vlen): BufferRange<'_, '_>,
) -> JniResult<()> {
    require_non_null(key, "key")?;
    require_non_null(value, "value")?;
    let db = db(env, handle)?;
    let (frame, env) = DirectFrame::new(env);
    let k = frame.region(env, key, "key", kpos, klen)?;
    let v = frame.region(env, value, "value", vpos, vlen)?;
    if merge {
        Ok(db.merge(wo, frame.read(k), frame.read(v))?)
    } else {
        Ok(db.put(wo, frame.read(k), frame.read(v))?)
    }
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeDelete<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    wflags: jint,
    key: JByteArray<'l>,
    koff: jint,
    klen: jint,
) {
    guard(&mut env, |env| {
        require_non_null(&key, "key")?;
        with_buffers(|k, _| {
            read_region(env, &key, "key", koff, klen, k)?;
            Ok(db(env, handle)?.delete(&write_options(wflags), k)?)
        })
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeDeleteDirect<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    wflags: jint,
    key: JByteBuffer<'l>,
    kpos: jint,
    klen: jint,
) {
    guard(&mut env, |env| {
        require_non_null(&key, "key")?;
        let db = db(env, handle)?;
        let (frame, env) = DirectFrame::new(env);
        let k = frame.region(env, &key, "key", kpos, klen)?;
        Ok(db.delete(&write_options(wflags), frame.read(k))?)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeDeleteRange<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    wflags: jint,
    begin: JByteArray<'l>,
    end: JByteArray<'l>,
) {
    guard(&mut env, |env| {
        require_non_null(&begin, "beginKey")?;
        require_non_null(&end, "endKey")?;
        with_buffers(|b, e| {
            read_all(env, &begin, b)?;
            read_all(env, &end, e)?;
            Ok(db(env, handle)?.delete_range(&write_options(wflags), b, e)?)
        })
    })
}

/// `static native void nativeMerge(long h, int wflags, byte[] key, int koff, int klen,
/// byte[] value, int voff, int vlen)`: as `nativePut`, for a merge operand.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeMerge<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    wflags: jint,
    key: JByteArray<'l>,
    koff: jint,
    klen: jint,
    value: JByteArray<'l>,
    voff: jint,
    vlen: jint,
) {
    guard(&mut env, |env| {
        require_non_null(&key, "key")?;
        require_non_null(&value, "value")?;
        let db = db(env, handle)?;
        db.check_merge_operator()?;
        let b = pair_batch(env, true, (&key, koff, klen), (&value, voff, vlen))?;
        Ok(db.write(&write_options(wflags), b)?)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeMergeDirect<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    wflags: jint,
    key: JByteBuffer<'l>,
    kpos: jint,
    klen: jint,
    value: JByteBuffer<'l>,
    vpos: jint,
    vlen: jint,
) {
    guard(&mut env, |env| {
        let wo = write_options(wflags);
        direct_pair_write(
            env,
            handle,
            &wo,
            true,
            (&key, kpos, klen),
            (&value, vpos, vlen),
        )
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeSingleDelete<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    wflags: jint,
    key: JByteArray<'l>,
    koff: jint,
    klen: jint,
) {
    guard(&mut env, |env| {
        require_non_null(&key, "key")?;
        with_buffers(|k, _| {
            read_region(env, &key, "key", koff, klen, k)?;
            Ok(db(env, handle)?.single_delete(&write_options(wflags), k)?)
        })
    })
}

/// `static native void nativeWrite(long handle, int wflags, byte[] batch, int len)`:
/// the batch in Talus's own encoding (see `talus::write_batch`), built in Java.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeWrite<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    wflags: jint,
    batch: JByteArray<'l>,
    len: jint,
) {
    guard(&mut env, |env| {
        require_non_null(&batch, "batch")?;
        let mut bytes = Vec::new();
        read_region(env, &batch, "batch", 0, len, &mut bytes)?;
        let b = WriteBatch::from_vec(bytes, "WriteBatch", 0)
            .map_err(|e| JniError::IllegalArgument(format!("malformed WriteBatch: {e}")))?;
        Ok(db(env, handle)?.write(&write_options(wflags), b)?)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeGet<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    rflags: jint,
    snapshot: jlong,
    key: JByteArray<'l>,
    koff: jint,
    klen: jint,
) -> jbyteArray {
    guard(&mut env, |env| {
        require_non_null(&key, "key")?;
        with_buffers(|k, v| {
            read_region(env, &key, "key", koff, klen, k)?;
            if db(env, handle)?.get_into(&read_options(rflags, snapshot)?, k, v)? {
                Ok(new_array(env, v, "value")?.into_raw())
            } else {
                Ok(std::ptr::null_mut())
            }
        })
    })
}

/// Copies the value into `value[voff..voff+vlen]`; returns its full length,
/// or -1 when absent.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeGetInto<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    rflags: jint,
    snapshot: jlong,
    key: JByteArray<'l>,
    koff: jint,
    klen: jint,
    value: JByteArray<'l>,
    voff: jint,
    vlen: jint,
) -> jint {
    guard(&mut env, |env| {
        require_non_null(&key, "key")?;
        require_non_null(&value, "value")?;
        let alen = env.get_array_length(&value)?;
        crate::error::check_bounds("value", alen, voff, vlen)?;
        with_buffers(|k, v| {
            read_region(env, &key, "key", koff, klen, k)?;
            if !db(env, handle)?.get_into(&read_options(rflags, snapshot)?, k, v)? {
                return Ok(-1);
            }
            let n = v.len().min(vlen as usize);
            env.set_byte_array_region(&value, voff, crate::bytes::as_jbytes(&v[..n]))?;
            jlen(v.len(), "value")
        })
    })
}

/// Direct-buffer get: copies what fits into `value[vpos..vpos+vcap]` and
/// returns the full length, or -1 when absent.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeGetDirect<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    rflags: jint,
    snapshot: jlong,
    key: JByteBuffer<'l>,
    kpos: jint,
    klen: jint,
    value: JByteBuffer<'l>,
    vpos: jint,
    vcap: jint,
) -> jint {
    guard(&mut env, |env| {
        require_non_null(&key, "key")?;
        require_non_null(&value, "value")?;
        let db = db(env, handle)?;
        // The key and the output may overlap (views of one buffer): the
        // value is found with the key's view alone, and copied out only
        // once that view is gone (the frame's rule 3).
        let (mut frame, env) = DirectFrame::new(env);
        let k = frame.region(env, &key, "key", kpos, klen)?;
        let out = frame.region(env, &value, "value", vpos, vcap)?;
        with_buffers(|_, v| {
            if !db.get_into(&read_options(rflags, snapshot)?, frame.read(k), v)? {
                return Ok(-1);
            }
            frame.write(out, v);
            jlen(v.len(), "value")
        })
    })
}

/// `static native byte[][] nativeMultiGet(long, int, long, byte[][] keyChunks,
/// int[] keyLengths, int[] valueLengths, int chunkLimit)`: the keys and the
/// values packed (see [`crate::packed`]); returns the value chunks and
/// fills `valueLengths` (-1: absent).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeMultiGet<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    rflags: jint,
    snapshot: jlong,
    key_chunks: JObjectArray<'l>,
    key_lengths: JIntArray<'l>,
    value_lengths: JIntArray<'l>,
    chunk_limit: jint,
) -> jobjectArray {
    guard(&mut env, |env| {
        with_buffers(|flat, values| {
            let mut ranges = Vec::new();
            read_packed(env, &key_chunks, &key_lengths, "keys", flat, &mut ranges)?;
            let mut refs: Vec<&[u8]> = Vec::new();
            try_grow(&mut refs, ranges.len(), "the key list")?;
            refs.extend(ranges.iter().map(|r| &flat[r.clone()]));
            let mut packer = Packer::new(chunk_limit, values, refs.len())?;
            // The engine hands the values in key order, from its own buffer.
            db(env, handle)?.multi_get_each(&read_options(rflags, snapshot)?, &refs, |_, v| {
                packer.push(v)
            })?;
            packer.finish(env, &value_lengths)
        })
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeNewIterator<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    rflags: jint,
    snapshot: jlong,
    lower: JByteArray<'l>,
    upper: JByteArray<'l>,
    readahead: jlong,
    buffer: JByteBuffer<'l>,
) -> jlong {
    guard(&mut env, |env| {
        let ro = iterator_read_options(env, rflags, snapshot, &lower, &upper, readahead)?;
        let it = db(env, handle)?.iter(&ro)?;
        iterator_handle(env, it, &buffer)
    })
}

/// The read options of a new iterator: `rflags` and `snapshot` as
/// [`read_options`] decodes them, its bounds (null: none) and its
/// readahead in bytes (`ReadOptions.readaheadSize`, which the Java side
/// keeps non-negative; a negative one is refused here too).
pub(crate) fn iterator_read_options(
    env: &mut JNIEnv<'_>,
    rflags: jint,
    snapshot: jlong,
    lower: &JByteArray<'_>,
    upper: &JByteArray<'_>,
    readahead: jlong,
) -> JniResult<ReadOptions> {
    let mut ro = read_options(rflags, snapshot)?;
    ro.readahead_size = u64::try_from(readahead).map_err(|_| {
        talus::Error::InvalidArgument(format!("readaheadSize must not be negative: {readahead}"))
    })?;
    if !lower.is_null() {
        let mut b = Vec::new();
        read_all(env, lower, &mut b)?;
        ro.iterate_lower_bound = Some(b);
    }
    if !upper.is_null() {
        let mut b = Vec::new();
        read_all(env, upper, &mut b)?;
        ro.iterate_upper_bound = Some(b);
    }
    Ok(ro)
}

/// The handle of a new iterator whose entries are copied into `buffer`.
pub(crate) fn iterator_handle(
    env: &mut JNIEnv<'_>,
    it: talus::db::DbIterator,
    buffer: &JByteBuffer<'_>,
) -> JniResult<jlong> {
    let h = IterHandle::new(env, it, buffer)?;
    Ok(into_handle(Box::new(h)))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeGetSnapshot<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
) -> jlong {
    guard(&mut env, |env| {
        Ok(db(env, handle)?.snapshot_sequence()? as jlong)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeReleaseSnapshot<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    seq: jlong,
) {
    guard(&mut env, |env| {
        db(env, handle)?.release_snapshot_sequence(seq as u64);
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeLatestSequenceNumber<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
) -> jlong {
    guard(&mut env, |env| {
        Ok(db(env, handle)?.latest_sequence_number() as jlong)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeFlush<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    wait: jboolean,
    allow_write_stall: jboolean,
) {
    guard(&mut env, |env| {
        let fo = talus::db::FlushOptions {
            wait: wait != 0,
            allow_write_stall: allow_write_stall != 0,
        };
        Ok(db(env, handle)?.flush(&fo)?)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeFlushWal<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    sync: jboolean,
) {
    guard(&mut env, |env| Ok(db(env, handle)?.flush_wal(sync != 0)?))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeCompactRange<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    begin: JByteArray<'l>,
    end: JByteArray<'l>,
    flags: jint,
    target_level: jint,
    bottommost: jint,
    max_subcompactions: jint,
) {
    guard(&mut env, |env| {
        let mut b = Vec::new();
        let mut e = Vec::new();
        if !begin.is_null() {
            read_all(env, &begin, &mut b)?;
        }
        if !end.is_null() {
            read_all(env, &end, &mut e)?;
        }
        let cro = compact_range_options(flags, target_level, bottommost, max_subcompactions)?;
        Ok(db(env, handle)?.compact_range_opt(
            &cro,
            (!begin.is_null()).then_some(b.as_slice()),
            (!end.is_null()).then_some(e.as_slice()),
        )?)
    })
}

/// `dev.talus.CompactRangeOptions` as it crosses: `flags` bit 0
/// `exclusiveManualCompaction`, bit 1 `changeLevel`, bit 2
/// `allowWriteStall`; the enum as its RocksJava byte; `maxSubcompactions`
/// a C++ unsigned int (a negative Java int wraps, as in RocksJava).
pub(crate) fn compact_range_options(
    flags: jint,
    target_level: jint,
    bottommost: jint,
    max_subcompactions: jint,
) -> JniResult<talus::db::CompactRangeOptions> {
    let bottommost_level_compaction = u8::try_from(bottommost)
        .ok()
        .and_then(talus::db::BottommostLevelCompaction::from_u8)
        .ok_or_else(|| {
            JniError::Engine(talus::Error::InvalidArgument(format!(
                "bottommostLevelCompaction: {bottommost} is not a BottommostLevelCompaction byte"
            )))
        })?;
    Ok(talus::db::CompactRangeOptions {
        exclusive_manual_compaction: flags & 1 != 0,
        change_level: flags & 2 != 0,
        allow_write_stall: flags & 4 != 0,
        target_level,
        bottommost_level_compaction,
        max_subcompactions: max_subcompactions as u32,
    })
}

/// `kind`: 0 pause, 1 continue, 2 wait for compactions, 3 verify checksums,
/// 4 resume.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeBackground<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    kind: jint,
) {
    guard(&mut env, |env| {
        let d = db(env, handle)?;
        match kind {
            0 => d.pause_background_work()?,
            1 => d.continue_background_work()?,
            2 => d.wait_for_compactions()?,
            3 => d.verify_checksum()?,
            4 => d.resume()?,
            _ => {
                return Err(JniError::IllegalArgument(format!(
                    "unknown background call {kind}"
                )));
            }
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeSetDisableAutoCompactions<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    disable: jboolean,
) {
    guard(&mut env, |env| {
        Ok(db(env, handle)?.set_disable_auto_compactions(disable != 0)?)
    })
}

/// RocksJava throws `NotFound` for a property the database does not have
/// (and, from `getLongProperty`, for one that is not numeric): callers
/// match on that status. Talus's message names the property.
pub(crate) fn unknown_property(name: &str) -> JniError {
    JniError::Engine(talus::Error::NotFound(format!("unknown property {name}")))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeGetProperty<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    name: JString<'l>,
) -> jstring {
    guard(&mut env, |env| {
        require_non_null(&name, "property")?;
        let name = string_arg(env, &name, "property name")?;
        let v = db(env, handle)?
            .property(&name)
            .ok_or_else(|| unknown_property(&name))?;
        Ok(env.new_string(v)?.into_raw())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeGetLongProperty<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    name: JString<'l>,
) -> jlong {
    guard(&mut env, |env| {
        require_non_null(&name, "property")?;
        let name = string_arg(env, &name, "property name")?;
        let d = db(env, handle)?;
        match d.int_property(&name) {
            Some(v) => Ok(v as jlong),
            None if d.property(&name).is_some() => Err(JniError::Engine(talus::Error::NotFound(
                format!("property {name} is not numeric"),
            ))),
            None => Err(unknown_property(&name)),
        }
    })
}

/// Key-may-exist states crossing to Java: 0 absent, 1 may exist (finding
/// out needs IO), 2 found (the value was read from memory).
///
/// RocksJava's `keyMayExist` throws nothing; an engine error other than
/// "needs IO" is answered with 1 (may exist, no value), so that it never
/// says false for a key that exists (RocksDB answers false).
fn key_may_exist_state(d: &Db, ro: &ReadOptions, key: &[u8], value: &mut Vec<u8>) -> jint {
    match d.key_may_exist(ro, key, value) {
        Ok(talus::db::KeyMayExist::Absent) => 0,
        Ok(talus::db::KeyMayExist::MayExist) | Err(_) => 1,
        Ok(talus::db::KeyMayExist::Found) => 2,
    }
}

/// `static native int nativeKeyMayExist(long h, int flags, long snapshot,
/// byte[] key, int koff, int klen)`: the state only.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeKeyMayExist<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    rflags: jint,
    snapshot: jlong,
    key: JByteArray<'l>,
    koff: jint,
    klen: jint,
) -> jint {
    guard(&mut env, |env| {
        require_non_null(&key, "key")?;
        let ro = read_options(rflags, snapshot)?;
        with_buffers(|k, v| {
            read_region(env, &key, "key", koff, klen, k)?;
            Ok(key_may_exist_state(db(env, handle)?, &ro, k, v))
        })
    })
}

/// `static native byte[][] nativeKeyMayExistValue(long h, int flags, long
/// snapshot, byte[] key, int koff, int klen)`: `{{state}, value or null}`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeKeyMayExistValue<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    rflags: jint,
    snapshot: jlong,
    key: JByteArray<'l>,
    koff: jint,
    klen: jint,
) -> jobjectArray {
    guard(&mut env, |env| {
        require_non_null(&key, "key")?;
        let ro = read_options(rflags, snapshot)?;
        with_buffers(|k, v| {
            read_region(env, &key, "key", koff, klen, k)?;
            let state = key_may_exist_state(db(env, handle)?, &ro, k, v);
            let out = env.new_object_array(2, "[B", jni::objects::JObject::null())?;
            let s = env.byte_array_from_slice(&[state as u8])?;
            env.set_object_array_element(&out, 0, &s)?;
            if state == 2 {
                let value = env.byte_array_from_slice(v)?;
                env.set_object_array_element(&out, 1, &value)?;
            }
            Ok(out.into_raw())
        })
    })
}

/// `static native long nativeKeyMayExistDirect(long h, int flags, long
/// snapshot, ByteBuffer key, int kpos, int klen, ByteBuffer value, int vpos,
/// int vcap)`: `state << 32 | value length`; with a value buffer (may be
/// null) a found value is copied into it, as much as fits.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeKeyMayExistDirect<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    rflags: jint,
    snapshot: jlong,
    key: JByteBuffer<'l>,
    kpos: jint,
    klen: jint,
    value: JByteBuffer<'l>,
    vpos: jint,
    vcap: jint,
) -> jlong {
    guard(&mut env, |env| {
        require_non_null(&key, "key")?;
        let ro = read_options(rflags, snapshot)?;
        let db = db(env, handle)?;
        // The key and the output may overlap (views of one buffer): the
        // lookup reads the key's view, and the value is copied out only
        // once that view is no longer used.
        let (mut frame, env) = DirectFrame::new(env);
        let k = frame.region(env, &key, "key", kpos, klen)?;
        let out = if value.is_null() {
            None
        } else {
            Some(frame.region(env, &value, "value", vpos, vcap)?)
        };
        with_buffers(|_, v| {
            let state = key_may_exist_state(db, &ro, frame.read(k), v);
            let len = if state == 2 {
                if let Some(out) = out {
                    frame.write(out, v);
                }
                jlen(v.len(), "value")?
            } else {
                0
            };
            Ok((jlong::from(state) << 32) | jlong::from(len as u32))
        })
    })
}

/// `static native boolean nativeKeyExists(long h, int flags, long snapshot,
/// byte[] key, int koff, int klen)`: exact; engine errors are thrown.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeKeyExists<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    rflags: jint,
    snapshot: jlong,
    key: JByteArray<'l>,
    koff: jint,
    klen: jint,
) -> jboolean {
    guard(&mut env, |env| {
        require_non_null(&key, "key")?;
        let ro = read_options(rflags, snapshot)?;
        with_buffers(|k, _| {
            read_region(env, &key, "key", koff, klen, k)?;
            Ok(jboolean::from(db(env, handle)?.key_exists(&ro, k)?))
        })
    })
}

/// `static native boolean nativeKeyExistsDirect(long h, int flags, long
/// snapshot, ByteBuffer key, int kpos, int klen)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeKeyExistsDirect<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    rflags: jint,
    snapshot: jlong,
    key: JByteBuffer<'l>,
    kpos: jint,
    klen: jint,
) -> jboolean {
    guard(&mut env, |env| {
        require_non_null(&key, "key")?;
        let ro = read_options(rflags, snapshot)?;
        let db = db(env, handle)?;
        let (frame, env) = DirectFrame::new(env);
        let k = frame.region(env, &key, "key", kpos, klen)?;
        Ok(jboolean::from(db.key_exists(&ro, frame.read(k))?))
    })
}

/// `static native void nativeDestroyDB(String path, String options)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeDestroyDB<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    path: JString<'l>,
    options: JString<'l>,
) {
    guard(&mut env, |env| {
        require_non_null(&path, "path")?;
        require_non_null(&options, "options")?;
        let path = string_arg(env, &path, "database path")?;
        let text = options_text(env, &options)?;
        let mut opts = talus::Options::default();
        crate::options::apply(&mut opts, &text)?;
        Ok(talus::destroy_db(&path, &opts)?)
    })
}
