/* bench.c: per-call cost of the C API, single thread: N puts of 48-byte
 * keys and 160-byte values into a fresh database (default options, WAL on,
 * not synced), then N gets in a scrambled order, with talus_get (a malloc'd
 * copy per value, freed) and with talus_get_into_pinnableslice (one
 * reused buffer). Prints one line of nanoseconds per operation. Its Rust
 * twin, and the driver that alternates the two, is
 * native/capi/benches/overhead.rs (cargo bench -p talus-capi --bench overhead).
 *
 * Usage: bench DIR N */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "talus.h"

#define KEY_LEN 48
#define VALUE_LEN 160

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void die(char *err) {
    fprintf(stderr, "bench: %s\n", err);
    exit(1);
}

/* Key i: "key" and i in 45 zero-padded digits. */
static void key_of(uint64_t i, char *k) {
    char buf[KEY_LEN + 1];
    snprintf(buf, sizeof buf, "key%045llu", (unsigned long long)i);
    memcpy(k, buf, KEY_LEN);
}

/* The i-th key read: a fixed scramble of 0..n (an odd multiplier modulo n
 * visits every index once when gcd(mult, n) = 1; n is a power of ten). */
static uint64_t scrambled(uint64_t i, uint64_t n) { return (i * 2654435761u) % n; }

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: bench DIR N\n");
        return 2;
    }
    uint64_t n = strtoull(argv[2], NULL, 10);
    char *err = NULL;
    talus_options_t *o = talus_options_create();
    talus_options_set_create_if_missing(o, 1);
    talus_t *db = talus_open(o, argv[1], &err);
    if (err) die(err);
    talus_writeoptions_t *wo = talus_writeoptions_create();
    talus_readoptions_t *ro = talus_readoptions_create();
    char v[VALUE_LEN];
    memset(v, 'v', VALUE_LEN);
    /* Keys are made before the clock starts: only API calls are timed. */
    char *keys = malloc(n * KEY_LEN);
    char *order = malloc(n * KEY_LEN);
    if (keys == NULL || order == NULL) return 1;
    for (uint64_t i = 0; i < n; i++) {
        key_of(i, keys + i * KEY_LEN);
        key_of(scrambled(i, n), order + i * KEY_LEN);
    }

    double t0 = now_ns();
    for (uint64_t i = 0; i < n; i++) {
        talus_put(db, wo, keys + i * KEY_LEN, KEY_LEN, v, VALUE_LEN, &err);
        if (err) die(err);
    }
    double put = (now_ns() - t0) / (double)n;

    uint64_t found = 0;
    t0 = now_ns();
    for (uint64_t i = 0; i < n; i++) {
        size_t len;
        char *val = talus_get(db, ro, order + i * KEY_LEN, KEY_LEN, &len, &err);
        if (err) die(err);
        found += val != NULL && len == VALUE_LEN;
        talus_free(val);
    }
    double get = (now_ns() - t0) / (double)n;

    talus_pinnableslice_t *s = talus_pinnableslice_create();
    t0 = now_ns();
    for (uint64_t i = 0; i < n; i++) {
        found += talus_get_into_pinnableslice(db, ro, NULL, order + i * KEY_LEN, KEY_LEN, s, &err);
        if (err) die(err);
    }
    double get_into = (now_ns() - t0) / (double)n;
    if (found != 2 * n) {
        fprintf(stderr, "bench: found %llu of %llu\n", (unsigned long long)found,
                (unsigned long long)(2 * n));
        return 1;
    }
    printf("put_ns=%.1f get_ns=%.1f get_into_ns=%.1f\n", put, get, get_into);
    talus_pinnableslice_destroy(s);
    free(keys);
    free(order);
    talus_readoptions_destroy(ro);
    talus_writeoptions_destroy(wo);
    talus_close(db, &err);
    if (err) die(err);
    talus_options_destroy(o);
    return 0;
}
