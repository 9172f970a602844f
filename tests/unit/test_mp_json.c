/* The result file of a multithreaded run (mp_fixture.h): every multiprocessor field written
 * under the names of issue 3 (checked with jansson on the written text), the round trip
 * write -> read -> write byte-identical, and one-processor files unchanged by it. */
#include <stdlib.h>

#include <jansson.h>

#include "check.h"
#include "model_fixture.h"
#include "mp_fixture.h"
#include "report/report.h"

static char *json_text(const ms_model *m, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    CHECK_EQ(ms_json_write(f, m), 0);
    fclose(f);
    return text;
}

/* The value at a '/'-separated path of object keys and array indices, or NULL. */
static json_t *value_at(json_t *root, const char *path)
{
    json_t *v = root;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *tok = strtok(buf, "/"); tok && v; tok = strtok(NULL, "/")) {
        if (json_is_array(v))
            v = json_array_get(v, (size_t)atoi(tok));
        else
            v = json_object_get(v, tok);
    }
    return v;
}

static json_int_t int_at(json_t *root, const char *path)
{
    json_t *v = value_at(root, path);
    if (!json_is_integer(v)) fprintf(stderr, "no integer at %s\n", path);
    return json_integer_value(v);
}

static const char *str_at(json_t *root, const char *path)
{
    json_t *v = value_at(root, path);
    return json_is_string(v) ? json_string_value(v) : "(none)";
}

static double real_at(json_t *root, const char *path)
{
    json_t *v = value_at(root, path);
    return json_is_number(v) ? json_number_value(v) : -1;
}

static void test_names(const char *text, size_t len)
{
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr);
    CHECK(root != NULL);
    if (!root) return;
    CHECK_EQ(int_at(root, "version"), MS_MODEL_REPORT_VERSION);
    CHECK_EQ(int_at(root, "nprocs"), 2);
    CHECK_STR(str_at(root, "interleave"), "interleaved");
    CHECK_EQ(int_at(root, "config/nprocs"), 2);
    CHECK_STR(str_at(root, "config/protocol"), "mesi");
    /* counters objects */
    CHECK_EQ(int_at(root, "totals/coherence_misses"), 38);
    CHECK_EQ(int_at(root, "totals/inval/received"), 60);
    CHECK_EQ(int_at(root, "totals/inval/with_lock"), 25);
    CHECK_EQ(int_at(root, "totals/inval/sent"), 60);
    CHECK_EQ(int_at(root, "totals/patterns/migratory"), 15);
    CHECK_EQ(json_integer_value(json_object_get(json_object_get(json_object_get(root, "totals"), "patterns"),
                                                "multiple-producer/multiple-consumer")),
             18);
    CHECK_EQ(int_at(root, "totals/levels/0/causes/invalidation"), 38);
    /* threads = processors */
    CHECK_EQ(int_at(root, "threads/0/cpu"), 0);
    CHECK_EQ(int_at(root, "threads/0/threads/1"), 2);
    CHECK_EQ(int_at(root, "threads/0/wait_turns"), 7);
    CHECK_EQ(int_at(root, "threads/0/references"), 190);
    CHECK_EQ(int_at(root, "threads/0/misses/uniprocessor"), 13);
    CHECK_EQ(int_at(root, "threads/0/misses/coherence"), 24);
    CHECK_EQ(int_at(root, "threads/0/misses/levels/0/coherence"), 24);
    CHECK_EQ(int_at(root, "threads/1/invalidations/true_sharing"), 11);
    CHECK_EQ(int_at(root, "threads/1/invalidations/false_sharing"), 11);
    CHECK_EQ(int_at(root, "threads/1/invalidations/in_region"), 19);
    CHECK_EQ(int_at(root, "threads/1/invalidations/across_region"), 3);
    CHECK_EQ(int_at(root, "threads/1/invalidations/with_lock"), 10);
    CHECK_EQ(int_at(root, "threads/1/invalidations/followed_by_miss"), 14);
    CHECK_EQ(int_at(root, "threads/1/invalidations/false_in"), 9);
    /* per data bin and per cell */
    CHECK_EQ(int_at(root, "data/0/invalidations/true_sharing"), 35);
    CHECK_EQ(int_at(root, "data/0/invalidations/false_sharing"), 5);
    CHECK_EQ(int_at(root, "data/0/invalidations/by/0/cpu"), 1);
    CHECK_EQ(int_at(root, "data/0/invalidations/by/0/count"), 25);
    CHECK_EQ(int_at(root, "data/1/invalidations/in_region"), 16);
    CHECK_EQ(int_at(root, "bins/1/invalidations/by/1/cpu"), 1);
    CHECK_EQ(int_at(root, "bins/0/inval/true_in"), 30);
    /* references: R1 first */
    CHECK_STR(str_at(root, "references/0/function"), "worker");
    CHECK_STR(str_at(root, "references/0/location"), "nbf.c:141");
    CHECK_STR(str_at(root, "references/0/kind"), "Read");
    CHECK_STR(str_at(root, "references/1/kind"), "ReadWrite");
    CHECK_EQ(int_at(root, "references/0/references"), 60);
    CHECK_EQ(int_at(root, "references/0/misses"), 15);
    CHECK_EQ(int_at(root, "references/0/coherence_misses"), 10);
    CHECK(real_at(root, "references/0/miss_ratio") == 0.25);
    CHECK(real_at(root, "references/1/coherence_pct") == 90.0);
    CHECK_EQ(int_at(root, "references/0/invalidations/total"), 20);
    CHECK_EQ(int_at(root, "references/0/invalidations/true_across"), 3);
    /* patterns per data bin: f (migratory 15, spsc 5), counters (mpmc 18) */
    CHECK_EQ(json_array_size(json_object_get(root, "patterns")), 2);
    CHECK_EQ(int_at(root, "patterns/0/communication_misses"), 20);
    CHECK_STR(str_at(root, "patterns/0/patterns/4/pattern"), "migratory");
    CHECK(real_at(root, "patterns/0/patterns/4/share") == 0.75);
    CHECK(real_at(root, "patterns/0/patterns/0/share") == 0.25);
    CHECK_EQ(int_at(root, "patterns/1/data"), 1);
    CHECK(real_at(root, "patterns/1/patterns/3/share") == 1.0);
    json_decref(root);
}

static void test_round_trip(const ms_model *m)
{
    size_t len1 = 0, len2 = 0;
    char *first = json_text(m, &len1);
    test_names(first, len1);
    ms_model back;
    char err[256] = "";
    CHECK_EQ(ms_json_read_buffer("mp", first, len1, &back, err, sizeof err), 0);
    if (err[0]) fprintf(stderr, "%s\n", err);
    CHECK_EQ(back.nprocs, 2);
    CHECK_EQ(back.nprocs_stat, 2);
    CHECK_EQ(back.nrefs, 8);
    CHECK_EQ(back.procs[0].nthreads, 2);
    CHECK_EQ(back.procs[0].c.inval.with_lock, 15);
    CHECK_EQ(back.cells[0].ninval_by, 2);
    CHECK_EQ(back.totals.pattern[MS_PAT_MPMC], 18);
    CHECK_EQ(back.totals.inval.sent, 60);
    char *second = json_text(&back, &len2);
    CHECK_EQ(len2, len1);
    CHECK(strcmp(first, second) == 0);
    ms_model_free(&back);
    free(first);
    free(second);
}

/* A one-processor run writes none of the multiprocessor fields, and a version 1 file (no such
 * fields) still reads. */
static void test_one_processor(void)
{
    ms_model m;
    fixture_build(&m);
    size_t len = 0;
    char *text = json_text(&m, &len);
    CHECK(strstr(text, "\"threads\"") == NULL);
    CHECK(strstr(text, "\"inval\"") == NULL);
    CHECK(strstr(text, "\"nprocs\"") == NULL);
    char *v = strstr(text, "\"version\": 3");
    CHECK(v != NULL);
    if (v) v[11] = '1';
    ms_model back;
    char err[256] = "";
    CHECK_EQ(ms_json_read_buffer("v1", text, len, &back, err, sizeof err), 0);
    CHECK_EQ(back.version, 1);
    CHECK_EQ(back.nprocs, 0);
    CHECK_EQ(back.ncells, m.ncells);
    ms_model_free(&back);
    ms_model_free(&m);
    free(text);
}

/* A damaged multiprocessor field is reported by name. */
static void test_bad_field(const ms_model *m)
{
    size_t len = 0;
    char *text = json_text(m, &len);
    char *k = strstr(text, "\"kind\": \"ReadWrite\"");
    CHECK(k != NULL);
    if (k) memcpy(k, "\"kind\": \"WriteRead\"", 19);
    ms_model back;
    char err[256] = "";
    CHECK_EQ_INT(ms_json_read_buffer("bad", text, len, &back, err, sizeof err), -1);
    CHECK_CONTAINS(err, "field references[1].kind: expected a known name");
    free(text);
}

/* Issue 11: a function name repeated by every block and loop of the function is written once
 * (the "names" table, version 3), read back whole, and a version 2 file with the names inline
 * still reads. */
static void test_names_table(void)
{
    ms_model m;
    fixture_build(&m);
    static const char *fn = "std::vector<std::pair<int, double>, std::allocator<std::pair<int, double> > >::push_back";
    m.nblocks = 3;
    m.blocks = calloc(3, sizeof *m.blocks);
    m.nloops = 1;
    m.loops = calloc(1, sizeof *m.loops);
    for (size_t i = 0; i < 3; i++) {
        m.blocks[i].function = strdup(fn);
        m.blocks[i].file = strdup("stl_vector.h");
        m.blocks[i].line = 1280 + (int)i;
        m.blocks[i].end_line = m.blocks[i].line;
        m.blocks[i].loop = i ? 0 : UINT32_MAX;
        m.blocks[i].count = 7 * i;
    }
    m.loops[0] = (ms_loop_stat){ strdup(fn), NULL, 1281, 1282, UINT32_MAX, 1, 1, 14 };
    size_t len = 0;
    char *text = json_text(&m, &len);
    const char *first = strstr(text, fn);
    CHECK(first != NULL && strstr(first + 1, fn) == NULL); /* once, for 3 blocks and a loop */
    ms_model back;
    char err[256] = "";
    CHECK_EQ(ms_json_read_buffer("v3", text, len, &back, err, sizeof err), 0);
    CHECK_EQ(back.nblocks, 3);
    for (size_t i = 0; i < back.nblocks && i < 3; i++)
        CHECK(!strcmp(back.blocks[i].function, fn) && !strcmp(back.blocks[i].file, "stl_vector.h") &&
              back.blocks[i].count == 7 * i);
    CHECK(back.nloops == 1 && !strcmp(back.loops[0].function, fn) && back.loops[0].file == NULL);
    ms_model_free(&back);
    /* the same as a version 2 file: names inline, no table */
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr), *names = json_object_get(root, "names");
    json_object_set_new(root, "version", json_integer(2));
    const char *arrays[] = { "blocks", "loops" };
    for (int a = 0; a < 2; a++) {
        json_t *arr = json_object_get(root, arrays[a]), *o;
        size_t i;
        json_array_foreach(arr, i, o)
        {
            const char *keys[] = { "function", "file" };
            for (int k = 0; k < 2; k++) {
                json_t *v = json_object_get(o, keys[k]);
                if (json_is_integer(v))
                    json_object_set(o, keys[k], json_array_get(names, (size_t)json_integer_value(v)));
            }
        }
    }
    json_object_del(root, "names");
    char *v2 = json_dumps(root, 0);
    CHECK_EQ(ms_json_read_buffer("v2", v2, strlen(v2), &back, err, sizeof err), 0);
    CHECK(back.nblocks == 3 && !strcmp(back.blocks[2].function, fn) && back.loops[0].file == NULL);
    ms_model_free(&back);
    /* an index outside the table is refused, naming the field */
    char *bad = strstr(text, "\"function\": 0");
    if (bad) {
        bad[12] = '9';
        CHECK(ms_json_read_buffer("bad", text, len, &back, err, sizeof err) < 0);
        CHECK_CONTAINS(err, "an index into names");
    }
    free(v2);
    json_decref(root);
    free(text);
    ms_model_free(&m);
}

int main(void)
{
    test_names_table();
    ms_model m;
    mp_fixture_build(&m);
    test_round_trip(&m);
    test_bad_field(&m);
    ms_model_free(&m);
    test_one_processor();
    return check_result();
}
