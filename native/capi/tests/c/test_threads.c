/* Several writer threads (pthreads) on one database handle, each writing
 * its own keys with batches and single puts, a reader thread iterating
 * meanwhile; then close, reopen and check that every acknowledged write is
 * there (recovery from the WAL, nothing flushed by hand).
 *
 * Usage: test_threads DIR */
#include <pthread.h>

#include "check.h"

#define WRITERS 4
#define PER_WRITER 2000

static talus_t *db;

static void *writer(void *arg) {
    int id = (int)(long)arg;
    char *err = NULL;
    talus_writeoptions_t *wo = talus_writeoptions_create();
    talus_writebatch_t *b = talus_writebatch_create();
    char key[32], val[64];
    for (int i = 0; i < PER_WRITER; i++) {
        int kl = snprintf(key, sizeof key, "w%d-%06d", id, i);
        int vl = snprintf(val, sizeof val, "value of writer %d number %d", id, i);
        if (i % 2 == 0) {
            talus_put(db, wo, key, (size_t)kl, val, (size_t)vl, &err);
            CHECK_OK(err);
        } else {
            talus_writebatch_put(b, key, (size_t)kl, val, (size_t)vl, &err);
            CHECK_OK(err);
            if (talus_writebatch_count(b) == 10) {
                talus_write(db, wo, b, &err);
                CHECK_OK(err);
                talus_writebatch_clear(b);
            }
        }
    }
    talus_write(db, wo, b, &err);
    CHECK_OK(err);
    talus_writebatch_destroy(b);
    talus_writeoptions_destroy(wo);
    return NULL;
}

/* Iterates while the writers run: keys come in order, every pass. */
static void *reader(void *arg) {
    (void)arg;
    char *err = NULL;
    talus_readoptions_t *ro = talus_readoptions_create();
    for (int pass = 0; pass < 20; pass++) {
        talus_iterator_t *it = talus_create_iterator(db, ro, &err);
        CHECK_OK(err);
        char prev[32] = "";
        size_t prev_len = 0, kl;
        for (talus_iter_seek_to_first(it); talus_iter_valid(it); talus_iter_next(it)) {
            const char *k = talus_iter_key(it, &kl);
            CHECK(kl < sizeof prev);
            size_t n = kl < prev_len ? kl : prev_len;
            int c = memcmp(prev, k, n);
            CHECK(c < 0 || (c == 0 && prev_len < kl));
            memcpy(prev, k, kl);
            prev_len = kl;
        }
        talus_iter_get_error(it, &err);
        CHECK_OK(err);
        talus_iter_destroy(it);
    }
    talus_readoptions_destroy(ro);
    return NULL;
}

static size_t count_keys(void) {
    char *err = NULL;
    talus_readoptions_t *ro = talus_readoptions_create();
    talus_iterator_t *it = talus_create_iterator(db, ro, &err);
    CHECK_OK(err);
    size_t n = 0;
    for (talus_iter_seek_to_first(it); talus_iter_valid(it); talus_iter_next(it)) n++;
    talus_iter_destroy(it);
    talus_readoptions_destroy(ro);
    return n;
}

int main(int argc, char **argv) {
    CHECK(argc == 2);
    char *err = NULL;
    char *path = test_path(argv[1], "threads");
    talus_options_t *o = talus_options_create();
    talus_options_set_create_if_missing(o, 1);
    /* Small memtables: flushes run in the background during the test. */
    talus_options_set_write_buffer_size(o, 256 << 10);
    db = talus_open(o, path, &err);
    CHECK_OK(err);
    pthread_t t[WRITERS + 1];
    for (long i = 0; i < WRITERS; i++) CHECK(pthread_create(&t[i], NULL, writer, (void *)i) == 0);
    CHECK(pthread_create(&t[WRITERS], NULL, reader, NULL) == 0);
    for (int i = 0; i <= WRITERS; i++) CHECK(pthread_join(t[i], NULL) == 0);
    CHECK(count_keys() == WRITERS * PER_WRITER);
    talus_close(db, &err);
    CHECK_OK(err);

    db = talus_open(o, path, &err);
    CHECK_OK(err);
    CHECK(count_keys() == WRITERS * PER_WRITER);
    talus_readoptions_t *ro = talus_readoptions_create();
    size_t vl;
    char *v = talus_get(db, ro, "w3-001999", 9, &vl, &err);
    CHECK_OK(err);
    CHECK_BYTES(v, vl, "value of writer 3 number 1999");
    talus_free(v);
    talus_readoptions_destroy(ro);
    talus_close(db, &err);
    CHECK_OK(err);
    talus_options_destroy(o);
    free(path);
    printf("test_threads: ok\n");
    return 0;
}
