//! Bindings of `dev.talus.Statistics`, shareable between databases like a
//! cache: the handle owns one `Arc` reference and each database clones its
//! own (see [`statistics`]).
//!
//! `TickerType`, `HistogramType` and `StatsLevel` cross as their byte values,
//! which are the engine's indices ([`Ticker::index`], [`Histogram::index`])
//! and [`StatsLevel`] discriminants; a test below checks the Java enums
//! against the engine's tables. A histogram crosses once, as a `long[]` (see
//! [`Java_dev_talus_Statistics_nativeGetHistogramData`]).

#![expect(
    unsafe_code,
    reason = "JNI entry points are found by their #[unsafe(no_mangle)] names"
)]

use std::sync::Arc;

use jni::JNIEnv;
use jni::objects::{JClass, JString};
use jni::sys::{jboolean, jbyte, jlong, jlongArray, jstring};

use talus::statistics::{Histogram, Statistics, StatsLevel, Ticker};

use crate::error::{JniError, JniResult, guard, require_non_null, string_arg};
use crate::handle::{borrow_handle, drop_handle, into_handle};

/// The statistics behind a `Statistics` handle; a database open clones the `Arc`.
pub fn statistics<'l>(_env: &JNIEnv<'l>, handle: jlong) -> JniResult<&'l Arc<Statistics>> {
    // SAFETY: Statistics handles come from into_handle::<Arc<Statistics>> in
    // nativeNew; callers hold the Java object's acquire() for the native call,
    // which 'l (the call's local frame, from `_env`) does not outlive.
    unsafe { borrow_handle::<Arc<Statistics>>(handle) }
}

fn ticker(b: jbyte) -> JniResult<Ticker> {
    usize::try_from(b)
        .ok()
        .and_then(Ticker::from_index)
        .ok_or_else(|| JniError::IllegalArgument(format!("unknown TickerType byte {b}")))
}

fn histogram(b: jbyte) -> JniResult<Histogram> {
    usize::try_from(b)
        .ok()
        .and_then(Histogram::from_index)
        .ok_or_else(|| JniError::IllegalArgument(format!("unknown HistogramType byte {b}")))
}

/// `static native long nativeNew(long ignoredHistograms, long otherHandle)`:
/// bit `i` of `ignoredHistograms` ignores the histogram with byte `i`;
/// `otherHandle` is 0 or a `Statistics` handle (acquired by the caller) to
/// forward every recording to.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_Statistics_nativeNew<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    ignored_histograms: jlong,
    other_handle: jlong,
) -> jlong {
    guard(&mut env, |env| {
        let ignored: Vec<Histogram> = Histogram::ALL
            .iter()
            .copied()
            .filter(|h| (ignored_histograms as u64) & (1 << h.index()) != 0)
            .collect();
        let other = if other_handle == 0 {
            None
        } else {
            Some(Arc::clone(statistics(env, other_handle)?))
        };
        Ok(into_handle(Box::new(Statistics::with_options(
            &ignored, other,
        ))))
    })
}

/// `static native long nativeGetTickerCount(long handle, byte ticker, boolean reset)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_Statistics_nativeGetTickerCount<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    ticker_type: jbyte,
    reset: jboolean,
) -> jlong {
    guard(&mut env, |env| {
        let (s, t) = (statistics(env, handle)?, ticker(ticker_type)?);
        let v = if reset != 0 {
            s.get_and_reset_ticker_count(t)
        } else {
            s.ticker_count(t)
        };
        // Counters are u64; Java reads them as signed longs, as RocksJava does.
        Ok(v as jlong)
    })
}

/// `static native long[] nativeGetHistogramData(long handle, byte histogram)`:
/// `[median, p95, p99, p99.9, max, min, average, stdDev]` as
/// `Double.doubleToRawLongBits`, then `count`, `sum` as plain longs.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_Statistics_nativeGetHistogramData<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    histogram_type: jbyte,
) -> jlongArray {
    guard(&mut env, |env| {
        let d = statistics(env, handle)?.histogram_data(histogram(histogram_type)?);
        let bits = |f: f64| f.to_bits() as jlong;
        let values = [
            bits(d.median),
            bits(d.p95),
            bits(d.p99),
            bits(d.p999),
            bits(d.max),
            bits(d.min),
            bits(d.average),
            bits(d.std_dev),
            d.count as jlong,
            d.sum as jlong,
        ];
        let out = env.new_long_array(values.len() as i32)?;
        env.set_long_array_region(&out, 0, &values)?;
        Ok(out.into_raw())
    })
}

/// `static native String nativeGetHistogramString(long handle, byte histogram)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_Statistics_nativeGetHistogramString<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    histogram_type: jbyte,
) -> jstring {
    guard(&mut env, |env| {
        let text = statistics(env, handle)?.histogram_string(histogram(histogram_type)?);
        Ok(env.new_string(text)?.into_raw())
    })
}

/// `static native void nativeReset(long handle)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_Statistics_nativeReset<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
) {
    guard(&mut env, |env| {
        statistics(env, handle)?.reset();
        Ok(())
    })
}

/// `static native String nativeToString(long handle)`: RocksDB's `ToString` shape.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_Statistics_nativeToString<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
) -> jstring {
    guard(&mut env, |env| {
        let text = statistics(env, handle)?.to_string();
        Ok(env.new_string(text)?.into_raw())
    })
}

/// `static native String nativeToPrometheus(long handle, String prefix)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_Statistics_nativeToPrometheus<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    prefix: JString<'l>,
) -> jstring {
    guard(&mut env, |env| {
        require_non_null(&prefix, "prefix")?;
        let prefix = string_arg(env, &prefix, "prefix")?;
        let text = statistics(env, handle)?.to_prometheus(&prefix);
        Ok(env.new_string(text)?.into_raw())
    })
}

/// `static native byte nativeGetStatsLevel(long handle)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_Statistics_nativeGetStatsLevel<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
) -> jbyte {
    guard(&mut env, |env| {
        Ok(statistics(env, handle)?.stats_level() as u8 as jbyte)
    })
}

/// `static native void nativeSetStatsLevel(long handle, byte level)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_Statistics_nativeSetStatsLevel<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    level: jbyte,
) {
    guard(&mut env, |env| {
        let level = StatsLevel::from_byte(level as u8)
            .ok_or_else(|| JniError::IllegalArgument(format!("unknown StatsLevel byte {level}")))?;
        statistics(env, handle)?.set_stats_level(level);
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_Statistics_nativeDispose<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
) {
    guard(&mut env, |_| {
        // SAFETY: called once, from NativeHandle.disposeInternal, with no call in flight.
        unsafe { drop_handle::<Arc<Statistics>>(handle) };
        Ok(())
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use std::path::PathBuf;

    use talus::statistics::{Histogram, StatsLevel, Ticker};

    /// `(CONSTANT_NAME, byte)` of every constant of Java enum `class` (lines
    /// shaped `  NAME((byte) 0x1F),` or `...;`).
    pub(crate) fn java_enum_constants(class: &str) -> Vec<(String, u8)> {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../java/src/main/java/dev/talus")
            .join(format!("{class}.java"));
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
        text.lines()
            .filter_map(|line| {
                let line = line.trim();
                let (name, rest) = line.split_once("((byte) 0x")?;
                let hex = rest
                    .strip_suffix("),")
                    .or_else(|| rest.strip_suffix(");"))?;
                let ok = name
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
                ok.then(|| {
                    (
                        name.to_owned(),
                        u8::from_str_radix(hex, 16).expect("hex byte"),
                    )
                })
            })
            .collect()
    }

    #[test]
    fn java_ticker_type_matches_the_engine_table() {
        let java = java_enum_constants("TickerType");
        let rust: Vec<(String, u8)> = Ticker::ALL
            .iter()
            .map(|t| (t.enum_name().to_owned(), t.index() as u8))
            .collect();
        assert_eq!(java, rust);
    }

    #[test]
    fn java_histogram_type_matches_the_engine_table() {
        let java = java_enum_constants("HistogramType");
        let rust: Vec<(String, u8)> = Histogram::ALL
            .iter()
            .map(|h| (h.enum_name().to_owned(), h.index() as u8))
            .collect();
        assert_eq!(java, rust);
    }

    #[test]
    fn java_stats_level_matches_the_engine() {
        let java = java_enum_constants("StatsLevel");
        let rust: Vec<(String, u8)> = [
            ("EXCEPT_DETAILED_TIMERS", StatsLevel::ExceptDetailedTimers),
            ("EXCEPT_TIME_FOR_MUTEX", StatsLevel::ExceptTimeForMutex),
            ("ALL", StatsLevel::All),
        ]
        .into_iter()
        .map(|(n, l)| (n.to_owned(), l as u8))
        .collect();
        assert_eq!(java, rust);
    }
}
