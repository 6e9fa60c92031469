package dev.talus;

import dev.talus.internal.NativeHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * An open Talus database, with RocksJava's {@code RocksDB} API: a RocksJava program ports by
 * changing its imports and {@code RocksDB} to {@code TalusDB}.
 *
 * <p>Thread-safe: every method may be called from any number of threads. {@link #close()} may
 * be called while other threads are using the database: it rejects new calls, wakes writers held
 * in a write stall (they fail with {@code ShutdownInProgress}), waits for calls in flight,
 * closes the iterators and snapshots still open, and frees the native database. Any call after
 * close throws {@link IllegalStateException}. Close flushes memtables holding writes made with
 * {@code disableWAL} (waiting for that flush, at the rate limiter's pace); other writes are in
 * the WAL and are replayed at the next open, so a flush or compaction running at close stops
 * instead of being waited for, as in RocksDB.
 *
 * <p>Errors of the engine are thrown as {@link TalusException} carrying a {@link Status}; {@code
 * null} arguments throw {@link NullPointerException} naming the parameter; bad offsets throw
 * {@link IndexOutOfBoundsException}. A missing key is not an error: {@code get} returns {@code
 * null} (or {@link #NOT_FOUND}).
 */
public class TalusDB extends NativeHandle {
  /** Name of the default column family, as RocksJava's constant (Talus has only this one). */
  public static final byte[] DEFAULT_COLUMN_FAMILY = "default".getBytes(StandardCharsets.UTF_8);

  /** Returned by the {@code get} overloads that fill a buffer when the key is absent. */
  public static final int NOT_FOUND = -1;

  static final int DEFAULT_READ_FLAGS = ReadOptions.VERIFY_CHECKSUMS | ReadOptions.FILL_CACHE;

  private final Options options;
  private final String path;
  private final int numLevels;
  private final Set<NativeHandle> children = ConcurrentHashMap.newKeySet();
  /** Spare iterator entry buffers (see {@link #takeIteratorBuffer()}). */
  private final AtomicReferenceArray<ByteBuffer> iteratorBuffers = new AtomicReferenceArray<>(16);
  /** The live column families' ids (for {@link #getAggregatedLongProperty(String)}). */
  private final Set<Integer> families = ConcurrentHashMap.newKeySet();
  /** The database's table options as text: every family's must be the same. */

  private TalusDB(long handle, Options options, String path) {
    super(handle);
    this.options = options;
    this.path = path;
    // Read now: the caller may close the options once the database is open. Open raised a value
    // below 2 to 2 (the engine's Options::sanitize, as RocksDB), and numberLevels() reports the
    // levels the database runs with, as RocksJava's does.
    this.numLevels = Math.max(2, options.numLevels());
    this.families.add(0);
  }

  /** Throws {@code IllegalStateException} once this database is closed. */
  void checkOpen() {
    acquire();
    release();
  }

  /**
   * Loads the native library, as RocksJava's {@code RocksDB.loadLibrary()}: a no-op once it is
   * loaded. Every Talus class that needs the library loads it itself, so calling this is never
   * required; see {@link NativeLibrary} for where the library is found.
   *
   * @throws UnsatisfiedLinkError if the library cannot be loaded
   */
  public static void loadLibrary() {
    NativeLibrary.load();
  }

  /**
   * Loads the native library from the first of {@code paths} (directories) that holds it under
   * its platform file name ({@code libtalusjni.so} on Linux), as RocksJava's {@code
   * loadLibrary(List<String>)}; a no-op once the library is loaded (from anywhere).
   *
   * @param paths directories to look in, in order
   * @throws UnsatisfiedLinkError if none of them holds a library that loads (the last failure)
   */
  public static void loadLibrary(List<String> paths) {
    Objects.requireNonNull(paths, "paths");
    NativeLibrary.load(paths);
  }

  /**
   * Deletes the database at {@code path}, which must not be open, as RocksJava's {@code
   * destroyDB}: its table files, logs (also those in {@code options.walDir()}), manifests, {@code
   * CURRENT}, {@code IDENTITY}, {@code LOCK}, info logs ({@code LOG}, {@code LOG.old.*}) and
   * options files, then the directory if nothing else is left in it. Files whose names are not a
   * database's are kept. A missing {@code path} is nothing to delete (RocksDB fails there with
   * {@code IOError}).
   *
   * <p>Only this database's logs are deleted (RocksDB deletes every log in {@code walDir}): each
   * log names the database that wrote it, and the logs of another database sharing the {@code
   * walDir} (or using this directory as its {@code walDir}) are kept. In a separate {@code
   * walDir}, a log that names no database (written before Talus named them) is deleted only for
   * a database that has no id yet, and a log whose first record cannot be read is kept.
   *
   * @param path the database directory
   * @param options the options the database was used with ({@code walDir} matters)
   * @throws TalusException {@code IOError} naming the {@code LOCK} when the database is open
   *     (nothing is deleted then); {@code InvalidArgument} when the directory holds another
   *     engine's database (nothing is touched); the first failed deletion otherwise
   */
  public static void destroyDB(String path, Options options) throws TalusException {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(options, "options");
    NativeLibrary.load();
    nativeDestroyDB(path, options.toNativeString());
  }

  /**
   * Opens the database at {@code path}, creating it if missing (RocksJava's {@code open(String)}
   * uses {@code createIfMissing = true}).
   *
   * @param path the database directory
   * @return the open database
   * @throws TalusException if it cannot be opened
   */
  public static TalusDB open(String path) throws TalusException {
    return open(new Options().setCreateIfMissing(true), path);
  }

  /**
   * Opens the database at {@code path} with {@code options}. The database keeps a reference to
   * the options; the shared objects they name (cache, rate limiter, statistics, logger) may be
   * closed later without harm: the database holds its own reference.
   *
   * @param options the options
   * @param path the database directory
   * @return the open database
   * @throws TalusException if it cannot be opened: {@code InvalidArgument} for a missing database
   *     without {@code createIfMissing} ("does not exist"), an existing one with {@code
   *     errorIfExists} ("exists"), or a directory holding another engine's database ("not a
   *     Talus database", found before anything in it is touched); {@code IOError} naming the
   *     {@code LOCK} when another process or handle holds it, as in RocksJava; {@code Corruption}
   *     for damaged files
   */
  public static TalusDB open(Options options, String path) throws TalusException {
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(path, "path");
    NativeLibrary.load();
    String text = options.toNativeString();
    return options.withSharedHandles(
        shared -> new TalusDB(nativeOpen(path, text, shared), options, path));
  }

  // ---------------------------------------------------------------- column families

  /**
   * Opens the database at {@code path} with the column families {@code columnFamilyDescriptors},
   * as RocksJava: the list must name {@code "default"} and every family on disk ({@code
   * InvalidArgument} naming what is missing otherwise); a listed family not on disk is created
   * when {@link DBOptions#setCreateMissingColumnFamilies(boolean)} is set, else the open fails
   * with {@code InvalidArgument} naming it. On return {@code columnFamilyHandles} holds one
   * handle per descriptor, in order (it is cleared first).
   *
   * @param options the database-wide options
   * @param path the database directory
   * @param columnFamilyDescriptors the families and their options
   * @param columnFamilyHandles receives the handles
   * @return the open database
   * @throws TalusException as {@link #open(Options, String)}, and for the families as above
   * @throws IllegalArgumentException for a family name that is not UTF-8, or listed twice
   */
  public static TalusDB open(DBOptions options, String path,
      List<ColumnFamilyDescriptor> columnFamilyDescriptors,
      List<ColumnFamilyHandle> columnFamilyHandles) throws TalusException {
    return openFamilies(options, path, columnFamilyDescriptors, columnFamilyHandles, -1, null);
  }

  /**
   * The open with families: {@code mode} -1 primary, 0 read-only, 1 read-only with {@code
   * errorIfWalFileExists}, 2 secondary (with {@code secondaryPath}).
   */
  private static TalusDB openFamilies(DBOptions options, String path,
      List<ColumnFamilyDescriptor> columnFamilyDescriptors,
      List<ColumnFamilyHandle> columnFamilyHandles, int mode, String secondaryPath)
      throws TalusException {
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(columnFamilyDescriptors, "columnFamilyDescriptors");
    Objects.requireNonNull(columnFamilyHandles, "columnFamilyHandles");
    NativeLibrary.load();
    int n = columnFamilyDescriptors.size();
    String[] names = new String[n];
    byte[][] rawNames = new byte[n][];
    String[] texts = new String[n];
    MergeOperator[] ops = new MergeOperator[n];
    Cache[] caches = new Cache[n];
    Options defaultCf = null;
    for (int i = 0; i < n; i++) {
      ColumnFamilyDescriptor d =
          Objects.requireNonNull(columnFamilyDescriptors.get(i), "columnFamilyDescriptors element");
      rawNames[i] = d.getName();
      names[i] = familyName(rawNames[i]);
      Options o = d.getOptions().options();
      texts[i] = o.toNativeString();
      ops[i] = o.mergeOperatorObject();
      // Each family's table options are its own, as RocksDB's table factory per family: a
      // config naming a cache reads through it (shared with every family naming the same
      // object), one naming none gets a cache of its own.
      caches[i] = o.tableFormatConfig().sharedCache();
      if (names[i].equals("default")) {
        defaultCf = o;
      }
    }
    Options combined = new Options(options.options());
    if (defaultCf != null) {
      // The database's options as the engine sees them carry the default family's.
      combined.setTableFormatConfig(defaultCf.tableFormatConfig());
      combined.setNumLevels(defaultCf.numLevels());
      combined.copyPrefixExtractor(defaultCf);
    }
    String text = options.options().toNativeString();
    long[] opHandles = new long[n];
    long[] cacheHandles = new long[n];
    int heldOps = 0;
    int heldCaches = 0;
    TalusDB db;
    int[] ids = new int[n];
    try {
      for (; heldOps < n; heldOps++) {
        if (ops[heldOps] != null) {
          opHandles[heldOps] = ops[heldOps].acquireShared();
        }
      }
      for (; heldCaches < n; heldCaches++) {
        if (caches[heldCaches] != null) {
          cacheHandles[heldCaches] = caches[heldCaches].acquireShared();
        }
      }
      db = combined.withSharedHandles(shared -> new TalusDB(mode < 0
          ? nativeOpenCf(path, text, shared, names, texts, opHandles, cacheHandles, ids)
          : nativeOpenReadOnly(path, text, shared, names, texts, opHandles, cacheHandles, ids,
              mode, secondaryPath), combined, path));
    } finally {
      for (int i = 0; i < heldCaches; i++) {
        if (caches[i] != null) {
          caches[i].releaseShared();
        }
      }
      for (int i = 0; i < heldOps; i++) {
        if (ops[i] != null) {
          ops[i].releaseShared();
        }
      }
    }
    columnFamilyHandles.clear();
    for (int i = 0; i < n; i++) {
      db.families.add(ids[i]);
      columnFamilyHandles.add(new ColumnFamilyHandle(db, ids[i], rawNames[i]));
    }
    return db;
  }

  /**
   * {@link #open(DBOptions, String, List, List)} with default {@link DBOptions}, as RocksJava's
   * form without options: {@code createIfMissing} is false, so the database must exist.
   *
   * @param path the database directory
   * @param columnFamilyDescriptors the families and their options
   * @param columnFamilyHandles receives the handles
   * @return the open database
   * @throws TalusException as {@link #open(DBOptions, String, List, List)}
   */
  public static TalusDB open(String path, List<ColumnFamilyDescriptor> columnFamilyDescriptors,
      List<ColumnFamilyHandle> columnFamilyHandles) throws TalusException {
    try (DBOptions options = new DBOptions()) {
      return open(options, path, columnFamilyDescriptors, columnFamilyHandles);
    }
  }

  /**
   * Closes {@code columnFamilyHandle} (RocksJava's {@code destroyColumnFamilyHandle}): the family
   * stays in the database; the handle throws {@code IllegalStateException} from now on. A
   * handle of another database is refused.
   *
   * @param columnFamilyHandle the handle
   * @throws IllegalArgumentException for a handle of another database
   */
  public void destroyColumnFamilyHandle(ColumnFamilyHandle columnFamilyHandle) {
    checkOpen();
    Objects.requireNonNull(columnFamilyHandle, "columnFamilyHandle");
    if (columnFamilyHandle.database() != this) {
      throw new IllegalArgumentException("the column family handle is of another database");
    }
    columnFamilyHandle.close();
  }

  /** The name as the engine takes it: UTF-8 text. */
  private static String familyName(byte[] name) {
    Objects.requireNonNull(name, "column family name");
    String s = new String(name, StandardCharsets.UTF_8);
    if (!java.util.Arrays.equals(s.getBytes(StandardCharsets.UTF_8), name)) {
      throw new IllegalArgumentException("column family name is not UTF-8: "
          + java.util.Arrays.toString(name));
    }
    if (s.isEmpty()) {
      throw new IllegalArgumentException("column family name must not be empty");
    }
    return s;
  }

  /**
   * The names of the column families of the database at {@code path} (RocksJava's {@code
   * listColumnFamilies}), {@code "default"} first.
   *
   * @param options options (the file system's; nothing else is read)
   * @param path the database directory
   * @return the names
   * @throws TalusException {@code InvalidArgument} when there is no database at {@code path},
   *     {@code Corruption} for a damaged manifest
   */
  public static List<byte[]> listColumnFamilies(Options options, String path)
      throws TalusException {
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(path, "path");
    NativeLibrary.load();
    byte[][] names = nativeListColumnFamilies(path, options.toNativeString());
    return new ArrayList<>(java.util.Arrays.asList(names));
  }

  /**
   * Creates a column family. Its options are its own, table options included (block size,
   * filter, index and filter caching, block cache: a config naming a {@link Cache} shares it with
   * every family naming the same object, one naming none gets a cache of its own).
   *
   * @param descriptor its name and options
   * @return its handle
   * @throws TalusException {@code InvalidArgument} when a family of that name exists
   */
  public ColumnFamilyHandle createColumnFamily(ColumnFamilyDescriptor descriptor)
      throws TalusException {
    checkOpen();
    Objects.requireNonNull(descriptor, "descriptor");
    byte[] raw = descriptor.getName();
    String name = familyName(raw);
    Options o = descriptor.getOptions().options();
    String text = o.toNativeString();
    MergeOperator op = o.mergeOperatorObject();
    Cache cache = o.tableFormatConfig().sharedCache();
    long h = acquire();
    int id;
    try {
      long opHandle = op == null ? 0 : op.acquireShared();
      try {
        long cacheHandle = cache == null ? 0 : cache.acquireShared();
        try {
          id = nativeCreateColumnFamily(h, name, text, opHandle, cacheHandle);
        } finally {
          if (cache != null) {
            cache.releaseShared();
          }
        }
      } finally {
        if (op != null) {
          op.releaseShared();
        }
      }
    } finally {
      release();
    }
    families.add(id);
    return new ColumnFamilyHandle(this, id, raw);
  }

  /**
   * Creates column families, one per descriptor, in order; stops at the first failure (the
   * families created before it stay).
   *
   * @param descriptors the families
   * @return their handles
   * @throws TalusException as {@link #createColumnFamily(ColumnFamilyDescriptor)}
   */
  public List<ColumnFamilyHandle> createColumnFamilies(List<ColumnFamilyDescriptor> descriptors)
      throws TalusException {
    checkOpen();
    Objects.requireNonNull(descriptors, "descriptors");
    List<ColumnFamilyHandle> out = new ArrayList<>(descriptors.size());
    for (ColumnFamilyDescriptor d : descriptors) {
      out.add(createColumnFamily(d));
    }
    return out;
  }

  /**
   * Creates column families with the same options.
   *
   * @param columnFamilyOptions their options
   * @param columnFamilyNames their names
   * @return their handles
   * @throws TalusException as {@link #createColumnFamily(ColumnFamilyDescriptor)}
   */
  public List<ColumnFamilyHandle> createColumnFamilies(ColumnFamilyOptions columnFamilyOptions,
      List<byte[]> columnFamilyNames) throws TalusException {
    checkOpen();
    Objects.requireNonNull(columnFamilyOptions, "columnFamilyOptions");
    Objects.requireNonNull(columnFamilyNames, "columnFamilyNames");
    List<ColumnFamilyHandle> out = new ArrayList<>(columnFamilyNames.size());
    for (byte[] n : columnFamilyNames) {
      out.add(createColumnFamily(new ColumnFamilyDescriptor(n, columnFamilyOptions)));
    }
    return out;
  }

  /**
   * Drops a column family: recorded in the manifest, then its data is deleted once no iterator
   * reads it. Every handle of it then throws {@code InvalidArgument} from database calls.
   *
   * @param columnFamily the family
   * @throws TalusException {@code InvalidArgument} for the default family or one already dropped
   */
  public void dropColumnFamily(ColumnFamilyHandle columnFamily) throws TalusException {
    Objects.requireNonNull(columnFamily, "columnFamily");
    int id = ColumnFamilyHandle.check(this, columnFamily);
    long h = acquire();
    try {
      nativeDropColumnFamily(h, id);
    } finally {
      release();
    }
    families.remove(id);
  }

  /**
   * Drops column families in order; stops at the first failure.
   *
   * @param columnFamilies the families
   * @throws TalusException as {@link #dropColumnFamily(ColumnFamilyHandle)}
   */
  public void dropColumnFamilies(List<ColumnFamilyHandle> columnFamilies) throws TalusException {
    checkOpen();
    Objects.requireNonNull(columnFamilies, "columnFamilies");
    for (ColumnFamilyHandle cf : columnFamilies) {
      dropColumnFamily(cf);
    }
  }

  private static final int CF_PUT = 0;
  private static final int CF_DELETE = 1;
  private static final int CF_MERGE = 2;
  private static final int CF_SINGLE_DELETE = 3;
  private static final int CF_DELETE_RANGE = 4;

  private void cfWrite(ColumnFamilyHandle cf, WriteOptions wo, int op, byte[] key, byte[] value)
      throws TalusException {
    Objects.requireNonNull(key, "key");
    int id = ColumnFamilyHandle.check(this, cf);
    int flags = wo == null ? 0 : wo.flags();
    long h = acquire();
    try {
      nativeCfWrite(h, flags, id, op, key, value);
    } finally {
      release();
    }
  }

  /**
   * Sets {@code key} to {@code value} in column family {@code columnFamilyHandle}.
   *
   * @param columnFamilyHandle the family
   * @param key the key
   * @param value the value
   * @throws TalusException on an engine error ({@code InvalidArgument} for a dropped family)
   */
  public void put(ColumnFamilyHandle columnFamilyHandle, byte[] key, byte[] value)
      throws TalusException {
    Objects.requireNonNull(value, "value");
    cfWrite(columnFamilyHandle, null, CF_PUT, key, value);
  }

  /**
   * As {@link #put(ColumnFamilyHandle, byte[], byte[])} with {@code writeOptions}.
   *
   * @param columnFamilyHandle the family
   * @param writeOptions options of this write
   * @param key the key
   * @param value the value
   * @throws TalusException on an engine error
   */
  public void put(ColumnFamilyHandle columnFamilyHandle, WriteOptions writeOptions, byte[] key,
      byte[] value) throws TalusException {
    Objects.requireNonNull(writeOptions, "writeOptions");
    Objects.requireNonNull(value, "value");
    cfWrite(columnFamilyHandle, writeOptions, CF_PUT, key, value);
  }

  /**
   * Deletes {@code key} from column family {@code columnFamilyHandle}.
   *
   * @param columnFamilyHandle the family
   * @param key the key
   * @throws TalusException on an engine error
   */
  public void delete(ColumnFamilyHandle columnFamilyHandle, byte[] key) throws TalusException {
    cfWrite(columnFamilyHandle, null, CF_DELETE, key, null);
  }

  /**
   * As {@link #delete(ColumnFamilyHandle, byte[])} with {@code writeOptions}.
   *
   * @param columnFamilyHandle the family
   * @param writeOptions options of this write
   * @param key the key
   * @throws TalusException on an engine error
   */
  public void delete(ColumnFamilyHandle columnFamilyHandle, WriteOptions writeOptions, byte[] key)
      throws TalusException {
    Objects.requireNonNull(writeOptions, "writeOptions");
    cfWrite(columnFamilyHandle, writeOptions, CF_DELETE, key, null);
  }

  /**
   * Single-deletes {@code key} in column family {@code columnFamilyHandle} (see {@link
   * #singleDelete(byte[])}).
   *
   * @param columnFamilyHandle the family
   * @param key the key
   * @throws TalusException on an engine error
   */
  public void singleDelete(ColumnFamilyHandle columnFamilyHandle, byte[] key)
      throws TalusException {
    cfWrite(columnFamilyHandle, null, CF_SINGLE_DELETE, key, null);
  }

  /**
   * As {@link #singleDelete(ColumnFamilyHandle, byte[])} with {@code writeOptions}.
   *
   * @param columnFamilyHandle the family
   * @param writeOptions options of this write
   * @param key the key
   * @throws TalusException on an engine error
   */
  public void singleDelete(ColumnFamilyHandle columnFamilyHandle, WriteOptions writeOptions,
      byte[] key) throws TalusException {
    Objects.requireNonNull(writeOptions, "writeOptions");
    cfWrite(columnFamilyHandle, writeOptions, CF_SINGLE_DELETE, key, null);
  }

  /**
   * Deletes every key in {@code [beginKey, endKey)} of column family {@code columnFamilyHandle}.
   *
   * @param columnFamilyHandle the family
   * @param beginKey first key deleted
   * @param endKey first key kept
   * @throws TalusException on an engine error
   */
  public void deleteRange(ColumnFamilyHandle columnFamilyHandle, byte[] beginKey, byte[] endKey)
      throws TalusException {
    Objects.requireNonNull(endKey, "endKey");
    cfWrite(columnFamilyHandle, null, CF_DELETE_RANGE, beginKey, endKey);
  }

  /**
   * As {@link #deleteRange(ColumnFamilyHandle, byte[], byte[])} with {@code writeOptions}.
   *
   * @param columnFamilyHandle the family
   * @param writeOptions options of this write
   * @param beginKey first key deleted
   * @param endKey first key kept
   * @throws TalusException on an engine error
   */
  public void deleteRange(ColumnFamilyHandle columnFamilyHandle, WriteOptions writeOptions,
      byte[] beginKey, byte[] endKey) throws TalusException {
    Objects.requireNonNull(writeOptions, "writeOptions");
    Objects.requireNonNull(endKey, "endKey");
    cfWrite(columnFamilyHandle, writeOptions, CF_DELETE_RANGE, beginKey, endKey);
  }

  /**
   * Merges {@code value} into {@code key}'s value in column family {@code columnFamilyHandle},
   * with that family's merge operator.
   *
   * @param columnFamilyHandle the family
   * @param key the key
   * @param value the operand
   * @throws TalusException {@code NotSupported} when the family has no merge operator
   */
  public void merge(ColumnFamilyHandle columnFamilyHandle, byte[] key, byte[] value)
      throws TalusException {
    Objects.requireNonNull(value, "value");
    cfWrite(columnFamilyHandle, null, CF_MERGE, key, value);
  }

  /**
   * As {@link #merge(ColumnFamilyHandle, byte[], byte[])} with {@code writeOptions}.
   *
   * @param columnFamilyHandle the family
   * @param writeOptions options of this write
   * @param key the key
   * @param value the operand
   * @throws TalusException on an engine error
   */
  public void merge(ColumnFamilyHandle columnFamilyHandle, WriteOptions writeOptions, byte[] key,
      byte[] value) throws TalusException {
    Objects.requireNonNull(writeOptions, "writeOptions");
    Objects.requireNonNull(value, "value");
    cfWrite(columnFamilyHandle, writeOptions, CF_MERGE, key, value);
  }

  /**
   * Reads {@code key} in column family {@code columnFamilyHandle}.
   *
   * @param columnFamilyHandle the family
   * @param key the key
   * @return the value, or {@code null} when absent
   * @throws TalusException on an engine error ({@code InvalidArgument} for a dropped family)
   */
  public byte[] get(ColumnFamilyHandle columnFamilyHandle, byte[] key) throws TalusException {
    return get(columnFamilyHandle, (ReadOptions) null, key);
  }

  /**
   * As {@link #get(ColumnFamilyHandle, byte[])} with {@code readOptions} (null: defaults).
   *
   * @param columnFamilyHandle the family
   * @param readOptions options of this read
   * @param key the key
   * @return the value, or {@code null} when absent
   * @throws TalusException on an engine error
   */
  public byte[] get(ColumnFamilyHandle columnFamilyHandle, ReadOptions readOptions, byte[] key)
      throws TalusException {
    Objects.requireNonNull(key, "key");
    return cfRead(columnFamilyHandle, readOptions,
        (h, flags, snapshot, id) -> nativeCfGet(h, flags, snapshot, id, key));
  }

  private int cfKeyCheck(ColumnFamilyHandle cf, ReadOptions readOptions, byte[] key,
      boolean exact) throws TalusException {
    Objects.requireNonNull(key, "key");
    return cfRead(cf, readOptions,
        (h, flags, snapshot, id) -> nativeCfKeyCheck(h, flags, snapshot, id, key, exact));
  }

  /** A native read of one column family: handle, read flags, snapshot sequence, family id. */
  @FunctionalInterface
  private interface CfRead<T> {
    T read(long h, int flags, long snapshot, int cf) throws TalusException;
  }

  /**
   * Runs {@code read} on family {@code cf} (checked first) with the database held open, at the
   * snapshot of {@code readOptions} (null: defaults) or at one taken for the call.
   */
  private <T> T cfRead(ColumnFamilyHandle cf, ReadOptions readOptions, CfRead<T> read)
      throws TalusException {
    int id = ColumnFamilyHandle.check(this, cf);
    int flags = readFlags(readOptions);
    long h = acquire();
    Snapshot snapshot = null;
    try {
      snapshot = acquireReadSnapshot(readOptions);
      return read.read(h, flags, sequenceOf(snapshot), id);
    } finally {
      releaseReadSnapshot(snapshot);
      release();
    }
  }

  /**
   * Whether {@code key} exists in column family {@code columnFamilyHandle}: exact, at the cost
   * of a point lookup.
   *
   * @param columnFamilyHandle the family
   * @param key the key
   * @return whether it exists
   * @throws TalusException on an engine error (a dropped family)
   */
  public boolean keyExists(ColumnFamilyHandle columnFamilyHandle, byte[] key)
      throws TalusException {
    return cfKeyCheck(columnFamilyHandle, null, key, true) != 0;
  }

  /**
   * As {@link #keyExists(ColumnFamilyHandle, byte[])} with {@code readOptions}.
   *
   * @param columnFamilyHandle the family
   * @param readOptions options of this read
   * @param key the key
   * @return whether it exists
   * @throws TalusException on an engine error
   */
  public boolean keyExists(ColumnFamilyHandle columnFamilyHandle, ReadOptions readOptions,
      byte[] key) throws TalusException {
    return cfKeyCheck(columnFamilyHandle, readOptions, key, true) != 0;
  }

  /**
   * Whether {@code key} may exist in column family {@code columnFamilyHandle}, found without IO
   * (see {@link #keyMayExist(byte[], Holder)}). The column-family form does not return the
   * value: {@code valueHolder} is set to null.
   *
   * @param columnFamilyHandle the family
   * @param key the key
   * @param valueHolder set to null; may be null
   * @return false when the key is certainly absent
   * @throws TalusException for a dropped family
   */
  public boolean keyMayExist(ColumnFamilyHandle columnFamilyHandle, byte[] key,
      Holder<byte[]> valueHolder) throws TalusException {
    return keyMayExist(columnFamilyHandle, null, key, valueHolder);
  }

  /**
   * As {@link #keyMayExist(ColumnFamilyHandle, byte[], Holder)} with {@code readOptions}.
   *
   * @param columnFamilyHandle the family
   * @param readOptions options of this read (null: defaults)
   * @param key the key
   * @param valueHolder set to null; may be null
   * @return false when the key is certainly absent
   * @throws TalusException for a dropped family
   */
  public boolean keyMayExist(ColumnFamilyHandle columnFamilyHandle, ReadOptions readOptions,
      byte[] key, Holder<byte[]> valueHolder) throws TalusException {
    boolean r = cfKeyCheck(columnFamilyHandle, readOptions, key, false) != 0;
    if (valueHolder != null) {
      valueHolder.setValue(null);
    }
    return r;
  }

  /**
   * Reads several keys, each in its own column family, at one snapshot.
   *
   * @param columnFamilyHandleList one family per key
   * @param keys the keys
   * @return one entry per key, {@code null} for absent keys
   * @throws TalusException on an engine error
   * @throws IllegalArgumentException if the lists differ in length
   */
  public List<byte[]> multiGetAsList(List<ColumnFamilyHandle> columnFamilyHandleList,
      List<byte[]> keys) throws TalusException {
    return multiGetAsList((ReadOptions) null, columnFamilyHandleList, keys);
  }

  /**
   * As {@link #multiGetAsList(List, List)} with {@code readOptions} (null: defaults).
   *
   * @param readOptions options of the reads
   * @param columnFamilyHandleList one family per key
   * @param keys the keys
   * @return one entry per key, {@code null} for absent keys
   * @throws TalusException on an engine error
   */
  public List<byte[]> multiGetAsList(ReadOptions readOptions,
      List<ColumnFamilyHandle> columnFamilyHandleList, List<byte[]> keys) throws TalusException {
    return multiGetAsList(readOptions, columnFamilyHandleList, keys, PackedBytes.MAX_CHUNK);
  }

  /**
   * {@link #multiGetAsList(ReadOptions, List, List)} with the keys and values crossing to native
   * code in chunks of at most {@code chunkLimit} bytes ({@link PackedBytes}).
   */
  List<byte[]> multiGetAsList(ReadOptions readOptions,
      List<ColumnFamilyHandle> columnFamilyHandleList, List<byte[]> keys, int chunkLimit)
      throws TalusException {
    checkOpen();
    Objects.requireNonNull(columnFamilyHandleList, "columnFamilyHandleList");
    Objects.requireNonNull(keys, "keys");
    if (columnFamilyHandleList.size() != keys.size()) {
      throw new IllegalArgumentException("For each key there must be a ColumnFamilyHandle.");
    }
    int[] ids = new int[keys.size()];
    int flags = readFlags(readOptions);
    long h = acquire();
    Snapshot snapshot = null;
    byte[][] values;
    int[] valueLengths;
    try {
      // The snapshot first: a read at another database's snapshot is refused whatever else.
      snapshot = acquireReadSnapshot(readOptions);
      for (int i = 0; i < ids.length; i++) {
        ids[i] = ColumnFamilyHandle.check(this, Objects.requireNonNull(
            columnFamilyHandleList.get(i), "columnFamilyHandleList element"));
      }
      PackedBytes packed = PackedBytes.pack(keys, chunkLimit, "keys");
      valueLengths = new int[packed.lengths.length];
      values = nativeCfMultiGet(h, flags, sequenceOf(snapshot), ids, packed.chunks,
          packed.lengths, valueLengths, chunkLimit);
    } finally {
      releaseReadSnapshot(snapshot);
      release();
    }
    return PackedBytes.unpack(values, valueLengths);
  }

  /**
   * A new iterator over column family {@code columnFamilyHandle}.
   *
   * @param columnFamilyHandle the family
   * @return the iterator, not yet positioned
   * @throws IllegalStateException for a dropped family (with the engine's message)
   */
  public TalusIterator newIterator(ColumnFamilyHandle columnFamilyHandle) {
    return newIterator(columnFamilyHandle, new ReadOptions());
  }

  /**
   * As {@link #newIterator(ColumnFamilyHandle)} with {@code readOptions}.
   *
   * @param columnFamilyHandle the family
   * @param readOptions options of the iterator
   * @return the iterator, not yet positioned
   * @throws IllegalStateException for a dropped family (with the engine's message)
   */
  public TalusIterator newIterator(ColumnFamilyHandle columnFamilyHandle,
      ReadOptions readOptions) {
    Objects.requireNonNull(readOptions, "readOptions");
    int id = ColumnFamilyHandle.check(this, columnFamilyHandle);
    int flags = readOptions.flags();
    long h = acquire();
    Snapshot snapshot = null;
    try {
      snapshot = acquireReadSnapshot(readOptions);
      TalusIterator it =
          TalusIterator.createCf(this, h, flags, sequenceOf(snapshot), readOptions, id);
      children.add(it);
      return it;
    } finally {
      releaseReadSnapshot(snapshot);
      release();
    }
  }

  /**
   * One iterator per column family, each at its own moment (RocksJava's {@code newIterators}).
   *
   * @param columnFamilyHandleList the families
   * @return the iterators, in order
   * @throws TalusException never; declared for RocksJava compatibility
   */
  public List<TalusIterator> newIterators(List<ColumnFamilyHandle> columnFamilyHandleList)
      throws TalusException {
    checkOpen();
    Objects.requireNonNull(columnFamilyHandleList, "columnFamilyHandleList");
    List<TalusIterator> out = new ArrayList<>(columnFamilyHandleList.size());
    for (ColumnFamilyHandle cf : columnFamilyHandleList) {
      out.add(newIterator(cf));
    }
    return out;
  }

  /**
   * As {@link #newIterators(List)}, each iterator with {@code readOptions}.
   *
   * @param columnFamilyHandleList the families
   * @param readOptions options of every iterator
   * @return one iterator per family, in list order
   * @throws TalusException on an engine error
   */
  public List<TalusIterator> newIterators(List<ColumnFamilyHandle> columnFamilyHandleList,
      ReadOptions readOptions) throws TalusException {
    checkOpen();
    Objects.requireNonNull(columnFamilyHandleList, "columnFamilyHandleList");
    Objects.requireNonNull(readOptions, "readOptions");
    List<TalusIterator> out = new ArrayList<>(columnFamilyHandleList.size());
    for (ColumnFamilyHandle cf : columnFamilyHandleList) {
      out.add(newIterator(cf, readOptions));
    }
    return out;
  }

  // ------------------------------------------- column-family offset/length and ByteBuffer forms
  //
  // A column-family call on the default family takes the default family's path (no copy); on
  // another family the key and value ranges are copied once into arrays for the one native call
  // of that family. Pinned by ColumnFamilyOverloadsTest.

  /** The bytes {@code [off, off + len)} of {@code a}; bad bounds: IndexOutOfBoundsException. */
  private static byte[] slice(byte[] a, int off, int len, String what) {
    Objects.requireNonNull(a, what);
    Objects.checkFromIndexSize(off, len, a.length);
    return off == 0 && len == a.length ? a : java.util.Arrays.copyOfRange(a, off, off + len);
  }

  /** The bytes from {@code b}'s position to its limit; the position moves to the limit. */
  private static byte[] drain(ByteBuffer b, String what) {
    Objects.requireNonNull(b, what);
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }

  private boolean isDefault(ColumnFamilyHandle cf) {
    return ColumnFamilyHandle.check(this, cf) == 0;
  }

  /**
   * Sets {@code key[offset, offset + len)} to {@code value[vOffset, vOffset + vLen)} in column
   * family {@code columnFamilyHandle}.
   *
   * @param columnFamilyHandle the family
   * @param key the key array
   * @param offset first key byte
   * @param len key length in bytes
   * @param value the value array
   * @param vOffset first value byte
   * @param vLen value length in bytes
   * @throws TalusException on an engine error
   * @throws IndexOutOfBoundsException if a range is outside its array
   */
  public void put(ColumnFamilyHandle columnFamilyHandle, byte[] key, int offset, int len,
      byte[] value, int vOffset, int vLen) throws TalusException {
    if (isDefault(columnFamilyHandle)) {
      put(key, offset, len, value, vOffset, vLen);
      return;
    }
    put(columnFamilyHandle, slice(key, offset, len, "key"), slice(value, vOffset, vLen, "value"));
  }

  /**
   * As {@link #put(ColumnFamilyHandle, byte[], int, int, byte[], int, int)} with {@code
   * writeOptions}.
   *
   * @param columnFamilyHandle the family
   * @param writeOptions options of this write
   * @param key the key array
   * @param offset first key byte
   * @param len key length in bytes
   * @param value the value array
   * @param vOffset first value byte
   * @param vLen value length in bytes
   * @throws TalusException on an engine error
   */
  public void put(ColumnFamilyHandle columnFamilyHandle, WriteOptions writeOptions, byte[] key,
      int offset, int len, byte[] value, int vOffset, int vLen) throws TalusException {
    if (isDefault(columnFamilyHandle)) {
      put(writeOptions, key, offset, len, value, vOffset, vLen);
      return;
    }
    put(columnFamilyHandle, writeOptions, slice(key, offset, len, "key"),
        slice(value, vOffset, vLen, "value"));
  }

  /**
   * Sets the key (position to limit of {@code key}) to the value (position to limit of {@code
   * value}) in column family {@code columnFamilyHandle}; both positions move to their limits.
   * Direct and heap buffers are both accepted.
   *
   * @param columnFamilyHandle the family
   * @param writeOptions options of this write
   * @param key the key buffer
   * @param value the value buffer
   * @throws TalusException on an engine error
   */
  public void put(ColumnFamilyHandle columnFamilyHandle, WriteOptions writeOptions,
      ByteBuffer key, ByteBuffer value) throws TalusException {
    if (isDefault(columnFamilyHandle)) {
      put(writeOptions, key, value);
      return;
    }
    Objects.requireNonNull(writeOptions, "writeOptions");
    put(columnFamilyHandle, writeOptions, drain(key, "key"), drain(value, "value"));
  }

  /**
   * Adds merge operand {@code value[vOffset, vOffset + vLen)} to {@code key[offset, offset +
   * len)} in column family {@code columnFamilyHandle} (the family needs a merge operator).
   *
   * @param columnFamilyHandle the family
   * @param key the key array
   * @param offset first key byte
   * @param len key length in bytes
   * @param value the operand array
   * @param vOffset first operand byte
   * @param vLen operand length in bytes
   * @throws TalusException on an engine error
   */
  public void merge(ColumnFamilyHandle columnFamilyHandle, byte[] key, int offset, int len,
      byte[] value, int vOffset, int vLen) throws TalusException {
    if (isDefault(columnFamilyHandle)) {
      merge(key, offset, len, value, vOffset, vLen);
      return;
    }
    merge(columnFamilyHandle, slice(key, offset, len, "key"), slice(value, vOffset, vLen,
        "value"));
  }

  /**
   * As {@link #merge(ColumnFamilyHandle, byte[], int, int, byte[], int, int)} with {@code
   * writeOptions}.
   *
   * @param columnFamilyHandle the family
   * @param writeOptions options of this write
   * @param key the key array
   * @param offset first key byte
   * @param len key length in bytes
   * @param value the operand array
   * @param vOffset first operand byte
   * @param vLen operand length in bytes
   * @throws TalusException on an engine error
   */
  public void merge(ColumnFamilyHandle columnFamilyHandle, WriteOptions writeOptions, byte[] key,
      int offset, int len, byte[] value, int vOffset, int vLen) throws TalusException {
    if (isDefault(columnFamilyHandle)) {
      merge(writeOptions, key, offset, len, value, vOffset, vLen);
      return;
    }
    merge(columnFamilyHandle, writeOptions, slice(key, offset, len, "key"),
        slice(value, vOffset, vLen, "value"));
  }

  /**
   * Adds the merge operand (position to limit of {@code value}) to the key (position to limit of
   * {@code key}) in column family {@code columnFamilyHandle}; both positions move to their
   * limits.
   *
   * @param columnFamilyHandle the family
   * @param writeOptions options of this write
   * @param key the key buffer
   * @param value the operand buffer
   * @throws TalusException on an engine error
   */
  public void merge(ColumnFamilyHandle columnFamilyHandle, WriteOptions writeOptions,
      ByteBuffer key, ByteBuffer value) throws TalusException {
    if (isDefault(columnFamilyHandle)) {
      merge(writeOptions, key, value);
      return;
    }
    Objects.requireNonNull(writeOptions, "writeOptions");
    merge(columnFamilyHandle, writeOptions, drain(key, "key"), drain(value, "value"));
  }

  /**
   * Deletes {@code key[offset, offset + len)} from column family {@code columnFamilyHandle}.
   *
   * @param columnFamilyHandle the family
   * @param key the key array
   * @param offset first key byte
   * @param len key length in bytes
   * @throws TalusException on an engine error
   */
  public void delete(ColumnFamilyHandle columnFamilyHandle, byte[] key, int offset, int len)
      throws TalusException {
    if (isDefault(columnFamilyHandle)) {
      delete(key, offset, len);
      return;
    }
    delete(columnFamilyHandle, slice(key, offset, len, "key"));
  }

  /**
   * As {@link #delete(ColumnFamilyHandle, byte[], int, int)} with {@code writeOptions}.
   *
   * @param columnFamilyHandle the family
   * @param writeOptions options of this write
   * @param key the key array
   * @param offset first key byte
   * @param len key length in bytes
   * @throws TalusException on an engine error
   */
  public void delete(ColumnFamilyHandle columnFamilyHandle, WriteOptions writeOptions,
      byte[] key, int offset, int len) throws TalusException {
    if (isDefault(columnFamilyHandle)) {
      delete(writeOptions, key, offset, len);
      return;
    }
    delete(columnFamilyHandle, writeOptions, slice(key, offset, len, "key"));
  }

  /**
   * Deletes the key (position to limit of {@code key}) from column family {@code
   * columnFamilyHandle}; the position moves to the limit.
   *
   * @param columnFamilyHandle the family
   * @param writeOptions options of this write
   * @param key the key buffer
   * @throws TalusException on an engine error
   */
  public void delete(ColumnFamilyHandle columnFamilyHandle, WriteOptions writeOptions,
      ByteBuffer key) throws TalusException {
    if (isDefault(columnFamilyHandle)) {
      delete(writeOptions, key);
      return;
    }
    Objects.requireNonNull(writeOptions, "writeOptions");
    delete(columnFamilyHandle, writeOptions, drain(key, "key"));
  }

  /**
   * The value of {@code key[offset, offset + len)} in column family {@code columnFamilyHandle}.
   *
   * @param columnFamilyHandle the family
   * @param key the key array
   * @param offset first key byte
   * @param len key length in bytes
   * @return the value, or {@code null} when absent
   * @throws TalusException on an engine error
   */
  public byte[] get(ColumnFamilyHandle columnFamilyHandle, byte[] key, int offset, int len)
      throws TalusException {
    return get(columnFamilyHandle, (ReadOptions) null, key, offset, len);
  }

  /**
   * As {@link #get(ColumnFamilyHandle, byte[], int, int)} with {@code readOptions} (null:
   * defaults).
   *
   * @param columnFamilyHandle the family
   * @param readOptions options of this read
   * @param key the key array
   * @param offset first key byte
   * @param len key length in bytes
   * @return the value, or {@code null} when absent
   * @throws TalusException on an engine error
   */
  public byte[] get(ColumnFamilyHandle columnFamilyHandle, ReadOptions readOptions, byte[] key,
      int offset, int len) throws TalusException {
    return get(columnFamilyHandle, readOptions, slice(key, offset, len, "key"));
  }

  /**
   * Reads the value of {@code key} in column family {@code columnFamilyHandle} into {@code
   * value}: as much as fits is copied.
   *
   * @param columnFamilyHandle the family
   * @param key the key
   * @param value where the value is copied
   * @return the value's full length in bytes, or {@link #NOT_FOUND}
   * @throws TalusException on an engine error
   */
  public int get(ColumnFamilyHandle columnFamilyHandle, byte[] key, byte[] value)
      throws TalusException {
    Objects.requireNonNull(value, "value");
    return get(columnFamilyHandle, null, key, 0, key == null ? 0 : key.length, value, 0,
        value.length);
  }

  /**
   * As {@link #get(ColumnFamilyHandle, byte[], byte[])} with {@code readOptions} (null:
   * defaults).
   *
   * @param columnFamilyHandle the family
   * @param readOptions options of this read
   * @param key the key
   * @param value where the value is copied
   * @return the value's full length in bytes, or {@link #NOT_FOUND}
   * @throws TalusException on an engine error
   */
  public int get(ColumnFamilyHandle columnFamilyHandle, ReadOptions readOptions, byte[] key,
      byte[] value) throws TalusException {
    Objects.requireNonNull(value, "value");
    return get(columnFamilyHandle, readOptions, key, 0, key == null ? 0 : key.length, value, 0,
        value.length);
  }

  /**
   * Reads the value of {@code key[offset, offset + len)} in column family {@code
   * columnFamilyHandle} into {@code value[vOffset, vOffset + vLen)}: as much as fits is copied.
   *
   * @param columnFamilyHandle the family
   * @param key the key array
   * @param offset first key byte
   * @param len key length in bytes
   * @param value the value array
   * @param vOffset where the value goes
   * @param vLen room for the value in bytes
   * @return the value's full length in bytes, or {@link #NOT_FOUND}
   * @throws TalusException on an engine error
   */
  public int get(ColumnFamilyHandle columnFamilyHandle, byte[] key, int offset, int len,
      byte[] value, int vOffset, int vLen) throws TalusException {
    return get(columnFamilyHandle, null, key, offset, len, value, vOffset, vLen);
  }

  /**
   * As {@link #get(ColumnFamilyHandle, byte[], int, int, byte[], int, int)} with {@code
   * readOptions} (null: defaults).
   *
   * @param columnFamilyHandle the family
   * @param readOptions options of this read
   * @param key the key array
   * @param offset first key byte
   * @param len key length in bytes
   * @param value the value array
   * @param vOffset where the value goes
   * @param vLen room for the value in bytes
   * @return the value's full length in bytes, or {@link #NOT_FOUND}
   * @throws TalusException on an engine error
   */
  public int get(ColumnFamilyHandle columnFamilyHandle, ReadOptions readOptions, byte[] key,
      int offset, int len, byte[] value, int vOffset, int vLen) throws TalusException {
    Objects.requireNonNull(value, "value");
    Objects.checkFromIndexSize(vOffset, vLen, value.length);
    byte[] v = get(columnFamilyHandle, readOptions, slice(key, offset, len, "key"));
    if (v == null) {
      return NOT_FOUND;
    }
    System.arraycopy(v, 0, value, vOffset, Math.min(v.length, vLen));
    return v.length;
  }

  /**
   * Reads the key (position to limit of {@code key}) in column family {@code
   * columnFamilyHandle} into {@code value} from its position: as much as fits is copied. The
   * key's position moves to its limit; on a hit the value's limit becomes {@code min(limit,
   * position + length)}.
   *
   * @param columnFamilyHandle the family
   * @param readOptions options of this read
   * @param key the key buffer
   * @param value the value buffer, not read-only
   * @return the value's full length in bytes, or {@link #NOT_FOUND}
   * @throws TalusException on an engine error
   */
  public int get(ColumnFamilyHandle columnFamilyHandle, ReadOptions readOptions, ByteBuffer key,
      ByteBuffer value) throws TalusException {
    if (isDefault(columnFamilyHandle)) {
      return get(readOptions, key, value);
    }
    Objects.requireNonNull(readOptions, "readOptions");
    Objects.requireNonNull(value, "value");
    if (value.isReadOnly()) {
      throw new IllegalArgumentException("value buffer is read-only");
    }
    byte[] v = get(columnFamilyHandle, readOptions, drain(key, "key"));
    if (v == null) {
      return NOT_FOUND;
    }
    value.duplicate().put(v, 0, Math.min(v.length, value.remaining()));
    value.limit(Math.min(value.limit(), value.position() + v.length));
    return v.length;
  }

  /**
   * Whether {@code key[offset, offset + len)} exists in column family {@code
   * columnFamilyHandle}: exact.
   *
   * @param columnFamilyHandle the family
   * @param key the key array
   * @param offset first key byte
   * @param len key length in bytes
   * @return whether it exists
   * @throws TalusException on an engine error
   */
  public boolean keyExists(ColumnFamilyHandle columnFamilyHandle, byte[] key, int offset,
      int len) throws TalusException {
    return keyExists(columnFamilyHandle, null, slice(key, offset, len, "key"));
  }

  /**
   * As {@link #keyExists(ColumnFamilyHandle, byte[], int, int)} with {@code readOptions}.
   *
   * @param columnFamilyHandle the family
   * @param readOptions options of this read (null: defaults)
   * @param key the key array
   * @param offset first key byte
   * @param len key length in bytes
   * @return whether it exists
   * @throws TalusException on an engine error
   */
  public boolean keyExists(ColumnFamilyHandle columnFamilyHandle, ReadOptions readOptions,
      byte[] key, int offset, int len) throws TalusException {
    return keyExists(columnFamilyHandle, readOptions, slice(key, offset, len, "key"));
  }

  /**
   * Whether the key (position to limit of {@code key}) exists in column family {@code
   * columnFamilyHandle}: exact. The position moves to the limit.
   *
   * @param columnFamilyHandle the family
   * @param key the key buffer
   * @return whether it exists
   * @throws TalusException on an engine error
   */
  public boolean keyExists(ColumnFamilyHandle columnFamilyHandle, ByteBuffer key)
      throws TalusException {
    return keyExists(columnFamilyHandle, null, drain(key, "key"));
  }

  /**
   * As {@link #keyExists(ColumnFamilyHandle, ByteBuffer)} with {@code readOptions}.
   *
   * @param columnFamilyHandle the family
   * @param readOptions options of this read (null: defaults)
   * @param key the key buffer
   * @return whether it exists
   * @throws TalusException on an engine error
   */
  public boolean keyExists(ColumnFamilyHandle columnFamilyHandle, ReadOptions readOptions,
      ByteBuffer key) throws TalusException {
    return keyExists(columnFamilyHandle, readOptions, drain(key, "key"));
  }

  /**
   * Whether {@code key[offset, offset + len)} may exist in column family {@code
   * columnFamilyHandle} (see {@link #keyMayExist(ColumnFamilyHandle, byte[], Holder)}).
   *
   * @param columnFamilyHandle the family
   * @param key the key array
   * @param offset first key byte
   * @param len key length in bytes
   * @param valueHolder set to null; may be null
   * @return false when the key is certainly absent
   * @throws TalusException for a dropped family
   */
  public boolean keyMayExist(ColumnFamilyHandle columnFamilyHandle, byte[] key, int offset,
      int len, Holder<byte[]> valueHolder) throws TalusException {
    return keyMayExist(columnFamilyHandle, null, slice(key, offset, len, "key"), valueHolder);
  }

  /**
   * As {@link #keyMayExist(ColumnFamilyHandle, byte[], int, int, Holder)} with {@code
   * readOptions}.
   *
   * @param columnFamilyHandle the family
   * @param readOptions options of this read (null: defaults)
   * @param key the key array
   * @param offset first key byte
   * @param len key length in bytes
   * @param valueHolder set to null; may be null
   * @return false when the key is certainly absent
   * @throws TalusException for a dropped family
   */
  public boolean keyMayExist(ColumnFamilyHandle columnFamilyHandle, ReadOptions readOptions,
      byte[] key, int offset, int len, Holder<byte[]> valueHolder) throws TalusException {
    return keyMayExist(columnFamilyHandle, readOptions, slice(key, offset, len, "key"),
        valueHolder);
  }

  /**
   * Whether the key (position to limit of {@code key}) may exist in column family {@code
   * columnFamilyHandle}, found without IO. The position moves to the limit.
   *
   * @param columnFamilyHandle the family
   * @param key the key buffer
   * @return false when the key is certainly absent
   * @throws TalusException for a dropped family
   */
  public boolean keyMayExist(ColumnFamilyHandle columnFamilyHandle, ByteBuffer key)
      throws TalusException {
    return keyMayExist(columnFamilyHandle, null, drain(key, "key"), null);
  }

  /**
   * As {@link #keyMayExist(ColumnFamilyHandle, ByteBuffer)} with {@code readOptions}.
   *
   * @param columnFamilyHandle the family
   * @param readOptions options of this read (null: defaults)
   * @param key the key buffer
   * @return false when the key is certainly absent
   * @throws TalusException for a dropped family
   */
  public boolean keyMayExist(ColumnFamilyHandle columnFamilyHandle, ReadOptions readOptions,
      ByteBuffer key) throws TalusException {
    return keyMayExist(columnFamilyHandle, readOptions, drain(key, "key"), null);
  }

  /**
   * Whether the key (position to limit of {@code key}) may exist in column family {@code
   * columnFamilyHandle}. On the default family this is {@link #keyMayExist(ByteBuffer,
   * ByteBuffer)}; on another family the value is not returned ({@code kExistsWithoutValue},
   * length 0, or {@code kNotExist}). The key's position moves to its limit.
   *
   * @param columnFamilyHandle the family
   * @param key the key buffer
   * @param value where a value found cheaply is copied (default family only)
   * @return the answer and the value's length
   * @throws TalusException for a dropped family
   */
  public KeyMayExist keyMayExist(ColumnFamilyHandle columnFamilyHandle, ByteBuffer key,
      ByteBuffer value) throws TalusException {
    return keyMayExist(columnFamilyHandle, null, key, value);
  }

  /**
   * As {@link #keyMayExist(ColumnFamilyHandle, ByteBuffer, ByteBuffer)} with {@code
   * readOptions}.
   *
   * @param columnFamilyHandle the family
   * @param readOptions options of this read (null: defaults)
   * @param key the key buffer
   * @param value where a value found cheaply is copied (default family only)
   * @return the answer and the value's length
   * @throws TalusException for a dropped family
   */
  public KeyMayExist keyMayExist(ColumnFamilyHandle columnFamilyHandle, ReadOptions readOptions,
      ByteBuffer key, ByteBuffer value) throws TalusException {
    if (isDefault(columnFamilyHandle)) {
      return readOptions == null ? keyMayExist(key, value)
          : keyMayExist(readOptions, key, value);
    }
    Objects.requireNonNull(value, "value");
    boolean may = keyMayExist(columnFamilyHandle, readOptions, drain(key, "key"), null);
    return new KeyMayExist(may ? KeyMayExist.KeyMayExistEnum.kExistsWithoutValue
        : KeyMayExist.KeyMayExistEnum.kNotExist, 0);
  }

  /**
   * Flushes column family {@code columnFamilyHandle}'s memtables to L0 tables.
   *
   * @param flushOptions how to flush
   * @param columnFamilyHandle the family
   * @throws TalusException on an engine error
   */
  public void flush(FlushOptions flushOptions, ColumnFamilyHandle columnFamilyHandle)
      throws TalusException {
    Objects.requireNonNull(flushOptions, "flushOptions");
    int id = ColumnFamilyHandle.check(this, columnFamilyHandle);
    long h = acquire();
    try {
      nativeCfFlush(h, id, flushOptions.waitForFlush(), flushOptions.allowWriteStall());
    } finally {
      release();
    }
  }

  /**
   * Flushes each family of {@code columnFamilyHandles}, one after the other (RocksDB's atomic
   * flush of several families is not implemented: each family's flush is its own manifest
   * edit).
   *
   * @param flushOptions how to flush
   * @param columnFamilyHandles the families
   * @throws TalusException on an engine error
   */
  public void flush(FlushOptions flushOptions, List<ColumnFamilyHandle> columnFamilyHandles)
      throws TalusException {
    checkOpen();
    Objects.requireNonNull(columnFamilyHandles, "columnFamilyHandles");
    for (ColumnFamilyHandle cf : columnFamilyHandles) {
      flush(flushOptions, cf);
    }
  }

  /**
   * Compacts all of column family {@code columnFamilyHandle}.
   *
   * @param columnFamilyHandle the family
   * @throws TalusException on an engine error
   */
  public void compactRange(ColumnFamilyHandle columnFamilyHandle) throws TalusException {
    compactRange(columnFamilyHandle, null, null);
  }

  /**
   * Compacts {@code [begin, end]} of column family {@code columnFamilyHandle} (null: unbounded).
   *
   * @param columnFamilyHandle the family
   * @param begin first key, or null
   * @param end last key, or null
   * @throws TalusException on an engine error
   */
  public void compactRange(ColumnFamilyHandle columnFamilyHandle, byte[] begin, byte[] end)
      throws TalusException {
    try (CompactRangeOptions defaults = new CompactRangeOptions()) {
      compactRange(columnFamilyHandle, begin, end, defaults);
    }
  }

  /**
   * Compacts {@code [begin, end]} of column family {@code columnFamilyHandle} (null: unbounded)
   * as {@code options} say (see {@link CompactRangeOptions}). Under leveled compaction the range
   * is compacted level by level down to the last level holding data; under universal compaction
   * every file of the family is merged into one sorted run at the last level, whatever the range;
   * under FIFO compaction one FIFO pick runs (tables due by TTL or size are dropped, or small L0
   * tables merged).
   *
   * @param columnFamilyHandle the family
   * @param begin first key, or null
   * @param end last key, or null
   * @param options the options; not null, not closed
   * @throws TalusException on an engine error ({@code NotSupported} when {@code changeLevel}
   *     cannot move the data: levels in between hold files, or the data is in L0; {@code
   *     InvalidArgument} for a target level beyond {@code numLevels})
   */
  public void compactRange(
      ColumnFamilyHandle columnFamilyHandle,
      byte[] begin,
      byte[] end,
      CompactRangeOptions options)
      throws TalusException {
    int id = ColumnFamilyHandle.check(this, columnFamilyHandle);
    Objects.requireNonNull(options, "options");
    int flags = options.flags();
    long h = acquire();
    try {
      nativeCfCompactRange(
          h,
          id,
          begin,
          end,
          flags,
          options.targetLevel(),
          options.bottommostValue(),
          options.maxSubcompactions());
    } finally {
      release();
    }
  }

  /**
   * A handle of the default (and only) column family: a new object each call, equal to the
   * others, so that closing one (which drops nothing, as in RocksJava) leaves the database and
   * later calls unaffected.
   *
   * @return the default column family
   * @throws IllegalStateException if this database is closed
   */
  public ColumnFamilyHandle getDefaultColumnFamily() {
    checkOpen();
    return new ColumnFamilyHandle(this);
  }

  /** @return the database directory this database was opened at */
  public String getName() {
    checkOpen();
    return path;
  }

  /** @return the options this database was opened with */
  public Options getOptions() {
    checkOpen();
    return options;
  }

  // ---------------------------------------------------------------- writes

  /**
   * Sets {@code key} to {@code value} with default write options.
   *
   * @param key the key (may be empty)
   * @param value the value (may be empty)
   * @throws TalusException on an engine error
   */
  public void put(byte[] key, byte[] value) throws TalusException {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    writeRange(CF_PUT, 0, key, 0, key.length, value, 0, value.length);
  }

  /**
   * Sets {@code key} to {@code value}.
   *
   * @param writeOptions options of this write
   * @param key the key
   * @param value the value
   * @throws TalusException on an engine error ({@code Incomplete} for a {@code noSlowdown} write
   *     during a stall)
   */
  public void put(WriteOptions writeOptions, byte[] key, byte[] value) throws TalusException {
    Objects.requireNonNull(writeOptions, "writeOptions");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    writeRange(CF_PUT, writeOptions.flags(), key, 0, key.length, value, 0, value.length);
  }

  /**
   * Sets {@code key[offset, offset+len)} to {@code value[vOffset, vOffset+vLen)}.
   *
   * @param key the key array
   * @param offset first key byte
   * @param len key length
   * @param value the value array
   * @param vOffset first value byte
   * @param vLen value length
   * @throws TalusException on an engine error
   */
  public void put(byte[] key, int offset, int len, byte[] value, int vOffset, int vLen)
      throws TalusException {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    writeRange(CF_PUT, 0, key, offset, len, value, vOffset, vLen);
  }

  /**
   * As {@link #put(byte[], int, int, byte[], int, int)} with write options.
   *
   * @param writeOptions options of this write
   * @param key the key array
   * @param offset first key byte
   * @param len key length
   * @param value the value array
   * @param vOffset first value byte
   * @param vLen value length
   * @throws TalusException on an engine error
   */
  public void put(WriteOptions writeOptions, byte[] key, int offset, int len, byte[] value,
      int vOffset, int vLen) throws TalusException {
    Objects.requireNonNull(writeOptions, "writeOptions");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    writeRange(CF_PUT, writeOptions.flags(), key, offset, len, value, vOffset, vLen);
  }

  /**
   * The array form of a default-family put ({@code op} {@code CF_PUT}) or merge ({@code
   * CF_MERGE}): {@code key[offset, offset+len)}, {@code value[vOffset, vOffset+vLen)}.
   */
  private void writeRange(int op, int flags, byte[] key, int offset, int len, byte[] value,
      int vOffset, int vLen) throws TalusException {
    Objects.checkFromIndexSize(offset, len, key.length);
    Objects.checkFromIndexSize(vOffset, vLen, value.length);
    long h = acquire();
    try {
      if (op == CF_PUT) {
        nativePut(h, flags, key, offset, len, value, vOffset, vLen);
      } else {
        nativeMerge(h, flags, key, offset, len, value, vOffset, vLen);
      }
    } finally {
      release();
    }
  }

  /**
   * The buffer form of a default-family put ({@code op} {@code CF_PUT}) or merge ({@code
   * CF_MERGE}): the key and value from position to limit, both buffers direct or both heap; each
   * position moves to its limit.
   */
  private void writeBuffers(int op, WriteOptions writeOptions, ByteBuffer key, ByteBuffer value)
      throws TalusException {
    Objects.requireNonNull(writeOptions, "writeOptions");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    if (key.isDirect() != value.isDirect()) {
      String message = "ByteBuffer " + (op == CF_PUT ? "put" : "merge")
          + " needs both buffers direct or both heap";
      throw new TalusException(message,
          new Status(Status.Code.InvalidArgument, Status.SubCode.None, message));
    }
    if (key.isDirect()) {
      long h = acquire();
      try {
        if (op == CF_PUT) {
          nativePutDirect(h, writeOptions.flags(), key, key.position(), key.remaining(), value,
              value.position(), value.remaining());
        } else {
          nativeMergeDirect(h, writeOptions.flags(), key, key.position(), key.remaining(), value,
              value.position(), value.remaining());
        }
      } finally {
        release();
      }
    } else {
      byte[] k = new byte[key.remaining()];
      byte[] v = new byte[value.remaining()];
      key.duplicate().get(k);
      value.duplicate().get(v);
      writeRange(op, writeOptions.flags(), k, 0, k.length, v, 0, v.length);
    }
    key.position(key.limit());
    value.position(value.limit());
  }

  /**
   * Sets the key in {@code key} (position to limit) to the value in {@code value}; both buffers
   * direct, or both heap. Each buffer's position moves to its limit.
   *
   * @param writeOptions options of this write
   * @param key the key buffer
   * @param value the value buffer
   * @throws TalusException on an engine error
   */
  public void put(WriteOptions writeOptions, ByteBuffer key, ByteBuffer value)
      throws TalusException {
    writeBuffers(CF_PUT, writeOptions, key, value);
  }

  /**
   * Deletes {@code key}.
   *
   * @param key the key
   * @throws TalusException on an engine error
   */
  public void delete(byte[] key) throws TalusException {
    Objects.requireNonNull(key, "key");
    delete(0, key, 0, key.length);
  }

  /**
   * Deletes {@code key}.
   *
   * @param writeOptions options of this write
   * @param key the key
   * @throws TalusException on an engine error
   */
  public void delete(WriteOptions writeOptions, byte[] key) throws TalusException {
    Objects.requireNonNull(writeOptions, "writeOptions");
    Objects.requireNonNull(key, "key");
    delete(writeOptions.flags(), key, 0, key.length);
  }

  /**
   * Deletes {@code key[offset, offset+len)}.
   *
   * @param key the key array
   * @param offset first key byte
   * @param len key length
   * @throws TalusException on an engine error
   */
  public void delete(byte[] key, int offset, int len) throws TalusException {
    Objects.requireNonNull(key, "key");
    delete(0, key, offset, len);
  }

  /**
   * Deletes {@code key[offset, offset+len)}.
   *
   * @param writeOptions options of this write
   * @param key the key array
   * @param offset first key byte
   * @param len key length
   * @throws TalusException on an engine error
   */
  public void delete(WriteOptions writeOptions, byte[] key, int offset, int len)
      throws TalusException {
    Objects.requireNonNull(writeOptions, "writeOptions");
    Objects.requireNonNull(key, "key");
    delete(writeOptions.flags(), key, offset, len);
  }

  /**
   * Deletes the key in the direct buffer {@code key} (position to limit); the position moves to
   * the limit.
   *
   * @param writeOptions options of this write
   * @param key the key buffer, direct
   * @throws TalusException on an engine error
   */
  public void delete(WriteOptions writeOptions, ByteBuffer key) throws TalusException {
    Objects.requireNonNull(writeOptions, "writeOptions");
    Objects.requireNonNull(key, "key");
    if (key.isDirect()) {
      long h = acquire();
      try {
        nativeDeleteDirect(h, writeOptions.flags(), key, key.position(), key.remaining());
      } finally {
        release();
      }
    } else {
      byte[] k = new byte[key.remaining()];
      key.duplicate().get(k);
      delete(writeOptions.flags(), k, 0, k.length);
    }
    key.position(key.limit());
  }

  private void delete(int flags, byte[] key, int offset, int len) throws TalusException {
    Objects.checkFromIndexSize(offset, len, key.length);
    long h = acquire();
    try {
      nativeDelete(h, flags, key, offset, len);
    } finally {
      release();
    }
  }

  /**
   * Deletes every key in {@code [beginKey, endKey)}.
   *
   * @param beginKey first key deleted
   * @param endKey first key kept
   * @throws TalusException on an engine error
   */
  public void deleteRange(byte[] beginKey, byte[] endKey) throws TalusException {
    deleteRange((WriteOptions) null, beginKey, endKey);
  }

  /**
   * Deletes every key in {@code [beginKey, endKey)}.
   *
   * @param writeOptions options of this write (null for defaults)
   * @param beginKey first key deleted
   * @param endKey first key kept
   * @throws TalusException on an engine error
   */
  public void deleteRange(WriteOptions writeOptions, byte[] beginKey, byte[] endKey)
      throws TalusException {
    Objects.requireNonNull(beginKey, "beginKey");
    Objects.requireNonNull(endKey, "endKey");
    int flags = writeOptions == null ? 0 : writeOptions.flags();
    long h = acquire();
    try {
      nativeDeleteRange(h, flags, beginKey, endKey);
    } finally {
      release();
    }
  }

  /**
   * Merges {@code value} into {@code key}'s value with the database's merge operator ({@link
   * Options#setMergeOperator(MergeOperator)}), with default write options: the operand is stored
   * as written and combined with the key's value when the key is read (and by flushes and
   * compactions).
   *
   * @param key the key
   * @param value the merge operand
   * @throws TalusException {@code NotSupported} when the database has no merge operator
   *     (RocksDB's "Provide a merge_operator when opening DB"), or another engine error
   */
  public void merge(byte[] key, byte[] value) throws TalusException {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    writeRange(CF_MERGE, 0, key, 0, key.length, value, 0, value.length);
  }

  /**
   * Merges {@code value} into {@code key}'s value (see {@link #merge(byte[], byte[])}).
   *
   * @param writeOptions options of this write
   * @param key the key
   * @param value the merge operand
   * @throws TalusException {@code NotSupported} without a merge operator, or another engine
   *     error
   */
  public void merge(WriteOptions writeOptions, byte[] key, byte[] value) throws TalusException {
    Objects.requireNonNull(writeOptions, "writeOptions");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    writeRange(CF_MERGE, writeOptions.flags(), key, 0, key.length, value, 0, value.length);
  }

  /**
   * Merges {@code value[vOffset, vOffset+vLen)} into the value of {@code key[offset,
   * offset+len)} (see {@link #merge(byte[], byte[])}).
   *
   * @param key the key array
   * @param offset first key byte
   * @param len key length
   * @param value the operand array
   * @param vOffset first operand byte
   * @param vLen operand length
   * @throws TalusException {@code NotSupported} without a merge operator, or another engine
   *     error
   * @throws IndexOutOfBoundsException if a range lies outside its array
   */
  public void merge(byte[] key, int offset, int len, byte[] value, int vOffset, int vLen)
      throws TalusException {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    writeRange(CF_MERGE, 0, key, offset, len, value, vOffset, vLen);
  }

  /**
   * As {@link #merge(byte[], int, int, byte[], int, int)} with write options.
   *
   * @param writeOptions options of this write
   * @param key the key array
   * @param offset first key byte
   * @param len key length
   * @param value the operand array
   * @param vOffset first operand byte
   * @param vLen operand length
   * @throws TalusException {@code NotSupported} without a merge operator, or another engine
   *     error
   * @throws IndexOutOfBoundsException if a range lies outside its array
   */
  public void merge(WriteOptions writeOptions, byte[] key, int offset, int len, byte[] value,
      int vOffset, int vLen) throws TalusException {
    Objects.requireNonNull(writeOptions, "writeOptions");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    writeRange(CF_MERGE, writeOptions.flags(), key, offset, len, value, vOffset, vLen);
  }

  /**
   * Merges the operand in {@code value} (position to limit) into the value of the key in {@code
   * key}; both buffers direct, or both heap. Each buffer's position moves to its limit.
   *
   * @param writeOptions options of this write
   * @param key the key buffer
   * @param value the operand buffer
   * @throws TalusException {@code InvalidArgument} when one buffer is direct and the other not;
   *     {@code NotSupported} without a merge operator; or another engine error
   */
  public void merge(WriteOptions writeOptions, ByteBuffer key, ByteBuffer value)
      throws TalusException {
    writeBuffers(CF_MERGE, writeOptions, key, value);
  }

  /**
   * Deletes {@code key}'s most recent put, with default write options. RocksDB's contract: the
   * key was put once since it was last deleted, and never merged; then a compaction can drop the
   * single delete together with that put. Talus reads a single delete as a delete, so a broken
   * contract (several puts, or merges) never brings an older value back, where RocksDB's result
   * is undefined; a compaction drops the pair only when no older entry of the key can exist.
   *
   * @param key the key
   * @throws TalusException on an engine error
   */
  public void singleDelete(byte[] key) throws TalusException {
    Objects.requireNonNull(key, "key");
    singleDelete(0, key);
  }

  /**
   * Deletes {@code key}'s most recent put (see {@link #singleDelete(byte[])}).
   *
   * @param writeOptions options of this write
   * @param key the key
   * @throws TalusException on an engine error
   */
  public void singleDelete(WriteOptions writeOptions, byte[] key) throws TalusException {
    Objects.requireNonNull(writeOptions, "writeOptions");
    Objects.requireNonNull(key, "key");
    singleDelete(writeOptions.flags(), key);
  }

  private void singleDelete(int flags, byte[] key) throws TalusException {
    long h = acquire();
    try {
      nativeSingleDelete(h, flags, key, 0, key.length);
    } finally {
      release();
    }
  }

  /**
   * Applies {@code batch} atomically: all of its updates become visible together, with
   * consecutive sequence numbers.
   *
   * @param writeOptions options of this write
   * @param batch the updates
   * @throws TalusException on an engine error
   */
  public void write(WriteOptions writeOptions, WriteBatch batch) throws TalusException {
    Objects.requireNonNull(writeOptions, "writeOptions");
    Objects.requireNonNull(batch, "batch");
    int flags = writeOptions.flags();
    long h = acquire(); // first: an empty batch on a closed database throws too
    try {
      // An empty batch does nothing, unless its options are refused: the engine checks them
      // before it looks at the batch (sync with disableWAL is InvalidArgument for every write).
      int syncWithoutWal = WriteOptions.SYNC | WriteOptions.DISABLE_WAL;
      if (batch.count() == 0 && (flags & syncWithoutWal) != syncWithoutWal) {
        return;
      }
      nativeWrite(h, flags, batch.buffer(), batch.size());
    } finally {
      release();
    }
  }

  // ---------------------------------------------------------------- reads

  /**
   * Reads {@code key}.
   *
   * @param key the key
   * @return the value, or {@code null} when absent
   * @throws TalusException on an engine error
   */
  public byte[] get(byte[] key) throws TalusException {
    Objects.requireNonNull(key, "key");
    return read(null, key, 0, key.length);
  }

  /**
   * Reads {@code key}.
   *
   * @param readOptions options of this read
   * @param key the key
   * @return the value, or {@code null} when absent
   * @throws TalusException on an engine error
   * @throws IllegalArgumentException if the snapshot of {@code readOptions} belongs to another
   *     database
   * @throws IllegalStateException if this database, {@code readOptions} or its snapshot is closed
   */
  public byte[] get(ReadOptions readOptions, byte[] key) throws TalusException {
    Objects.requireNonNull(readOptions, "readOptions");
    Objects.requireNonNull(key, "key");
    return read(readOptions, key, 0, key.length);
  }

  /**
   * Reads {@code key[offset, offset+len)}.
   *
   * @param key the key array
   * @param offset first key byte
   * @param len key length
   * @return the value, or {@code null} when absent
   * @throws TalusException on an engine error
   */
  public byte[] get(byte[] key, int offset, int len) throws TalusException {
    Objects.requireNonNull(key, "key");
    return read(null, key, offset, len);
  }

  /**
   * Reads {@code key[offset, offset+len)}.
   *
   * @param readOptions options of this read
   * @param key the key array
   * @param offset first key byte
   * @param len key length
   * @return the value, or {@code null} when absent
   * @throws TalusException on an engine error
   * @throws IllegalArgumentException if the snapshot of {@code readOptions} belongs to another
   *     database
   * @throws IllegalStateException if this database, {@code readOptions} or its snapshot is closed
   */
  public byte[] get(ReadOptions readOptions, byte[] key, int offset, int len)
      throws TalusException {
    Objects.requireNonNull(readOptions, "readOptions");
    Objects.requireNonNull(key, "key");
    return read(readOptions, key, offset, len);
  }

  /** The read behind every {@code byte[]}-returning get; {@code readOptions} null for defaults. */
  private byte[] read(ReadOptions readOptions, byte[] key, int offset, int len)
      throws TalusException {
    Objects.checkFromIndexSize(offset, len, key.length);
    int flags = readFlags(readOptions);
    long h = acquire();
    Snapshot snapshot = null;
    try {
      snapshot = acquireReadSnapshot(readOptions);
      return nativeGet(h, flags, sequenceOf(snapshot), key, offset, len);
    } finally {
      releaseReadSnapshot(snapshot);
      release();
    }
  }

  /**
   * Reads {@code key} into {@code value}, copying as much as fits.
   *
   * @param key the key
   * @param value the buffer for the value
   * @return the full length of the value, or {@link #NOT_FOUND}
   * @throws TalusException on an engine error
   */
  public int get(byte[] key, byte[] value) throws TalusException {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    return getInto(null, key, 0, key.length, value, 0, value.length);
  }

  /**
   * Reads {@code key} into {@code value}, copying as much as fits.
   *
   * @param readOptions options of this read
   * @param key the key
   * @param value the buffer for the value
   * @return the full length of the value, or {@link #NOT_FOUND}
   * @throws TalusException on an engine error
   * @throws IllegalArgumentException if the snapshot of {@code readOptions} belongs to another
   *     database
   * @throws IllegalStateException if this database, {@code readOptions} or its snapshot is closed
   */
  public int get(ReadOptions readOptions, byte[] key, byte[] value) throws TalusException {
    Objects.requireNonNull(readOptions, "readOptions");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    return getInto(readOptions, key, 0, key.length, value, 0, value.length);
  }

  /**
   * Reads {@code key[offset, offset+len)} into {@code value[vOffset, vOffset+vLen)}.
   *
   * @param key the key array
   * @param offset first key byte
   * @param len key length
   * @param value the value array
   * @param vOffset first value byte
   * @param vLen room for the value
   * @return the full length of the value, or {@link #NOT_FOUND}
   * @throws TalusException on an engine error
   */
  public int get(byte[] key, int offset, int len, byte[] value, int vOffset, int vLen)
      throws TalusException {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    return getInto(null, key, offset, len, value, vOffset, vLen);
  }

  private int getInto(ReadOptions readOptions, byte[] key, int offset, int len, byte[] value,
      int vOffset, int vLen) throws TalusException {
    Objects.checkFromIndexSize(offset, len, key.length);
    Objects.checkFromIndexSize(vOffset, vLen, value.length);
    int flags = readFlags(readOptions);
    long h = acquire();
    Snapshot snapshot = null;
    try {
      snapshot = acquireReadSnapshot(readOptions);
      return nativeGetInto(h, flags, sequenceOf(snapshot), key, offset, len, value, vOffset,
          vLen);
    } finally {
      releaseReadSnapshot(snapshot);
      release();
    }
  }

  /**
   * Reads the key in {@code key} (position to limit) into {@code value} (from its position).
   * With direct buffers nothing is copied on the Java side. On a hit, {@code value}'s limit
   * becomes {@code min(limit, position + length)}; the key's position moves to its limit.
   *
   * @param readOptions options of this read
   * @param key the key buffer
   * @param value the value buffer; writable
   * @return the full length of the value, or {@link #NOT_FOUND}
   * @throws TalusException on an engine error
   * @throws IllegalArgumentException if {@code value} is read-only (checked before reading), or
   *     the snapshot of {@code readOptions} belongs to another database
   * @throws IllegalStateException if this database, {@code readOptions} or its snapshot is closed
   */
  public int get(ReadOptions readOptions, ByteBuffer key, ByteBuffer value)
      throws TalusException {
    Objects.requireNonNull(readOptions, "readOptions");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    if (value.isReadOnly()) {
      // Native code writes the value through the buffer's address: into a read-only mapped
      // file that is a segmentation fault of the JVM.
      throw new IllegalArgumentException("value buffer is read-only");
    }
    int n;
    if (key.isDirect() && value.isDirect()) {
      int flags = readOptions.flags();
      long h = acquire();
      Snapshot snapshot = null;
      try {
        snapshot = acquireReadSnapshot(readOptions);
        n = nativeGetDirect(h, flags, sequenceOf(snapshot), key, key.position(), key.remaining(),
            value, value.position(), value.remaining());
      } finally {
        releaseReadSnapshot(snapshot);
        release();
      }
    } else {
      byte[] k = new byte[key.remaining()];
      key.duplicate().get(k);
      byte[] v = read(readOptions, k, 0, k.length);
      n = v == null ? NOT_FOUND : v.length;
      if (v != null) {
        value.duplicate().put(v, 0, Math.min(v.length, value.remaining()));
      }
    }
    key.position(key.limit());
    if (n != NOT_FOUND) {
      value.limit(Math.min(value.limit(), value.position() + n));
    }
    return n;
  }

  // ---------------------------------------------------------------- key may exist

  /**
   * Whether {@code key} may exist, answered without reading from disk (memtables, Bloom filters
   * and the block cache only), as RocksJava's {@code keyMayExist}. Never false for a key that
   * exists; may be true for one that does not. When the key was found in memory, its value is put
   * in {@code valueHolder}; otherwise {@code valueHolder} is set to null. Where RocksDB answers
   * false on an engine error, Talus answers true (without a value).
   *
   * @param key the key
   * @param valueHolder receives the value when found in memory, else null; may be null
   * @return false when the key is certainly absent
   */
  public boolean keyMayExist(byte[] key, Holder<byte[]> valueHolder) {
    Objects.requireNonNull(key, "key");
    return keyMayExist((ReadOptions) null, key, 0, key.length, valueHolder);
  }

  /**
   * As {@link #keyMayExist(byte[], Holder)} for {@code key[offset, offset+len)}.
   *
   * @param key the key array
   * @param offset first key byte
   * @param len key length
   * @param valueHolder receives the value when found in memory, else null; may be null
   * @return false when the key is certainly absent
   */
  public boolean keyMayExist(byte[] key, int offset, int len, Holder<byte[]> valueHolder) {
    Objects.requireNonNull(key, "key");
    return keyMayExist((ReadOptions) null, key, offset, len, valueHolder);
  }

  /**
   * As {@link #keyMayExist(byte[], Holder)}, reading with {@code readOptions} (its snapshot; the
   * read tier is always {@link ReadTier#BLOCK_CACHE_TIER}).
   *
   * @param readOptions options of the read
   * @param key the key
   * @param valueHolder receives the value when found in memory, else null; may be null
   * @return false when the key is certainly absent
   */
  public boolean keyMayExist(ReadOptions readOptions, byte[] key, Holder<byte[]> valueHolder) {
    Objects.requireNonNull(key, "key");
    return keyMayExist(readOptions, key, 0, key.length, valueHolder);
  }

  /**
   * As {@link #keyMayExist(ReadOptions, byte[], Holder)} for {@code key[offset, offset+len)}.
   *
   * @param readOptions options of the read, or null for defaults
   * @param key the key array
   * @param offset first key byte
   * @param len key length
   * @param valueHolder receives the value when found in memory, else null; may be null
   * @return false when the key is certainly absent
   */
  public boolean keyMayExist(ReadOptions readOptions, byte[] key, int offset, int len,
      Holder<byte[]> valueHolder) {
    Objects.requireNonNull(key, "key");
    Objects.checkFromIndexSize(offset, len, key.length);
    int flags = readFlags(readOptions);
    long h = acquire();
    Snapshot snapshot = null;
    try {
      snapshot = acquireReadSnapshot(readOptions);
      long seq = sequenceOf(snapshot);
      if (valueHolder == null) {
        return nativeKeyMayExist(h, flags, seq, key, offset, len) != 0;
      }
      byte[][] r = nativeKeyMayExistValue(h, flags, seq, key, offset, len);
      valueHolder.setValue(r[1]);
      return r[0][0] != 0;
    } finally {
      releaseReadSnapshot(snapshot);
      release();
    }
  }

  /**
   * As {@link #keyMayExist(byte[], Holder)} for the key in {@code key} (position to limit), whose
   * position moves to its limit.
   *
   * @param key the key buffer, direct or heap
   * @return false when the key is certainly absent
   */
  public boolean keyMayExist(ByteBuffer key) {
    return keyMayExist((ReadOptions) null, key);
  }

  /**
   * As {@link #keyMayExist(ByteBuffer)}, reading with {@code readOptions}.
   *
   * @param readOptions options of the read, or null for defaults
   * @param key the key buffer, direct or heap
   * @return false when the key is certainly absent
   */
  public boolean keyMayExist(ReadOptions readOptions, ByteBuffer key) {
    Objects.requireNonNull(key, "key");
    return keyMayExistBuffer(readOptions, key, null).exists
        != KeyMayExist.KeyMayExistEnum.kNotExist;
  }

  /**
   * As {@link #keyMayExist(byte[], Holder)} with buffers: when the key (position to limit of
   * {@code key}) is found in memory, as much of its value as fits is copied into {@code value}
   * from its position, and {@code value}'s limit becomes {@code position + min(value length,
   * remaining)} (the position itself when there is no value, as in RocksJava). The key's position
   * moves to its limit.
   *
   * @param key the key buffer, direct or heap
   * @param value the value buffer, direct or heap; writable
   * @return the answer, with the value's full length when found
   */
  public KeyMayExist keyMayExist(ByteBuffer key, ByteBuffer value) {
    return keyMayExist((ReadOptions) null, key, value);
  }

  /**
   * As {@link #keyMayExist(ByteBuffer, ByteBuffer)}, reading with {@code readOptions}.
   *
   * @param readOptions options of the read, or null for defaults
   * @param key the key buffer, direct or heap
   * @param value the value buffer, direct or heap; writable
   * @return the answer, with the value's full length when found
   * @throws IllegalArgumentException if {@code value} is read-only
   */
  public KeyMayExist keyMayExist(ReadOptions readOptions, ByteBuffer key, ByteBuffer value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    if (value.isReadOnly()) {
      throw new IllegalArgumentException("value buffer is read-only");
    }
    KeyMayExist r = keyMayExistBuffer(readOptions, key, value);
    value.limit(value.position() + Math.min(r.valueLength, value.remaining()));
    return r;
  }

  private KeyMayExist keyMayExistBuffer(ReadOptions readOptions, ByteBuffer key,
      ByteBuffer value) {
    int flags = readFlags(readOptions);
    KeyMayExist.KeyMayExistEnum[] states = KeyMayExist.KeyMayExistEnum.values();
    KeyMayExist result;
    if (key.isDirect() && (value == null || value.isDirect())) {
      long h = acquire();
      Snapshot snapshot = null;
      try {
        snapshot = acquireReadSnapshot(readOptions);
        long r = nativeKeyMayExistDirect(h, flags, sequenceOf(snapshot), key, key.position(),
            key.remaining(), value, value == null ? 0 : value.position(),
            value == null ? 0 : value.remaining());
        result = new KeyMayExist(states[(int) (r >>> 32)], (int) r);
      } finally {
        releaseReadSnapshot(snapshot);
        release();
      }
    } else {
      byte[] k = new byte[key.remaining()];
      key.duplicate().get(k);
      Holder<byte[]> holder = value == null ? null : new Holder<>();
      boolean may = keyMayExist(readOptions, k, 0, k.length, holder);
      byte[] v = holder == null ? null : holder.getValue();
      if (v != null) {
        value.duplicate().put(v, 0, Math.min(v.length, value.remaining()));
        result = new KeyMayExist(KeyMayExist.KeyMayExistEnum.kExistsWithValue, v.length);
      } else {
        result = new KeyMayExist(may ? KeyMayExist.KeyMayExistEnum.kExistsWithoutValue
            : KeyMayExist.KeyMayExistEnum.kNotExist, 0);
      }
    }
    key.position(key.limit());
    return result;
  }

  /**
   * Whether {@code key} exists: an exact answer (RocksJava 8's {@code keyExists}), at the cost of
   * a point lookup that may read from disk. An engine error is thrown as a {@link TalusException},
   * undeclared, as RocksJava's {@code RocksDBException} is here.
   *
   * @param key the key
   * @return whether the key exists
   */
  public boolean keyExists(byte[] key) {
    Objects.requireNonNull(key, "key");
    return keyExists((ReadOptions) null, key, 0, key.length);
  }

  /**
   * As {@link #keyExists(byte[])} for {@code key[offset, offset+len)}.
   *
   * @param key the key array
   * @param offset first key byte
   * @param len key length
   * @return whether the key exists
   */
  public boolean keyExists(byte[] key, int offset, int len) {
    Objects.requireNonNull(key, "key");
    return keyExists((ReadOptions) null, key, offset, len);
  }

  /**
   * As {@link #keyExists(byte[])}, reading with {@code readOptions}.
   *
   * @param readOptions options of the read, or null for defaults
   * @param key the key
   * @return whether the key exists
   */
  public boolean keyExists(ReadOptions readOptions, byte[] key) {
    Objects.requireNonNull(key, "key");
    return keyExists(readOptions, key, 0, key.length);
  }

  /**
   * As {@link #keyExists(ReadOptions, byte[])} for {@code key[offset, offset+len)}.
   *
   * @param readOptions options of the read, or null for defaults
   * @param key the key array
   * @param offset first key byte
   * @param len key length
   * @return whether the key exists
   */
  public boolean keyExists(ReadOptions readOptions, byte[] key, int offset, int len) {
    Objects.requireNonNull(key, "key");
    Objects.checkFromIndexSize(offset, len, key.length);
    int flags = readFlags(readOptions);
    long h = acquire();
    Snapshot snapshot = null;
    try {
      snapshot = acquireReadSnapshot(readOptions);
      return nativeKeyExists(h, flags, sequenceOf(snapshot), key, offset, len);
    } finally {
      releaseReadSnapshot(snapshot);
      release();
    }
  }

  /**
   * As {@link #keyExists(byte[])} for the key in {@code key} (position to limit); the position
   * does not move (as in RocksJava).
   *
   * @param key the key buffer, direct or heap
   * @return whether the key exists
   */
  public boolean keyExists(ByteBuffer key) {
    return keyExists((ReadOptions) null, key);
  }

  /**
   * As {@link #keyExists(ByteBuffer)}, reading with {@code readOptions}.
   *
   * @param readOptions options of the read, or null for defaults
   * @param key the key buffer, direct or heap
   * @return whether the key exists
   */
  public boolean keyExists(ReadOptions readOptions, ByteBuffer key) {
    Objects.requireNonNull(key, "key");
    if (!key.isDirect()) {
      byte[] k = new byte[key.remaining()];
      key.duplicate().get(k);
      return keyExists(readOptions, k, 0, k.length);
    }
    int flags = readFlags(readOptions);
    long h = acquire();
    Snapshot snapshot = null;
    try {
      snapshot = acquireReadSnapshot(readOptions);
      return nativeKeyExistsDirect(h, flags, sequenceOf(snapshot), key, key.position(),
          key.remaining());
    } finally {
      releaseReadSnapshot(snapshot);
      release();
    }
  }

  /**
   * Reads several keys at one consistent point in time.
   *
   * @param keys the keys
   * @return one entry per key, {@code null} for absent keys
   * @throws TalusException on an engine error
   */
  public List<byte[]> multiGetAsList(List<byte[]> keys) throws TalusException {
    return multiGetAsList((ReadOptions) null, keys);
  }

  /**
   * Reads several keys at one consistent point in time.
   *
   * @param readOptions options of the reads (null for defaults)
   * @param keys the keys
   * @return one entry per key, {@code null} for absent keys
   * @throws TalusException on an engine error
   * @throws IllegalArgumentException if the snapshot of {@code readOptions} belongs to another
   *     database
   * @throws IllegalStateException if this database, {@code readOptions} or its snapshot is closed
   */
  public List<byte[]> multiGetAsList(ReadOptions readOptions, List<byte[]> keys)
      throws TalusException {
    return multiGetAsList(readOptions, keys, PackedBytes.MAX_CHUNK);
  }

  /**
   * {@link #multiGetAsList(ReadOptions, List)} with the keys and values crossing to native code
   * in chunks of at most {@code chunkLimit} bytes ({@link PackedBytes}); the tests pass small
   * limits to cover several chunks.
   */
  List<byte[]> multiGetAsList(ReadOptions readOptions, List<byte[]> keys, int chunkLimit)
      throws TalusException {
    Objects.requireNonNull(keys, "keys");
    PackedBytes packed = PackedBytes.pack(keys, chunkLimit, "keys");
    int[] valueLengths = new int[packed.lengths.length];
    int flags = readFlags(readOptions);
    long h = acquire();
    Snapshot snapshot = null;
    byte[][] values;
    try {
      snapshot = acquireReadSnapshot(readOptions);
      values = nativeMultiGet(h, flags, sequenceOf(snapshot), packed.chunks, packed.lengths,
          valueLengths, chunkLimit);
    } finally {
      releaseReadSnapshot(snapshot);
      release();
    }
    return PackedBytes.unpack(values, valueLengths);
  }

  /**
   * A new iterator over the latest state, with default read options. Close it before the
   * database (closing the database closes it too).
   *
   * @return the iterator, not yet positioned
   */
  public TalusIterator newIterator() {
    return newIterator(new ReadOptions());
  }

  /**
   * A new iterator honouring {@code readOptions}' snapshot and iterate bounds. The iterator pins
   * what it reads: releasing the snapshot afterwards does not change what it sees. On a database
   * with a prefix extractor, its seeks are prefix seeks unless {@code readOptions} sets {@code
   * totalOrderSeek} or {@code autoPrefixMode} (see {@link ReadOptions}); a tailing iterator
   * ({@link ReadOptions#setTailing(boolean)}) reads the latest state at each forward seek.
   *
   * @param readOptions options of the iterator
   * @return the iterator, not yet positioned
   * @throws IllegalArgumentException if the snapshot of {@code readOptions} belongs to another
   *     database
   * @throws IllegalStateException if this database, {@code readOptions} or its snapshot is closed
   */
  public TalusIterator newIterator(ReadOptions readOptions) {
    Objects.requireNonNull(readOptions, "readOptions");
    int flags = readOptions.flags();
    long h = acquire();
    Snapshot snapshot = null;
    try {
      snapshot = acquireReadSnapshot(readOptions);
      TalusIterator it = TalusIterator.create(this, h, flags, sequenceOf(snapshot), readOptions);
      children.add(it);
      return it;
    } finally {
      releaseReadSnapshot(snapshot);
      release();
    }
  }

  private static int readFlags(ReadOptions readOptions) {
    return readOptions == null ? DEFAULT_READ_FLAGS : readOptions.flags();
  }

  /**
   * Acquires the snapshot {@code readOptions} reads at, so that it cannot be released while the
   * native call reads at its sequence number (the engine may already have dropped what only a
   * released snapshot kept). Pair with {@link #releaseReadSnapshot(Snapshot)} in a {@code
   * finally} block.
   *
   * @param readOptions the read's options, or null for defaults
   * @return the acquired snapshot, or null to read the latest state
   * @throws IllegalArgumentException if the snapshot belongs to another database (reading this
   *     one at its sequence number would return wrong data)
   * @throws IllegalStateException if the snapshot is released or {@code readOptions} is closed
   */
  private Snapshot acquireReadSnapshot(ReadOptions readOptions) {
    Snapshot snapshot = readOptions == null ? null : readOptions.snapshot();
    if (snapshot == null) {
      return null;
    }
    if (snapshot.database() != this) {
      throw new IllegalArgumentException("ReadOptions snapshot " + snapshot
          + " belongs to another database (" + snapshot.database().path + "), not " + path);
    }
    acquire(snapshot);
    return snapshot;
  }

  /** Ends an {@link #acquireReadSnapshot(ReadOptions)}; null is ignored. */
  private static void releaseReadSnapshot(Snapshot snapshot) {
    if (snapshot != null) {
      release(snapshot);
    }
  }

  /** @return the sequence number of an acquired snapshot, or -1 for the latest state */
  private static long sequenceOf(Snapshot snapshot) {
    // Not getSequenceNumber(): the read holds the snapshot already, and a second acquire and
    // release would add two atomic updates to every read at a snapshot.
    return snapshot == null ? -1L : snapshot.sequence();
  }

  /**
   * Pins the current state. Reads with {@link ReadOptions#setSnapshot(Snapshot)} see it until
   * {@link #releaseSnapshot(Snapshot)} (or the snapshot's {@code close()}).
   *
   * @return the snapshot
   */
  public Snapshot getSnapshot() {
    long h = acquire();
    try {
      Snapshot s = new Snapshot(this, nativeGetSnapshotUnchecked(h));
      children.add(s);
      return s;
    } finally {
      release();
    }
  }

  /**
   * Releases {@code snapshot}; {@code null} is ignored.
   *
   * @param snapshot a snapshot of this database, or null
   * @throws IllegalArgumentException for a snapshot of another database (left as it was)
   */
  public void releaseSnapshot(Snapshot snapshot) {
    checkOpen();
    if (snapshot != null) {
      if (snapshot.database() != this) {
        throw new IllegalArgumentException("releaseSnapshot: " + snapshot
            + " belongs to another database (" + snapshot.database().path + ")");
      }
      snapshot.close();
    }
  }

  /** @return the sequence number of the newest write */
  public long getLatestSequenceNumber() {
    long h = acquire();
    try {
      return nativeLatestSequenceNumberUnchecked(h);
    } finally {
      release();
    }
  }

  // ---------------------------------------------------------------- flush, compaction

  /**
   * Ingests table files written by {@link SstFileWriter} into the default column family, as
   * RocksJava's {@code ingestExternalFile}: all files or none, recorded in one manifest edit. Each
   * file goes to the lowest level where nothing at or above overlaps it; files overlapping data in
   * the family (memtable, levels) get a global sequence number newer than everything, so reads see
   * them and snapshots taken before do not. Writes wait while the files are recorded.
   *
   * @param filePathList the files (their key ranges must not overlap each other)
   * @param ingestExternalFileOptions the options
   * @throws TalusException {@code InvalidArgument} for files that are not external tables, that
   *     overlap each other, or options that refuse the ingestion; {@code Corruption} for a damaged
   *     file; nothing is ingested then
   */
  public void ingestExternalFile(
      java.util.List<String> filePathList, IngestExternalFileOptions ingestExternalFileOptions)
      throws TalusException {
    ingestExternalFile(null, filePathList, ingestExternalFileOptions);
  }

  /**
   * {@link #ingestExternalFile(java.util.List, IngestExternalFileOptions)} into the family {@code
   * columnFamilyHandle} (null: the default family).
   *
   * @param columnFamilyHandle the family
   * @param filePathList the files
   * @param ingestExternalFileOptions the options
   * @throws TalusException as for the default family
   */
  public void ingestExternalFile(
      ColumnFamilyHandle columnFamilyHandle,
      java.util.List<String> filePathList,
      IngestExternalFileOptions ingestExternalFileOptions)
      throws TalusException {
    Objects.requireNonNull(filePathList, "filePathList");
    Objects.requireNonNull(ingestExternalFileOptions, "ingestExternalFileOptions");
    int id = ColumnFamilyHandle.check(this, columnFamilyHandle);
    // Acquired first: a closed database throws IllegalStateException whatever the arguments.
    long h = acquire();
    try {
      String[] paths = new String[filePathList.size()];
      int i = 0;
      for (Object p : filePathList) {
        if (!(p instanceof String s)) {
          throw new IllegalArgumentException(
              "filePathList must hold file paths (String), not " + p);
        }
        paths[i++] = s;
      }
      ExternalFileIngestion.ingest(h, id, paths, ingestExternalFileOptions);
    } finally {
      release();
    }
  }

  /**
   * Flushes the memtables to L0 tables; with {@link FlushOptions#waitForFlush()} (the default)
   * returns when the data is in tables.
   *
   * @param flushOptions how to flush
   * @throws TalusException on an engine error
   */
  public void flush(FlushOptions flushOptions) throws TalusException {
    Objects.requireNonNull(flushOptions, "flushOptions");
    long h = acquire();
    try {
      nativeFlush(h, flushOptions.waitForFlush(), flushOptions.allowWriteStall());
    } finally {
      release();
    }
  }

  /**
   * Writes the WAL buffer to its file and, when {@code sync}, syncs it to disk.
   *
   * @param sync true to sync
   * @throws TalusException on an IO error
   */
  public void flushWal(boolean sync) throws TalusException {
    long h = acquire();
    try {
      nativeFlushWal(h, sync);
    } finally {
      release();
    }
  }

  /**
   * Syncs the WAL to disk.
   *
   * @throws TalusException on an IO error
   */
  public void syncWal() throws TalusException {
    flushWal(true);
  }

  /**
   * Compacts the whole key space down to the last level that holds data.
   *
   * @throws TalusException on an engine error
   */
  public void compactRange() throws TalusException {
    compactRange(null, null);
  }

  /**
   * Compacts the keys in {@code [begin, end]} ({@code null} = unbounded).
   *
   * @param begin first key, or null
   * @param end last key, or null
   * @throws TalusException on an engine error
   */
  public void compactRange(byte[] begin, byte[] end) throws TalusException {
    try (CompactRangeOptions defaults = new CompactRangeOptions()) {
      compactRange(begin, end, defaults);
    }
  }

  /**
   * Compacts the keys in {@code [begin, end]} ({@code null} = unbounded) of the default column
   * family as {@code options} say; see {@link #compactRange(ColumnFamilyHandle, byte[], byte[],
   * CompactRangeOptions)}.
   *
   * @param begin first key, or null
   * @param end last key, or null
   * @param options the options; not null, not closed
   * @throws TalusException on an engine error
   */
  public void compactRange(byte[] begin, byte[] end, CompactRangeOptions options)
      throws TalusException {
    Objects.requireNonNull(options, "options");
    int flags = options.flags();
    long h = acquire();
    try {
      nativeCompactRange(
          h,
          begin,
          end,
          flags,
          options.targetLevel(),
          options.bottommostValue(),
          options.maxSubcompactions());
    } finally {
      release();
    }
  }

  /**
   * Waits for running flushes and compactions, then starts no new ones until {@link
   * #continueBackgroundWork()}. Writes stall once the memtables fill.
   *
   * @throws TalusException on an engine error
   */
  public void pauseBackgroundWork() throws TalusException {
    background(0);
  }

  /**
   * Undoes one {@link #pauseBackgroundWork()}.
   *
   * @throws TalusException when background work was not paused
   */
  public void continueBackgroundWork() throws TalusException {
    background(1);
  }

  /**
   * Talus addition: waits until no flush or compaction is pending or running.
   *
   * @throws TalusException on a background error
   */
  public void waitForCompactions() throws TalusException {
    background(2);
  }

  /**
   * Reads every block of every table file and verifies its checksum, checks each table against
   * the manifest's entry for it (the database it belongs to, its file number, key and sequence
   * ranges, counts), and compares each whole file with the checksum recorded when it was
   * written.
   *
   * @throws TalusException with {@code Corruption} naming the file on a mismatch
   */
  public void verifyChecksum() throws TalusException {
    background(3);
  }

  /**
   * Leaves the read-only state a background error put the database in, once its cause is gone
   * (RocksDB's {@code DB::Resume}). A failed WAL write or sync, flush, compaction or manifest
   * write latches the error: writes, flushes and manual compactions then throw it (counted by
   * {@code rocksdb.background-errors}) while reads go on. {@code resume()} replaces a failed
   * write-ahead log, flushes every memtable (so every acknowledged write is in a table), writes a
   * new manifest and lets writes and compactions run again. Does nothing without an error.
   *
   * @throws TalusException the error of a step that failed again (the database stays read-only;
   *     call again once the disk is healthy), or the latched error itself when it is a {@code
   *     Corruption}, which needs a reopen
   */
  public void resume() throws TalusException {
    background(4);
  }

  private void background(int kind) throws TalusException {
    long h = acquire();
    try {
      nativeBackground(h, kind);
    } finally {
      release();
    }
  }

  /**
   * Clears {@code disableAutoCompactions} and schedules any compaction that is due.
   *
   * @throws TalusException on an engine error
   */
  public void enableAutoCompaction() throws TalusException {
    long h = acquire();
    try {
      nativeSetDisableAutoCompactions(h, false);
    } finally {
      release();
    }
  }

  /**
   * Talus addition: turns automatic compactions off at run time (as {@code setOptions} with
   * {@code disable_auto_compactions=true}).
   *
   * @throws TalusException on an engine error
   */
  public void disableAutoCompaction() throws TalusException {
    long h = acquire();
    try {
      nativeSetDisableAutoCompactions(h, true);
    } finally {
      release();
    }
  }

  /** @return the number of levels (7 by default) */
  public int numberLevels() {
    checkOpen();
    return numLevels;
  }

  // ---------------------------------------------------------------- properties

  /**
   * A property of the database, by RocksDB's name (e.g. {@code "rocksdb.num-files-at-level0"},
   * {@code "rocksdb.levelstats"}, {@code "rocksdb.estimate-num-keys"}).
   *
   * @param property the name
   * @return its value as text
   * @throws TalusException with {@code NotFound} for an unknown name (as RocksJava)
   */
  public String getProperty(String property) throws TalusException {
    Objects.requireNonNull(property, "property");
    long h = acquire();
    try {
      return nativeGetProperty(h, property);
    } finally {
      release();
    }
  }

  /**
   * RocksJava's column-family form of {@link #getProperty(String)}; {@code null} means the
   * default column family.
   *
   * @param columnFamily the default column family or null
   * @param property the name
   * @return its value as text
   * @throws TalusException with {@code NotFound} for an unknown name (as RocksJava)
   */
  public String getProperty(ColumnFamilyHandle columnFamily, String property)
      throws TalusException {
    int id = ColumnFamilyHandle.check(this, columnFamily);
    if (id == 0) {
      return getProperty(property);
    }
    Objects.requireNonNull(property, "property");
    long h = acquire();
    try {
      return nativeCfGetProperty(h, id, property);
    } finally {
      release();
    }
  }

  /**
   * Alias of {@link #getProperty(ColumnFamilyHandle, String)} with the arguments the other way
   * round (property first), a form some importers write.
   *
   * @param property the name
   * @param columnFamily the default column family or null
   * @return its value as text
   * @throws TalusException with {@code NotFound} for an unknown name (as RocksJava)
   */
  public String getProperty(String property, ColumnFamilyHandle columnFamily)
      throws TalusException {
    return getProperty(columnFamily, property);
  }

  /**
   * RocksJava's column-family form of {@link #getLongProperty(String)}.
   *
   * @param columnFamily the default column family or null
   * @param property the name
   * @return its value
   * @throws TalusException for an unknown or non-numeric name
   */
  public long getLongProperty(ColumnFamilyHandle columnFamily, String property)
      throws TalusException {
    int id = ColumnFamilyHandle.check(this, columnFamily);
    if (id == 0) {
      return getLongProperty(property);
    }
    Objects.requireNonNull(property, "property");
    long h = acquire();
    try {
      return nativeCfGetLongProperty(h, id, property);
    } finally {
      release();
    }
  }

  /**
   * A numeric property.
   *
   * @param property the name
   * @return its value
   * @throws TalusException with {@code NotFound} for an unknown or non-numeric name (as RocksJava)
   */
  public long getLongProperty(String property) throws TalusException {
    Objects.requireNonNull(property, "property");
    long h = acquire();
    try {
      return nativeGetLongProperty(h, property);
    } finally {
      release();
    }
  }

  /**
   * A numeric property summed over column families (Talus has one).
   *
   * @param property the name
   * @return its value
   * @throws TalusException for an unknown or non-numeric name
   */
  public long getAggregatedLongProperty(String property) throws TalusException {
    Objects.requireNonNull(property, "property");
    long sum = 0;
    long h = acquire();
    try {
      for (int id : families.toArray(new Integer[0])) {
        sum += nativeCfGetLongProperty(h, id, property);
      }
    } finally {
      release();
    }
    return sum;
  }

  // ---------------------------------------------------------------- close

  /**
   * As {@link #close()}, but throws the error of the final flush of writes made without the WAL,
   * if it failed.
   *
   * @throws TalusException if flushing unlogged writes failed
   */
  public void closeE() throws TalusException {
    if (!isClosed()) {
      long h = acquire();
      try {
        nativePrepareClose(h);
      } finally {
        release();
      }
    }
    close();
  }

  /**
   * An entry buffer for a new iterator: one a closed iterator gave back, or a new one. Reusing
   * them matters for short scans, which otherwise spend much of their time allocating and zeroing
   * a direct buffer per iterator.
   */
  ByteBuffer takeIteratorBuffer() {
    int n = iteratorBuffers.length();
    int from = (int) (Thread.currentThread().getId() % n);
    for (int i = 0; i < n; i++) {
      ByteBuffer b = iteratorBuffers.getAndSet((from + i) % n, null);
      if (b != null) {
        return b;
      }
    }
    return ByteBuffer.allocateDirect(TalusIterator.INITIAL_BUFFER).order(ByteOrder.LITTLE_ENDIAN);
  }

  /**
   * Gives back the entry buffer of an iterator the native side no longer writes (disposed, or
   * never created), for {@link #takeIteratorBuffer()}; dropped when the spares are full.
   */
  void returnIteratorBuffer(ByteBuffer b) {
    int n = iteratorBuffers.length();
    int from = (int) (Thread.currentThread().getId() % n);
    for (int i = 0; i < n; i++) {
      if (iteratorBuffers.compareAndSet((from + i) % n, null, b)) {
        return;
      }
    }
  }

  void removeChild(NativeHandle child) {
    children.remove(child);
  }

  long acquireForChild() {
    return acquire();
  }

  void releaseForChild() {
    release();
  }

  @Override
  protected void onClosing() {
    try {
      nativePrepareClose(nativeHandle());
    } catch (TalusException | RuntimeException e) {
      // close() reports nothing, as in RocksJava; closeE() reports this error.
    }
    // An Error (OutOfMemoryError) propagates: NativeHandle.close() still waits for the calls in
    // flight before it frees the database, then rethrows it.
  }

  @Override
  protected void beforeDispose() {
    for (NativeHandle c : children.toArray(new NativeHandle[0])) {
      c.close();
    }
    children.clear();
  }

  @Override
  protected void disposeInternal(long handle) {
    try {
      nativeDispose(handle);
    } catch (TalusException e) {
      // close() reports nothing, as in RocksJava; the database is closed either way.
    }
  }

  private static long nativeGetSnapshotUnchecked(long h) {
    try {
      return nativeGetSnapshot(h);
    } catch (TalusException e) {
      throw new IllegalStateException("getSnapshot: " + e.getMessage(), e);
    }
  }

  private static long nativeLatestSequenceNumberUnchecked(long h) {
    try {
      return nativeLatestSequenceNumber(h);
    } catch (TalusException e) {
      throw new IllegalStateException("getLatestSequenceNumber: " + e.getMessage(), e);
    }
  }

  // ---------------------------------------------------------------- perf context
  // These act on the calling thread, not on this database: a thread's perf context records its
  // operations on every database. See PerfContext.

  /**
   * Sets the perf level of the calling thread (as RocksJava, an instance method acting on the
   * thread). A thread that never set one is at {@link PerfLevel#DISABLE} and records nothing,
   * unlike RocksDB's default of {@link PerfLevel#ENABLE_COUNT}.
   *
   * @param level the level
   * @throws IllegalArgumentException for {@link PerfLevel#UNINITIALIZED} and {@link
   *     PerfLevel#OUT_OF_BOUNDS}
   */
  public void setPerfLevel(PerfLevel level) {
    Objects.requireNonNull(level, "level");
    acquire();
    try {
      PerfContext.setLevel(level);
    } finally {
      release();
    }
  }

  /** @return the perf level of the calling thread */
  public PerfLevel getPerfLevel() {
    acquire();
    try {
      return PerfContext.level();
    } finally {
      release();
    }
  }

  /**
   * The calling thread's perf context: a new object each call, copied from the native context
   * (once, at its first getter) — see {@link PerfContext} for when it copies again.
   *
   * @return the calling thread's perf context
   */
  public PerfContext getPerfContext() {
    acquire();
    try {
      return new PerfContext(PerfContext.THREAD);
    } finally {
      release();
    }
  }

  /**
   * Talus addition: turns the calling thread's last-operation record on or off (off by default:
   * it costs a few dozen instructions per operation). While on, {@link
   * #getLastOperationPerfContext()} explains the thread's latest call without a reset before it.
   *
   * @param enabled true to keep the record
   */
  public void setLastOperationPerfContextEnabled(boolean enabled) {
    acquire();
    try {
      PerfContext.nativeSetLastOperationEnabled(enabled);
    } catch (TalusException e) {
      throw new IllegalStateException(e.getMessage(), e);
    } finally {
      release();
    }
  }

  /**
   * Talus addition: the fields recorded by the calling thread's last completed operation (get,
   * multiGet, put/delete/write, newIterator or one iterator move), at any level above {@link
   * PerfLevel#DISABLE}, without a reset before it — to explain one slow call after the fact.
   * Recorded only while {@link #setLastOperationPerfContextEnabled(boolean)} is on for the
   * thread: all zeros if it never was, and the last operation recorded while it was on after it
   * is turned off. Per-level fields and the number of runs are not part of it.
   *
   * @return a snapshot of the last operation's fields
   */
  public PerfContext getLastOperationPerfContext() {
    acquire();
    try {
      return new PerfContext(PerfContext.LAST_OPERATION).refresh();
    } finally {
      release();
    }
  }

  /**
   * Turns the calling thread's perf context on ({@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX})
   * or off ({@link PerfLevel#DISABLE}): a static shorthand for {@link #setPerfLevel(PerfLevel)}
   * on the calling thread. Read it with {@link #getThreadLocalInfo()}.
   *
   * @param enable true to record
   */
  public static void enableThreadLocalPerformanceInfo(boolean enable) {
    PerfContext.setLevel(enable ? PerfLevel.ENABLE_TIME_EXCEPT_FOR_MUTEX : PerfLevel.DISABLE);
  }

  /**
   * The calling thread's perf context as a {@link ThreadLocalInfo}: write stalls, runs, iterator
   * bytes and every other field (one JNI call).
   *
   * @return a snapshot of the calling thread's perf context
   */
  public static ThreadLocalInfo getThreadLocalInfo() {
    return new ThreadLocalInfo(
        PerfContext.read(PerfContext.THREAD, new long[PerfContext.LENGTH]));
  }

  // ---------------------------------------------------------------- files out
  // Checkpoints, backups, read-only and secondary opens (issue 35).

  /** Runs {@code call} with this database's native handle held open. */
  interface HandleCall<T> {
    T call(long handle) throws TalusException;
  }

  /** Runs {@code call} between {@code acquire()} and {@code release()} of this database. */
  <T> T withHandle(HandleCall<T> call) throws TalusException {
    long h = acquire();
    try {
      return call.call(h);
    } finally {
      release();
    }
  }

  /**
   * Opens the database at {@code path} read-only with default options, as RocksJava's {@code
   * openReadOnly(String)}; see {@link #openReadOnly(Options, String, boolean)}.
   *
   * @param path the database directory
   * @return the read-only database
   * @throws TalusException as {@link #openReadOnly(Options, String, boolean)}
   */
  public static TalusDB openReadOnly(String path) throws TalusException {
    return openReadOnly(new Options(), path, false);
  }

  /**
   * As {@link #openReadOnly(Options, String, boolean)} with {@code errorIfWalFileExists} false.
   *
   * @param options the options
   * @param path the database directory
   * @return the read-only database
   * @throws TalusException as {@link #openReadOnly(Options, String, boolean)}
   */
  public static TalusDB openReadOnly(Options options, String path) throws TalusException {
    return openReadOnly(options, path, false);
  }

  /**
   * Opens the default column family of the database at {@code path} read-only, as RocksJava:
   * it takes no {@code LOCK} (so it opens while another process, or another handle in this
   * process, has the database open), writes nothing in the directory (no info log either,
   * unless {@code options} carry a {@link Logger}), runs no background work, and replays the
   * live write-ahead logs into memory, so it sees the writes the writer logged up to the open.
   * It does not follow later writes (see {@link #openAsSecondary(Options, String, String)}).
   * Every write, flush, compaction and family change throws {@link TalusException} with {@code
   * NotSupported} ("Not supported operation in read only mode").
   *
   * @param options the options ({@code createIfMissing} is ignored: a missing database is an
   *     error)
   * @param path the database directory
   * @param errorIfWalFileExists fail with {@code InvalidArgument} when a live write-ahead log
   *     holds writes not yet in the table files
   * @return the read-only database
   * @throws TalusException {@code InvalidArgument} for a missing database ("does not exist");
   *     {@code Corruption} for damaged files
   */
  public static TalusDB openReadOnly(Options options, String path, boolean errorIfWalFileExists)
      throws TalusException {
    Objects.requireNonNull(options, "options");
    List<ColumnFamilyDescriptor> d = new ArrayList<>();
    d.add(new ColumnFamilyDescriptor(DEFAULT_COLUMN_FAMILY, new ColumnFamilyOptions(options)));
    return openFamilies(new DBOptions(options), path, d, new ArrayList<>(),
        errorIfWalFileExists ? 1 : 0, null);
  }

  /**
   * As {@link #openReadOnly(DBOptions, String, List, List, boolean)} with default options and
   * {@code errorIfWalFileExists} false.
   *
   * @param path the database directory
   * @param columnFamilyDescriptors the families to open (a subset of those on disk, with
   *     {@code "default"})
   * @param columnFamilyHandles receives the handles
   * @return the read-only database
   * @throws TalusException as {@link #openReadOnly(Options, String, boolean)}
   */
  public static TalusDB openReadOnly(String path,
      List<ColumnFamilyDescriptor> columnFamilyDescriptors,
      List<ColumnFamilyHandle> columnFamilyHandles) throws TalusException {
    return openReadOnly(new DBOptions(), path, columnFamilyDescriptors, columnFamilyHandles,
        false);
  }

  /**
   * As {@link #openReadOnly(DBOptions, String, List, List, boolean)} with {@code
   * errorIfWalFileExists} false.
   *
   * @param options the database-wide options
   * @param path the database directory
   * @param columnFamilyDescriptors the families to open
   * @param columnFamilyHandles receives the handles
   * @return the read-only database
   * @throws TalusException as {@link #openReadOnly(Options, String, boolean)}
   */
  public static TalusDB openReadOnly(DBOptions options, String path,
      List<ColumnFamilyDescriptor> columnFamilyDescriptors,
      List<ColumnFamilyHandle> columnFamilyHandles) throws TalusException {
    return openReadOnly(options, path, columnFamilyDescriptors, columnFamilyHandles, false);
  }

  /**
   * Opens the listed column families read-only (see {@link #openReadOnly(Options, String,
   * boolean)}). Unlike a writable open, a subset of the families on disk may be listed (RocksDB
   * too); {@code "default"} must be among them, and a listed family that does not exist is
   * {@code InvalidArgument} ({@code createMissingColumnFamilies} is ignored).
   *
   * @param options the database-wide options
   * @param path the database directory
   * @param columnFamilyDescriptors the families to open
   * @param columnFamilyHandles receives one handle per descriptor, in order (cleared first)
   * @param errorIfWalFileExists as in {@link #openReadOnly(Options, String, boolean)}
   * @return the read-only database
   * @throws TalusException as {@link #openReadOnly(Options, String, boolean)}
   */
  public static TalusDB openReadOnly(DBOptions options, String path,
      List<ColumnFamilyDescriptor> columnFamilyDescriptors,
      List<ColumnFamilyHandle> columnFamilyHandles, boolean errorIfWalFileExists)
      throws TalusException {
    return openFamilies(options, path, columnFamilyDescriptors, columnFamilyHandles,
        errorIfWalFileExists ? 1 : 0, null);
  }

  /**
   * Opens the default column family of the database at {@code path} as a secondary instance,
   * as RocksJava: read-only as {@link #openReadOnly(Options, String, boolean)} (no lock, no
   * writes, no background work), with its info log in {@code secondaryPath} (created if
   * missing), and able to follow the primary with {@link #tryCatchUpWithPrimary()}. It may be
   * opened while the primary writes, flushes and compacts: it shows a state the primary had
   * (reading the files again when the primary deleted or replaced one under it).
   *
   * @param options the options
   * @param path the primary's database directory
   * @param secondaryPath a directory of the secondary's own, for its info log
   * @return the secondary instance
   * @throws TalusException as {@link #openReadOnly(Options, String, boolean)}; {@code Busy}
   *     when the primary changed its files under every one of the open's attempts
   */
  public static TalusDB openAsSecondary(Options options, String path, String secondaryPath)
      throws TalusException {
    Objects.requireNonNull(options, "options");
    List<ColumnFamilyDescriptor> d = new ArrayList<>();
    d.add(new ColumnFamilyDescriptor(DEFAULT_COLUMN_FAMILY, new ColumnFamilyOptions(options)));
    return openAsSecondary(new DBOptions(options), path, secondaryPath, d, new ArrayList<>());
  }

  /**
   * Opens the listed column families as a secondary instance (see {@link
   * #openAsSecondary(Options, String, String)}); a subset of the families may be listed.
   *
   * @param options the database-wide options
   * @param path the primary's database directory
   * @param secondaryPath a directory of the secondary's own, for its info log
   * @param columnFamilyDescriptors the families to open
   * @param columnFamilyHandles receives one handle per descriptor, in order (cleared first)
   * @return the secondary instance
   * @throws TalusException as {@link #openReadOnly(Options, String, boolean)}
   */
  public static TalusDB openAsSecondary(DBOptions options, String path, String secondaryPath,
      List<ColumnFamilyDescriptor> columnFamilyDescriptors,
      List<ColumnFamilyHandle> columnFamilyHandles) throws TalusException {
    Objects.requireNonNull(secondaryPath, "secondaryPath");
    return openFamilies(options, path, columnFamilyDescriptors, columnFamilyHandles, 2,
        secondaryPath);
  }

  /**
   * Makes a secondary instance show the primary's current state, as RocksJava: reads the
   * primary's manifest again and replays its live write-ahead logs (Talus replays them from
   * their start each time; RocksDB tails them). Iterators made before keep their state. The
   * state shown is one the primary had, whatever the primary does meanwhile.
   *
   * @throws TalusException {@code NotSupported} on an instance not opened as secondary;
   *     {@code Busy} when the primary changed its files under every attempt (the state shown
   *     is then the one before the call)
   */
  public void tryCatchUpWithPrimary() throws TalusException {
    long h = acquire();
    try {
      nativeTryCatchUpWithPrimary(h);
    } finally {
      release();
    }
  }

  /**
   * Stops the deletion of obsolete files (table files, logs, manifests), as RocksJava: calls
   * are counted, each undone by one {@link #enableFileDeletions(boolean)} with {@code false}.
   * Use it to copy the files {@link #getLiveFiles()} names.
   *
   * @throws TalusException {@code NotSupported} on a read-only or secondary instance
   */
  public void disableFileDeletions() throws TalusException {
    fileDeletions(0);
  }

  /**
   * Undoes one {@link #disableFileDeletions()}, or every one with {@code force}; once none is
   * left, the files that became obsolete meanwhile are deleted.
   *
   * @param force undo every outstanding disable at once
   * @throws TalusException on a closed database's native failure
   */
  public void enableFileDeletions(boolean force) throws TalusException {
    fileDeletions(force ? 2 : 1);
  }

  private void fileDeletions(int what) throws TalusException {
    long h = acquire();
    try {
      nativeFileDeletions(h, what);
    } finally {
      release();
    }
  }

  /**
   * The files of a consistent point of the database, after flushing the memtables, as
   * RocksJava's {@code getLiveFiles()}.
   *
   * @return the files and the manifest's size at the point
   * @throws TalusException {@code NotSupported} on a read-only or secondary instance
   */
  public LiveFiles getLiveFiles() throws TalusException {
    return getLiveFiles(true);
  }

  /**
   * The files of a consistent point of the database, as RocksJava: names relative to the
   * database directory, each with a leading {@code /} ({@code /CURRENT}, {@code
   * /MANIFEST-000005}, {@code /IDENTITY}, then the table files); only the first {@link
   * LiveFiles#manifestFileSize} bytes of the manifest belong to the point. The live write-ahead
   * logs are listed by {@link #getSortedWalFiles()}. The files stay on disk only while file
   * deletions are disabled ({@link #disableFileDeletions()}).
   *
   * @param flushMemtable flush the memtables first, so the tables hold every write
   * @return the files and the manifest's size at the point
   * @throws TalusException {@code NotSupported} on a read-only or secondary instance
   */
  public LiveFiles getLiveFiles(boolean flushMemtable) throws TalusException {
    long h = acquire();
    try {
      Object[] r = nativeGetLiveFiles(h, flushMemtable);
      return new LiveFiles(((long[]) r[0])[0], java.util.Arrays.asList((String[]) r[1]));
    } finally {
      release();
    }
  }

  /**
   * The live write-ahead logs, oldest first, as RocksJava's {@code getSortedWalFiles()}. Talus
   * keeps no WAL archive, so every file is {@link WalFileType#kAliveLogFile}; the size of the
   * newest is the size at the call (it keeps growing).
   *
   * @return the logs
   * @throws TalusException {@code NotSupported} on a read-only or secondary instance
   */
  public List<LogFile> getSortedWalFiles() throws TalusException {
    long h = acquire();
    try {
      Object[] r = nativeGetSortedWalFiles(h);
      long[] nums = (long[]) r[0];
      String[] names = (String[]) r[1];
      List<LogFile> out = new ArrayList<>(names.length);
      for (int i = 0; i < names.length; i++) {
        out.add(new LogFile(names[i], nums[4 * i], WalFileType.fromValue((byte) nums[4 * i + 1]),
            nums[4 * i + 2], nums[4 * i + 3]));
      }
      return out;
    } finally {
      release();
    }
  }

  /**
   * RocksJava's {@code RocksDB.LiveFiles}: what {@link #getLiveFiles(boolean)} returns.
   */
  public static class LiveFiles {
    /** Bytes of the manifest that belong to the point (copy that prefix). */
    public final long manifestFileSize;
    /** The files, relative to the database directory, each with a leading {@code /}. */
    public final List<String> files;

    LiveFiles(long manifestFileSize, List<String> files) {
      this.manifestFileSize = manifestFileSize;
      this.files = java.util.Collections.unmodifiableList(files);
    }
  }

  private static native long nativeOpenReadOnly(String path, String options, long[] shared,
      String[] names, String[] cfOptions, long[] mergeOperators, long[] caches, int[] idsOut,
      int mode, String secondaryPath) throws TalusException;

  private static native void nativeTryCatchUpWithPrimary(long h) throws TalusException;

  private static native void nativeFileDeletions(long h, int what) throws TalusException;

  private static native Object[] nativeGetLiveFiles(long h, boolean flush) throws TalusException;

  private static native Object[] nativeGetSortedWalFiles(long h) throws TalusException;

  private static native long nativeOpen(String path, String options, long[] shared)
      throws TalusException;

  private static native void nativeDestroyDB(String path, String options) throws TalusException;

  private static native long nativeOpenCf(String path, String options, long[] shared,
      String[] names, String[] cfOptions, long[] mergeOperators, long[] caches, int[] idsOut)
      throws TalusException;

  private static native byte[][] nativeListColumnFamilies(String path, String options)
      throws TalusException;

  private static native int nativeCreateColumnFamily(long h, String name, String options,
      long mergeOperator, long cache) throws TalusException;

  private static native void nativeDropColumnFamily(long h, int id) throws TalusException;

  private static native void nativeCfWrite(long h, int flags, int cf, int op, byte[] key,
      byte[] value) throws TalusException;

  private static native byte[] nativeCfGet(long h, int flags, long snapshot, int cf, byte[] key)
      throws TalusException;

  private static native int nativeCfKeyCheck(long h, int flags, long snapshot, int cf,
      byte[] key, boolean exact) throws TalusException;

  private static native byte[][] nativeCfMultiGet(long h, int flags, long snapshot, int[] cfs,
      byte[][] keyChunks, int[] keyLengths, int[] valueLengths, int chunkLimit)
      throws TalusException;

  static native long nativeCfNewIterator(long h, int flags, long snapshot, int cf, byte[] lower,
      byte[] upper, long readaheadSize, ByteBuffer buffer) throws TalusException;

  private static native void nativeCfFlush(long h, int cf, boolean wait, boolean allowWriteStall)
      throws TalusException;

  private static native void nativeCfCompactRange(
      long h,
      int cf,
      byte[] begin,
      byte[] end,
      int flags,
      int targetLevel,
      int bottommost,
      int maxSubcompactions)
      throws TalusException;

  private static native String nativeCfGetProperty(long h, int cf, String name)
      throws TalusException;

  private static native long nativeCfGetLongProperty(long h, int cf, String name)
      throws TalusException;

  // Engine errors are answered as "may exist" natively: these throw only unchecked exceptions.
  private static native int nativeKeyMayExist(long h, int flags, long snapshot, byte[] key,
      int koff, int klen);

  private static native byte[][] nativeKeyMayExistValue(long h, int flags, long snapshot,
      byte[] key, int koff, int klen);

  private static native long nativeKeyMayExistDirect(long h, int flags, long snapshot,
      ByteBuffer key, int kpos, int klen, ByteBuffer value, int vpos, int vcap);

  // These throw TalusException undeclared, as RocksJava's keyExists throws RocksDBException.
  private static native boolean nativeKeyExists(long h, int flags, long snapshot, byte[] key,
      int koff, int klen);

  private static native boolean nativeKeyExistsDirect(long h, int flags, long snapshot,
      ByteBuffer key, int kpos, int klen);

  private static native void nativePrepareClose(long h) throws TalusException;

  private static native void nativeDispose(long h) throws TalusException;

  private static native void nativePut(long h, int flags, byte[] key, int koff, int klen,
      byte[] value, int voff, int vlen) throws TalusException;

  private static native void nativePutDirect(long h, int flags, ByteBuffer key, int kpos,
      int klen, ByteBuffer value, int vpos, int vlen) throws TalusException;

  private static native void nativeDelete(long h, int flags, byte[] key, int koff, int klen)
      throws TalusException;

  private static native void nativeDeleteDirect(long h, int flags, ByteBuffer key, int kpos,
      int klen) throws TalusException;

  private static native void nativeMerge(long h, int flags, byte[] key, int koff, int klen,
      byte[] value, int voff, int vlen) throws TalusException;

  private static native void nativeMergeDirect(long h, int flags, ByteBuffer key, int kpos,
      int klen, ByteBuffer value, int vpos, int vlen) throws TalusException;

  private static native void nativeSingleDelete(long h, int flags, byte[] key, int koff,
      int klen) throws TalusException;

  private static native void nativeDeleteRange(long h, int flags, byte[] begin, byte[] end)
      throws TalusException;

  private static native void nativeWrite(long h, int flags, byte[] batch, int len)
      throws TalusException;

  private static native byte[] nativeGet(long h, int flags, long snapshot, byte[] key, int koff,
      int klen) throws TalusException;

  private static native int nativeGetInto(long h, int flags, long snapshot, byte[] key, int koff,
      int klen, byte[] value, int voff, int vlen) throws TalusException;

  private static native int nativeGetDirect(long h, int flags, long snapshot, ByteBuffer key,
      int kpos, int klen, ByteBuffer value, int vpos, int vcap) throws TalusException;

  private static native byte[][] nativeMultiGet(long h, int flags, long snapshot,
      byte[][] keyChunks, int[] keyLengths, int[] valueLengths, int chunkLimit)
      throws TalusException;

  static native long nativeNewIterator(long h, int flags, long snapshot, byte[] lower,
      byte[] upper, long readaheadSize, ByteBuffer buffer) throws TalusException;

  private static native long nativeGetSnapshot(long h) throws TalusException;

  static native void nativeReleaseSnapshot(long h, long seq) throws TalusException;

  private static native long nativeLatestSequenceNumber(long h) throws TalusException;

  private static native void nativeFlush(long h, boolean wait, boolean allowWriteStall)
      throws TalusException;

  private static native void nativeFlushWal(long h, boolean sync) throws TalusException;

  private static native void nativeCompactRange(
      long h,
      byte[] begin,
      byte[] end,
      int flags,
      int targetLevel,
      int bottommost,
      int maxSubcompactions)
      throws TalusException;

  private static native void nativeBackground(long h, int kind) throws TalusException;

  private static native void nativeSetDisableAutoCompactions(long h, boolean disable)
      throws TalusException;

  private static native String nativeGetProperty(long h, String name) throws TalusException;

  private static native long nativeGetLongProperty(long h, String name) throws TalusException;
}
