package dev.talus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

class RateLimiterTest {
  private static final long MIB = 1024 * 1024;

  @Test
  void shortConstructorsUseRocksJavaDefaults() {
    assertEquals(100_000L, RateLimiter.DEFAULT_REFILL_PERIOD_MICROS);
    assertEquals(10, RateLimiter.DEFAULT_FAIRNESS);
    assertSame(RateLimiterMode.WRITES_ONLY, RateLimiter.DEFAULT_MODE);
    assertFalse(RateLimiter.DEFAULT_AUTOTUNE);
    try (RateLimiter l = new RateLimiter(10_000_000)) {
      assertEquals(10_000_000, l.getBytesPerSecond());
      // One refill period's worth: 10 MB/s × 100 ms.
      assertEquals(1_000_000, l.getSingleBurstBytes());
      assertEquals(0, l.getTotalBytesThrough());
      assertEquals(0, l.getTotalRequests());
    }
    try (RateLimiter l = new RateLimiter(10_000_000, 50_000);
        RateLimiter l3 = new RateLimiter(10_000_000, 50_000, 5);
        RateLimiter l4 = new RateLimiter(10_000_000, 50_000, 5, RateLimiterMode.ALL_IO)) {
      assertEquals(500_000, l.getSingleBurstBytes());
      assertEquals(500_000, l3.getSingleBurstBytes());
      assertEquals(10_000_000, l4.getBytesPerSecond());
    }
  }

  @Test
  void autoTunedLimiterStartsAtHalfTheMaximum() {
    try (RateLimiter l =
        new RateLimiter(10_000_000, 100_000, 10, RateLimiterMode.WRITES_ONLY, true)) {
      assertEquals(5_000_000, l.getBytesPerSecond());
    }
  }

  @Test
  void sixArgumentConstructorAsTheSeedImporterWritesIt() {
    try (RateLimiter l =
        new RateLimiter(
            150 * MIB,
            10 * MIB, // refill period in microseconds (about 10 s)
            10,
            RateLimiter.RateLimiterMode.kWritesOnly,
            false,
            10 * MIB)) {
      assertEquals(150 * MIB, l.getBytesPerSecond());
      assertEquals(10 * MIB, l.getSingleBurstBytes());
    }
  }

  @Test
  void bothModeSpellingsNameTheSameConstants() {
    assertSame(RateLimiterMode.READS_ONLY, RateLimiter.RateLimiterMode.kReadsOnly);
    assertSame(RateLimiterMode.WRITES_ONLY, RateLimiter.RateLimiterMode.kWritesOnly);
    assertSame(RateLimiterMode.ALL_IO, RateLimiter.RateLimiterMode.kAllIo);
    assertSame(RateLimiterMode.WRITES_ONLY, RateLimiter.RateLimiterMode.WRITES_ONLY);
    assertSame(RateLimiterMode.WRITES_ONLY, RateLimiterMode.kWritesOnly);
    assertEquals(3, RateLimiterMode.values().length, "aliases are not extra constants");
    for (RateLimiterMode m : RateLimiterMode.values()) {
      assertSame(m, RateLimiterMode.getRateLimiterMode(m.getValue()));
      assertSame(m, RateLimiter.RateLimiterMode.getRateLimiterMode(m.getValue()));
    }
    assertEquals(0, RateLimiterMode.READS_ONLY.getValue());
    assertEquals(1, RateLimiterMode.WRITES_ONLY.getValue());
    assertEquals(2, RateLimiterMode.ALL_IO.getValue());
    assertThrows(IllegalArgumentException.class, () -> RateLimiterMode.getRateLimiterMode((byte) 3));
  }

  private static void assertRejects(String param, Executable make) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, make);
    assertTrue(e.getMessage().startsWith(param + " "), e.getMessage());
  }

  @Test
  void invalidArgumentsNameTheParameter() {
    assertRejects("rateBytesPerSecond", () -> new RateLimiter(0).close());
    assertRejects("rateBytesPerSecond", () -> new RateLimiter(-5).close());
    assertRejects("refillPeriodMicros", () -> new RateLimiter(1000, 0).close());
    assertRejects("fairness", () -> new RateLimiter(1000, 1000, 0).close());
    assertRejects(
        "singleBurstBytes",
        () -> new RateLimiter(1000, 1000, 1, RateLimiterMode.ALL_IO, false, -1).close());
    NullPointerException npe =
        assertThrows(NullPointerException.class, () -> new RateLimiter(1000, 1000, 1, null));
    assertTrue(npe.getMessage().contains("rateLimiterMode"), npe.getMessage());
    try (RateLimiter l = new RateLimiter(1000)) {
      assertRejects("bytesPerSecond", () -> l.setBytesPerSecond(0));
      assertRejects("bytes", () -> l.request(-1));
    }
  }

  @Test
  void setBytesPerSecondRoundTrips() {
    try (RateLimiter l = new RateLimiter(10_000_000)) {
      l.setBytesPerSecond(20_000_000);
      assertEquals(20_000_000, l.getBytesPerSecond());
      assertEquals(2_000_000, l.getSingleBurstBytes(), "the default burst follows the rate");
      l.setBytesPerSecond(Long.MAX_VALUE);
      assertEquals(Long.MAX_VALUE, l.getBytesPerSecond());
    }
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void requestsAreCountedInTotals() {
    // 100 MiB/s, 100 ms refills: a 10 MiB single burst.
    try (RateLimiter l = new RateLimiter(100 * MIB)) {
      long burst = l.getSingleBurstBytes();
      assertEquals(10 * MIB, burst);
      l.request(1000);
      assertEquals(1000, l.getTotalBytesThrough());
      assertEquals(1, l.getTotalRequests());
      l.request(0);
      assertEquals(1, l.getTotalRequests(), "0 bytes is not a request");
      // 25 MiB in three requests of at most one burst each; needs about two more refills.
      long start = System.nanoTime();
      l.request(burst);
      l.request(burst);
      l.request(5 * MIB);
      long elapsedMs = (System.nanoTime() - start) / 1_000_000;
      assertEquals(1000 + 25 * MIB, l.getTotalBytesThrough());
      assertEquals(4, l.getTotalRequests());
      assertTrue(elapsedMs >= 100, "waited for refills, took " + elapsedMs + " ms");
    }
  }

  /**
   * Regression: request(Long.MAX_VALUE) was split into single-burst pieces and blocked for
   * centuries; as in RocksDB, a request may not exceed the single burst.
   */
  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void requestsAboveTheSingleBurstAreRejectedNamingTheLimit() {
    try (RateLimiter l = new RateLimiter(10_000_000)) {
      long burst = l.getSingleBurstBytes();
      assertEquals(1_000_000, burst);
      for (long bytes : new long[] {Long.MAX_VALUE, burst + 1}) {
        IllegalArgumentException e =
            assertThrows(IllegalArgumentException.class, () -> l.request(bytes));
        assertTrue(e.getMessage().startsWith("bytes "), e.getMessage());
        assertTrue(e.getMessage().contains(Long.toString(burst)), e.getMessage());
        assertTrue(e.getMessage().contains(Long.toString(bytes)), e.getMessage());
      }
      assertEquals(0, l.getTotalRequests(), "a rejected request charges nothing");
      l.request(burst); // the limit itself is allowed
      assertEquals(burst, l.getTotalBytesThrough());
      // The default burst follows the rate.
      l.setBytesPerSecond(20_000_000);
      l.request(2_000_000);
      assertThrows(IllegalArgumentException.class, () -> l.request(2_000_001));
    }
    try (RateLimiter l =
        new RateLimiter(100 * MIB, 100_000, 10, RateLimiterMode.WRITES_ONLY, false, 4096)) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> l.request(4097));
      assertTrue(e.getMessage().contains("4096"), e.getMessage());
      l.request(4096);
      assertEquals(4096, l.getTotalBytesThrough());
    }
  }

  @Test
  void closedLimiterRejectsCallsAndCloseIsIdempotent() {
    RateLimiter l = new RateLimiter(1000);
    assertTrue(l.isOwningHandle());
    long handle = l.acquireShared();
    try {
      assertNotEquals(0, handle);
    } finally {
      l.releaseShared();
    }
    l.close();
    l.close();
    assertTrue(l.isClosed());
    assertFalse(l.isOwningHandle());
    for (Executable call :
        new Executable[] {
          l::getBytesPerSecond,
          l::getSingleBurstBytes,
          l::getTotalBytesThrough,
          l::getTotalRequests,
          () -> l.setBytesPerSecond(5),
          () -> l.request(1),
          l::acquireShared
        }) {
      IllegalStateException e = assertThrows(IllegalStateException.class, call);
      assertEquals("RateLimiter is closed", e.getMessage());
    }
  }
}
