#!/usr/bin/env python3
"""Reads keys of a Talus database through the C API with ctypes.

Usage: read_back.py LIBTALUS DBDIR KEY...
  LIBTALUS  path of libtalus.so (cargo build --release -p talus-capi:
            target/release/libtalus.so)
  DBDIR     an existing database (examples/c/hello writes one)
Prints "KEY = VALUE" per key ("KEY absent" when missing); exits 1 on error.
"""
import ctypes
import sys


def main(lib_path, db_dir, keys):
    lib = ctypes.CDLL(lib_path)
    c_void_p, c_char_p, c_size_t = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t
    errptr = ctypes.POINTER(ctypes.c_void_p)
    lib.talus_options_create.restype = c_void_p
    lib.talus_open.restype = c_void_p
    lib.talus_open.argtypes = [c_void_p, c_char_p, errptr]
    lib.talus_readoptions_create.restype = c_void_p
    # talus_get returns a malloc'd buffer: keep it as a raw pointer so it can
    # be handed back to talus_free (a c_char_p result would be copied and lost).
    lib.talus_get.restype = c_void_p
    lib.talus_get.argtypes = [c_void_p, c_void_p, c_char_p, c_size_t,
                              ctypes.POINTER(c_size_t), errptr]
    lib.talus_free.argtypes = [c_void_p]
    lib.talus_close.argtypes = [c_void_p, errptr]
    lib.talus_options_destroy.argtypes = [c_void_p]
    lib.talus_readoptions_destroy.argtypes = [c_void_p]

    def check(err):
        if err.value:
            msg = ctypes.string_at(err.value).decode()
            lib.talus_free(err.value)
            raise SystemExit("talus: " + msg)

    err = ctypes.c_void_p()
    opts = lib.talus_options_create()
    db = lib.talus_open(opts, db_dir.encode(), ctypes.byref(err))
    check(err)
    ro = lib.talus_readoptions_create()
    for key in keys:
        k = key.encode()
        n = c_size_t()
        p = lib.talus_get(db, ro, k, len(k), ctypes.byref(n), ctypes.byref(err))
        check(err)
        if p is None:
            print(f"{key} absent")
        else:
            print(f"{key} = {ctypes.string_at(p, n.value).decode()}")
            lib.talus_free(p)
    lib.talus_readoptions_destroy(ro)
    lib.talus_close(db, ctypes.byref(err))
    check(err)
    lib.talus_options_destroy(opts)


if __name__ == "__main__":
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
