/* Column families through the C API: create, list, per-family writes,
 * reads, batches, iterators, flush, compaction and properties, drop, and
 * reopening with the families.
 *
 * Usage: test_cf DIR */
#include "check.h"

int main(int argc, char **argv) {
    CHECK(argc == 2);
    char *err = NULL;
    char *path = test_path(argv[1], "cf");
    talus_options_t *o = talus_options_create();
    talus_options_set_create_if_missing(o, 1);
    talus_writeoptions_t *wo = talus_writeoptions_create();
    talus_readoptions_t *ro = talus_readoptions_create();
    talus_flushoptions_t *fo = talus_flushoptions_create();

    talus_t *db = talus_open(o, path, &err);
    CHECK_OK(err);
    talus_options_t *fam = talus_options_create();
    talus_options_set_merge_operator(fam, "stringappend", &err);
    CHECK_OK(err);
    talus_column_family_handle_t *users = talus_create_column_family(db, fam, "users", &err);
    CHECK_OK(err);
    talus_column_family_handle_t *logs = talus_create_column_family(db, o, "logs", &err);
    CHECK_OK(err);
    CHECK(talus_create_column_family(db, o, "users", &err) == NULL);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "users");
    CHECK(talus_create_column_family(db, o, NULL, &err) == NULL);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "name is NULL");
    CHECK(talus_column_family_handle_get_id(users) > 0);
    size_t nl = 0;
    char *name = talus_column_family_handle_get_name(users, &nl);
    CHECK_BYTES(name, nl, "users");
    talus_free(name);
    talus_column_family_handle_t *def = talus_get_default_column_family_handle(db);
    CHECK(talus_column_family_handle_get_id(def) == 0);

    talus_put_cf(db, wo, users, "u1", 2, "alice", 5, &err);
    CHECK_OK(err);
    talus_put(db, wo, "u1", 2, "in default", 10, &err);
    talus_merge_cf(db, wo, users, "u1", 2, "admin", 5, &err);
    CHECK_OK(err);
    talus_merge_cf(db, wo, logs, "l", 1, "x", 1, &err);
    CHECK_ERR(err, TALUS_NOT_SUPPORTED, "merge_operator");
    talus_put_cf(db, wo, NULL, "u1", 2, "x", 1, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "talus_put_cf: column_family is NULL");
    size_t vl = 0;
    char *v = talus_get_cf(db, ro, users, "u1", 2, &vl, &err);
    CHECK_OK(err);
    CHECK_BYTES(v, vl, "alice,admin");
    talus_free(v);
    v = talus_get_cf(db, ro, def, "u1", 2, &vl, &err);
    CHECK_BYTES(v, vl, "in default");
    talus_free(v);
    talus_pinnableslice_t *p = talus_get_pinned_cf(db, ro, users, "u1", 2, &err);
    CHECK_BYTES(talus_pinnableslice_value(p, &vl), vl, "alice,admin");
    talus_pinnableslice_destroy(p);
    talus_pinnableslice_t *r = talus_pinnableslice_create();
    CHECK(talus_get_into_pinnableslice(db, ro, users, "u1", 2, r, &err) == 1);
    CHECK_BYTES(talus_pinnableslice_value(r, &vl), vl, "alice,admin");
    talus_pinnableslice_destroy(r);

    talus_writebatch_t *b = talus_writebatch_create();
    talus_writebatch_put_cf(b, logs, "l1", 2, "a", 1, &err);
    talus_writebatch_put_cf(b, logs, "l2", 2, "b", 1, &err);
    talus_writebatch_put_cf(b, logs, "l3", 2, "c", 1, &err);
    talus_writebatch_put_cf(b, logs, "l4", 2, "d", 1, &err);
    talus_writebatch_delete_cf(b, logs, "l1", 2, &err);
    talus_writebatch_delete_range_cf(b, logs, "l3", 2, "l4", 2, &err);
    talus_writebatch_merge_cf(b, users, "u2", 2, "bob", 3, &err);
    CHECK_OK(err);
    talus_writebatch_put_cf(b, NULL, "x", 1, "y", 1, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "column_family is NULL");
    talus_write(db, wo, b, &err);
    CHECK_OK(err);
    talus_writebatch_destroy(b);
    talus_delete_cf(db, wo, logs, "l2", 2, &err);
    CHECK_OK(err);
    talus_delete_range_cf(db, wo, users, "u3", 2, "u4", 2, &err);
    CHECK_OK(err);

    talus_iterator_t *it = talus_create_iterator_cf(db, ro, logs, &err);
    CHECK_OK(err);
    size_t kl;
    talus_iter_seek_to_first(it);
    CHECK_BYTES(talus_iter_key(it, &kl), kl, "l4");
    talus_iter_next(it);
    CHECK(!talus_iter_valid(it));
    talus_iter_destroy(it);

    talus_flush_cf(db, fo, users, &err);
    CHECK_OK(err);
    uint64_t files = 0;
    CHECK(talus_property_int_cf(db, users, "rocksdb.num-files-at-level0", &files) == 0);
    CHECK(files == 1);
    CHECK(talus_property_int_cf(db, logs, "rocksdb.num-files-at-level0", &files) == 0);
    CHECK(files == 0);
    char *pv = talus_property_value_cf(db, users, "rocksdb.num-files-at-level0");
    CHECK(pv != NULL && strcmp(pv, "1") == 0);
    talus_free(pv);
    talus_compact_range_cf(db, users, NULL, 0, NULL, 0, &err);
    CHECK_OK(err);

    talus_column_family_handle_t *tmp = talus_create_column_family(db, o, "tmp", &err);
    CHECK_OK(err);
    talus_drop_column_family(db, tmp, &err);
    CHECK_OK(err);
    talus_put_cf(db, wo, tmp, "k", 1, "v", 1, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "");
    talus_drop_column_family(db, def, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "");
    talus_column_family_handle_destroy(tmp);
    talus_column_family_handle_destroy(users);
    talus_column_family_handle_destroy(logs);
    talus_column_family_handle_destroy(def);
    talus_close(db, &err);
    CHECK_OK(err);

    size_t n = 0;
    char **names = talus_list_column_families(o, path, &n, &err);
    CHECK_OK(err);
    CHECK(n == 3);
    CHECK(strcmp(names[0], "default") == 0);
    CHECK(strcmp(names[1], "users") == 0 && strcmp(names[2], "logs") == 0);
    talus_list_column_families_destroy(names, n);
    CHECK(talus_list_column_families(o, path, NULL, &err) == NULL);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "lencf is NULL");

    /* A database with families does not open without them. */
    CHECK(talus_open(o, path, &err) == NULL);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "");
    const char *cf_names[] = {"default", "users", "logs"};
    const talus_options_t *cf_opts[] = {o, fam, o};
    talus_column_family_handle_t *h[3] = {NULL, NULL, NULL};
    db = talus_open_column_families(o, path, 3, cf_names, cf_opts, h, &err);
    CHECK_OK(err);
    v = talus_get_cf(db, ro, h[1], "u1", 2, &vl, &err);
    CHECK_BYTES(v, vl, "alice,admin");
    talus_free(v);
    v = talus_get_cf(db, ro, h[1], "u2", 2, &vl, &err);
    CHECK_BYTES(v, vl, "bob");
    talus_free(v);
    v = talus_get_cf(db, ro, h[2], "l4", 2, &vl, &err);
    CHECK_BYTES(v, vl, "d");
    talus_free(v);
    for (int i = 0; i < 3; i++) talus_column_family_handle_destroy(h[i]);
    talus_close(db, &err);
    CHECK_OK(err);
    /* An unknown family name in the list with nothing to create it. */
    const char *bad_names[] = {"default", "users", "logs", "nope"};
    const talus_options_t *bad_opts[] = {o, fam, o, o};
    talus_column_family_handle_t *bh[4] = {NULL, NULL, NULL, NULL};
    CHECK(talus_open_column_families(o, path, 4, bad_names, bad_opts, bh, &err) == NULL);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "");
    CHECK(bh[3] == NULL);

    talus_options_destroy(fam);
    talus_flushoptions_destroy(fo);
    talus_readoptions_destroy(ro);
    talus_writeoptions_destroy(wo);
    talus_options_destroy(o);
    free(path);
    printf("test_cf: ok\n");
    return 0;
}
