package com.example.porting;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.Holder;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.StringAppendOperator;
import org.rocksdb.UInt64AddOperator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * A session cache service: sessions keyed by an 8-byte user id and a session id (family {@code
 * sessions}, fixed-length prefix extractor on the user id), login counters merged as little-endian
 * 64-bit sums (family {@code counters}, {@code UInt64AddOperator}) and an audit trail appended per
 * user (family {@code audit}, {@code StringAppendOperator}). A login or logout is one {@link
 * WriteBatch} over the three families.
 */
public final class SessionCache implements AutoCloseable {
  private final DBOptions dbOptions;
  private final List<ColumnFamilyOptions> cfOptions = new ArrayList<>();
  private final List<ColumnFamilyHandle> handles = new ArrayList<>();
  private final RocksDB db;
  private final WriteOptions writeOptions = new WriteOptions();

  /**
   * Opens (or creates) the cache in {@code path}.
   *
   * @param path database directory
   * @throws RocksDBException on a database error
   */
  public SessionCache(String path) throws RocksDBException {
    dbOptions = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
    ColumnFamilyOptions defaults = new ColumnFamilyOptions();
    ColumnFamilyOptions sessions = new ColumnFamilyOptions().useFixedLengthPrefixExtractor(8);
    ColumnFamilyOptions counters =
        new ColumnFamilyOptions().setMergeOperator(new UInt64AddOperator());
    ColumnFamilyOptions audit =
        new ColumnFamilyOptions().setMergeOperator(new StringAppendOperator(','));
    cfOptions.addAll(Arrays.asList(defaults, sessions, counters, audit));
    List<ColumnFamilyDescriptor> descriptors = Arrays.asList(
        new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, defaults),
        new ColumnFamilyDescriptor(bytes("sessions"), sessions),
        new ColumnFamilyDescriptor(bytes("counters"), counters),
        new ColumnFamilyDescriptor(bytes("audit"), audit));
    db = RocksDB.open(dbOptions, path, descriptors, handles);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] userKey(long user) {
    return ByteBuffer.allocate(8).putLong(user).array();
  }

  private static byte[] sessionKey(long user, String session) {
    byte[] s = bytes(session);
    return ByteBuffer.allocate(8 + s.length).putLong(user).put(s).array();
  }

  private static byte[] one() {
    return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(1).array();
  }

  /** Records a login: the session, the user's login count, an audit entry; one batch. */
  void login(long user, String session, String data) throws RocksDBException {
    try (WriteBatch batch = new WriteBatch()) {
      batch.put(handles.get(1), sessionKey(user, session), bytes(data));
      batch.merge(handles.get(2), userKey(user), one());
      batch.merge(handles.get(3), userKey(user), bytes("in:" + session));
      db.write(writeOptions, batch);
    }
  }

  /** Records a logout: the session goes, an audit entry; one batch. */
  void logout(long user, String session) throws RocksDBException {
    try (WriteBatch batch = new WriteBatch()) {
      batch.delete(handles.get(1), sessionKey(user, session));
      batch.merge(handles.get(3), userKey(user), bytes("out:" + session));
      db.write(writeOptions, batch);
    }
  }

  /** The user's sessions, by prefix iteration over the user id. */
  List<String> sessions(long user) {
    List<String> out = new ArrayList<>();
    try (ReadOptions ro = new ReadOptions().setPrefixSameAsStart(true);
        RocksIterator it = db.newIterator(handles.get(1), ro)) {
      for (it.seek(userKey(user)); it.isValid(); it.next()) {
        byte[] k = it.key();
        out.add(new String(k, 8, k.length - 8, StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  /** The user's login count (0 when never seen). */
  long logins(long user) throws RocksDBException {
    byte[] v = db.get(handles.get(2), userKey(user));
    return v == null ? 0 : ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN).getLong();
  }

  /** The session's data, with a cheap negative answer first. */
  String session(long user, String session) throws RocksDBException {
    byte[] key = sessionKey(user, session);
    Holder<byte[]> holder = new Holder<>();
    if (!db.keyMayExist(handles.get(1), key, holder)) {
      return null; // certainly absent
    }
    byte[] v = holder.getValue() != null ? holder.getValue() : db.get(handles.get(1), key);
    return v == null ? null : new String(v, StandardCharsets.UTF_8);
  }

  /** The user's audit trail. */
  String audit(long user) throws RocksDBException {
    byte[] v = db.get(handles.get(3), userKey(user));
    return v == null ? null : new String(v, StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    for (ColumnFamilyHandle h : handles) {
      h.close();
    }
    db.close();
    writeOptions.close();
    dbOptions.close();
    for (ColumnFamilyOptions o : cfOptions) {
      o.close();
    }
  }

  /**
   * Runs the service through logins and logouts, reopens it and checks what it reads.
   *
   * @param path database directory (created)
   * @throws RocksDBException on a database error
   */
  public static void run(String path) throws RocksDBException {
    try (SessionCache c = new SessionCache(path)) {
      c.login(7, "a", "cart=1");
      c.login(7, "b", "cart=2");
      c.login(8, "c", "cart=3");
      c.login(7, "d", "cart=4");
      c.logout(7, "b");
      Check.that(c.sessions(7).equals(List.of("a", "d")), "sessions of 7: " + c.sessions(7));
      Check.that(c.sessions(8).equals(List.of("c")), "sessions of 8: " + c.sessions(8));
      Check.that(c.sessions(9).isEmpty(), "sessions of 9");
      Check.that(c.logins(7) == 3, "logins of 7: " + c.logins(7));
      Check.that("cart=4".equals(c.session(7, "d")), "session 7/d");
      Check.that(c.session(7, "b") == null, "session 7/b logged out");
    }
    try (SessionCache c = new SessionCache(path)) {
      Check.that(c.logins(7) == 3 && c.logins(8) == 1, "counters after reopen");
      Check.that("in:a,in:b,in:d,out:b".equals(c.audit(7)), "audit of 7: " + c.audit(7));
      Check.that(c.sessions(7).equals(List.of("a", "d")), "sessions after reopen");
    }
  }

  /**
   * Runs the program.
   *
   * @param args the database directory
   * @throws RocksDBException on a database error
   */
  public static void main(String[] args) throws RocksDBException {
    run(args[0]);
    System.out.println("session cache: ok");
  }
}
