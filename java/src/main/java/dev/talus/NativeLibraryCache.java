package dev.talus;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The extracted copy of the native library: one file per library content and user, reused by
 * every JVM, instead of one temporary file per JVM (which a JVM that ends abnormally — SIGKILL,
 * a crash, {@code Runtime.halt} — never deletes).
 *
 * <p>Layout: {@code <java.io.tmpdir>/talus-native-<user>/libtalusjni-<hash>.so}, where {@code
 * <hash>} is the first 128 bits of the SHA-256 of the library, in hex. Invariants, each relied on
 * by {@link #copyOf}:
 *
 * <ol>
 *   <li>The directory is private: owned by the current user, not writable by group or others, not
 *       a symbolic link. So no other user can add, replace or change a file in it between the
 *       check of its content and {@link System#load}. A directory that fails this is not used:
 *       the library then goes to a new directory of random name, deleted on exit (as before the
 *       cache existed). Pinned by {@code
 *       NativeLibraryExtractionTest.aCacheDirectoryOfAnotherUserIsNotUsed}.
 *   <li>A library file is trusted only after its SHA-256 equals the jar resource's (and it is a
 *       regular file of ours, not writable by others); a file that fails is replaced, never
 *       loaded. Pinned by {@code
 *       NativeLibraryExtractionTest.aCorruptedCachedCopyIsReplacedNotLoaded}.
 *   <li>A library file appears only whole: it is written under a temporary name in the same
 *       directory, flushed to the disk ({@code fsync}), made read-only, and renamed into place.
 *       Rename is atomic, so a JVM racing us sees either no file or a whole one. The data is
 *       synced before the rename, so after a power loss the file is missing or whole; the
 *       directory is not synced, since losing the rename only costs a new extraction (and a disk
 *       that lied is caught by invariant 2). Pinned by {@code
 *       NativeLibraryExtractionTest.jvmsRacingTheFirstExtractionShareOneFile}.
 *   <li>Several JVMs may extract at once: each writes its own temporary file, and the renames
 *       replace one whole file by another with the same content.
 * </ol>
 *
 * <p>Clean-up, best effort, after a successful extraction or reuse: temporary files older than
 * {@link #STALE_MILLIS} (left by a JVM that died while writing), library files of other content
 * not used for that long (other library versions; every load refreshes the modification time of
 * the file it uses before checking it, so a file a JVM is about to load is not that old), and
 * the per-JVM copies {@code libtalusjni-<digits>.so} that earlier versions of this loader left in
 * {@code java.io.tmpdir}, if they belong to the current user. On Linux and macOS removing the
 * file of a library that a running JVM has loaded does not affect that JVM.
 *
 * <p>Thread safety: called by {@link NativeLibrary} under its lock; concurrent JVMs are handled by
 * the invariants above.
 */
final class NativeLibraryCache {
  /** Age after which a temporary file or an unused other version is removed: one hour. */
  static final long STALE_MILLIS = TimeUnit.HOURS.toMillis(1);

  /** Prefix of the per-user cache directory inside {@code java.io.tmpdir}. */
  static final String DIR_PREFIX = "talus-native-";

  /** Bytes of the SHA-256 that name the file: 16 (32 hex digits). */
  private static final int NAME_HASH_BYTES = 16;

  private static final Set<PosixFilePermission> GROUP_OR_OTHER_WRITE =
      EnumSet.of(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);

  /** Where a library came from; {@link #open()} returns a new stream each time. */
  interface Source {
    /** Opens the library's bytes; never {@code null}. */
    InputStream open() throws IOException;
  }

  /** A usable copy of the library, and whether it is the per-JVM fallback. */
  static final class Copy {
    final Path file;
    final boolean temporary;

    Copy(final Path file, final boolean temporary) {
      this.file = file;
      this.temporary = temporary;
    }
  }

  private NativeLibraryCache() {}

  /**
   * Returns a trusted copy of {@code source} under {@code tmpdir}, reusing the cached one when
   * its content is right and writing it otherwise.
   *
   * @param tmpdir the temporary directory ({@code java.io.tmpdir})
   * @param fileName the library's platform file name, e.g. {@code libtalusjni.so}
   * @param user the user name that names the cache directory ({@code user.name})
   * @param source the library's bytes (the jar resource)
   * @return the file to load
   * @throws IOException if no copy can be checked or written (the caller names the directory)
   */
  static Copy copyOf(
      final Path tmpdir, final String fileName, final String user, final Source source)
      throws IOException {
    final Digest expected;
    try (InputStream in = source.open()) {
      expected = Digest.of(in);
    }
    final String name = cachedName(fileName, expected.sha256);
    final Path dir = tmpdir.resolve(DIR_PREFIX + sanitize(user));
    final UserPrincipal me = privateDirectory(dir);
    if (me == null) {
      return new Copy(temporaryCopy(tmpdir, fileName, source, expected), true);
    }
    final Path file = dir.resolve(name);
    // Touched before the check, so that another JVM's clean-up, which removes only copies
    // untouched for an hour, leaves it alone from now on. NativeLibrary retries once if it
    // vanished anyway (that clean-up read its time just before this touch).
    touch(file);
    if (!trusted(file, me, expected)) {
      write(dir, file, source, expected);
    }
    removeStale(dir, tmpdir, name, fileName, me);
    return new Copy(file, false);
  }

  /** {@code libtalusjni-<32 hex digits>.so} for {@code libtalusjni.so}. */
  static String cachedName(final String fileName, final byte[] sha256) {
    final int dot = fileName.lastIndexOf('.');
    final String base = dot > 0 ? fileName.substring(0, dot) : fileName;
    final String ext = dot > 0 ? fileName.substring(dot) : "";
    final byte[] prefix = new byte[NAME_HASH_BYTES];
    System.arraycopy(sha256, 0, prefix, 0, NAME_HASH_BYTES);
    return base + "-" + HexFormat.of().formatHex(prefix) + ext;
  }

  /** Keeps letters, digits, '.', '_' and '-' of a user name, so it is one safe path element. */
  static String sanitize(final String user) {
    final String kept = user == null ? "" : user.replaceAll("[^A-Za-z0-9._-]", "_");
    return kept.isEmpty() || kept.chars().allMatch(c -> c == '.') ? "user" : kept;
  }

  /**
   * Creates {@code dir} (mode 700) if missing and returns the current user if the directory is
   * private to them (invariant 1), or {@code null} if it is not usable.
   *
   * @throws IOException if {@code dir} cannot be created or probed (e.g. a read-only tmpdir)
   */
  private static UserPrincipal privateDirectory(final Path dir) throws IOException {
    final boolean posix = posix(dir.getParent());
    try {
      if (posix) {
        Files.createDirectory(
            dir,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } else {
        Files.createDirectory(dir);
      }
    } catch (FileAlreadyExistsException e) {
      // Ours from an earlier JVM, or anything else: checked below.
    }
    final BasicFileAttributes attrs =
        Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    if (!attrs.isDirectory()) {
      return null;
    }
    // Who am I: the owner of a file I create here. Creating it fails (AccessDeniedException)
    // in a directory of another user that we may not write, which is just as unusable.
    final UserPrincipal me;
    final Path probe;
    try {
      probe = Files.createTempFile(dir, ".probe-", ".tmp");
    } catch (AccessDeniedException e) {
      return null;
    }
    try {
      me = Files.getOwner(probe, LinkOption.NOFOLLOW_LINKS);
    } finally {
      Files.deleteIfExists(probe);
    }
    if (!posix) {
      return me;
    }
    final PosixFileAttributes p =
        Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    if (!p.owner().equals(me)) {
      return null;
    }
    if (p.permissions().stream().anyMatch(GROUP_OR_OTHER_WRITE::contains)) {
      // Ours, but opened up (by hand, or a umask at creation on some file system): close it.
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    }
    return me;
  }

  /** Invariant 2: a regular file of ours, not writable by others, with the expected content. */
  private static boolean trusted(final Path file, final UserPrincipal me, final Digest expected) {
    try {
      if (posix(file.getParent())) {
        final PosixFileAttributes a =
            Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!a.isRegularFile()
            || !a.owner().equals(me)
            || a.permissions().stream().anyMatch(GROUP_OR_OTHER_WRITE::contains)
            || a.size() != expected.size) {
          return false;
        }
      } else {
        final BasicFileAttributes a =
            Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!a.isRegularFile() || a.size() != expected.size) {
          return false;
        }
      }
      try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
        return expected.matches(Digest.of(in));
      }
    } catch (IOException e) {
      return false; // missing or unreadable: written anew
    }
  }

  /** Invariant 3: temporary name, fsync, read-only, atomic rename over whatever is there. */
  private static void write(
      final Path dir, final Path file, final Source source, final Digest expected)
      throws IOException {
    final boolean posix = posix(dir);
    final Path temp =
        posix
            ? Files.createTempFile(
                dir,
                file.getFileName() + ".",
                ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))
            : Files.createTempFile(dir, file.getFileName() + ".", ".tmp");
    boolean renamed = false;
    try {
      final Digest written = copyAndSync(source, temp);
      if (!expected.matches(written)) {
        throw new IOException(
            "the library resource changed while it was read ("
                + expected
                + ", then "
                + written
                + ")");
      }
      if (posix) {
        Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("r-x------"));
      }
      try {
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        renamed = true;
      } catch (IOException e) {
        // Windows refuses to replace a library another JVM has loaded; that JVM wrote the same
        // content, which is checked before it is used.
        final UserPrincipal me = Files.getOwner(temp, LinkOption.NOFOLLOW_LINKS);
        if (!trusted(file, me, expected)) {
          throw e;
        }
      }
    } finally {
      if (!renamed) {
        Files.deleteIfExists(temp);
      }
    }
  }

  /** The fallback when the cache directory is not private: a new directory, deleted on exit. */
  private static Path temporaryCopy(
      final Path tmpdir, final String fileName, final Source source, final Digest expected)
      throws IOException {
    final Path dir =
        posix(tmpdir)
            ? Files.createTempDirectory(
                tmpdir,
                DIR_PREFIX,
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")))
            : Files.createTempDirectory(tmpdir, DIR_PREFIX);
    // Registered first, so deleted last (deleteOnExit runs in reverse order).
    dir.toFile().deleteOnExit();
    final Path file = dir.resolve(fileName);
    file.toFile().deleteOnExit();
    write(dir, file, source, expected);
    return file;
  }

  /** Copies the source into {@code temp} and forces it to the disk; returns what was written. */
  private static Digest copyAndSync(final Source source, final Path temp) throws IOException {
    final MessageDigest sha = sha256();
    long size = 0;
    try (InputStream in = source.open();
        FileChannel out = FileChannel.open(temp, StandardOpenOption.WRITE)) {
      final byte[] buffer = new byte[1 << 16];
      for (int n; (n = in.read(buffer)) > 0; ) {
        sha.update(buffer, 0, n);
        final ByteBuffer b = ByteBuffer.wrap(buffer, 0, n);
        while (b.hasRemaining()) {
          out.write(b);
        }
        size += n;
      }
      out.force(true);
    }
    return new Digest(sha.digest(), size);
  }

  private static void touch(final Path file) {
    try {
      // NOFOLLOW: a symbolic link here is replaced below, and its target left alone.
      Files.getFileAttributeView(file, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
          .setTimes(FileTime.fromMillis(System.currentTimeMillis()), null, null);
    } catch (IOException | UnsupportedOperationException e) {
      // Missing (written next), or on a read-only file system (nothing cleans it up there).
    }
  }

  /** Per-JVM copies of earlier loaders: {@code libtalusjni-<random unsigned long>.so}. */
  private static Pattern legacyCopy(final String fileName) {
    final int dot = fileName.lastIndexOf('.');
    final String base = dot > 0 ? fileName.substring(0, dot) : fileName;
    final String ext = dot > 0 ? fileName.substring(dot) : "";
    return Pattern.compile(Pattern.quote(base + "-") + "[0-9]+" + Pattern.quote(ext));
  }

  /** Cached copies of any content: {@code libtalusjni-<32 hex digits>.so}. */
  private static Pattern cachedCopy(final String fileName) {
    final int dot = fileName.lastIndexOf('.');
    final String base = dot > 0 ? fileName.substring(0, dot) : fileName;
    final String ext = dot > 0 ? fileName.substring(dot) : "";
    return Pattern.compile(
        Pattern.quote(base + "-") + "[0-9a-f]{" + 2 * NAME_HASH_BYTES + "}" + Pattern.quote(ext));
  }

  /** The clean-up described in the class comment; never throws. */
  private static void removeStale(
      final Path dir,
      final Path tmpdir,
      final String keep,
      final String fileName,
      final UserPrincipal me) {
    final long cutoff = System.currentTimeMillis() - STALE_MILLIS;
    final Pattern cached = cachedCopy(fileName);
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (final Path p : entries) {
        final String n = p.getFileName().toString();
        if (!n.equals(keep) && (n.endsWith(".tmp") || cached.matcher(n).matches())) {
          deleteIfOursAndOlder(p, me, cutoff);
        }
      }
    } catch (IOException | RuntimeException e) {
      // Best effort: a leftover file costs disk space, never correctness.
    }
    if (!posix(tmpdir)) {
      return;
    }
    final Pattern legacy = legacyCopy(fileName);
    final int dot = fileName.lastIndexOf('.');
    final String glob = (dot > 0 ? fileName.substring(0, dot) : fileName) + "-*";
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(tmpdir, glob)) {
      for (final Path p : entries) {
        if (legacy.matcher(p.getFileName().toString()).matches()) {
          deleteIfOursAndOlder(p, me, cutoff);
        }
      }
    } catch (IOException | RuntimeException e) {
      // Best effort, as above.
    }
  }

  private static void deleteIfOursAndOlder(
      final Path p, final UserPrincipal me, final long cutoffMillis) throws IOException {
    final BasicFileAttributes a =
        Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    if (a.isRegularFile()
        && a.lastModifiedTime().toMillis() < cutoffMillis
        && Files.getOwner(p, LinkOption.NOFOLLOW_LINKS).equals(me)) {
      Files.deleteIfExists(p);
    }
  }

  private static boolean posix(final Path dir) {
    return dir.getFileSystem().supportedFileAttributeViews().contains("posix");
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  /** The SHA-256 and size of some bytes. */
  static final class Digest {
    final byte[] sha256;
    final long size;

    Digest(final byte[] sha256, final long size) {
      this.sha256 = sha256;
      this.size = size;
    }

    static Digest of(final InputStream in) throws IOException {
      final MessageDigest sha = sha256();
      final byte[] buffer = new byte[1 << 16];
      long size = 0;
      for (int n; (n = in.read(buffer)) > 0; ) {
        sha.update(buffer, 0, n);
        size += n;
      }
      return new Digest(sha.digest(), size);
    }

    boolean matches(final Digest other) {
      return size == other.size && MessageDigest.isEqual(sha256, other.sha256);
    }

    @Override
    public String toString() {
      return "sha256 " + HexFormat.of().formatHex(sha256) + ", " + size + " bytes";
    }
  }
}
