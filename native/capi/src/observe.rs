//! Observability: statistics (tickers, histograms, the Prometheus text) and
//! the perf context with its levels.
//!
//! Thread safety: a statistics object is shared and safe from any thread.
//! The perf context is per thread: every `talus_perfcontext_*` call reads
//! or changes the calling thread's context (or the process aggregate), as
//! RocksDB's `get_perf_context()` does.
//!
//! Tickers and histograms are numbered as RocksJava's `TickerType` and
//! `HistogramType` bytes; look them up by RocksDB name
//! (`talus_statistics_ticker_index("rocksdb.block.cache.miss")`) rather
//! than hard-coding numbers.

#![expect(
    unsafe_code,
    reason = "C entry points (#[unsafe(no_mangle)]) that borrow handles through ffi"
)]

use std::ffi::{CString, c_char, c_int};
use std::sync::{Arc, OnceLock};

use talus::Error;
use talus::perf_context::{self as pc, FLAT_LEN, PerfContext, PerfLevel};
use talus::statistics::{Histogram, Statistics, StatsLevel, Ticker};

use crate::ffi::{c_string, destroy, guard, handle, new_handle, out, out_array, quiet, str_arg};

/// A statistics object, shareable between databases (RocksDB `Statistics`).
pub struct talus_statistics_t {
    pub(crate) s: Arc<Statistics>,
}

/// Summary of one histogram (RocksDB `HistogramData`); all 0 when empty.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct talus_histogram_data_t {
    /// 50th percentile.
    pub median: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// Largest value.
    pub max: f64,
    /// Smallest value.
    pub min: f64,
    /// Mean.
    pub average: f64,
    /// Population standard deviation.
    pub std_dev: f64,
    /// Values recorded.
    pub count: u64,
    /// Sum of the values.
    pub sum: u64,
}

fn invalid(func: &str, msg: String) -> Error {
    Error::InvalidArgument(format!("{func}: {msg}"))
}

/// NUL-terminated copies of static names, made once.
fn names(
    cell: &'static OnceLock<Vec<CString>>,
    make: impl FnOnce() -> Vec<String>,
) -> &'static [CString] {
    cell.get_or_init(|| {
        make()
            .into_iter()
            .map(|n| CString::new(n).expect("names have no NUL"))
            .collect()
    })
}

fn ticker_names() -> &'static [CString] {
    static N: OnceLock<Vec<CString>> = OnceLock::new();
    names(&N, || {
        Ticker::ALL.iter().map(|t| t.name().to_owned()).collect()
    })
}

fn histogram_names() -> &'static [CString] {
    static N: OnceLock<Vec<CString>> = OnceLock::new();
    names(&N, || {
        Histogram::ALL.iter().map(|h| h.name().to_owned()).collect()
    })
}

fn perf_names() -> &'static [CString] {
    static N: OnceLock<Vec<CString>> = OnceLock::new();
    names(&N, PerfContext::flat_names)
}

fn ticker(func: &str, t: c_int) -> Result<Ticker, Error> {
    usize::try_from(t)
        .ok()
        .and_then(Ticker::from_index)
        .ok_or_else(|| invalid(func, format!("unknown ticker {t}")))
}

fn histogram(func: &str, h: c_int) -> Result<Histogram, Error> {
    usize::try_from(h)
        .ok()
        .and_then(Histogram::from_index)
        .ok_or_else(|| invalid(func, format!("unknown histogram {h}")))
}

/// New statistics at level `TALUS_STATS_EXCEPT_DETAILED_TIMERS`.
#[unsafe(no_mangle)]
pub extern "C" fn talus_statistics_create() -> *mut talus_statistics_t {
    quiet("talus_statistics_create", std::ptr::null_mut(), || {
        Ok(new_handle(talus_statistics_t {
            s: Statistics::new(),
        }))
    })
}

/// Drops this reference (NULL is ignored); databases recording into the
/// statistics keep theirs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_statistics_destroy(stats: *mut talus_statistics_t) {
    // SAFETY: header conventions: `stats` is NULL or a live handle, destroyed once.
    unsafe { destroy("talus_statistics_destroy", stats) }
}

/// Stats level: everything except detailed timers (the default).
pub const TALUS_STATS_EXCEPT_DETAILED_TIMERS: c_int = 0;
/// Stats level: everything except the DB-mutex wait time.
pub const TALUS_STATS_EXCEPT_TIME_FOR_MUTEX: c_int = 1;
/// Stats level: everything.
pub const TALUS_STATS_ALL: c_int = 2;

/// Sets the level (`TALUS_STATS_*`); an unknown level is an error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_statistics_set_level(
    stats: *const talus_statistics_t,
    level: c_int,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_statistics_set_level";
    guard(F, errptr, (), || {
        // SAFETY: header conventions: `stats` is NULL or a live handle.
        let s = unsafe { handle(stats, F, "stats") }?;
        let l = u8::try_from(level)
            .ok()
            .and_then(StatsLevel::from_byte)
            .ok_or_else(|| invalid(F, format!("unknown stats level {level}")))?;
        s.s.set_stats_level(l);
        Ok(())
    })
}

/// The level (`TALUS_STATS_*`; -1 for NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_statistics_get_level(stats: *const talus_statistics_t) -> c_int {
    quiet("talus_statistics_get_level", -1, || {
        // SAFETY: header conventions: `stats` is NULL or a live handle.
        Ok(unsafe { handle(stats, "", "stats") }?.s.stats_level() as c_int)
    })
}

/// Number of ticker types; tickers are numbered 0 to this minus 1.
#[unsafe(no_mangle)]
pub extern "C" fn talus_statistics_ticker_types() -> c_int {
    Ticker::COUNT as c_int
}

/// Number of histogram types; histograms are numbered 0 to this minus 1.
#[unsafe(no_mangle)]
pub extern "C" fn talus_statistics_histogram_types() -> c_int {
    Histogram::COUNT as c_int
}

/// The RocksDB name of ticker `t` ("rocksdb.block.cache.miss"), a static
/// string not to be freed; NULL for an unknown number.
#[unsafe(no_mangle)]
pub extern "C" fn talus_statistics_ticker_name(t: c_int) -> *const c_char {
    usize::try_from(t)
        .ok()
        .and_then(|i| ticker_names().get(i))
        .map_or(std::ptr::null(), |n| n.as_ptr())
}

/// The RocksDB name of histogram `h`, static; NULL for an unknown number.
#[unsafe(no_mangle)]
pub extern "C" fn talus_statistics_histogram_name(h: c_int) -> *const c_char {
    usize::try_from(h)
        .ok()
        .and_then(|i| histogram_names().get(i))
        .map_or(std::ptr::null(), |n| n.as_ptr())
}

/// The number of the ticker named `name`, -1 when there is none (or NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_statistics_ticker_index(name: *const c_char) -> c_int {
    quiet("talus_statistics_ticker_index", -1, || {
        // SAFETY: header conventions: `name` is NULL or a C string.
        let n = unsafe { str_arg(name, "", "name") }?;
        Ok(Ticker::from_name(n).map_or(-1, |t| t.index() as c_int))
    })
}

/// The number of the histogram named `name`, -1 when there is none.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_statistics_histogram_index(name: *const c_char) -> c_int {
    quiet("talus_statistics_histogram_index", -1, || {
        // SAFETY: header conventions: `name` is NULL or a C string.
        let n = unsafe { str_arg(name, "", "name") }?;
        Ok(Histogram::from_name(n).map_or(-1, |h| h.index() as c_int))
    })
}

/// Ticker `t`'s count; an unknown ticker is an error (and 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_statistics_get_ticker_count(
    stats: *const talus_statistics_t,
    t: c_int,
    errptr: *mut *mut c_char,
) -> u64 {
    const F: &str = "talus_statistics_get_ticker_count";
    guard(F, errptr, 0, || {
        // SAFETY: header conventions: `stats` is NULL or a live handle.
        let s = unsafe { handle(stats, F, "stats") }?;
        Ok(s.s.ticker_count(ticker(F, t)?))
    })
}

/// Ticker `t`'s count, zeroing it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_statistics_get_and_reset_ticker_count(
    stats: *const talus_statistics_t,
    t: c_int,
    errptr: *mut *mut c_char,
) -> u64 {
    const F: &str = "talus_statistics_get_and_reset_ticker_count";
    guard(F, errptr, 0, || {
        // SAFETY: header conventions: `stats` is NULL or a live handle.
        let s = unsafe { handle(stats, F, "stats") }?;
        Ok(s.s.get_and_reset_ticker_count(ticker(F, t)?))
    })
}

/// Histogram `h`'s summary into `*data`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_statistics_get_histogram_data(
    stats: *const talus_statistics_t,
    h: c_int,
    data: *mut talus_histogram_data_t,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_statistics_get_histogram_data";
    guard(F, errptr, (), || {
        // SAFETY: header conventions: `stats` is NULL or a live handle.
        let s = unsafe { handle(stats, F, "stats") }?;
        if data.is_null() {
            return Err(crate::ffi::null_arg(F, "data"));
        }
        let d = s.s.histogram_data(histogram(F, h)?);
        let v = talus_histogram_data_t {
            median: d.median,
            p95: d.p95,
            p99: d.p99,
            p999: d.p999,
            max: d.max,
            min: d.min,
            average: d.average,
            std_dev: d.std_dev,
            count: d.count,
            sum: d.sum,
        };
        // SAFETY: header conventions: `data` points to a writable struct.
        unsafe { out(data, v) };
        Ok(())
    })
}

/// Histogram `h` as RocksDB's one-line text; free with `talus_free`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_statistics_get_histogram_string(
    stats: *const talus_statistics_t,
    h: c_int,
    errptr: *mut *mut c_char,
) -> *mut c_char {
    const F: &str = "talus_statistics_get_histogram_string";
    guard(F, errptr, std::ptr::null_mut(), || {
        // SAFETY: header conventions: `stats` is NULL or a live handle.
        let s = unsafe { handle(stats, F, "stats") }?;
        Ok(c_string(&s.s.histogram_string(histogram(F, h)?)))
    })
}

/// Every ticker and histogram as RocksDB's text (`Statistics::ToString`);
/// free with `talus_free`. NULL for a NULL handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_statistics_to_string(
    stats: *const talus_statistics_t,
) -> *mut c_char {
    quiet("talus_statistics_to_string", std::ptr::null_mut(), || {
        // SAFETY: header conventions: `stats` is NULL or a live handle.
        Ok(c_string(
            &unsafe { handle(stats, "", "stats") }?.s.to_string(),
        ))
    })
}

/// Every ticker (counter) and histogram (summary) in the Prometheus text
/// exposition format, metric names `<prefix>_<rocksdb name with _>`; free
/// with `talus_free`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_statistics_to_prometheus(
    stats: *const talus_statistics_t,
    prefix: *const c_char,
    errptr: *mut *mut c_char,
) -> *mut c_char {
    const F: &str = "talus_statistics_to_prometheus";
    guard(F, errptr, std::ptr::null_mut(), || {
        // SAFETY: header conventions: `stats` is NULL or a live handle,
        // `prefix` NULL or a C string.
        let (s, p) = unsafe { (handle(stats, F, "stats")?, str_arg(prefix, F, "prefix")?) };
        Ok(c_string(&s.s.to_prometheus(p)))
    })
}

/// Zeroes every ticker and histogram.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_statistics_reset(
    stats: *const talus_statistics_t,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_statistics_reset";
    guard(F, errptr, (), || {
        // SAFETY: header conventions: `stats` is NULL or a live handle.
        unsafe { handle(stats, F, "stats") }?.s.reset();
        Ok(())
    })
}

// ---- perf context ----

/// Perf level: record nothing (every thread's default).
pub const TALUS_PERF_DISABLE: c_int = 1;
/// Perf level: counters only.
pub const TALUS_PERF_ENABLE_COUNT: c_int = 2;
/// Perf level: counters and the time user threads wait on the engine.
pub const TALUS_PERF_ENABLE_WAIT: c_int = 3;
/// Perf level: counters and every timer except the DB-mutex timers.
pub const TALUS_PERF_ENABLE_TIME_EXCEPT_FOR_MUTEX: c_int = 4;
/// Perf level: as `TALUS_PERF_ENABLE_TIME_EXCEPT_FOR_MUTEX` (no CPU timers).
pub const TALUS_PERF_ENABLE_TIME_AND_CPU_TIME_EXCEPT_FOR_MUTEX: c_int = 5;
/// Perf level: everything.
pub const TALUS_PERF_ENABLE_TIME: c_int = 6;

/// Which perf context `talus_perfcontext_read` reads: the calling thread's.
pub const TALUS_PERF_CONTEXT_THREAD: c_int = 0;
/// The calling thread's last operation (see
/// `talus_perfcontext_set_last_operation_enabled`).
pub const TALUS_PERF_CONTEXT_LAST_OPERATION: c_int = 1;
/// The process aggregate (threads add theirs with `talus_perfcontext_fold`).
pub const TALUS_PERF_CONTEXT_AGGREGATE: c_int = 2;

/// Sets the calling thread's perf level (`TALUS_PERF_*`, RocksDB's
/// `SetPerfLevel` values); other values are an error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_set_perf_level(level: c_int, errptr: *mut *mut c_char) {
    const F: &str = "talus_set_perf_level";
    guard(F, errptr, (), || {
        let l = u8::try_from(level)
            .ok()
            .and_then(PerfLevel::from_u8)
            .ok_or_else(|| invalid(F, format!("unknown perf level {level}")))?;
        pc::set_perf_level(l)
    })
}

/// The calling thread's perf level.
#[unsafe(no_mangle)]
pub extern "C" fn talus_get_perf_level() -> c_int {
    quiet("talus_get_perf_level", TALUS_PERF_DISABLE, || {
        Ok(c_int::from(pc::perf_level() as u8))
    })
}

/// Turns the calling thread's per-level breakdown (the `...@levelN`
/// metrics) on or off. Off by default.
#[unsafe(no_mangle)]
pub extern "C" fn talus_perfcontext_set_per_level_enabled(enabled: u8) {
    quiet("talus_perfcontext_set_per_level_enabled", (), || {
        pc::set_per_level_enabled(enabled != 0);
        Ok(())
    })
}

/// Turns the calling thread's last-operation record on or off. Off by
/// default.
#[unsafe(no_mangle)]
pub extern "C" fn talus_perfcontext_set_last_operation_enabled(enabled: u8) {
    quiet("talus_perfcontext_set_last_operation_enabled", (), || {
        pc::set_last_operation_enabled(enabled != 0);
        Ok(())
    })
}

/// Zeroes the calling thread's perf context (RocksDB `PerfContext::Reset`).
#[unsafe(no_mangle)]
pub extern "C" fn talus_perfcontext_reset() {
    quiet("talus_perfcontext_reset", (), || {
        pc::reset();
        Ok(())
    })
}

/// Adds the calling thread's context into the process aggregate.
#[unsafe(no_mangle)]
pub extern "C" fn talus_perfcontext_fold() {
    quiet("talus_perfcontext_fold", (), || {
        pc::fold_into_aggregate();
        Ok(())
    })
}

/// Zeroes the process aggregate.
#[unsafe(no_mangle)]
pub extern "C" fn talus_perfcontext_reset_aggregate() {
    quiet("talus_perfcontext_reset_aggregate", (), || {
        pc::reset_aggregate();
        Ok(())
    })
}

/// Number of perf-context metrics: `num_runs`, the RocksDB fields, then the
/// per-level fields `<field>@level<N>` (levels 0 to 6, then `7+`).
#[unsafe(no_mangle)]
pub extern "C" fn talus_perfcontext_metric_count() -> c_int {
    FLAT_LEN as c_int
}

/// Metric `i`'s name ("block_read_count", "bloom_filter_useful@level1"),
/// static; NULL out of range.
#[unsafe(no_mangle)]
pub extern "C" fn talus_perfcontext_metric_name(i: c_int) -> *const c_char {
    usize::try_from(i)
        .ok()
        .and_then(|i| perf_names().get(i))
        .map_or(std::ptr::null(), |n| n.as_ptr())
}

/// The number of the metric named `name`, -1 when there is none.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_perfcontext_metric_index(name: *const c_char) -> c_int {
    quiet("talus_perfcontext_metric_index", -1, || {
        // SAFETY: header conventions: `name` is NULL or a C string.
        let n = unsafe { str_arg(name, "", "name") }?;
        Ok(perf_names()
            .iter()
            .position(|m| m.to_bytes() == n.as_bytes())
            .map_or(-1, |i| i as c_int))
    })
}

fn context(func: &str, which: c_int) -> Result<PerfContext, Error> {
    match which {
        TALUS_PERF_CONTEXT_THREAD => Ok(pc::get()),
        TALUS_PERF_CONTEXT_LAST_OPERATION => Ok(pc::last_operation()),
        TALUS_PERF_CONTEXT_AGGREGATE => Ok(pc::aggregate()),
        _ => Err(invalid(func, format!("unknown perf context {which}"))),
    }
}

/// Copies every metric of context `which` (`TALUS_PERF_CONTEXT_*`) into
/// `values`, which holds `n` >= `talus_perfcontext_metric_count()` slots:
/// one call reads the whole context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_perfcontext_read(
    which: c_int,
    values: *mut u64,
    n: usize,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_perfcontext_read";
    guard(F, errptr, (), || {
        if n < FLAT_LEN {
            return Err(invalid(
                F,
                format!("values holds {n} slots, {FLAT_LEN} needed"),
            ));
        }
        let c = context(F, which)?;
        // SAFETY: header conventions: `values` holds `n` writable slots.
        let dst = unsafe { out_array(values, FLAT_LEN, F, "values") }?;
        dst.copy_from_slice(c.as_flat());
        Ok(())
    })
}

/// One metric (by number) of context `which`; 0 out of range.
#[unsafe(no_mangle)]
pub extern "C" fn talus_perfcontext_metric(which: c_int, i: c_int) -> u64 {
    quiet("talus_perfcontext_metric", 0, || {
        let c = context("", which)?;
        Ok(usize::try_from(i)
            .ok()
            .and_then(|i| c.as_flat().get(i).copied())
            .unwrap_or(0))
    })
}

/// Context `which` as RocksDB's one-line text (`name = value, ...`);
/// `exclude_zero` drops zero metrics. Free with `talus_free`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_perfcontext_report(
    which: c_int,
    exclude_zero: u8,
    errptr: *mut *mut c_char,
) -> *mut c_char {
    const F: &str = "talus_perfcontext_report";
    guard(F, errptr, std::ptr::null_mut(), || {
        Ok(c_string(&context(F, which)?.to_string(exclude_zero != 0)))
    })
}
