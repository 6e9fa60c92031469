//! Bindings of `dev.talus.Env` and `dev.talus.Priority`: the process-wide
//! [`talus::env::Env::default_env`], the one environment Java databases use.
//! No handles: the default environment lives as long as the process.
//!
//! `Priority` crosses as RocksJava's byte values: `BOTTOM` 0, `LOW` 1,
//! `HIGH` 2; `TOTAL` (3) is not a pool and is rejected.

#![expect(
    unsafe_code,
    reason = "JNI entry points are found by their #[unsafe(no_mangle)] names"
)]

use jni::JNIEnv;
use jni::objects::JClass;
use jni::sys::jbyte;

use talus::env::{CpuPriority, Env, Priority};

use crate::error::{JniError, JniResult, guard};

fn pool_from_java(b: jbyte) -> JniResult<Priority> {
    match b {
        0 => Ok(Priority::Bottom),
        1 => Ok(Priority::Low),
        2 => Ok(Priority::High),
        _ => Err(JniError::IllegalArgument(format!(
            "Priority byte {b} is not a thread pool (BOTTOM, LOW or HIGH)"
        ))),
    }
}

/// `static native void nativeLowerThreadPoolCPUPriority(byte pool)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_Env_nativeLowerThreadPoolCPUPriority<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    pool: jbyte,
) {
    guard(&mut env, |_| {
        let pool = pool_from_java(pool)?;
        Env::default_env().lower_thread_pool_cpu_priority(pool, CpuPriority::Low);
        Ok(())
    })
}

/// `static native boolean nativeIsThreadPoolCPUPriorityLowered(byte pool)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_Env_nativeIsThreadPoolCPUPriorityLowered<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    pool: jbyte,
) -> jni::sys::jboolean {
    guard(&mut env, |_| {
        let pool = pool_from_java(pool)?;
        let low = Env::default_env().thread_pool_cpu_priority(pool) == CpuPriority::Low;
        Ok(jni::sys::jboolean::from(low))
    })
}
