/**
 * Talus, an embedded LSM key-value store, for Java: the API mirrors RocksJava's {@code
 * org.rocksdb} package.
 *
 * <p>Native objects are {@link java.lang.AutoCloseable}: close each one (try-with-resources);
 * a closed object throws {@link java.lang.IllegalStateException}. Engine failures throw the
 * checked {@link dev.talus.TalusException} carrying a {@link dev.talus.Status}. The native library
 * is loaded by {@link dev.talus.NativeLibrary}.
 */
package dev.talus;
