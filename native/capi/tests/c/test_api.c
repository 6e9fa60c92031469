/* The C API end to end on one database: options (every setter), open,
 * writes, batches, reads (owned and pinned), snapshots, iterators with
 * bounds, flush, compaction, properties, statistics, the perf context,
 * misuse (NULL handles and keys), close, reopen and recovery, destroy.
 *
 * Usage: test_api DIR   (an empty directory the test may fill) */
#include <stdint.h>

#include "check.h"

static void put(talus_t *db, const talus_writeoptions_t *wo, const char *k, const char *v) {
    char *err = NULL;
    talus_put(db, wo, k, strlen(k), v, strlen(v), &err);
    CHECK_OK(err);
}

/* `k`'s value through talus_get equals `want` (NULL: absent). */
static void expect(talus_t *db, const talus_readoptions_t *ro, const char *k, const char *want) {
    char *err = NULL;
    size_t len = 99;
    char *v = talus_get(db, ro, k, strlen(k), &len, &err);
    CHECK_OK(err);
    if (want == NULL) {
        CHECK(v == NULL && len == 0);
    } else {
        CHECK_BYTES(v, len, want);
        CHECK(v[len] == '\0');
    }
    talus_free(v);
}

static uint64_t le64(const char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | (unsigned char)p[i];
    return v;
}

static void set_every_option(talus_options_t *o, talus_statistics_t *stats,
                             talus_ratelimiter_t *limiter, talus_cache_t *cache) {
    char *err = NULL;
    talus_options_set_create_if_missing(o, 1);
    talus_options_set_error_if_exists(o, 0);
    talus_options_set_create_missing_column_families(o, 0);
    talus_options_set_paranoid_checks(o, 1);
    talus_options_set_use_fsync(o, 0);
    talus_options_set_allow_fallocate(o, 1);
    talus_options_set_wal_dir(o, NULL);
    talus_options_set_wal_recovery_mode(o, TALUS_WAL_RECOVERY_POINT_IN_TIME, &err);
    CHECK_OK(err);
    talus_options_set_wal_recovery_mode(o, 42, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "unknown WAL recovery mode 42");
    talus_options_set_wal_recovery_mode(o, TALUS_WAL_RECOVERY_TOLERATE_CORRUPTED_TAIL_RECORDS, &err);
    CHECK_OK(err);
    talus_options_set_wal_bytes_per_sync(o, 0);
    talus_options_set_bytes_per_sync(o, 1 << 20);
    talus_options_set_max_background_jobs(o, 2);
    talus_options_set_max_background_compactions(o, -1);
    talus_options_set_max_background_flushes(o, -1);
    talus_options_set_max_open_files(o, -1);
    talus_options_set_delayed_write_rate(o, 16 << 20);
    talus_options_set_max_total_wal_size(o, 0);
    talus_options_set_stats_dump_period_sec(o, 0);
    talus_options_set_info_log_level(o, 2, &err);
    CHECK_OK(err);
    talus_options_set_info_log_level(o, 9, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "info log level");
    talus_options_set_keep_log_file_num(o, 10);
    talus_options_set_max_log_file_size(o, 0);
    talus_options_set_write_buffer_size(o, 1 << 20);
    talus_options_set_max_write_buffer_number(o, 3);
    talus_options_set_min_write_buffer_number_to_merge(o, 1);
    talus_options_set_level0_file_num_compaction_trigger(o, 4);
    talus_options_set_level0_slowdown_writes_trigger(o, 20);
    talus_options_set_level0_stop_writes_trigger(o, 36);
    talus_options_set_soft_pending_compaction_bytes_limit(o, (uint64_t)64 << 30);
    talus_options_set_hard_pending_compaction_bytes_limit(o, (uint64_t)256 << 30);
    talus_options_set_num_levels(o, 7);
    talus_options_set_max_bytes_for_level_base(o, 4 << 20);
    talus_options_set_max_bytes_for_level_multiplier(o, 10.0);
    talus_options_set_level_compaction_dynamic_level_bytes(o, 1);
    talus_options_set_target_file_size_base(o, 2 << 20);
    talus_options_set_target_file_size_multiplier(o, 1);
    talus_options_set_compaction_pri(o, 3, &err);
    CHECK_OK(err);
    talus_options_set_compaction_pri(o, 99, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "compaction priority");
    talus_options_set_disable_auto_compactions(o, 0);
    talus_options_set_manual_flush_enabled(o, 0);
    talus_options_set_max_concurrent_writers(o, -1);
    talus_options_set_compression(o, TALUS_COMPRESSION_LZ4, &err);
    CHECK_OK(err);
    talus_options_set_compression(o, 9, &err);
    CHECK_ERR(err, TALUS_NOT_SUPPORTED, "not a RocksJava CompressionType");
    talus_options_set_bottommost_compression(o, TALUS_COMPRESSION_ZSTD, &err);
    CHECK_OK(err);
    talus_options_set_bottommost_compression(o, TALUS_COMPRESSION_DISABLE, &err);
    CHECK_OK(err);
    int levels[] = {TALUS_COMPRESSION_NONE, TALUS_COMPRESSION_SNAPPY, TALUS_COMPRESSION_LZ4};
    talus_options_set_compression_per_level(o, levels, 3, &err);
    CHECK_OK(err);
    talus_options_set_compression_per_level(o, NULL, 0, &err);
    CHECK_OK(err);
    talus_options_set_compression_level(o, 32767);
    talus_options_set_prefix_extractor_capped(o, 3);
    talus_options_set_prefix_extractor_fixed(o, 2);
    talus_options_set_merge_operator(o, "no-such-operator", &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "stringappend");
    talus_options_set_string_append_operator(o, "+", 1, &err);
    CHECK_OK(err);
    talus_options_set_merge_operator(o, "uint64add", &err);
    CHECK_OK(err);
    talus_options_set_ratelimiter(o, limiter);
    talus_options_set_statistics(o, stats);

    talus_block_based_table_options_t *t = talus_block_based_options_create();
    CHECK(t != NULL);
    talus_block_based_options_set_block_size(t, 4096);
    talus_block_based_options_set_block_restart_interval(t, 16);
    talus_block_based_options_set_bloom_filter(t, 10.0);
    talus_block_based_options_set_whole_key_filtering(t, 1);
    talus_block_based_options_set_cache_index_and_filter_blocks(t, 1);
    talus_block_based_options_set_pin_l0_filter_and_index_blocks_in_cache(t, 1);
    talus_block_based_options_set_no_block_cache(t, 0);
    talus_block_based_options_set_block_cache(t, cache);
    talus_options_set_block_based_table_factory(o, t);
    /* The options keep a copy: the table options can go now. */
    talus_block_based_options_destroy(t);
}

static void test_misuse(talus_t *db, talus_writeoptions_t *wo, talus_readoptions_t *ro) {
    char *err = NULL;
    size_t len = 7;
    talus_put(NULL, wo, "k", 1, "v", 1, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "talus_put: db is NULL");
    talus_put(db, NULL, "k", 1, "v", 1, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "talus_put: options is NULL");
    talus_put(db, wo, NULL, 0, "v", 1, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "talus_put: key is NULL");
    talus_put(db, wo, "k", 1, NULL, 3, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "talus_put: val is NULL");
    CHECK(talus_get(db, ro, NULL, 0, &len, &err) == NULL && len == 0);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "talus_get: key is NULL");
    talus_delete(db, wo, NULL, 1, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "key is NULL");
    talus_merge(db, wo, NULL, 1, "x", 1, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "key is NULL");
    talus_delete_range(db, wo, "a", 1, NULL, 0, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "end_key is NULL");
    talus_write(db, wo, NULL, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "batch is NULL");
    CHECK(talus_create_iterator(NULL, ro, &err) == NULL);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "db is NULL");
    CHECK(talus_create_snapshot(NULL, &err) == NULL);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "db is NULL");
    talus_flush(db, NULL, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "options is NULL");
    CHECK(talus_open(NULL, "x", &err) == NULL);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "talus_open: options is NULL");
    /* An earlier message in *errptr is freed and replaced. */
    talus_put(db, wo, NULL, 0, "v", 1, &err);
    talus_get(db, ro, NULL, 0, &len, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "talus_get: key is NULL");
    /* errptr NULL: the error is discarded, nothing crashes. */
    talus_put(db, wo, NULL, 0, "v", 1, NULL);
    /* Calls without errptr ignore NULL handles. */
    talus_options_set_create_if_missing(NULL, 1);
    talus_iter_seek_to_first(NULL);
    CHECK(talus_iter_valid(NULL) == 0);
    CHECK(talus_iter_key(NULL, &len) == NULL && len == 0);
    CHECK(talus_property_value(NULL, "rocksdb.stats") == NULL);
    CHECK(talus_writebatch_count(NULL) == 0);
    CHECK(talus_error_code(NULL) == TALUS_OK);
    CHECK(talus_error_code("hello") == -1);
    /* Destroying NULL is allowed. */
    talus_options_destroy(NULL);
    talus_readoptions_destroy(NULL);
    talus_iter_destroy(NULL);
    talus_close(NULL, NULL);
}

static void test_batches(talus_t *db, talus_writeoptions_t *wo, talus_readoptions_t *ro) {
    char *err = NULL;
    talus_writebatch_t *b = talus_writebatch_create();
    talus_writebatch_put(b, "b1", 2, "one", 3, &err);
    CHECK_OK(err);
    talus_writebatch_put(b, "b2", 2, "two", 3, &err);
    talus_writebatch_put(b, "b3", 2, "three", 5, &err);
    talus_writebatch_put(b, "b4", 2, "four", 4, &err);
    talus_writebatch_delete(b, "b2", 2, &err);
    talus_writebatch_single_delete(b, "b3", 2, &err);
    talus_writebatch_delete_range(b, "b4", 2, "b5", 2, &err);
    uint64_t one = 1;
    talus_writebatch_merge(b, "bcount", 6, (const char *)&one, 8, &err);
    talus_writebatch_merge(b, "bcount", 6, (const char *)&one, 8, &err);
    CHECK_OK(err);
    talus_writebatch_put(b, NULL, 0, "x", 1, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "talus_writebatch_put: key is NULL");
    CHECK(talus_writebatch_count(b) == 9);
    talus_write(db, wo, b, &err);
    CHECK_OK(err);
    /* The batch is not consumed: writing it again applies it again. */
    talus_write(db, wo, b, &err);
    CHECK_OK(err);
    expect(db, ro, "b1", "one");
    expect(db, ro, "b2", NULL);
    expect(db, ro, "b3", NULL);
    expect(db, ro, "b4", NULL);
    size_t len = 0;
    char *v = talus_get(db, ro, "bcount", 6, &len, &err);
    CHECK_OK(err);
    CHECK(len == 8 && le64(v) == 4);
    talus_free(v);
    talus_writebatch_clear(b);
    CHECK(talus_writebatch_count(b) == 0);
    talus_writebatch_destroy(b);
}

static void test_iterators(talus_t *db, talus_writeoptions_t *wo) {
    char *err = NULL;
    const char *keys[] = {"it1", "it2", "it3", "it4", "it5"};
    for (int i = 0; i < 5; i++) put(db, wo, keys[i], keys[i]);
    talus_readoptions_t *ro = talus_readoptions_create();
    talus_readoptions_set_iterate_lower_bound(ro, "it2", 3);
    talus_readoptions_set_iterate_upper_bound(ro, "it5", 3);
    talus_readoptions_set_verify_checksums(ro, 1);
    talus_readoptions_set_fill_cache(ro, 1);
    talus_readoptions_set_total_order_seek(ro, 1);
    talus_readoptions_set_prefix_same_as_start(ro, 0);
    talus_readoptions_set_auto_prefix_mode(ro, 0);
    talus_readoptions_set_ignore_range_deletions(ro, 0);
    talus_readoptions_set_tailing(ro, 0);
    talus_iterator_t *it = talus_create_iterator(db, ro, &err);
    CHECK_OK(err);
    /* Bounds were copied: the options may go before the iterator. */
    talus_readoptions_destroy(ro);
    size_t kl = 0, vl = 0;
    CHECK(!talus_iter_valid(it));
    CHECK(talus_iter_key(it, &kl) == NULL && kl == 0);
    talus_iter_seek_to_first(it);
    CHECK(talus_iter_valid(it));
    CHECK_BYTES(talus_iter_key(it, &kl), kl, "it2");
    CHECK_BYTES(talus_iter_value(it, &vl), vl, "it2");
    talus_iter_next(it);
    CHECK_BYTES(talus_iter_key(it, &kl), kl, "it3");
    talus_iter_seek_to_last(it);
    CHECK_BYTES(talus_iter_key(it, &kl), kl, "it4");
    talus_iter_prev(it);
    CHECK_BYTES(talus_iter_key(it, &kl), kl, "it3");
    talus_iter_seek(it, "it3x", 4);
    CHECK_BYTES(talus_iter_key(it, &kl), kl, "it4");
    talus_iter_seek_for_prev(it, "it3x", 4);
    CHECK_BYTES(talus_iter_key(it, &kl), kl, "it3");
    talus_iter_next(it);
    talus_iter_next(it);
    CHECK(!talus_iter_valid(it)); /* it5 is beyond the upper bound */
    talus_iter_get_error(it, &err);
    CHECK_OK(err);
    /* A seek to NULL: invalid with an error until the next seek. */
    talus_iter_seek(it, NULL, 0);
    CHECK(!talus_iter_valid(it));
    talus_iter_get_error(it, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "talus_iter_seek: k is NULL");
    talus_iter_seek(it, "it2", 3);
    CHECK(talus_iter_valid(it));
    talus_iter_get_error(it, &err);
    CHECK_OK(err);
    talus_iter_destroy(it);

    /* A tailing iterator sees writes made after it was created. */
    talus_readoptions_t *tail = talus_readoptions_create();
    talus_readoptions_set_tailing(tail, 1);
    it = talus_create_iterator(db, tail, &err);
    CHECK_OK(err);
    put(db, wo, "it6", "late");
    talus_iter_seek(it, "it6", 3);
    CHECK(talus_iter_valid(it));
    CHECK_BYTES(talus_iter_value(it, &vl), vl, "late");
    talus_iter_destroy(it);
    talus_readoptions_destroy(tail);
}

static void test_snapshots(talus_t *db, talus_writeoptions_t *wo) {
    char *err = NULL;
    put(db, wo, "snap", "before");
    talus_snapshot_t *s = talus_create_snapshot(db, &err);
    CHECK_OK(err);
    CHECK(talus_snapshot_get_sequence_number(s) == talus_get_latest_sequence_number(db));
    put(db, wo, "snap", "after");
    talus_readoptions_t *ro = talus_readoptions_create();
    talus_readoptions_set_snapshot(ro, s);
    expect(db, ro, "snap", "before");
    talus_iterator_t *it = talus_create_iterator(db, ro, &err);
    CHECK_OK(err);
    talus_iter_seek(it, "snap", 4);
    size_t vl;
    CHECK_BYTES(talus_iter_value(it, &vl), vl, "before");
    talus_iter_destroy(it);
    talus_readoptions_set_snapshot(ro, NULL);
    expect(db, ro, "snap", "after");
    talus_release_snapshot(db, s);
    talus_readoptions_destroy(ro);
}

static void test_pinned(talus_t *db, talus_readoptions_t *ro) {
    char *err = NULL;
    size_t vl = 5;
    talus_pinnableslice_t *p = talus_get_pinned(db, ro, "k1", 2, &err);
    CHECK_OK(err);
    CHECK_BYTES(talus_pinnableslice_value(p, &vl), vl, "v1");
    talus_pinnableslice_destroy(p);
    CHECK(talus_get_pinned(db, ro, "absent", 6, &err) == NULL);
    CHECK_OK(err);
    talus_pinnableslice_t *r = talus_pinnableslice_create();
    CHECK(talus_pinnableslice_value(r, &vl) == NULL && vl == 0);
    CHECK(talus_get_into_pinnableslice(db, ro, NULL, "k1", 2, r, &err) == 1);
    CHECK_OK(err);
    CHECK_BYTES(talus_pinnableslice_value(r, &vl), vl, "v1");
    CHECK(talus_get_into_pinnableslice(db, ro, NULL, "absent", 6, r, &err) == 0);
    CHECK(talus_pinnableslice_value(r, &vl) == NULL && vl == 0);
    CHECK(talus_get_into_pinnableslice(db, ro, NULL, "k1", 2, NULL, &err) == 0);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "slice is NULL");
    talus_pinnableslice_destroy(r);
}

static void test_observability(talus_t *db, talus_statistics_t *stats, talus_readoptions_t *ro) {
    char *err = NULL;
    int written = talus_statistics_ticker_index("rocksdb.number.keys.written");
    CHECK(written >= 0 && written < talus_statistics_ticker_types());
    CHECK(strcmp(talus_statistics_ticker_name(written), "rocksdb.number.keys.written") == 0);
    CHECK(talus_statistics_ticker_index("no.such.ticker") == -1);
    CHECK(talus_statistics_ticker_name(-1) == NULL);
    CHECK(talus_statistics_get_ticker_count(stats, written, &err) > 0);
    CHECK_OK(err);
    talus_statistics_get_ticker_count(stats, 100000, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "unknown ticker 100000");
    int get = talus_statistics_histogram_index("rocksdb.db.get.micros");
    CHECK(get >= 0 && get < talus_statistics_histogram_types());
    CHECK(strcmp(talus_statistics_histogram_name(get), "rocksdb.db.get.micros") == 0);
    talus_histogram_data_t h;
    talus_statistics_get_histogram_data(stats, get, &h, &err);
    CHECK_OK(err);
    CHECK(h.count > 0 && h.max >= h.min);
    talus_statistics_get_histogram_data(stats, get, NULL, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "data is NULL");
    char *s = talus_statistics_get_histogram_string(stats, get, &err);
    CHECK_OK(err);
    CHECK(strstr(s, "P50") != NULL || strstr(s, "Count") != NULL);
    talus_free(s);
    s = talus_statistics_to_string(stats);
    CHECK(strstr(s, "rocksdb.number.keys.written COUNT") != NULL);
    talus_free(s);
    s = talus_statistics_to_prometheus(stats, "talus", &err);
    CHECK_OK(err);
    CHECK(strstr(s, "# TYPE talus_rocksdb_number_keys_written counter") != NULL);
    talus_free(s);
    talus_statistics_set_level(stats, TALUS_STATS_ALL, &err);
    CHECK_OK(err);
    CHECK(talus_statistics_get_level(stats) == TALUS_STATS_ALL);
    talus_statistics_set_level(stats, 7, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "stats level");
    CHECK(talus_statistics_get_and_reset_ticker_count(stats, written, &err) > 0);
    CHECK(talus_statistics_get_ticker_count(stats, written, &err) == 0);
    talus_statistics_reset(stats, &err);
    CHECK_OK(err);

    /* Properties. */
    char *p = talus_property_value(db, "rocksdb.stats");
    CHECK(p != NULL && strlen(p) > 0);
    talus_free(p);
    CHECK(talus_property_value(db, "rocksdb.no-such-property") == NULL);
    uint64_t n = 0;
    CHECK(talus_property_int(db, "rocksdb.estimate-num-keys", &n) == 0);
    CHECK(n > 0);
    CHECK(talus_property_int(db, "rocksdb.no-such-property", &n) == -1);
    CHECK(talus_property_int(db, "rocksdb.estimate-num-keys", NULL) == -1);

    /* Perf context, per thread. */
    CHECK(talus_get_perf_level() == TALUS_PERF_DISABLE);
    talus_set_perf_level(TALUS_PERF_ENABLE_TIME_EXCEPT_FOR_MUTEX, &err);
    CHECK_OK(err);
    CHECK(talus_get_perf_level() == TALUS_PERF_ENABLE_TIME_EXCEPT_FOR_MUTEX);
    talus_set_perf_level(0, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "");
    talus_perfcontext_set_per_level_enabled(1);
    talus_perfcontext_set_last_operation_enabled(1);
    talus_perfcontext_reset();
    expect(db, ro, "k1", "v1");
    int memtable = talus_perfcontext_metric_index("get_from_memtable_count");
    CHECK(memtable > 0);
    CHECK(strcmp(talus_perfcontext_metric_name(memtable), "get_from_memtable_count") == 0);
    CHECK(talus_perfcontext_metric_name(-1) == NULL);
    CHECK(talus_perfcontext_metric_index("no_such_metric") == -1);
    CHECK(talus_perfcontext_metric(TALUS_PERF_CONTEXT_THREAD, memtable) >= 1);
    CHECK(talus_perfcontext_metric(TALUS_PERF_CONTEXT_LAST_OPERATION, memtable) >= 1);
    int count = talus_perfcontext_metric_count();
    uint64_t *all = calloc((size_t)count, sizeof(uint64_t));
    talus_perfcontext_read(TALUS_PERF_CONTEXT_THREAD, all, (size_t)count, &err);
    CHECK_OK(err);
    CHECK(all[memtable] >= 1 && all[0] >= 1); /* [0] is num_runs */
    talus_perfcontext_read(TALUS_PERF_CONTEXT_THREAD, all, 1, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "needed");
    talus_perfcontext_read(9, all, (size_t)count, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "unknown perf context 9");
    char *r = talus_perfcontext_report(TALUS_PERF_CONTEXT_THREAD, 1, &err);
    CHECK_OK(err);
    CHECK(strstr(r, "get_from_memtable_count = ") != NULL);
    talus_free(r);
    talus_perfcontext_reset_aggregate();
    talus_perfcontext_fold();
    talus_perfcontext_read(TALUS_PERF_CONTEXT_AGGREGATE, all, (size_t)count, &err);
    CHECK_OK(err);
    CHECK(all[memtable] >= 1);
    talus_perfcontext_reset();
    CHECK(talus_perfcontext_metric(TALUS_PERF_CONTEXT_THREAD, memtable) == 0);
    talus_set_perf_level(TALUS_PERF_DISABLE, &err);
    CHECK_OK(err);
    free(all);
}

int main(int argc, char **argv) {
    CHECK(argc == 2);
    char *err = NULL;
    char *path = test_path(argv[1], "api");
    CHECK(strcmp(talus_version(), "") != 0);

    talus_statistics_t *stats = talus_statistics_create();
    talus_ratelimiter_t *limiter = talus_ratelimiter_create(64 << 20, 100000, 10, &err);
    CHECK_OK(err);
    CHECK(talus_ratelimiter_create(0, 100000, 10, &err) == NULL);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "rate_bytes_per_sec must be positive");
    talus_ratelimiter_t *all_io =
        talus_ratelimiter_create_with_mode(1 << 20, 1000, 1, TALUS_RATE_LIMITER_ALL_IO, 1, &err);
    CHECK_OK(err);
    talus_ratelimiter_request(all_io, 10, &err);
    CHECK_OK(err);
    talus_ratelimiter_request(all_io, (uint64_t)1 << 40, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "single burst");
    CHECK(talus_ratelimiter_get_total_bytes_through(all_io) >= 10);
    talus_ratelimiter_destroy(all_io);
    talus_ratelimiter_set_bytes_per_second(limiter, 32 << 20, &err);
    CHECK_OK(err);
    CHECK(talus_ratelimiter_get_bytes_per_second(limiter) == 32 << 20);
    talus_ratelimiter_set_bytes_per_second(limiter, -1, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "rate must be positive");
    talus_cache_t *cache = talus_cache_create_lru(8 << 20);
    CHECK(talus_cache_get_capacity(cache) == 8 << 20);
    talus_cache_set_capacity(cache, 4 << 20);
    CHECK(talus_cache_get_capacity(cache) == 4 << 20);
    CHECK(talus_cache_create_lru_with_options(1 << 20, 40, 0, 0.5, &err) == NULL);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "num_shard_bits");
    talus_cache_t *strict = talus_cache_create_lru_with_options(1 << 20, 2, 1, 0.5, &err);
    CHECK_OK(err);
    talus_cache_destroy(strict);

    talus_options_t *o = talus_options_create();
    set_every_option(o, stats, limiter, cache);
    talus_t *db = talus_open(o, path, &err);
    CHECK_OK(err);
    CHECK(db != NULL);
    /* The lock is held: a second open fails as an IO error. */
    CHECK(talus_open(o, path, &err) == NULL);
    CHECK(err != NULL);
    talus_free(err);
    err = NULL;

    talus_writeoptions_t *wo = talus_writeoptions_create();
    talus_writeoptions_set_sync(wo, 0);
    talus_writeoptions_set_no_slowdown(wo, 0);
    talus_writeoptions_set_low_pri(wo, 0);
    talus_writeoptions_disable_WAL(wo, 0);
    talus_readoptions_t *ro = talus_readoptions_create();
    talus_readoptions_set_read_tier(ro, 0, &err);
    CHECK_OK(err);
    talus_readoptions_set_read_tier(ro, 2, &err);
    CHECK_ERR(err, TALUS_NOT_SUPPORTED, "PERSISTED_TIER");

    put(db, wo, "k1", "v1");
    put(db, wo, "k2", "v2");
    expect(db, ro, "k1", "v1");
    expect(db, ro, "absent", NULL);
    /* Values are bytes: embedded NULs, and the empty value. */
    talus_put(db, wo, "bin", 3, "a\0b", 3, &err);
    CHECK_OK(err);
    size_t len = 0;
    char *v = talus_get(db, ro, "bin", 3, &len, &err);
    CHECK(len == 3 && memcmp(v, "a\0b", 3) == 0);
    talus_free(v);
    talus_put(db, wo, "empty", 5, NULL, 0, &err);
    CHECK_OK(err);
    v = talus_get(db, ro, "empty", 5, &len, &err);
    CHECK(v != NULL && len == 0);
    talus_free(v);
    talus_delete(db, wo, "k2", 2, &err);
    CHECK_OK(err);
    expect(db, ro, "k2", NULL);
    put(db, wo, "r1", "x");
    put(db, wo, "r2", "x");
    put(db, wo, "r3", "x");
    talus_delete_range(db, wo, "r1", 2, "r3", 2, &err);
    CHECK_OK(err);
    expect(db, ro, "r1", NULL);
    expect(db, ro, "r2", NULL);
    expect(db, ro, "r3", "x");
    put(db, wo, "sd", "x");
    talus_single_delete(db, wo, "sd", 2, &err);
    CHECK_OK(err);
    expect(db, ro, "sd", NULL);
    uint64_t five = 5, seven = 7;
    talus_merge(db, wo, "counter", 7, (const char *)&five, 8, &err);
    talus_merge(db, wo, "counter", 7, (const char *)&seven, 8, &err);
    CHECK_OK(err);
    v = talus_get(db, ro, "counter", 7, &len, &err);
    CHECK(len == 8 && le64(v) == 12);
    talus_free(v);
    /* sync together with disable_WAL is refused by every write. */
    talus_writeoptions_t *bad = talus_writeoptions_create();
    talus_writeoptions_set_sync(bad, 1);
    talus_writeoptions_disable_WAL(bad, 1);
    talus_put(db, bad, "k", 1, "v", 1, &err);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "sync and disable_wal");
    talus_writeoptions_destroy(bad);

    test_misuse(db, wo, ro);
    test_batches(db, wo, ro);
    test_iterators(db, wo);
    test_snapshots(db, wo);
    test_pinned(db, ro);

    /* Flush and compaction. */
    talus_flushoptions_t *fo = talus_flushoptions_create();
    talus_flushoptions_set_wait(fo, 1);
    talus_flushoptions_set_allow_write_stall(fo, 1);
    talus_flush(db, fo, &err);
    CHECK_OK(err);
    uint64_t files = 0;
    CHECK(talus_property_int(db, "rocksdb.num-files-at-level0", &files) == 0);
    CHECK(files >= 1);
    talus_flush_wal(db, 1, &err);
    CHECK_OK(err);
    talus_compact_range(db, NULL, 0, NULL, 0, &err);
    CHECK_OK(err);
    CHECK(talus_property_int(db, "rocksdb.num-files-at-level0", &files) == 0);
    CHECK(files == 0);
    talus_compact_range(db, "a", 1, "z", 1, &err);
    CHECK_OK(err);
    talus_wait_for_compactions(db, &err);
    CHECK_OK(err);
    talus_verify_checksum(db, &err);
    CHECK_OK(err);
    talus_resume(db, &err); /* no background error: a no-op */
    CHECK_OK(err);
    expect(db, ro, "k1", "v1"); /* now from a table file, through the cache */
    CHECK(talus_cache_get_usage(cache) > 0);
    CHECK(talus_cache_get_pinned_usage(cache) <= talus_cache_get_usage(cache));
    test_observability(db, stats, ro);

    /* Writes after the flush live only in the WAL: close, reopen, recover. */
    put(db, wo, "after-flush", "in the log");
    talus_close(db, &err);
    CHECK_OK(err);
    talus_options_set_error_if_exists(o, 1);
    CHECK(talus_open(o, path, &err) == NULL);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "exists");
    talus_options_set_error_if_exists(o, 0);
    db = talus_open(o, path, &err);
    CHECK_OK(err);
    expect(db, ro, "after-flush", "in the log");
    expect(db, ro, "k1", "v1");
    expect(db, ro, "r1", NULL);
    v = talus_get(db, ro, "counter", 7, &len, &err);
    CHECK(len == 8 && le64(v) == 12);
    talus_free(v);
    talus_close(db, &err);
    CHECK_OK(err);

    talus_destroy_db(o, path, &err);
    CHECK_OK(err);
    talus_options_set_create_if_missing(o, 0);
    CHECK(talus_open(o, path, &err) == NULL);
    CHECK_ERR(err, TALUS_INVALID_ARGUMENT, "");

    talus_flushoptions_destroy(fo);
    talus_readoptions_destroy(ro);
    talus_writeoptions_destroy(wo);
    talus_options_destroy(o);
    talus_cache_destroy(cache);
    talus_ratelimiter_destroy(limiter);
    talus_statistics_destroy(stats);
    free(path);
    printf("test_api: ok\n");
    return 0;
}
