//! Bindings of `dev.talus.RateLimiter`: a rate limiter shareable between
//! databases. The handle owns one `Arc` reference; each database using the
//! limiter clones its own (see [`rate_limiter`]), so closing the Java object
//! while a database still uses the limiter is safe.

#![expect(
    unsafe_code,
    reason = "JNI entry points are found by their #[unsafe(no_mangle)] names"
)]

use std::sync::Arc;

use jni::JNIEnv;
use jni::objects::JClass;
use jni::sys::{jboolean, jbyte, jint, jlong};

use talus::rate_limiter::{IoPriority, RateLimiter, RateLimiterMode};

use crate::error::{JniError, JniResult, guard};
use crate::handle::{borrow_handle, drop_handle, into_handle};

/// The limiter behind a `RateLimiter` handle; a database open clones the `Arc`.
pub fn rate_limiter<'l>(_env: &JNIEnv<'l>, handle: jlong) -> JniResult<&'l Arc<RateLimiter>> {
    // SAFETY: RateLimiter handles come from into_handle::<Arc<RateLimiter>> in
    // nativeNew; callers hold the Java object's acquire() for the native call,
    // which 'l (the call's local frame, from `_env`) does not outlive.
    unsafe { borrow_handle::<Arc<RateLimiter>>(handle) }
}

fn non_negative(value: jlong, param: &str) -> JniResult<u64> {
    u64::try_from(value).map_err(|_| {
        JniError::IllegalArgument(format!("{param} must not be negative, got {value}"))
    })
}

/// `static native long nativeNew(long, long, int, byte, boolean, long)`.
/// Invalid values throw `IllegalArgumentException` naming the Java parameter.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_RateLimiter_nativeNew<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    rate_bytes_per_second: jlong,
    refill_period_micros: jlong,
    fairness: jint,
    mode: jbyte,
    auto_tune: jboolean,
    single_burst_bytes: jlong,
) -> jlong {
    guard(&mut env, |_| {
        let positive = |v: jlong, param: &str| match u64::try_from(v) {
            Ok(v) if v > 0 => Ok(v),
            _ => Err(JniError::IllegalArgument(format!(
                "{param} must be positive, got {v}"
            ))),
        };
        let rate = positive(rate_bytes_per_second, "rateBytesPerSecond")?;
        let refill = positive(refill_period_micros, "refillPeriodMicros")?;
        if fairness < 1 {
            return Err(JniError::IllegalArgument(format!(
                "fairness must be at least 1, got {fairness}"
            )));
        }
        let mode = RateLimiterMode::from_byte(mode as u8).ok_or_else(|| {
            JniError::IllegalArgument(format!("unknown rateLimiterMode byte {mode}"))
        })?;
        let burst = non_negative(single_burst_bytes, "singleBurstBytes")?;
        let limiter = RateLimiter::new(rate, refill, fairness, mode, auto_tune != 0, burst)
            .map_err(|e| JniError::IllegalArgument(e.to_string()))?;
        Ok(into_handle(Box::new(limiter)))
    })
}

/// `static native long nativeGet(long handle, int what)`: 0 bytes per second,
/// 1 single burst bytes, 2 total bytes through, 3 total requests.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_RateLimiter_nativeGet<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    what: jint,
) -> jlong {
    guard(&mut env, |env| {
        let l = rate_limiter(env, handle)?;
        let v = match what {
            0 => l.bytes_per_second(),
            1 => l.single_burst_bytes(),
            2 => l.total_bytes_through(None),
            3 => l.total_requests(None),
            _ => {
                return Err(JniError::IllegalArgument(format!(
                    "unknown RateLimiter getter {what}"
                )));
            }
        };
        // Java longs are signed; saturate rather than wrap.
        Ok(jlong::try_from(v).unwrap_or(jlong::MAX))
    })
}

/// `static native void nativeSetBytesPerSecond(long handle, long bytesPerSecond)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_RateLimiter_nativeSetBytesPerSecond<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    bytes_per_second: jlong,
) {
    guard(&mut env, |env| {
        let rate = match u64::try_from(bytes_per_second) {
            Ok(v) if v > 0 => v,
            _ => {
                return Err(JniError::IllegalArgument(format!(
                    "bytesPerSecond must be positive, got {bytes_per_second}"
                )));
            }
        };
        rate_limiter(env, handle)?
            .set_bytes_per_second(rate)
            .map_err(|e| JniError::IllegalArgument(e.to_string()))
    })
}

/// `static native void nativeRequest(long handle, long bytes)`: blocks until
/// granted, at high priority, whatever the mode (RocksJava's `request`).
/// Like RocksDB, refuses more than the single burst: a larger request would be
/// split into pieces and could block for as long as the pieces take
/// (`Long.MAX_VALUE` bytes: effectively forever).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_RateLimiter_nativeRequest<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    bytes: jlong,
) {
    guard(&mut env, |env| {
        let bytes = non_negative(bytes, "bytes")?;
        let limiter = rate_limiter(env, handle)?;
        let burst = limiter.single_burst_bytes();
        if bytes > burst {
            return Err(JniError::IllegalArgument(format!(
                "bytes must be at most the single burst of {burst} bytes \
                 (getSingleBurstBytes()), got {bytes}"
            )));
        }
        limiter.request_any(bytes, IoPriority::High);
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_RateLimiter_nativeDispose<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
) {
    guard(&mut env, |_| {
        // SAFETY: called once, from NativeHandle.disposeInternal, with no call in flight.
        unsafe { drop_handle::<Arc<RateLimiter>>(handle) };
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use talus::rate_limiter::RateLimiterMode;

    use crate::statistics::tests::java_enum_constants;

    #[test]
    fn java_rate_limiter_mode_matches_the_engine() {
        let java = java_enum_constants("RateLimiterMode");
        let rust: Vec<(String, u8)> = [
            ("READS_ONLY", RateLimiterMode::ReadsOnly),
            ("WRITES_ONLY", RateLimiterMode::WritesOnly),
            ("ALL_IO", RateLimiterMode::AllIo),
        ]
        .into_iter()
        .map(|(n, m)| (n.to_owned(), m as u8))
        .collect();
        assert_eq!(java, rust);
    }
}
