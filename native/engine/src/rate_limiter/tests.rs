use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::policy::{self, Bucket, Rng};
use super::*;
use crate::fs::WritableFile;
use crate::statistics::{Statistics, Ticker};

const PERIOD: u64 = 100_000; // 100 ms
const RATE: u64 = 1_000_000; // 1 MB/s → 100 kB per refill
const QUOTA: u64 = 100_000;

fn config(rate: u64) -> RateLimiterConfig {
    RateLimiterConfig {
        refill_period_us: PERIOD,
        ..RateLimiterConfig::with_rate(rate)
    }
}

fn on_clock(config: RateLimiterConfig, clock: &Arc<ManualClock>, seed: u64) -> Arc<RateLimiter> {
    RateLimiter::with_clock(config, Arc::clone(clock) as Arc<dyn Clock>, seed).unwrap()
}

/// A limiter at `rate` with single burst `burst` (0: one refill), on `clock`.
fn with_burst(rate: u64, burst: u64, clock: &Arc<ManualClock>) -> Arc<RateLimiter> {
    let config = RateLimiterConfig {
        single_burst_bytes: burst,
        ..config(rate)
    };
    on_clock(config, clock, 5)
}

/// Polls `cond` until it holds; fails the test after 20 s.
fn wait_until(what: &str, cond: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_micros(100));
    }
}

// ---------------------------------------------------------------- pure policy

#[test]
fn refill_bytes_is_rate_times_period_at_least_one_never_overflowing() {
    assert_eq!(policy::refill_bytes(10 << 20, 100_000), 1 << 20);
    assert_eq!(policy::refill_bytes(RATE, PERIOD), QUOTA);
    assert_eq!(policy::refill_bytes(1, 1), 1);
    assert_eq!(policy::refill_bytes(u64::MAX, u64::MAX), u64::MAX);
    // The bulk-import preset: 150 MiB/s with a 10 Mi µs period.
    assert_eq!(
        policy::refill_bytes(150 << 20, 10 << 20),
        (150u128 << 20) as u64 * (10 << 20) / 1_000_000
    );
}

#[test]
fn tuned_rate_follows_the_drain_table() {
    let max = 100_000;
    // (rate, drains, periods, expected)
    let cases = [
        (50_000, 0, 100, 5_000),     // nobody waited: the floor, max / 20
        (50_000, 1, 100, 47_619),    // 1%: ÷ 1.05
        (50_000, 49, 100, 47_619),   // 49%
        (5_000, 10, 100, 5_000),     // ÷ 1.05, but not below the floor
        (50_000, 50, 100, 50_000),   // 50–90%: unchanged
        (50_000, 45, 50, 50_000),    // 90%
        (50_000, 91, 100, 52_500),   // > 90%: × 1.05
        (50_000, 100, 101, 52_500),  // 99% (integer percent)
        (99_000, 100, 100, 100_000), // capped at max
    ];
    for (rate, drains, periods, want) in cases {
        assert_eq!(
            policy::tuned_rate(rate, max, drains, periods),
            want,
            "rate {rate} drains {drains}/{periods}"
        );
    }
    assert_eq!(policy::tuned_rate(10, 10, 0, 100), 1, "floor is at least 1");
}

#[test]
fn service_order_puts_user_first_and_low_first_one_time_in_fairness() {
    for fairness in [1u32, 2, 10, 100, 1000] {
        let mut rng = Rng::new(42);
        let draws = 100_000;
        let mut low_first = 0;
        for _ in 0..draws {
            let order = policy::service_order(fairness, &mut rng);
            assert_eq!(order[0], IoPriority::User);
            if order[1] == IoPriority::Low {
                low_first += 1;
            }
        }
        let expected = draws as f64 / f64::from(fairness.min(policy::MAX_FAIRNESS));
        let share = f64::from(low_first);
        assert!(
            (share - expected).abs() <= expected * 0.1 + 10.0,
            "fairness {fairness}: low first {low_first} times of {draws}, expected ~{expected}"
        );
    }
}

#[test]
fn bucket_grants_fifo_within_a_priority_with_one_partial_grant_per_refill() {
    let mut b: Bucket<u32> = Bucket::new(QUOTA, 0, 7);
    // First request: nothing available yet, so it queues.
    assert_eq!(b.take(IoPriority::High, 60_000), 60_000);
    b.enqueue(IoPriority::High, 60_000, 1);
    assert_eq!(b.take(IoPriority::High, 30_000), 30_000);
    b.enqueue(IoPriority::High, 30_000, 2);
    assert_eq!(b.take(IoPriority::High, 50_000), 50_000);
    b.enqueue(IoPriority::High, 50_000, 3);
    let mut granted = vec![];
    b.refill(0, PERIOD, 1_000_000, |_, w| granted.push(w));
    // 60k + 30k granted, 10k of the third's 50k.
    assert_eq!(granted, vec![1, 2]);
    assert_eq!(b.available(), 0);
    assert_eq!(b.bytes_through[IoPriority::High as usize], 100_000);
    assert_eq!(b.next_refill_us, PERIOD);
    b.refill(PERIOD, PERIOD, 1_000_000, |_, w| granted.push(w));
    assert_eq!(granted, vec![1, 2, 3]);
    assert_eq!(b.available(), 60_000, "40k of the refill went to request 3");
    assert_eq!(b.requests[IoPriority::High as usize], 3);
    // Leftover tokens serve the next request at once...
    assert_eq!(b.take(IoPriority::Low, 10_000), 0);
    // ...but do not accumulate: a late refill resets to one period's worth,
    // and schedules from now when more than a period late.
    assert_eq!(b.take(IoPriority::Low, 100_000), 50_000);
    b.enqueue(IoPriority::Low, 50_000, 4);
    b.refill(10 * PERIOD, PERIOD, 1_000_000, |_, w| granted.push(w));
    assert_eq!(b.available(), 50_000);
    assert_eq!(b.next_refill_us, 11 * PERIOD);
}

#[test]
fn bucket_refill_late_by_less_than_a_period_keeps_the_schedule() {
    let mut b: Bucket<u32> = Bucket::new(QUOTA, 0, 7);
    b.refill(0, PERIOD, 10, |_, _| {});
    b.refill(PERIOD + 30_000, PERIOD, 10, |_, _| {});
    assert_eq!(b.next_refill_us, 2 * PERIOD, "wake-up latency is not lost");
}

#[test]
fn refill_interval_is_the_period_up_to_a_tenth_of_a_second() {
    for (period, interval) in [
        (1, 1),
        (1_000, 1_000),
        (100_000, 100_000),
        (100_001, 100_000),
        (10 * 1024 * 1024, 100_000),
    ] {
        assert_eq!(
            policy::refill_interval_us(period),
            interval,
            "period {period}"
        );
    }
}

#[test]
fn bucket_with_a_long_period_adds_one_interval_per_refill_up_to_a_period() {
    // 1 MB/s, a 10 s period refilled every 100 ms: 100 kB per refill, at most 10 MB held.
    let (interval, cap, tick) = (PERIOD, 10_000_000, 100_000);
    let mut b: Bucket<u32> = Bucket::with_interval(cap, tick, 0, 7);
    assert_eq!(b.take(IoPriority::High, 12_000_000), 12_000_000);
    b.enqueue(IoPriority::High, 12_000_000, 1);
    let mut granted = vec![];
    // The first refill fills the bucket: a period's burst passes.
    b.refill(0, interval, 10, |_, w| granted.push(w));
    assert_eq!(b.bytes_through[IoPriority::High as usize], cap);
    // Then one interval's worth per refill, not a period's.
    b.refill(interval, interval, 10, |_, w| granted.push(w));
    assert_eq!(b.bytes_through[IoPriority::High as usize], cap + tick);
    // Late by 5 intervals: 5 intervals' worth (the time was not lost)...
    b.refill(6 * interval, interval, 10, |_, w| granted.push(w));
    assert_eq!(b.bytes_through[IoPriority::High as usize], cap + 6 * tick);
    assert_eq!(b.next_refill_us, 7 * interval);
    // ...and an idle hour still adds no more than one period's worth.
    b.refill(3_600_000_000, interval, 10, |_, w| granted.push(w));
    assert_eq!(granted, vec![1]);
    assert_eq!(b.available(), cap - (12_000_000 - cap - 6 * tick));
}

#[test]
fn bucket_serves_low_about_one_refill_in_fairness_under_contention() {
    for (fairness, seed) in [(2, 1u64), (5, 2), (10, 3)] {
        let mut b: Bucket<IoPriority> = Bucket::new(QUOTA, 0, seed);
        // Keep three quota-sized requests queued at both priorities.
        for _ in 0..3 {
            for pri in [IoPriority::High, IoPriority::Low] {
                let missing = b.take(pri, QUOTA);
                b.enqueue(pri, missing, pri);
            }
        }
        let refills = 10_000;
        let mut low = 0u64;
        for i in 0..refills {
            let mut again = vec![];
            b.refill(i * PERIOD, PERIOD, fairness, |pri, w| {
                assert_eq!(pri, w);
                again.push(pri);
            });
            assert_eq!(again.len(), 1, "one quota-sized request per refill");
            if again[0] == IoPriority::Low {
                low += 1;
            }
            let missing = b.take(again[0], QUOTA);
            b.enqueue(again[0], missing, again[0]);
        }
        let expected = refills / u64::from(fairness);
        assert!(
            low.abs_diff(expected) <= expected / 10,
            "fairness {fairness}: low got {low} of {refills} refills, expected ~{expected}"
        );
    }
}

// ------------------------------------------------------------------ mechanism

#[test]
fn construction_validates_and_reports_its_settings() {
    let bad = [
        (config(0), "rate_bytes_per_sec"),
        (
            RateLimiterConfig {
                refill_period_us: 0,
                ..config(RATE)
            },
            "refill_period_us",
        ),
        (
            RateLimiterConfig {
                fairness: 0,
                ..config(RATE)
            },
            "fairness",
        ),
    ];
    for (c, param) in bad {
        let err = RateLimiter::from_config(c).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidArgument(m) if m.starts_with(param)),
            "{err}"
        );
    }
    let l = RateLimiter::new(RATE, PERIOD, 500, RateLimiterMode::AllIo, false, 0).unwrap();
    assert_eq!(l.bytes_per_second(), RATE);
    assert_eq!(l.max_bytes_per_second(), RATE);
    assert_eq!(l.single_burst_bytes(), QUOTA, "0 means one refill's worth");
    assert_eq!(l.fairness(), 100, "capped");
    assert_eq!(l.mode(), RateLimiterMode::AllIo);
    assert_eq!(l.refill_period_us(), PERIOD);
    assert!(!l.auto_tune());
    let l = RateLimiter::new(RATE, PERIOD, 10, RateLimiterMode::WritesOnly, true, 4096).unwrap();
    assert_eq!(l.bytes_per_second(), RATE / 2, "auto-tune starts at half");
    assert_eq!(l.max_bytes_per_second(), RATE);
    assert_eq!(l.single_burst_bytes(), 4096);
    assert_eq!(
        RateLimiterMode::from_byte(1),
        Some(RateLimiterMode::WritesOnly)
    );
    assert_eq!(RateLimiterMode::from_byte(3), None);
}

#[test]
fn token_arithmetic_on_a_simulated_clock_is_exact() {
    let clock = Arc::new(ManualClock::auto_advance(0));
    let l = on_clock(config(RATE), &clock, 1);
    // The first refill is due at creation: 50k pass at once, 50k are left.
    l.request(50_000, IoPriority::High, OpType::Write);
    assert_eq!(clock.now_micros(), 0);
    // 150k: two chunks (burst = 100k). The first takes the 50k left and waits
    // one period for 50k more; the second takes the remaining 50k.
    l.request(150_000, IoPriority::High, OpType::Write);
    assert_eq!(clock.now_micros(), PERIOD);
    assert_eq!(l.total_bytes_through(None), 200_000);
    assert_eq!(l.total_requests(Some(IoPriority::High)), 3);
    assert_eq!(l.total_drains(), 1);
    // Random-sized demand from one thread: the clock ends exactly where the
    // token budget says, and never lets more than one refill per period pass.
    let mut rng = Rng::new(99);
    let mut demanded = 200_000;
    for _ in 0..2_000 {
        let n = 1 + rng.next_u64() % 250_000;
        l.request(n, IoPriority::Low, OpType::Write);
        demanded += n;
        let now = clock.now_micros();
        let through = l.total_bytes_through(None);
        assert_eq!(through, demanded);
        assert!(
            through <= QUOTA * (1 + now / PERIOD),
            "{through} by t={now}"
        );
    }
    // Every byte after the first refill's needed one more refill (all periods
    // were used in full, with leftovers carried into the next request).
    let refills_used = demanded.div_ceil(QUOTA);
    assert_eq!(clock.now_micros(), (refills_used - 1) * PERIOD);
}

/// The appends a [`RecordingFile`] saw: (clock time, length).
type Appends = Arc<Mutex<Vec<(u64, usize)>>>;

/// Records what reaches the wrapped file, with the clock time of each append.
struct RecordingFile {
    clock: Arc<ManualClock>,
    appends: Appends,
    len: u64,
}

impl RecordingFile {
    /// An empty file on `clock`, and the list its appends are recorded in.
    fn on(clock: &Arc<ManualClock>) -> (Self, Appends) {
        let appends = Arc::new(Mutex::new(vec![]));
        let file = RecordingFile {
            clock: Arc::clone(clock),
            appends: Arc::clone(&appends),
            len: 0,
        };
        (file, appends)
    }
}

impl WritableFile for RecordingFile {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        self.appends
            .lock()
            .push((self.clock.now_micros(), data.len()));
        self.len += data.len() as u64;
        Ok(())
    }
    fn flush(&mut self) -> Result<()> {
        Ok(())
    }
    fn sync(&mut self) -> Result<()> {
        Ok(())
    }
    fn len(&self) -> u64 {
        self.len
    }
}

#[test]
fn requests_larger_than_the_burst_are_split_and_never_exceed_a_refill() {
    for burst in [0, 30_000, 100_000, 250_000] {
        let clock = Arc::new(ManualClock::auto_advance(0));
        let l = with_burst(RATE, burst, &clock);
        let (inner, appends) = RecordingFile::on(&clock);
        let stats = Statistics::new();
        let mut f = RateLimitedFile::new(Box::new(inner), Arc::clone(&l), IoPriority::Low)
            .with_statistics(Some(Arc::clone(&stats)));
        f.append(&vec![7u8; 1_000_000]).unwrap();
        f.append(&[1u8; 10]).unwrap();
        let effective = if burst == 0 { QUOTA } else { burst };
        assert!(
            f.owed() < effective,
            "less than a unit waits for the next charge"
        );
        f.flush().unwrap();
        assert_eq!(f.owed(), 0);
        assert_eq!(f.len(), 1_000_010);
        let appends = appends.lock();
        assert!(appends.iter().all(|&(_, n)| n as u64 <= effective));
        assert_eq!(
            l.total_requests(None),
            1_000_010u64.div_ceil(effective),
            "burst {burst}"
        );
        // Bytes that reached the file by the end of each period never exceed
        // the refills so far, but for the last charge unit (appended before
        // its grant: here the 10 bytes, charged by the flush).
        let mut cumulative = 0u64;
        for &(t, n) in appends.iter() {
            cumulative += n as u64;
            assert!(
                cumulative <= QUOTA * (1 + t / PERIOD) + effective.min(CHARGE_UNIT),
                "burst {burst}: {cumulative} by t={t}"
            );
        }
        assert_eq!(l.total_bytes_through(Some(IoPriority::Low)), 1_000_010);
        assert_eq!(
            stats.ticker_count(Ticker::NumberRateLimiterDrains),
            l.total_drains()
        );
        assert!(l.total_drains() >= 9);
    }
}

#[test]
fn requests_outside_the_mode_pass_through_uncounted() {
    for (mode, limited_read, limited_write) in [
        (RateLimiterMode::WritesOnly, false, true),
        (RateLimiterMode::ReadsOnly, true, false),
        (RateLimiterMode::AllIo, true, true),
    ] {
        let clock = Arc::new(ManualClock::auto_advance(0));
        let l = on_clock(
            RateLimiterConfig {
                mode,
                ..config(RATE)
            },
            &clock,
            3,
        );
        assert_eq!(l.is_rate_limited(OpType::Read), limited_read);
        assert_eq!(l.is_rate_limited(OpType::Write), limited_write);
        l.request(10 * QUOTA, IoPriority::Low, OpType::Read);
        l.request(10 * QUOTA, IoPriority::Low, OpType::Write);
        let counted = u64::from(limited_read) + u64::from(limited_write);
        assert_eq!(
            l.total_bytes_through(None),
            counted * 10 * QUOTA,
            "{mode:?}"
        );
        assert_eq!(l.total_requests(None), counted * 10, "{mode:?}");
        // Only charged bytes cost time.
        let periods = if counted == 0 { 0 } else { counted * 10 - 1 };
        assert_eq!(clock.now_micros(), periods * PERIOD, "{mode:?}");
        // request_any ignores the mode (RocksJava's request(long)).
        l.request_any(10, IoPriority::High);
        assert_eq!(l.total_requests(Some(IoPriority::High)), 1);
    }
    let l = RateLimiter::new(RATE, PERIOD, 10, RateLimiterMode::WritesOnly, false, 0).unwrap();
    l.request(0, IoPriority::High, OpType::Write);
    assert_eq!(l.total_requests(None), 0, "0 bytes is not a request");
}

#[test]
fn set_bytes_per_second_changes_the_next_refills() {
    let clock = Arc::new(ManualClock::auto_advance(0));
    let l = on_clock(config(RATE), &clock, 11);
    l.request(QUOTA, IoPriority::High, OpType::Write); // first refill, t = 0
    l.set_bytes_per_second(2 * RATE).unwrap();
    assert_eq!(l.bytes_per_second(), 2 * RATE);
    assert_eq!(
        l.single_burst_bytes(),
        2 * QUOTA,
        "the default burst follows the rate"
    );
    l.request(10 * QUOTA, IoPriority::High, OpType::Write);
    assert_eq!(clock.now_micros(), 5 * PERIOD, "200 kB per refill now");
    assert!(matches!(
        l.set_bytes_per_second(0),
        Err(Error::InvalidArgument(m)) if m.starts_with("bytes_per_second")
    ));
    // A configured burst does not follow the rate.
    let l = on_clock(
        RateLimiterConfig {
            single_burst_bytes: 5_000,
            ..config(RATE)
        },
        &clock,
        11,
    );
    l.set_bytes_per_second(3 * RATE).unwrap();
    assert_eq!(l.single_burst_bytes(), 5_000);
}

#[test]
fn set_bytes_per_second_reaches_requests_already_waiting() {
    // Manual clock: the waiters block until the test moves time.
    let clock = Arc::new(ManualClock::new(0));
    let l = on_clock(config(RATE), &clock, 12);
    l.request(QUOTA, IoPriority::High, OpType::Write); // uses the first refill
    let waiters: Vec<_> = (0..2)
        .map(|_| {
            let l = Arc::clone(&l);
            std::thread::spawn(move || l.request(QUOTA, IoPriority::High, OpType::Write))
        })
        .collect();
    wait_until("two queued requests", || l.queued(IoPriority::High) == 2);
    l.set_bytes_per_second(2 * RATE).unwrap();
    clock.advance(PERIOD);
    // One refill of 200 kB grants both.
    for w in waiters {
        w.join().unwrap();
    }
    assert_eq!(l.total_bytes_through(None), 3 * QUOTA);
    assert_eq!(clock.now_micros(), PERIOD);
}

#[test]
fn user_then_high_then_low_when_fairness_never_fires() {
    let clock = Arc::new(ManualClock::new(0));
    let l = on_clock(
        RateLimiterConfig {
            fairness: 100,
            ..config(RATE)
        },
        &clock,
        // A seed whose first draws do not pick "low first" at fairness 100.
        (0..)
            .find(|&s| {
                let mut r = Rng::new(s);
                (0..4).all(|_| !r.one_in(100))
            })
            .unwrap(),
    );
    l.request(QUOTA, IoPriority::High, OpType::Write); // uses the first refill
    let order = Arc::new(Mutex::new(vec![]));
    let mut threads = vec![];
    for pri in [IoPriority::Low, IoPriority::High, IoPriority::User] {
        let (l2, order) = (Arc::clone(&l), Arc::clone(&order));
        threads.push(std::thread::spawn(move || {
            l2.request(QUOTA, pri, OpType::Write);
            order.lock().push(pri);
        }));
        wait_until("the request to queue", || l.queued(pri) == 1);
    }
    for n in 1..=3 {
        clock.advance(PERIOD);
        wait_until("a grant", || order.lock().len() == n);
    }
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(
        *order.lock(),
        [IoPriority::User, IoPriority::High, IoPriority::Low]
    );
}

#[test]
fn low_priority_threads_get_about_one_refill_in_fairness() {
    const FAIRNESS: i32 = 4;
    const PER_PRIORITY: usize = 3;
    const REFILLS: u64 = 400;
    let clock = Arc::new(ManualClock::new(0));
    let l = on_clock(
        RateLimiterConfig {
            fairness: FAIRNESS,
            ..config(RATE)
        },
        &clock,
        2024,
    );
    let stop = Arc::new(AtomicBool::new(false));
    let threads: Vec<_> = [IoPriority::High, IoPriority::Low]
        .into_iter()
        .flat_map(|pri| std::iter::repeat_n(pri, PER_PRIORITY))
        .map(|pri| {
            let (l, stop) = (Arc::clone(&l), Arc::clone(&stop));
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    l.request(QUOTA, pri, OpType::Write);
                }
            })
        })
        .collect();
    let all_queued =
        || l.queued(IoPriority::High) == PER_PRIORITY && l.queued(IoPriority::Low) == PER_PRIORITY;
    wait_until("every thread to queue", all_queued);
    let (low0, high0) = (
        l.total_bytes_through(Some(IoPriority::Low)),
        l.total_bytes_through(Some(IoPriority::High)),
    );
    for _ in 0..REFILLS {
        let before = l.total_bytes_through(None);
        clock.advance(PERIOD);
        wait_until("one grant and everyone queued again", || {
            l.total_bytes_through(None) == before + QUOTA && all_queued()
        });
    }
    let low = (l.total_bytes_through(Some(IoPriority::Low)) - low0) / QUOTA;
    let high = (l.total_bytes_through(Some(IoPriority::High)) - high0) / QUOTA;
    assert_eq!(low + high, REFILLS);
    let expected = REFILLS / FAIRNESS as u64;
    eprintln!("fairness {FAIRNESS}: low priority got {low} of {REFILLS} contended refills");
    assert!(
        low.abs_diff(expected) <= expected * 3 / 10,
        "low got {low} of {REFILLS} grants, expected ~{expected}"
    );
    stop.store(true, Ordering::Relaxed);
    let mut threads = threads;
    while !threads.is_empty() {
        clock.advance(PERIOD);
        std::thread::sleep(Duration::from_millis(1));
        threads.retain(|t| !t.is_finished());
    }
}

#[test]
fn auto_tune_moves_between_a_twentieth_and_the_maximum() {
    let clock = Arc::new(ManualClock::auto_advance(0));
    let max = 10 * RATE;
    let l = on_clock(
        RateLimiterConfig {
            auto_tune: true,
            ..config(max)
        },
        &clock,
        8,
    );
    assert_eq!(l.bytes_per_second(), max / 2);
    // Constant demand: every period drains, so every 100 periods the rate
    // grows 5% until it reaches the maximum.
    let mut last = l.bytes_per_second();
    let mut rates = vec![];
    while clock.now_micros() < 3_000 * PERIOD {
        l.request(l.single_burst_bytes(), IoPriority::Low, OpType::Write);
        let r = l.bytes_per_second();
        assert!(r >= last && r <= max, "{last} -> {r}");
        if r != last {
            rates.push(r);
            last = r;
        }
    }
    assert_eq!(rates.first(), Some(&(max / 2 * 105 / 100)));
    assert_eq!(last, max, "reaches the maximum: {rates:?}");
    // Idle: the window since the last tune (100 drained periods, 200 idle)
    // drained 33%: one step down.
    clock.advance(200 * PERIOD);
    l.request(1, IoPriority::Low, OpType::Write);
    assert_eq!(l.bytes_per_second(), max * 100 / 105);
    // A whole window without a drain drops it to the floor.
    clock.advance(200 * PERIOD);
    l.request(1, IoPriority::Low, OpType::Write);
    assert_eq!(l.bytes_per_second(), max / 20);
    // A new maximum clamps the current rate into its range.
    l.set_bytes_per_second(max / 100).unwrap();
    assert_eq!(l.max_bytes_per_second(), max / 100);
    assert_eq!(l.bytes_per_second(), max / 100);
    l.set_bytes_per_second(max).unwrap();
    assert_eq!(l.bytes_per_second(), max / 20, "raised to the new floor");
    l.set_bytes_per_second(max * 100).unwrap();
    assert_eq!(l.bytes_per_second(), max * 5, "raised to the new floor");
}

/// The rate contract in real time: several "compaction" threads writing at
/// low priority through one limiter get no more than the configured rate
/// (10% slack) over a 10-second window, and had to wait for refills. The
/// rate achieved is printed; that it comes close to the target is the
/// manual-clock tests' business, not a wall-clock assertion's.
#[test]
fn compaction_heavy_load_is_held_to_the_configured_rate() {
    const TARGET: u64 = 20 << 20;
    const WINDOW: Duration = Duration::from_secs(10);
    let l = RateLimiter::new(
        TARGET,
        DEFAULT_REFILL_PERIOD_US,
        DEFAULT_FAIRNESS,
        RateLimiterMode::WritesOnly,
        false,
        0,
    )
    .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let (l, stop) = (Arc::clone(&l), Arc::clone(&stop));
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    l.request(256 << 10, IoPriority::Low, OpType::Write);
                }
            })
        })
        .collect();
    // Skip the start-up burst (one refill's worth passes at once).
    std::thread::sleep(Duration::from_millis(300));
    let (t0, b0) = (Instant::now(), l.total_bytes_through(None));
    std::thread::sleep(WINDOW);
    let (t1, b1) = (Instant::now(), l.total_bytes_through(None));
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().unwrap();
    }
    let achieved = (b1 - b0) as f64 / (t1 - t0).as_secs_f64();
    let target = TARGET as f64;
    eprintln!(
        "rate limiter: achieved {:.2} MiB/s for a target of {:.2} MiB/s ({:+.2}%)",
        achieved / f64::from(1 << 20),
        target / f64::from(1 << 20),
        100.0 * (achieved - target) / target
    );
    // Only the bound the limiter promises is asserted: a loaded machine can
    // keep the threads from asking for the whole rate (this test once saw
    // 17.8 MiB/s of 20 while other builds ran), never push them above it.
    assert!(
        achieved <= 1.1 * target,
        "achieved {achieved:.0} B/s, above the target {target:.0} B/s"
    );
    assert!(l.total_drains() > 50, "the threads had to wait for refills");
}

#[test]
fn regression_a_drained_ten_second_limiter_grants_a_small_write_in_a_tenth_of_a_second() {
    // An importer's limiter: refill period 10 * 1024 * 1024 µs. Refilled
    // once per period, a flush arriving just after the bucket drained waited
    // up to 10.5 s for its first byte, and stopped writers waited behind it.
    let clock = Arc::new(ManualClock::auto_advance(0));
    let period = 10 * 1024 * 1024;
    let l = on_clock(
        RateLimiterConfig {
            refill_period_us: period,
            single_burst_bytes: 1 << 20,
            ..RateLimiterConfig::with_rate(RATE)
        },
        &clock,
        1,
    );
    let burst = policy::refill_bytes(RATE, period);
    // A compaction takes the whole period's burst at once...
    l.request(burst, IoPriority::Low, OpType::Write);
    assert_eq!(clock.now_micros(), 0);
    // ...and a flush's 50 kB then waits one 100 ms refill, not 10.5 s.
    l.request(50_000, IoPriority::High, OpType::Write);
    assert_eq!(clock.now_micros(), 100_000);
    // The long run still follows the rate: 60 s of demand from one thread
    // pass in 60 s less the burst's head start, never faster.
    let mut rng = Rng::new(5);
    let mut demanded = burst + 50_000;
    while clock.now_micros() < 60_000_000 {
        let n = 1 + rng.next_u64() % 300_000;
        l.request(n, IoPriority::Low, OpType::Write);
        demanded += n;
        let now = clock.now_micros();
        assert!(
            demanded <= burst + RATE * now / 1_000_000,
            "{demanded} bytes by t={now} µs"
        );
    }
    assert!(
        demanded + RATE / 10 + 300_000 > burst + RATE * 60,
        "the rate was not reached: {demanded}"
    );
}

#[test]
fn a_priority_fn_decides_each_charge() {
    use std::sync::atomic::AtomicU8;
    let clock = Arc::new(ManualClock::auto_advance(0));
    let l = on_clock(config(RATE), &clock, 1);
    let raised = Arc::new(AtomicU8::new(0));
    let flag = Arc::clone(&raised);
    let (inner, appends) = RecordingFile::on(&clock);
    let mut f = RateLimitedFile::new(Box::new(inner), Arc::clone(&l), IoPriority::Low)
        .with_priority_fn(Box::new(move || {
            if flag.load(Ordering::Relaxed) == 0 {
                IoPriority::High
            } else {
                IoPriority::User
            }
        }));
    f.append(&[1; 1000]).unwrap();
    f.flush().unwrap();
    assert_eq!(f.priority(), IoPriority::High);
    raised.store(1, Ordering::Relaxed);
    f.append(&[2; 3000]).unwrap();
    f.sync().unwrap();
    assert_eq!(f.priority(), IoPriority::User);
    assert_eq!(l.total_bytes_through(Some(IoPriority::High)), 1000);
    assert_eq!(l.total_bytes_through(Some(IoPriority::User)), 3000);
    assert_eq!(
        l.total_bytes_through(Some(IoPriority::Low)),
        0,
        "the fixed priority is unused"
    );
    assert_eq!(appends.lock().len(), 2);
}

#[test]
fn regression_block_sized_appends_are_charged_a_unit_at_a_time() {
    // A table is appended a block at a time. Charged per block, a flush
    // beside four compactions got one request in five whatever its priority,
    // and crawled while writes were stopped waiting for it.
    for (burst, unit) in [(0, QUOTA), (30_000, 30_000), (5 << 20, CHARGE_UNIT)] {
        let clock = Arc::new(ManualClock::auto_advance(0));
        let rate = if burst > QUOTA { 100 * RATE } else { RATE };
        let l = with_burst(rate, burst, &clock);
        let (inner, appends) = RecordingFile::on(&clock);
        let mut f = RateLimitedFile::new(Box::new(inner), Arc::clone(&l), IoPriority::Low);
        let total = 3 * unit + 1234;
        let mut appended = 0;
        while appended < total {
            let n = (total - appended).min(4096);
            f.append(&vec![3u8; n as usize]).unwrap();
            appended += n;
            assert!(f.owed() < unit, "at most one unit ahead of its grant");
        }
        // One charge per unit (each a request, or two when the block that
        // completed the unit took it past the single burst) — not per block.
        let charged = l.total_requests(None);
        assert!(
            (3..=6).contains(&charged),
            "burst {burst}: {charged} requests"
        );
        assert_eq!(l.total_bytes_through(None), total - f.owed());
        f.sync().unwrap();
        assert!(l.total_requests(None) > charged, "sync charges the rest");
        assert_eq!(l.total_bytes_through(Some(IoPriority::Low)), total);
        assert_eq!(appends.lock().len() as u64, total.div_ceil(4096));
    }
}

#[test]
fn regression_a_flush_asks_for_a_whole_refill_so_its_priority_buys_the_refill() {
    // 100 MB/s, 100 ms refills: 10 MB per refill, burst 10 MB.
    let clock = Arc::new(ManualClock::auto_advance(0));
    let l = on_clock(config(100 * RATE), &clock, 5);
    assert_eq!(l.refill_interval_bytes(), 10_000_000);
    let total = 30_000_000u64;
    for pri in [IoPriority::High, IoPriority::User, IoPriority::Low] {
        let (inner, _) = RecordingFile::on(&clock);
        let mut f = RateLimitedFile::new(Box::new(inner), Arc::clone(&l), pri);
        for _ in 0..total / 4096 {
            f.append(&[9u8; 4096]).unwrap();
        }
        f.sync().unwrap();
        let requests = l.total_requests(Some(pri));
        if pri == IoPriority::Low {
            // Compaction output: 1 MiB at a time.
            assert!(
                (28..=30).contains(&requests),
                "{pri:?}: {requests} requests"
            );
        } else {
            // A whole refill at a time (a unit that ends past the burst is
            // two requests): with one request in the queue at a time, that
            // is what lets priority take the refill.
            assert!((3..=6).contains(&requests), "{pri:?}: {requests} requests");
        }
    }
}

#[test]
fn block_reads_are_charged_a_unit_ahead_per_thread_and_limiter() {
    let clock = Arc::new(ManualClock::auto_advance(0));
    let cfg = |mode| RateLimiterConfig {
        mode,
        ..config(100 * RATE)
    };
    let low: SharedPriorityFn = Arc::new(|| IoPriority::Low);
    // A writes-only limiter charges no reads: no charger at all.
    let w = on_clock(cfg(RateLimiterMode::WritesOnly), &clock, 5);
    assert!(ReadCharger::new(w, Arc::clone(&low), None).is_none());

    let a = on_clock(cfg(RateLimiterMode::ReadsOnly), &clock, 5);
    let b = on_clock(cfg(RateLimiterMode::AllIo), &clock, 5);
    let ca = ReadCharger::new(Arc::clone(&a), Arc::clone(&low), None).unwrap();
    let cb = ReadCharger::new(Arc::clone(&b), Arc::clone(&low), None).unwrap();
    // 256 blocks of 4 KiB are one unit: one request, made by the first read.
    ca.charge(4096);
    assert_eq!(a.total_bytes_through(Some(IoPriority::Low)), CHARGE_UNIT);
    for _ in 1..256 {
        ca.charge(4096);
    }
    assert_eq!(a.total_requests(None), 1);
    // The 257th asks for the next unit.
    ca.charge(4096);
    assert_eq!(a.total_bytes_through(None), 2 * CHARGE_UNIT);
    // Credit from `a` is not spent on `b`'s reads, and a read larger than a
    // unit is granted whole.
    cb.charge(3 * CHARGE_UNIT);
    assert_eq!(b.total_bytes_through(None), 3 * CHARGE_UNIT);
    assert_eq!(b.total_requests(None), 1);
    // Another thread has its own credit.
    std::thread::scope(|s| {
        s.spawn(|| ca.charge(10));
    });
    assert_eq!(a.total_bytes_through(None), 3 * CHARGE_UNIT);
}
