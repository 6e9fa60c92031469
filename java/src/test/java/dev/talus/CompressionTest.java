package dev.talus;

import static dev.talus.Lsm.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every codec through the Java API: a random-operation model test per codec (puts, deletes,
 * flushes, compactions and reopens against a {@link TreeMap}), per-level and bottommost codecs
 * with ZSTD dictionaries, codecs Talus does not implement refused at open, and a table block
 * whose codec this build lacks refused at read, naming the codec.
 */
class CompressionTest {
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = TestDirs.fresh("compression");
  }

  @AfterEach
  void tearDown() throws Exception {
    TestDirs.delete(dir);
  }

  /** Compressible values: a key-derived header and a repeated phrase. */
  private static byte[] value(Random rnd, int i) {
    StringBuilder v = new StringBuilder("v" + i + "-" + rnd.nextInt(1000) + ":");
    int n = rnd.nextInt(300);
    while (v.length() < n) {
      v.append("the quick brown fox ");
    }
    return b(v.toString());
  }

  private void checkAll(TalusDB db, TreeMap<String, byte[]> model, String what) throws Exception {
    for (Map.Entry<String, byte[]> e : model.entrySet()) {
      assertArrayEquals(e.getValue(), db.get(b(e.getKey())), what + ": " + e.getKey());
    }
    try (TalusIterator it = db.newIterator()) {
      it.seekToFirst();
      for (Map.Entry<String, byte[]> e : model.entrySet()) {
        assertTrue(it.isValid(), what + ": scan ended before " + e.getKey());
        assertEquals(e.getKey(), Lsm.s(it.key()), what);
        assertArrayEquals(e.getValue(), it.value(), what);
        it.next();
      }
      assertFalse(it.isValid(), what + ": scan has extra keys");
      it.status();
    }
  }

  /** Random operations with flushes, compactions and reopens, checked against a TreeMap. */
  private void modelTest(Options options, long seed) throws Exception {
    Random rnd = new Random(seed);
    TreeMap<String, byte[]> model = new TreeMap<>();
    TalusDB db = TalusDB.open(options, dir.toString());
    try {
      for (int round = 0; round < 6; round++) {
        for (int op = 0; op < 3000; op++) {
          int k = rnd.nextInt(5000);
          String key = String.format("key%05d", k);
          if (rnd.nextInt(10) < 8) {
            byte[] v = value(rnd, k);
            db.put(b(key), v);
            model.put(key, v);
          } else {
            db.delete(b(key));
            model.remove(key);
          }
        }
        switch (round % 3) {
          case 0 -> db.flush(new FlushOptions().setWaitForFlush(true));
          case 1 -> db.compactRange();
          default -> {
            db.close();
            db = TalusDB.open(options, dir.toString());
          }
        }
        checkAll(db, model, "seed " + seed + " round " + round);
        assertNull(db.get(b("absent")));
      }
      db.compactRange();
      checkAll(db, model, "after a full compaction");
    } finally {
      db.close();
    }
  }

  private static Options codec(CompressionType type) {
    return Lsm.smallOptions().setCompressionType(type);
  }

  @Test
  void modelTestUncompressed() throws Exception {
    try (Options o = codec(CompressionType.NO_COMPRESSION)) {
      modelTest(o, 1);
    }
  }

  @Test
  void modelTestSnappy() throws Exception {
    try (Options o = codec(CompressionType.SNAPPY_COMPRESSION)) {
      modelTest(o, 2);
    }
  }

  @Test
  void modelTestLz4() throws Exception {
    try (Options o = codec(CompressionType.LZ4_COMPRESSION)) {
      modelTest(o, 3);
    }
  }

  @Test
  void modelTestZstd() throws Exception {
    try (Options o = codec(CompressionType.ZSTD_COMPRESSION);
        CompressionOptions c = new CompressionOptions().setLevel(6)) {
      o.setCompressionOptions(c);
      modelTest(o, 4);
    }
  }

  @Test
  void modelTestPerLevelAndBottommostZstdWithDictionaries() throws Exception {
    try (Options o = Lsm.smallOptions();
        CompressionOptions general = new CompressionOptions().setMaxDictBytes(4096);
        CompressionOptions bottom =
            new CompressionOptions()
                .setLevel(19)
                .setMaxDictBytes(8192)
                .setZStdMaxTrainBytes(256 << 10)
                .setEnabled(true)) {
      o.setCompressionPerLevel(
              List.of(
                  CompressionType.NO_COMPRESSION,
                  CompressionType.SNAPPY_COMPRESSION,
                  CompressionType.ZSTD_COMPRESSION))
          .setBottommostCompressionType(CompressionType.ZSTD_COMPRESSION)
          .setCompressionOptions(general)
          .setBottommostCompressionOptions(bottom);
      modelTest(o, 5);
    }
  }

  @Test
  void optionsKeepTheirValuesAndCopyCompressionOptions() {
    try (Options o = new Options();
        CompressionOptions c = new CompressionOptions()) {
      assertEquals(CompressionType.LZ4_COMPRESSION, o.compressionType());
      assertEquals(List.of(), o.compressionPerLevel());
      assertEquals(CompressionType.DISABLE_COMPRESSION_OPTION, o.bottommostCompressionType());
      assertEquals(-14, c.windowBits());
      assertEquals(CompressionOptions.DEFAULT_COMPRESSION_LEVEL, c.level());
      assertEquals(0, c.strategy());
      assertEquals(0, c.maxDictBytes());
      assertEquals(0, c.zstdMaxTrainBytes());
      assertFalse(c.enabled());
      c.setLevel(7).setMaxDictBytes(100).setZStdMaxTrainBytes(1000).setEnabled(true);
      o.setCompressionOptions(c).setBottommostCompressionOptions(c);
      c.setLevel(1);
      assertEquals(7, o.compressionOptions().level());
      assertEquals(100, o.bottommostCompressionOptions().maxDictBytes());
      assertTrue(o.bottommostCompressionOptions().enabled());
      assertThrows(
          IllegalArgumentException.class,
          () -> o.setCompressionPerLevel(List.of(CompressionType.DISABLE_COMPRESSION_OPTION)));
      assertThrows(NullPointerException.class, () -> o.setCompressionOptions(null));
      c.close();
      assertThrows(IllegalStateException.class, () -> o.setCompressionOptions(c));
      assertThrows(IllegalStateException.class, c::level);
    }
  }

  /** RocksJava accepts every codec at set time; open refuses those Talus lacks, naming them. */
  @Test
  void codecsTalusLacksFailAtOpenNamingThem() throws Exception {
    for (CompressionType t :
        new CompressionType[] {
          CompressionType.ZLIB_COMPRESSION,
          CompressionType.BZLIB2_COMPRESSION,
          CompressionType.LZ4HC_COMPRESSION,
          CompressionType.XPRESS_COMPRESSION
        }) {
      for (int where = 0; where < 3; where++) {
        try (Options o = new Options().setCreateIfMissing(true)) {
          switch (where) {
            case 0 -> o.setCompressionType(t);
            case 1 -> o.setCompressionPerLevel(List.of(CompressionType.LZ4_COMPRESSION, t));
            default -> o.setBottommostCompressionType(t);
          }
          TalusException e =
              assertThrows(TalusException.class, () -> TalusDB.open(o, dir.toString()).close());
          assertEquals(Status.Code.NotSupported, e.getStatus().getCode(), e.getMessage());
          assertTrue(e.getMessage().contains(t.name()), e.getMessage());
        }
      }
    }
  }

  /**
   * Rewrites the compression byte of the first data block of {@code sst} to {@code type}, with a
   * valid checksum: what a build with that codec would have written. The first block starts at
   * offset 0 and ends at the first byte followed by the CRC of everything up to it (its type).
   */
  private static void setFirstBlockType(Path sst, byte type) throws Exception {
    byte[] data = Files.readAllBytes(sst);
    for (int n = 1; n + 5 <= data.length; n++) {
      CRC32 crc = new CRC32();
      crc.update(data, 0, n + 1);
      ByteBuffer stored = ByteBuffer.wrap(data, n + 1, 4).order(ByteOrder.LITTLE_ENDIAN);
      if ((int) crc.getValue() == stored.getInt()) {
        data[n] = type;
        crc.reset();
        crc.update(data, 0, n + 1);
        ByteBuffer.wrap(data, n + 1, 4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) crc.getValue());
        Files.write(sst, data);
        return;
      }
    }
    throw new AssertionError(
        "no block trailer found in " + sst + " of " + data.length + " bytes: "
            + java.util.HexFormat.of().formatHex(data, 0, Math.min(data.length, 64)));
  }

  @Test
  void aBlockWithACodecThisBuildLacksFailsReadsNamingIt() throws Exception {
    try (Options o =
        new Options().setCreateIfMissing(true).setCompressionType(CompressionType.NO_COMPRESSION)) {
      try (TalusDB db = TalusDB.open(o, dir.toString())) {
        db.put(b("k"), b("v"));
        db.flush(new FlushOptions().setWaitForFlush(true));
      }
      Path sst;
      try (Stream<Path> files = Files.list(dir)) {
        sst = files.filter(p -> p.toString().endsWith(".sst")).findFirst().orElseThrow();
      }
      setFirstBlockType(sst, CompressionType.ZLIB_COMPRESSION.getValue());
      try (TalusDB db = TalusDB.open(o, dir.toString())) {
        TalusException e = assertThrows(TalusException.class, () -> db.get(b("k")));
        assertEquals(Status.Code.NotSupported, e.getStatus().getCode(), e.getMessage());
        assertTrue(e.getMessage().contains("ZLIB_COMPRESSION"), e.getMessage());
      }
      setFirstBlockType(sst, (byte) 0x42);
      try (TalusDB db = TalusDB.open(o, dir.toString())) {
        TalusException e = assertThrows(TalusException.class, () -> db.get(b("k")));
        assertEquals(Status.Code.NotSupported, e.getStatus().getCode(), e.getMessage());
        assertTrue(e.getMessage().contains("0x42"), e.getMessage());
      }
    }
  }
}
