//! Bindings of `dev.talus.Cache` / `LRUCache`: a block cache shareable
//! between databases. The handle owns one `Arc` reference; each database
//! using the cache holds its own, so closing the Java object while a
//! database still uses the cache is safe.

#![expect(
    unsafe_code,
    reason = "JNI entry points are found by their #[unsafe(no_mangle)] names"
)]

use std::sync::Arc;

use jni::JNIEnv;
use jni::objects::JClass;
use jni::sys::{jboolean, jdouble, jint, jlong};

use talus::table::BlockCache;

use crate::error::{JniError, JniResult, guard};
use crate::handle::{borrow_handle, drop_handle, into_handle};

/// The cache behind a `Cache` handle.
pub fn cache<'l>(_env: &JNIEnv<'l>, handle: jlong) -> JniResult<&'l Arc<BlockCache>> {
    // SAFETY: Cache handles come from into_handle::<Arc<BlockCache>> in
    // nativeNewLruCache; callers hold the Java object's acquire() for the native call,
    // which 'l (the call's local frame, from `_env`) does not outlive.
    unsafe { borrow_handle::<Arc<BlockCache>>(handle) }
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_Cache_nativeNewLruCache<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    capacity: jlong,
    num_shard_bits: jint,
    strict: jboolean,
    high_pri_pool_ratio: jdouble,
) -> jlong {
    guard(&mut env, |_| {
        let capacity = usize::try_from(capacity).map_err(|_| {
            JniError::IllegalArgument(format!("capacity must not be negative, got {capacity}"))
        })?;
        let c = BlockCache::new(capacity, num_shard_bits, strict != 0, high_pri_pool_ratio)?;
        Ok(into_handle(Box::new(Arc::new(c))))
    })
}

/// `what`: 0 usage, 1 pinned usage, 2 capacity.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_Cache_nativeGet<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    what: jint,
) -> jlong {
    guard(&mut env, |env| {
        let c = cache(env, handle)?;
        Ok(match what {
            0 => c.usage(),
            1 => c.pinned_usage(),
            _ => c.capacity(),
        } as jlong)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_Cache_nativeSetCapacity<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    capacity: jlong,
) {
    guard(&mut env, |env| {
        let capacity = usize::try_from(capacity).map_err(|_| {
            JniError::IllegalArgument(format!("capacity must not be negative, got {capacity}"))
        })?;
        cache(env, handle)?.set_capacity(capacity);
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_Cache_nativeDispose<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
) {
    guard(&mut env, |_| {
        // SAFETY: called once, from NativeHandle.disposeInternal, with no call in flight.
        unsafe { drop_handle::<Arc<BlockCache>>(handle) };
        Ok(())
    })
}
