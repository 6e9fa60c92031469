//! Bindings of `dev.talus.MergeOperator` and its built-in subclasses
//! (`StringAppendOperator`, `UInt64AddOperator`): a merge operator shareable
//! between databases. The handle owns one `Arc` reference; each database
//! opened with it clones its own (see [`merge_operator`]), so closing the
//! Java object while a database still uses the operator is safe.

#![expect(
    unsafe_code,
    reason = "JNI entry points are found by their #[unsafe(no_mangle)] names"
)]

use std::sync::Arc;

use jni::JNIEnv;
use jni::objects::{JByteArray, JClass};
use jni::sys::jlong;

use talus::merge::{MergeOperator, StringAppendOperator, UInt64AddOperator};

use crate::bytes::read_all;
use crate::error::{JniResult, guard, require_non_null};
use crate::handle::{borrow_handle, drop_handle, into_handle};

/// What a `MergeOperator` handle owns.
type Handle = Arc<dyn MergeOperator>;

/// The operator behind a `MergeOperator` handle; a database open clones the `Arc`.
pub fn merge_operator<'a>(handle: jlong) -> JniResult<&'a Handle> {
    // SAFETY: MergeOperator handles come from into_handle::<Handle> in the
    // nativeNew entry points below; callers hold the Java object's acquire().
    unsafe { borrow_handle::<Handle>(handle) }
}

/// `static native long nativeNew(byte[] delimiter)`: the delimiter's bytes
/// (Java sends a `char` or `String` delimiter as UTF-8).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_StringAppendOperator_nativeNew<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    delimiter: JByteArray<'l>,
) -> jlong {
    guard(&mut env, |env| {
        require_non_null(&delimiter, "delimiter")?;
        let mut d = Vec::new();
        read_all(env, &delimiter, &mut d)?;
        let op: Handle = Arc::new(StringAppendOperator::new(d));
        Ok(into_handle(Box::new(op)))
    })
}

/// `static native long nativeNew()`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_UInt64AddOperator_nativeNew<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
) -> jlong {
    guard(&mut env, |_| {
        let op: Handle = Arc::new(UInt64AddOperator);
        Ok(into_handle(Box::new(op)))
    })
}

/// `static native void nativeDispose(long handle)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_MergeOperator_nativeDispose<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
) {
    guard(&mut env, |_| {
        // SAFETY: called once, from NativeHandle.disposeInternal, with no call in flight.
        unsafe { drop_handle::<Handle>(handle) };
        Ok(())
    })
}
