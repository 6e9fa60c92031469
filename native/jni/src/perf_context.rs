//! Bindings of `dev.talus.PerfContext` (and, through it, `PerfLevel`,
//! `ThreadLocalInfo` and the perf methods of `TalusDB`): the calling
//! thread's perf context. No handles: the context is thread-local, so every
//! entry point acts on the thread that calls it.
//!
//! A whole context crosses in one call, as the flat layout of
//! `talus::perf_context::PerfContext` copied into a Java `long[]` the caller
//! reuses (`num_runs`, the fields, the per-level fields).
//!
//! `PerfLevel` crosses as RocksJava's byte values, which differ from the
//! C++ (and Rust) numbering; Talus adds `ENABLE_WAIT` as byte 7, a value
//! RocksJava does not use:
//!
//! | Java constant | Java byte | Rust `PerfLevel` (C++ value) |
//! |---|---|---|
//! | `UNINITIALIZED` | 0 | `Uninitialized` (0) |
//! | `DISABLE` | 1 | `Disable` (1) |
//! | `ENABLE_COUNT` | 2 | `EnableCount` (2) |
//! | `ENABLE_TIME_EXCEPT_FOR_MUTEX` | 3 | `EnableTimeExceptForMutex` (4) |
//! | `ENABLE_TIME_AND_CPU_TIME_EXCEPT_FOR_MUTEX` | 4 | `EnableTimeAndCpuTimeExceptForMutex` (5) |
//! | `ENABLE_TIME` | 5 | `EnableTime` (6) |
//! | `OUT_OF_BOUNDS` | 6 | `OutOfBounds` (7) |
//! | `ENABLE_WAIT` (Talus) | 7 | `EnableWait` (3) |

#![expect(
    unsafe_code,
    reason = "JNI entry points are found by their #[unsafe(no_mangle)] names"
)]

use jni::JNIEnv;
use jni::objects::{JClass, JLongArray};
use jni::sys::{jboolean, jbyte, jint, jobjectArray, jstring};

use talus::perf_context::{self as pc, FLAT_LEN, PerfContext, PerfLevel};

use crate::error::{JniError, JniResult, guard, require_non_null};

/// Which context a call reads or resets (the Java side's constants).
const THREAD: jint = 0;
const LAST_OPERATION: jint = 1;
const AGGREGATE: jint = 2;

/// The Rust level of a Java `PerfLevel` byte (see the module docs).
pub fn level_from_java(b: jbyte) -> Option<PerfLevel> {
    Some(match b {
        0 => PerfLevel::Uninitialized,
        1 => PerfLevel::Disable,
        2 => PerfLevel::EnableCount,
        3 => PerfLevel::EnableTimeExceptForMutex,
        4 => PerfLevel::EnableTimeAndCpuTimeExceptForMutex,
        5 => PerfLevel::EnableTime,
        6 => PerfLevel::OutOfBounds,
        7 => PerfLevel::EnableWait,
        _ => return None,
    })
}

/// The Java `PerfLevel` byte of a Rust level (see the module docs).
pub fn level_to_java(l: PerfLevel) -> jbyte {
    match l {
        PerfLevel::Uninitialized => 0,
        PerfLevel::Disable => 1,
        PerfLevel::EnableCount => 2,
        PerfLevel::EnableTimeExceptForMutex => 3,
        PerfLevel::EnableTimeAndCpuTimeExceptForMutex => 4,
        PerfLevel::EnableTime => 5,
        PerfLevel::OutOfBounds => 6,
        PerfLevel::EnableWait => 7,
    }
}

fn flat_of(env: &mut JNIEnv<'_>, out: &JLongArray<'_>) -> JniResult<()> {
    require_non_null(out, "out")?;
    let len = env.get_array_length(out)?;
    if len as usize != FLAT_LEN {
        return Err(JniError::IllegalArgument(format!(
            "perf context array has {len} entries, the native layout {FLAT_LEN}"
        )));
    }
    Ok(())
}

/// `static native void nativeSetLevel(byte javaLevel)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_PerfContext_nativeSetLevel<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    level: jbyte,
) {
    guard(&mut env, |_| {
        let l = level_from_java(level)
            .ok_or_else(|| JniError::IllegalArgument(format!("unknown PerfLevel byte {level}")))?;
        pc::set_perf_level(l).map_err(|e| JniError::IllegalArgument(e.to_string()))
    })
}

/// `static native byte nativeGetLevel()`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_PerfContext_nativeGetLevel<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
) -> jbyte {
    guard(&mut env, |_| Ok(level_to_java(pc::perf_level())))
}

/// `static native void nativeSetPerLevelEnabled(boolean enabled)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_PerfContext_nativeSetPerLevelEnabled<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    enabled: jboolean,
) {
    guard(&mut env, |_| {
        pc::set_per_level_enabled(enabled != 0);
        Ok(())
    })
}

/// `static native void nativeSetLastOperationEnabled(boolean enabled)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_PerfContext_nativeSetLastOperationEnabled<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    enabled: jboolean,
) {
    guard(&mut env, |_| {
        pc::set_last_operation_enabled(enabled != 0);
        Ok(())
    })
}

/// `static native void nativeRead(int which, long[] out)`: copies a whole
/// context (0 the calling thread's, 1 its last operation, 2 the aggregate)
/// into `out`, whose length must be the flat layout's.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_PerfContext_nativeRead<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    which: jint,
    out: JLongArray<'l>,
) {
    guard(&mut env, |env| {
        flat_of(env, &out)?;
        let c = match which {
            THREAD => pc::get(),
            LAST_OPERATION => pc::last_operation(),
            AGGREGATE => pc::aggregate(),
            _ => return Err(JniError::IllegalArgument(format!("context {which}"))),
        };
        // u64 -> Java long: the bits, as RocksJava returns uint64_t values.
        let flat: [i64; FLAT_LEN] = c.as_flat().map(|v| v as i64);
        env.set_long_array_region(&out, 0, &flat)?;
        Ok(())
    })
}

/// `static native void nativeReset(int which)`: 0 zeroes the calling
/// thread's context, 2 the aggregate.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_PerfContext_nativeReset<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    which: jint,
) {
    guard(&mut env, |_| {
        match which {
            THREAD => pc::reset(),
            AGGREGATE => pc::reset_aggregate(),
            _ => return Err(JniError::IllegalArgument(format!("context {which}"))),
        }
        Ok(())
    })
}

/// `static native void nativeFold()`: folds the calling thread's context
/// into the aggregate.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_PerfContext_nativeFold<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
) {
    guard(&mut env, |_| {
        pc::fold_into_aggregate();
        Ok(())
    })
}

/// `static native String nativeToString(long[] flat, boolean excludeZero)`:
/// RocksDB's one-line format of a context the Java side holds.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_PerfContext_nativeToString<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    values: JLongArray<'l>,
    exclude_zero: jboolean,
) -> jstring {
    guard(&mut env, |env| {
        flat_of(env, &values)?;
        let mut flat = [0i64; FLAT_LEN];
        env.get_long_array_region(&values, 0, &mut flat)?;
        let c = PerfContext::from_flat(flat.map(|v| v as u64));
        Ok(env.new_string(c.to_string(exclude_zero != 0))?.into_raw())
    })
}

/// `static native String[] nativeFieldNames()`: the flat layout's names.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_PerfContext_nativeFieldNames<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
) -> jobjectArray {
    guard(&mut env, |env| {
        let names = PerfContext::flat_names();
        let arr = env.new_object_array(
            names.len() as jint,
            "java/lang/String",
            jni::objects::JObject::null(),
        )?;
        for (i, n) in names.iter().enumerate() {
            let s = env.new_string(n)?;
            env.set_object_array_element(&arr, i as jint, &s)?;
            env.delete_local_ref(s)?;
        }
        Ok(arr.into_raw())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_level_bytes_round_trip() {
        for b in 0..=7 {
            let l = level_from_java(b).unwrap();
            assert_eq!(level_to_java(l), b);
        }
        assert_eq!(level_from_java(8), None);
        assert_eq!(
            level_from_java(3),
            Some(PerfLevel::EnableTimeExceptForMutex)
        );
        assert_eq!(level_from_java(7), Some(PerfLevel::EnableWait));
    }
}
