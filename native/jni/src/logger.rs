//! Bindings of `dev.talus.Logger`: a [`LogSink`] that calls the Java
//! object's `logFromNative(byte, String)`, attaching the calling thread to
//! the JVM (as a daemon) when it is a database background thread.

#![expect(
    unsafe_code,
    reason = "JNI entry points are found by their #[unsafe(no_mangle)] names"
)]

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};

use jni::objects::{GlobalRef, JClass, JObject, JValue};
use jni::sys::{jbyte, jlong};
use jni::{JNIEnv, JavaVM};

use talus::logger::{InfoLogLevel, LogSink};

use crate::error::{JniError, JniResult, guard, require_non_null};
use crate::handle::{borrow_handle, drop_handle, into_handle};

/// The native side of a Java `Logger`.
pub struct JavaLogger {
    level: AtomicU8,
    target: OnceLock<(JavaVM, GlobalRef)>,
}

impl LogSink for JavaLogger {
    fn level(&self) -> InfoLogLevel {
        InfoLogLevel::from_u8(self.level.load(Ordering::Relaxed)).unwrap_or(InfoLogLevel::Info)
    }

    fn log(&self, level: InfoLogLevel, message: &str) {
        let Some((vm, obj)) = self.target.get() else {
            return;
        };
        // A thread of the JVM is already attached; a database background
        // thread is attached once, as a daemon, and stays attached.
        let Ok(mut env) = vm.attach_current_thread_as_daemon() else {
            return;
        };
        let Ok(msg) = env.new_string(message) else {
            let _ = env.exception_clear();
            return;
        };
        let r = env.call_method(
            obj.as_obj(),
            "logFromNative",
            "(BLjava/lang/String;)V",
            &[JValue::Byte(level as jbyte), JValue::Object(&msg)],
        );
        if r.is_err() || env.exception_check().unwrap_or(false) {
            let _ = env.exception_clear();
        }
        let _ = env.delete_local_ref(msg);
    }
}

/// The logger behind a `Logger` handle.
pub fn logger<'l>(_env: &JNIEnv<'l>, handle: jlong) -> JniResult<&'l Arc<JavaLogger>> {
    // SAFETY: Logger handles come from into_handle::<Arc<JavaLogger>> in
    // nativeCreate; callers hold the Java object's acquire() for the native call,
    // which 'l (the call's local frame, from `_env`) does not outlive.
    unsafe { borrow_handle::<Arc<JavaLogger>>(handle) }
}

fn level_of(b: jbyte) -> JniResult<u8> {
    let v = b as u8;
    InfoLogLevel::from_u8(v)
        .map(|_| v)
        .ok_or_else(|| JniError::IllegalArgument(format!("unknown InfoLogLevel byte {b}")))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_Logger_nativeCreate<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    level: jbyte,
) -> jlong {
    guard(&mut env, |_| {
        let l = JavaLogger {
            level: AtomicU8::new(level_of(level)?),
            target: OnceLock::new(),
        };
        Ok(into_handle(Box::new(Arc::new(l))))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_Logger_nativeBind<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    obj: JObject<'l>,
) {
    guard(&mut env, |env| {
        require_non_null(&obj, "logger")?;
        let l = logger(env, handle)?;
        let vm = env.get_java_vm()?;
        let global = env.new_global_ref(&obj)?;
        let _ = l.target.set((vm, global));
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_Logger_nativeSetLevel<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    level: jbyte,
) {
    guard(&mut env, |env| {
        logger(env, handle)?
            .level
            .store(level_of(level)?, Ordering::Relaxed);
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_Logger_nativeGetLevel<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
) -> jbyte {
    guard(&mut env, |env| {
        Ok(logger(env, handle)?.level.load(Ordering::Relaxed) as jbyte)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_Logger_nativeDispose<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
) {
    guard(&mut env, |_| {
        // SAFETY: called once, from NativeHandle.disposeInternal, with no call in flight.
        unsafe { drop_handle::<Arc<JavaLogger>>(handle) };
        Ok(())
    })
}
