//! Bindings of `dev.talus.SstFileWriter` and of ingestion
//! (`dev.talus.ExternalFileIngestion`, called by
//! `TalusDB.ingestExternalFile`): files written outside a database and
//! ingested into one (engine modules `sst_file_writer` and `db::ingest`).
//!
//! A writer crosses as a handle to a `Mutex<SstFileWriter>` (the Java
//! object may be used from any thread, one call at a time). Ingestion
//! options cross as a flag word: 1 moveFiles, 2 snapshotConsistency,
//! 4 allowGlobalSeqNo, 8 allowBlockingFlush, 16 ingestBehind,
//! 32 failIfNotBottommostLevel.
#![expect(
    unsafe_code,
    reason = "JNI entry points are found by their #[unsafe(no_mangle)] names"
)]

use jni::JNIEnv;
use jni::objects::{JByteArray, JClass, JObject, JObjectArray, JString};
use jni::sys::{jint, jlong, jobjectArray};
use parking_lot::Mutex;
use talus::{IngestExternalFileOptions, SstFileWriter};

use crate::bytes::read_all;
use crate::db::db;
use crate::error::{JniError, JniResult, guard, require_non_null, string_arg};
use crate::handle::{borrow_handle, drop_handle, into_handle};

type Writer = Mutex<SstFileWriter>;

fn writer<'l>(_env: &JNIEnv<'l>, handle: jlong) -> JniResult<&'l Writer> {
    // SAFETY: handles of SstFileWriter come from into_handle::<Writer> in
    // nativeNew, and every SstFileWriter method holds acquire() around its
    // native call, which 'l (the call's local frame) does not outlive.
    unsafe { borrow_handle::<Writer>(handle) }
}

fn bytes(env: &mut JNIEnv<'_>, a: &JByteArray<'_>, what: &'static str) -> JniResult<Vec<u8>> {
    require_non_null(a, what)?;
    let mut b = Vec::new();
    read_all(env, a, &mut b)?;
    Ok(b)
}

/// `static native long nativeNew(String options)`: a writer with the
/// table options of the option text (`Options.toNativeString`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_SstFileWriter_nativeNew<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    options: JString<'l>,
) -> jlong {
    guard(&mut env, |env| {
        require_non_null(&options, "options")?;
        let text = string_arg(env, &options, "options")?;
        let mut opts = talus::Options::default();
        crate::options::apply(&mut opts, &text)?;
        Ok(into_handle(Box::new(Mutex::new(SstFileWriter::new(&opts)))))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_SstFileWriter_nativeOpen<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    path: JString<'l>,
) {
    guard(&mut env, |env| {
        require_non_null(&path, "filePath")?;
        let path = string_arg(env, &path, "file path")?;
        Ok(writer(env, handle)?.lock().open(path)?)
    })
}

/// `op`: 0 put, 1 merge, 2 delete (`value` unused), 3 deleteRange
/// (`key`..`value`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_SstFileWriter_nativeAdd<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    op: jint,
    key: JByteArray<'l>,
    value: JByteArray<'l>,
) {
    guard(&mut env, |env| {
        let k = bytes(env, &key, "key")?;
        let v = if op == 2 {
            Vec::new()
        } else {
            bytes(env, &value, "value")?
        };
        let mut w = writer(env, handle)?.lock();
        match op {
            0 => w.put(&k, &v)?,
            1 => w.merge(&k, &v)?,
            2 => w.delete(&k)?,
            3 => w.delete_range(&k, &v)?,
            _ => return Err(JniError::IllegalArgument(format!("unknown operation {op}"))),
        }
        Ok(())
    })
}

/// `static native Object[] nativeFinish(long handle)`: `{String filePath,
/// byte[] smallestKey, byte[] largestKey, long[] {sequenceNumber,
/// fileSize, numEntries, numRangeDelEntries, version}}`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_SstFileWriter_nativeFinish<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
) -> jobjectArray {
    guard(&mut env, |env| {
        let info = writer(env, handle)?.lock().finish()?;
        let out = env.new_object_array(4, "java/lang/Object", JObject::null())?;
        let path = env.new_string(info.file_path.display().to_string())?;
        env.set_object_array_element(&out, 0, path)?;
        let s = env.byte_array_from_slice(&info.smallest_key)?;
        env.set_object_array_element(&out, 1, s)?;
        let l = env.byte_array_from_slice(&info.largest_key)?;
        env.set_object_array_element(&out, 2, l)?;
        let nums = [
            info.sequence_number as i64,
            info.file_size as i64,
            info.num_entries as i64,
            info.num_range_del_entries as i64,
            i64::from(info.version),
        ];
        let arr = env.new_long_array(nums.len() as i32)?;
        env.set_long_array_region(&arr, 0, &nums)?;
        env.set_object_array_element(&out, 3, arr)?;
        Ok(out.into_raw())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_SstFileWriter_nativeFileSize<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
) -> jlong {
    guard(&mut env, |env| {
        Ok(writer(env, handle)?.lock().file_size() as jlong)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_SstFileWriter_nativeDispose<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
) {
    guard(&mut env, |_| {
        // SAFETY: called once, from NativeHandle.disposeInternal, with no call in flight.
        unsafe { drop_handle::<Writer>(handle) };
        Ok(())
    })
}

/// `static native void nativeIngest(long db, int cf, String[] paths, int
/// flags)`: `cf` is the family id (0 the default family).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_ExternalFileIngestion_nativeIngest<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    cf: jint,
    paths: JObjectArray<'l>,
    flags: jint,
) {
    guard(&mut env, |env| {
        require_non_null(&paths, "filePathList")?;
        let n = env.get_array_length(&paths)?;
        let mut list = Vec::with_capacity(n as usize);
        for i in 0..n {
            let p = JString::from(env.get_object_array_element(&paths, i)?);
            require_non_null(&p, "file path")?;
            list.push(std::path::PathBuf::from(string_arg(env, &p, "file path")?));
        }
        let io = IngestExternalFileOptions {
            move_files: flags & 1 != 0,
            snapshot_consistency: flags & 2 != 0,
            allow_global_seqno: flags & 4 != 0,
            allow_blocking_flush: flags & 8 != 0,
            ingest_behind: flags & 16 != 0,
            fail_if_not_bottommost_level: flags & 32 != 0,
        };
        let d = db(env, handle)?;
        if cf == 0 {
            Ok(d.ingest_external_file(&list, &io)?)
        } else {
            let id = u32::try_from(cf).map_err(|_| {
                JniError::IllegalArgument(format!("column family id {cf} is negative"))
            })?;
            let h = d.column_family(id)?;
            Ok(d.ingest_external_file_cf(&h, &list, &io)?)
        }
    })
}
