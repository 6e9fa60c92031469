//! Bindings of `dev.talus.NativeLibrary`.
#![expect(
    unsafe_code,
    reason = "JNI entry points are found by their #[unsafe(no_mangle)] names"
)]

use jni::JNIEnv;
use jni::objects::JClass;
use jni::sys::jstring;

use crate::error::guard;

/// Version of this native library: the crate version, which the Java tests compare
/// with `[workspace.package] version` in the root `Cargo.toml`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// `private static native String nativeVersion()`: returns [`VERSION`].
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_NativeLibrary_nativeVersion<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
) -> jstring {
    guard(&mut env, |env| Ok(env.new_string(VERSION)?.into_raw()))
}
