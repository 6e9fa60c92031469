package dev.talus.slf4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.talus.FlushOptions;
import dev.talus.InfoLogLevel;
import dev.talus.Options;
import dev.talus.TalusDB;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import org.slf4j.simple.SimpleLogger;

/**
 * The engine's info log reaches SLF4J (bound to slf4j-simple, writing to a captured stream) at
 * matching levels, and no LOG file is written.
 */
class Slf4jLoggerTest {
  static final ByteArrayOutputStream OUT = new ByteArrayOutputStream();

  static {
    System.setProperty(SimpleLogger.LOG_FILE_KEY, "System.err");
    System.setProperty(SimpleLogger.DEFAULT_LOG_LEVEL_KEY, "debug");
    System.setProperty(SimpleLogger.SHOW_THREAD_NAME_KEY, "false");
    System.setErr(new PrintStream(OUT, true, StandardCharsets.UTF_8));
  }

  @TempDir Path dir;

  private static String captured() {
    synchronized (OUT) {
      return OUT.toString(StandardCharsets.UTF_8);
    }
  }

  @Test
  void engineLinesGoToSlf4jAtTheirLevel() throws Exception {
    try (Slf4jLogger logger = new Slf4jLogger("talus.test.db");
        Options options = new Options().setCreateIfMissing(true).setLogger(logger)) {
      // An option the engine corrects is logged at WARN (see Options).
      options.setMaxWriteBufferNumber(1);
      try (TalusDB db = TalusDB.open(options, dir.toString())) {
        db.put("k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
        try (FlushOptions f = new FlushOptions()) {
          db.flush(f);
        }
      }
    }
    String out = captured();
    assertTrue(out.contains("INFO talus.test.db - "), out);
    assertTrue(out.contains("WARN talus.test.db - "), out);
    assertFalse(Files.exists(dir.resolve("LOG")), "the LOG file is replaced");
  }

  @Test
  void levelsMapOneToOne() {
    try (Slf4jLogger logger = new Slf4jLogger(LoggerFactory.getLogger("talus.test.levels"),
        InfoLogLevel.DEBUG_LEVEL)) {
      logger.log(InfoLogLevel.DEBUG_LEVEL, "d-line");
      logger.log(InfoLogLevel.INFO_LEVEL, "i-line");
      logger.log(InfoLogLevel.HEADER_LEVEL, "h-line");
      logger.log(InfoLogLevel.WARN_LEVEL, "w-line");
      logger.log(InfoLogLevel.ERROR_LEVEL, "e-line");
      logger.log(InfoLogLevel.FATAL_LEVEL, "f-line");
      assertEquals(InfoLogLevel.DEBUG_LEVEL, logger.infoLogLevel());
    }
    String out = captured();
    assertTrue(out.contains("DEBUG talus.test.levels - d-line"), out);
    assertTrue(out.contains("INFO talus.test.levels - i-line"), out);
    assertTrue(out.contains("INFO talus.test.levels - h-line"), out);
    assertTrue(out.contains("WARN talus.test.levels - w-line"), out);
    assertTrue(out.contains("ERROR talus.test.levels - e-line"), out);
    assertTrue(out.contains("ERROR talus.test.levels - f-line"), out);
  }
}
