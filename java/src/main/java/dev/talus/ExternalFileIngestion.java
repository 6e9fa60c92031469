package dev.talus;

/** The native call of {@link TalusDB#ingestExternalFile}. Package-private: not public API. */
final class ExternalFileIngestion {
  private ExternalFileIngestion() {}

  static void ingest(long db, int cf, String[] paths, IngestExternalFileOptions o)
      throws TalusException {
    nativeIngest(db, cf, paths, o.flags());
  }

  private static native void nativeIngest(long db, int cf, String[] paths, int flags);
}
