package dev.talus.kafka;

import dev.talus.FlushOptions;
import dev.talus.TalusDB;
import dev.talus.TalusException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One memtable budget for many Talus stores, the role RocksDB's {@code WriteBufferManager} plays
 * for Kafka Streams' bounded-memory configuration (Talus has no write-buffer manager in the
 * engine yet, so the stores enforce it). Hand the same instance to every store from {@link
 * TalusConfigSetter#writeBufferBudget(String, java.util.Map)} (a static field of the setter).
 *
 * <p>How it is kept: each store reads its memtable bytes ({@code
 * rocksdb.cur-size-all-mem-tables}) after every {@link #SAMPLE_BYTES} of writes and reports them
 * here; when the sum over the stores exceeds the budget, the store with the most memtable bytes is
 * flushed, on the writing thread, waiting for the flush (a bounded pause instead of unbounded
 * memory). So usage can exceed the budget by at most {@link #SAMPLE_BYTES} per store plus the
 * memtable being written by the flush. Each store's own {@code writeBufferSize} still applies.
 *
 * <p>Thread-safe: stores of different stream threads share one budget.
 */
public final class WriteBufferBudget {
  /** Writes between two reads of a store's memtable size, in bytes. */
  public static final long SAMPLE_BYTES = 64 * 1024;

  private final long limit;
  private final AtomicLong usage = new AtomicLong();
  private final AtomicLong flushes = new AtomicLong();
  private final Set<Account> accounts = ConcurrentHashMap.newKeySet();

  /**
   * @param bytes the memtable bytes all stores together may hold; positive
   */
  public WriteBufferBudget(long bytes) {
    if (bytes <= 0) {
      throw new IllegalArgumentException("write buffer budget must be positive: " + bytes);
    }
    this.limit = bytes;
  }

  /** @return the budget in bytes */
  public long limit() {
    return limit;
  }

  /** @return the memtable bytes of the registered stores, as last sampled */
  public long usage() {
    return usage.get();
  }

  /** @return how many flushes the budget forced so far */
  public long forcedFlushes() {
    return flushes.get();
  }

  Account register(String storeName, TalusDB db) {
    Account a = new Account(storeName, db);
    accounts.add(a);
    return a;
  }

  /** One store's share; used by the store's writing thread only, except {@link #flush()}. */
  final class Account {
    private final String storeName;
    private final TalusDB db;
    private volatile long sampled;
    private long sinceSample;

    Account(String storeName, TalusDB db) {
      this.storeName = storeName;
      this.db = db;
    }

    /** Counts {@code bytes} written; every {@link #SAMPLE_BYTES} re-reads and enforces. */
    void wrote(long bytes) throws TalusException {
      sinceSample += bytes;
      if (sinceSample < SAMPLE_BYTES) {
        return;
      }
      sinceSample = 0;
      resample();
      while (usage.get() > limit) {
        Account largest = null;
        for (Account a : accounts) {
          if (largest == null || a.sampled > largest.sampled) {
            largest = a;
          }
        }
        if (largest == null || largest.sampled == 0 || !largest.flush()) {
          return;
        }
      }
    }

    private void resample() throws TalusException {
      long now = db.getLongProperty("rocksdb.cur-size-all-mem-tables");
      usage.addAndGet(now - sampled);
      sampled = now;
    }

    /** @return false if the store's database is gone (closing concurrently) */
    private synchronized boolean flush() {
      try (FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
        db.flush(f);
        flushes.incrementAndGet();
        resample();
        return true;
      } catch (TalusException | IllegalStateException e) {
        close();
        return false;
      }
    }

    void close() {
      if (accounts.remove(this)) {
        usage.addAndGet(-sampled);
        sampled = 0;
      }
    }

    @Override
    public String toString() {
      return storeName + ":" + sampled;
    }
  }
}
