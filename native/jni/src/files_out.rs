//! Bindings of files out on `dev.talus.TalusDB` and `dev.talus.Checkpoint`:
//! checkpoints, live files, the WAL list, file-deletion holds, read-only
//! and secondary opens, catching up with the primary.

#![expect(
    unsafe_code,
    reason = "JNI entry points are found by their #[unsafe(no_mangle)] names"
)]

use jni::JNIEnv;
use jni::objects::{JClass, JIntArray, JLongArray, JObject, JObjectArray, JString};
use jni::sys::{jboolean, jint, jlong, jobjectArray};

use talus::Db;

use crate::db::db;
use crate::error::{JniError, JniResult, guard, require_non_null, string_arg};
use crate::family::{OpenArgs, finish_open, open_args};

/// `Object[] { a, b }` for two arrays returned together.
pub(crate) fn pair<'l>(
    env: &mut JNIEnv<'l>,
    a: JObject<'l>,
    b: JObject<'l>,
) -> JniResult<jobjectArray> {
    let out = env.new_object_array(2, "java/lang/Object", JObject::null())?;
    env.set_object_array_element(&out, 0, &a)?;
    env.set_object_array_element(&out, 1, &b)?;
    Ok(out.into_raw())
}

/// `String[]` of `items`.
pub(crate) fn strings<'l>(env: &mut JNIEnv<'l>, items: &[String]) -> JniResult<JObjectArray<'l>> {
    let out = env.new_object_array(items.len() as jint, "java/lang/String", JObject::null())?;
    for (i, s) in items.iter().enumerate() {
        let j = env.new_string(s)?;
        env.set_object_array_element(&out, i as jint, &j)?;
        env.delete_local_ref(j)?;
    }
    Ok(out)
}

/// `static native void nativeCreateCheckpoint(long db, String dir)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_Checkpoint_nativeCreateCheckpoint<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    dir: JString<'l>,
) {
    guard(&mut env, |env| {
        require_non_null(&dir, "checkpointPath")?;
        let dir = string_arg(env, &dir, "checkpoint path")?;
        Ok(db(env, handle)?.create_checkpoint(&dir)?)
    })
}

/// `static native Object[] nativeGetLiveFiles(long h, boolean flush)`:
/// `{ long[] { manifestFileSize }, String[] files }`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeGetLiveFiles<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    flush: jboolean,
) -> jobjectArray {
    guard(&mut env, |env| {
        let live = db(env, handle)?.live_files(flush != 0)?;
        let size = env.new_long_array(1)?;
        env.set_long_array_region(&size, 0, &[live.manifest_file_size as jlong])?;
        let files = strings(env, &live.files)?;
        pair(env, size.into(), files.into())
    })
}

/// `static native Object[] nativeGetSortedWalFiles(long h)`:
/// `{ long[] { number, type, startSequence, size } per file, String[] names }`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeGetSortedWalFiles<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
) -> jobjectArray {
    guard(&mut env, |env| {
        let wals = db(env, handle)?.sorted_wal_files()?;
        let mut flat = Vec::with_capacity(wals.len() * 4);
        for w in &wals {
            flat.extend([
                w.log_number as jlong,
                w.file_type as jlong,
                w.start_sequence as jlong,
                w.size_file_bytes as jlong,
            ]);
        }
        let nums = env.new_long_array(flat.len() as jint)?;
        env.set_long_array_region(&nums, 0, &flat)?;
        let names: Vec<String> = wals.into_iter().map(|w| w.path_name).collect();
        let names = strings(env, &names)?;
        pair(env, nums.into(), names.into())
    })
}

/// `static native void nativeFileDeletions(long h, int what)`: 0 disable,
/// 1 enable, 2 enable with force.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeFileDeletions<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    what: jint,
) {
    guard(&mut env, |env| {
        let d = db(env, handle)?;
        match what {
            0 => d.disable_file_deletions()?,
            1 => d.enable_file_deletions(false)?,
            2 => d.enable_file_deletions(true)?,
            _ => {
                return Err(JniError::IllegalArgument(format!(
                    "file deletion call {what}"
                )));
            }
        }
        Ok(())
    })
}

/// `static native void nativeTryCatchUpWithPrimary(long h)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeTryCatchUpWithPrimary<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
) {
    guard(&mut env, |env| {
        Ok(db(env, handle)?.try_catch_up_with_primary()?)
    })
}

/// `static native long nativeOpenReadOnly(String path, String dbOptions,
/// long[] shared, String[] names, String[] cfOptions, long[] mergeOperators,
/// long[] caches, int[] idsOut, int mode, String secondaryPath)`: `mode` 0 read-only, 1
/// read-only with `errorIfWalFileExists`, 2 secondary (`secondaryPath`
/// non-null). Arguments otherwise as `nativeOpenCf`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeOpenReadOnly<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    path: JString<'l>,
    options: JString<'l>,
    shared: JLongArray<'l>,
    names: JObjectArray<'l>,
    cf_options: JObjectArray<'l>,
    merge_ops: JLongArray<'l>,
    caches: JLongArray<'l>,
    ids_out: JIntArray<'l>,
    mode: jint,
    secondary: JString<'l>,
) -> jlong {
    guard(&mut env, |env| {
        let args = OpenArgs {
            path,
            options,
            shared,
            names,
            cf_options,
            merge_ops,
            caches,
        };
        let (path, opts, families) = open_args(env, &args)?;
        let (db, hs) = match mode {
            0 | 1 => Db::open_read_only(opts, &path, families, mode == 1)?,
            2 => {
                require_non_null(&secondary, "secondaryPath")?;
                let secondary = string_arg(env, &secondary, "secondary path")?;
                Db::open_as_secondary(opts, &path, &secondary, families)?
            }
            _ => return Err(JniError::IllegalArgument(format!("open mode {mode}"))),
        };
        finish_open(env, db, &hs, &ids_out)
    })
}
