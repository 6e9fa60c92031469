package dev.talus.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.talus.BlockBasedTableConfig;
import dev.talus.LRUCache;
import dev.talus.Options;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Many tasks open at once, configured by one TalusConfigSetter sharing one block cache. */
class SharedMemoryTest {
  static final long SHARED_CACHE = 8L << 20;
  static final LRUCache CACHE = new LRUCache(SHARED_CACHE);
  static final long BUDGET = 2L << 20;
  static final WriteBufferBudget WRITE_BUFFERS = new WriteBufferBudget(BUDGET);
  static final List<String> CONFIGURED = new ArrayList<>();

  /** The setter an application names in its streams configuration. */
  public static class BoundedMemory implements TalusConfigSetter {
    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
      BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
      table.setBlockCache(CACHE);
      // Large enough that only the shared budget makes the stores flush.
      options.setWriteBufferSize(64L << 20);
      synchronized (CONFIGURED) {
        CONFIGURED.add(storeName + "/" + configs.get("application.id"));
      }
    }

    @Override
    public WriteBufferBudget writeBufferBudget(String storeName, Map<String, Object> configs) {
      return WRITE_BUFFERS;
    }
  }

  @TempDir Path dir;

  @Test
  void manyTasksShareOneBlockCacheAndWriteBufferBudget() {
    int tasks = 12;
    List<TalusKeyValueStore> stores = new ArrayList<>();
    try {
      for (int t = 0; t < tasks; t++) {
        TestContext c = new TestContext(dir.resolve("0_" + t).toFile(), new TaskId(0, t));
        c.configs.put(TalusStores.CONFIG_SETTER_CLASS_CONFIG, BoundedMemory.class.getName());
        TalusKeyValueStore s = (TalusKeyValueStore) TalusStores.persistentKeyValueStore("s").get();
        s.init(c, s);
        stores.add(s);
      }
      assertEquals(tasks, CONFIGURED.size());
      // 12 stores x ~1 MiB of writes: six times the budget.
      byte[] filler = new byte[1000];
      for (int i = 0; i < 1000; i++) {
        for (int t = 0; t < tasks; t++) {
          stores.get(t).put(TalusKeyValueStoreTest.b("big" + i), filler);
        }
      }
      long memtables = 0;
      for (TalusKeyValueStore s : stores) {
        memtables += s.database().getLongProperty("rocksdb.cur-size-all-mem-tables");
      }
      assertTrue(WRITE_BUFFERS.forcedFlushes() > 0, "the budget flushed stores");
      // Slack: one sample interval per store, plus the memtable the last flush started on.
      long slack = tasks * (WriteBufferBudget.SAMPLE_BYTES + 64 * 1024);
      assertTrue(memtables <= BUDGET + slack,
          "memtables " + memtables + " within budget " + BUDGET + " + " + slack);
      for (int t = 0; t < tasks; t++) {
        TalusKeyValueStore s = stores.get(t);
        for (int i = 0; i < 200; i++) {
          s.put(TalusKeyValueStoreTest.b("key" + i), TalusKeyValueStoreTest.v("task" + t));
        }
        try (dev.talus.FlushOptions f = new dev.talus.FlushOptions()) {
          s.database().flush(f); // so that reads go through table files and the cache
        }
      }
      for (int t = 0; t < tasks; t++) {
        assertEquals("task" + t, TalusKeyValueStoreTest.str(
            stores.get(t).get(TalusKeyValueStoreTest.b("key7"))));
        assertEquals(SHARED_CACHE,
            stores.get(t).database().getLongProperty("rocksdb.block-cache-capacity"));
      }
      long usage = CACHE.getUsage();
      assertTrue(usage > 0, "the stores' reads filled the shared cache");
      assertEquals(usage, stores.get(0).database().getLongProperty("rocksdb.block-cache-usage"),
          "every store reports the one shared cache");
    } catch (dev.talus.TalusException e) {
      throw new AssertionError(e);
    } finally {
      stores.forEach(TalusKeyValueStore::close);
    }
    assertTrue(CACHE.getCapacity() == SHARED_CACHE, "closing the stores leaves the cache");
    assertEquals(0, WRITE_BUFFERS.usage(), "closed stores hand their share back");
  }
}
