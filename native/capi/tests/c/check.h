/* Assertions shared by the C tests: each failure prints the file, line,
 * expression and, for errors, the library's message, then exits 1. */
#ifndef TALUS_TEST_CHECK_H
#define TALUS_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "talus.h"

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__,   \
                    #cond);                                                    \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

/* The call left no error. */
#define CHECK_OK(err)                                                          \
    do {                                                                       \
        if ((err) != NULL) {                                                   \
            fprintf(stderr, "%s:%d: unexpected error: %s\n", __FILE__,         \
                    __LINE__, (err));                                          \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

/* The call failed with status `code` and a message containing `text`;
 * frees the message and resets `err` to NULL. */
#define CHECK_ERR(err, code, text)                                             \
    do {                                                                       \
        if ((err) == NULL) {                                                   \
            fprintf(stderr, "%s:%d: expected an error containing \"%s\"\n",    \
                    __FILE__, __LINE__, (text));                               \
            exit(1);                                                           \
        }                                                                      \
        if (talus_error_code(err) != (code) || strstr((err), (text)) == NULL) {\
            fprintf(stderr, "%s:%d: expected code %d and \"%s\", got %d: %s\n",\
                    __FILE__, __LINE__, (code), (text),                        \
                    talus_error_code(err), (err));                             \
            exit(1);                                                           \
        }                                                                      \
        talus_free(err);                                                       \
        (err) = NULL;                                                          \
    } while (0)

/* `p` (of `len` bytes) equals the C string `s`. */
#define CHECK_BYTES(p, len, s)                                                 \
    do {                                                                       \
        const char *check_p_ = (const char *)(p);                              \
        size_t check_len_ = (len);                                             \
        if (check_p_ == NULL || check_len_ != strlen(s) ||                     \
            memcmp(check_p_, (s), check_len_) != 0) {                          \
            fprintf(stderr, "%s:%d: expected \"%s\", got \"%.*s\"\n",          \
                    __FILE__, __LINE__, (s), check_p_ ? (int)check_len_ : 6,   \
                    check_p_ ? check_p_ : "(null)");                           \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

/* `path` joined under the directory argv[1]. */
static inline char *test_path(const char *dir, const char *name) {
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    CHECK(p != NULL);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

#endif
