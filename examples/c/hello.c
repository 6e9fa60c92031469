/* hello.c: open a Talus database from C, write, read back, iterate.
 *
 * Build (from the repository root):
 *   cargo build --release -p talus-capi
 *   cc -std=c11 -Iinclude examples/c/hello.c -Ltarget/release -ltalus \
 *      -Wl,-rpath,"$PWD/target/release" -o hello
 *   ./hello /tmp/talus-hello
 * Or statically: replace -ltalus with target/release/libtalus.a -lpthread -ldl -lm */
#include <stdio.h>
#include <stdlib.h>

#include "talus.h"

static void die(char *err) {
    fprintf(stderr, "talus: %s (code %d)\n", err, talus_error_code(err));
    talus_free(err);
    exit(1);
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "/tmp/talus-hello";
    char *err = NULL;

    talus_options_t *options = talus_options_create();
    talus_options_set_create_if_missing(options, 1);
    talus_t *db = talus_open(options, path, &err);
    if (err) die(err);

    talus_writeoptions_t *wo = talus_writeoptions_create();
    talus_put(db, wo, "greeting", 8, "hello from C", 12, &err);
    if (err) die(err);
    talus_put(db, wo, "planet", 6, "earth", 5, &err);
    if (err) die(err);

    talus_readoptions_t *ro = talus_readoptions_create();
    size_t len = 0;
    char *value = talus_get(db, ro, "greeting", 8, &len, &err);
    if (err) die(err);
    printf("greeting = %.*s\n", (int)len, value);
    talus_free(value);

    talus_iterator_t *it = talus_create_iterator(db, ro, &err);
    if (err) die(err);
    for (talus_iter_seek_to_first(it); talus_iter_valid(it); talus_iter_next(it)) {
        size_t kl, vl;
        const char *k = talus_iter_key(it, &kl);
        const char *v = talus_iter_value(it, &vl);
        printf("%.*s -> %.*s\n", (int)kl, k, (int)vl, v);
    }
    talus_iter_get_error(it, &err);
    if (err) die(err);
    talus_iter_destroy(it);

    talus_readoptions_destroy(ro);
    talus_writeoptions_destroy(wo);
    talus_close(db, &err);
    if (err) die(err);
    talus_options_destroy(options);
    return 0;
}
