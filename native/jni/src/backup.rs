//! Bindings of `dev.talus.BackupEngine`: one native `BackupEngine` per Java
//! object; its options cross as plain values at open.

#![expect(
    unsafe_code,
    reason = "JNI entry points are found by their #[unsafe(no_mangle)] names"
)]

use jni::JNIEnv;
use jni::objects::{JClass, JObject, JString};
use jni::sys::{jboolean, jint, jlong, jobjectArray};

use talus::backup::{BackupEngine, BackupEngineOptions, RestoreOptions};

use crate::bytes::read_all;
use crate::db::db;
use crate::error::{JniError, JniResult, guard, require_non_null, string_arg};
use crate::files_out::pair;
use crate::handle::{borrow_handle, drop_handle, into_handle};

/// The engine behind a `BackupEngine` handle, for the call whose
/// environment is `_env`.
fn engine<'l>(_env: &JNIEnv<'l>, handle: jlong) -> JniResult<&'l BackupEngine> {
    // SAFETY: BackupEngine handles come from into_handle::<BackupEngine> in
    // nativeOpen, and every BackupEngine method holds acquire() around its
    // native call, which 'l (the call's local frame) does not outlive.
    unsafe { borrow_handle::<BackupEngine>(handle) }
}

fn backup_id(id: jint) -> JniResult<u32> {
    u32::try_from(id).map_err(|_| JniError::IllegalArgument(format!("backup id {id} is negative")))
}

/// `static native long nativeOpen(String backupDir, boolean shareTableFiles,
/// boolean sync, boolean destroyOldData, boolean backupLogFiles,
/// int maxBackgroundOperations)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_BackupEngine_nativeOpen<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    dir: JString<'l>,
    share: jboolean,
    sync: jboolean,
    destroy: jboolean,
    logs: jboolean,
    threads: jint,
) -> jlong {
    guard(&mut env, |env| {
        require_non_null(&dir, "backupDir")?;
        let dir = string_arg(env, &dir, "backup directory")?;
        let threads = u32::try_from(threads).map_err(|_| {
            JniError::IllegalArgument(format!(
                "maxBackgroundOperations must be positive: {threads}"
            ))
        })?;
        let opts = BackupEngineOptions {
            share_table_files: share != 0,
            sync: sync != 0,
            destroy_old_data: destroy != 0,
            backup_log_files: logs != 0,
            max_background_operations: threads,
            ..BackupEngineOptions::new(dir)
        };
        Ok(into_handle(Box::new(BackupEngine::open(opts)?)))
    })
}

/// `static native void nativeDispose(long handle)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_BackupEngine_nativeDispose<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
) {
    guard(&mut env, |_| {
        // SAFETY: called once, from NativeHandle.disposeInternal, with no call in flight.
        unsafe { drop_handle::<BackupEngine>(handle) };
        Ok(())
    })
}

/// `static native int nativeCreateNewBackup(long h, long db, byte[] metadata,
/// boolean flush)`: the new backup's id.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_BackupEngine_nativeCreateNewBackup<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    db_handle: jlong,
    metadata: jni::objects::JByteArray<'l>,
    flush: jboolean,
) -> jint {
    guard(&mut env, |env| {
        let mut meta = Vec::new();
        if !metadata.is_null() {
            read_all(env, &metadata, &mut meta)?;
        }
        let id = engine(env, handle)?.create_new_backup_with_metadata(
            db(env, db_handle)?,
            &meta,
            flush != 0,
        )?;
        jint::try_from(id)
            .map_err(|_| JniError::IllegalState(format!("backup id {id} does not fit an int")))
    })
}

/// `static native Object[] nativeGetBackupInfo(long h)`: `{ long[] { id,
/// timestamp, size, numberFiles } per backup, byte[][] metadata }`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_BackupEngine_nativeGetBackupInfo<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
) -> jobjectArray {
    guard(&mut env, |env| {
        let infos = engine(env, handle)?.backup_info();
        let mut flat = Vec::with_capacity(infos.len() * 4);
        for i in &infos {
            flat.extend([
                jlong::from(i.backup_id),
                i.timestamp,
                i.size as jlong,
                jlong::from(i.number_files),
            ]);
        }
        let nums = env.new_long_array(flat.len() as jint)?;
        env.set_long_array_region(&nums, 0, &flat)?;
        let metas = env.new_object_array(infos.len() as jint, "[B", JObject::null())?;
        for (k, i) in infos.iter().enumerate() {
            let a = env.byte_array_from_slice(&i.app_metadata)?;
            env.set_object_array_element(&metas, k as jint, &a)?;
            env.delete_local_ref(a)?;
        }
        pair(env, nums.into(), metas.into())
    })
}

/// `static native void nativeBackupOp(long h, int op, int id)`: 0 verify,
/// 1 delete, 2 purge keeping `id` backups.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_BackupEngine_nativeBackupOp<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    op: jint,
    id: jint,
) {
    guard(&mut env, |env| {
        let e = engine(env, handle)?;
        match op {
            0 => e.verify_backup(backup_id(id)?)?,
            1 => e.delete_backup(backup_id(id)?)?,
            2 => e.purge_old_backups(backup_id(id)? as usize)?,
            _ => return Err(JniError::IllegalArgument(format!("backup operation {op}"))),
        }
        Ok(())
    })
}

/// `static native void nativeRestore(long h, int id, String dbDir,
/// String walDir, boolean keepLogFiles)`: `id` -1 restores the latest.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_BackupEngine_nativeRestore<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    id: jint,
    db_dir: JString<'l>,
    wal_dir: JString<'l>,
    keep_log_files: jboolean,
) {
    guard(&mut env, |env| {
        require_non_null(&db_dir, "dbDir")?;
        require_non_null(&wal_dir, "walDir")?;
        let db_dir = string_arg(env, &db_dir, "restore directory")?;
        let wal_dir = string_arg(env, &wal_dir, "restore WAL directory")?;
        let ro = RestoreOptions {
            keep_log_files: keep_log_files != 0,
        };
        let e = engine(env, handle)?;
        if id == -1 {
            e.restore_db_from_latest_backup(&db_dir, &wal_dir, &ro)?;
        } else {
            e.restore_db_from_backup(backup_id(id)?, &db_dir, &wal_dir, &ro)?;
        }
        Ok(())
    })
}
