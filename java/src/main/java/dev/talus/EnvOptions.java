package dev.talus;

/**
 * Options of file access for an {@link SstFileWriter}, as RocksJava's {@code EnvOptions}. Talus
 * writes table files through its own file layer and takes no option from here: the class exists so
 * that RocksJava code constructing an {@code SstFileWriter(EnvOptions, Options)} ports unchanged. A
 * plain Java object.
 */
public class EnvOptions extends PlainCloseable {
  /** Default file access options. */
  public EnvOptions() {}
}
