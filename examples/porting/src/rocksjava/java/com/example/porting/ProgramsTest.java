package com.example.porting;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs each program. This file, like the programs, is kept in its RocksJava form; the build
 * renames it with them and runs it against the library under test.
 */
class ProgramsTest {
  @TempDir Path dir;

  @Test
  void helloWorld() throws Exception {
    HelloWorld.run(dir.resolve("db").toString());
  }

  @Test
  void sessionCacheWithFamiliesBatchesPrefixIterationAndMerge() throws Exception {
    SessionCache.run(dir.resolve("db").toString());
  }

  @Test
  void streamsStoreOpenedWithDbOptionsAndDescriptors() throws Exception {
    StreamsStore.run(dir.resolve("db").toString());
  }

  @Test
  void bulkLoaderWithBatchesFlushAndCompactRange() throws Exception {
    BulkLoader.run(dir.resolve("db").toString());
  }
}
