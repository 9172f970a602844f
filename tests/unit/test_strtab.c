/* Issue 11: the stored result's string table (modelio/strtab.h). Each distinct string is in
 * the table once, a call path is split at its ":LINE>" joints so that its frames share the
 * table with the code bins, every text comes back byte for byte, and an index outside the
 * table, a piece that is not an index or a table that would expand past the reader's bound is
 * refused with the reason. Then the stored result (version 4) of a model with long C++ names:
 * each name written once, no indentation, read back to the same model (its report form byte
 * identical), and damaged tables refused naming the field. */
#include <stdlib.h>

#include <jansson.h>

#include "check.h"
#include "model_fixture.h"
#include "modelio/modelio.h"
#include "modelio/strtab.h"

/* The text v stands for in t's table, expanded with an ample budget (NULL if refused). */
static char *expand(ms_strtab *t, json_t *v)
{
    size_t budget = 1u << 20;
    char *out = NULL, why[128];
    if (ms_strtab_expand(t->names, v, &budget, &out, why, sizeof why) < 0) return NULL;
    return out;
}

static void test_dedup_and_round_trip(void)
{
    ms_strtab t;
    CHECK_EQ(ms_strtab_init(&t), 0);
    json_t *a = ms_strtab_ref(&t, "std::vector<int>::push_back"), *b = ms_strtab_ref(&t, "main");
    json_t *a2 = ms_strtab_ref(&t, "std::vector<int>::push_back"), *none = ms_strtab_ref(&t, NULL);
    CHECK_EQ(json_integer_value(a), 0);
    CHECK_EQ(json_integer_value(b), 1);
    CHECK_EQ(json_integer_value(a2), 0); /* the same string: the same index */
    CHECK(json_is_null(none));
    CHECK_EQ(json_array_size(t.names), 2);

    /* two call paths through the same frames: each frame's name and joint once */
    const char *p1 = "main:42>std::vector<int>::push_back:1287>heap@a.cc:9";
    const char *p2 = "main:42>std::vector<int>::push_back:1290>heap@a.cc:9";
    json_t *v1 = ms_strtab_path(&t, p1), *v2 = ms_strtab_path(&t, p2);
    CHECK(json_is_array(v1) && json_is_array(v2));
    CHECK_EQ(json_array_size(v1), 5);                       /* main, :42>, push_back, :1287>, heap@a.cc:9 */
    CHECK_EQ(json_integer_value(json_array_get(v1, 0)), 1); /* "main" from before */
    CHECK_EQ(json_integer_value(json_array_get(v1, 2)), 0); /* push_back from before */
    CHECK_EQ(json_array_size(t.names), 6);                  /* + ":42>", ":1287>", "heap@a.cc:9", ":1290>" */
    char *s1 = expand(&t, v1), *s2 = expand(&t, v2);
    CHECK_STR(s1 ? s1 : "(refused)", p1);
    CHECK_STR(s2 ? s2 : "(refused)", p2);
    free(s1);
    free(s2);

    /* whatever the joints look like, the text comes back exactly */
    static const char *const odd[] = { "a:12",     "f:3>",      ":7>x", "operator>:9>g", "::>:1>", "x:>y:12>z",
                                       "a:1>:2>b", "stack:f.v", "",     "heap:headers" };
    for (size_t i = 0; i < sizeof odd / sizeof *odd; i++) {
        json_t *v = ms_strtab_path(&t, odd[i]);
        char *s = expand(&t, v);
        CHECK_STR(s ? s : "(refused)", odd[i]);
        free(s);
        json_decref(v);
    }
    CHECK_EQ(t.failed, 0);
    json_decref(a);
    json_decref(b);
    json_decref(a2);
    json_decref(none);
    json_decref(v1);
    json_decref(v2);
    ms_strtab_free(&t);
}

static void test_bad_references_refused(void)
{
    ms_strtab t;
    CHECK_EQ(ms_strtab_init(&t), 0);
    json_decref(ms_strtab_ref(&t, "only"));
    char *out = NULL, why[128] = "";
    size_t budget = 100;
    json_t *bad = json_integer(1), *neg = json_integer(-1), *str = json_string("only");
    json_t *mixed = json_pack("[i, i]", 0, 5), *big = json_pack("[i, i, i]", 0, 0, 0);
    CHECK_EQ(ms_strtab_expand(t.names, bad, &budget, &out, why, sizeof why), -1);
    CHECK_STR(why, "1 is not an index into names (it has 1 entries)");
    CHECK_EQ(ms_strtab_expand(t.names, neg, &budget, &out, why, sizeof why), -1);
    CHECK_CONTAINS(why, "-1 is not an index into names");
    CHECK_EQ(ms_strtab_expand(t.names, str, &budget, &out, why, sizeof why), -1);
    CHECK_STR(why, "expected an index into names");
    CHECK_EQ(ms_strtab_expand(t.names, mixed, &budget, &out, why, sizeof why), -1);
    CHECK_CONTAINS(why, "5 is not an index into names");
    CHECK(out == NULL);
    /* the budget bounds the expansion: 3 x 4 bytes do not fit in 10 */
    budget = 10;
    CHECK_EQ(ms_strtab_expand(t.names, big, &budget, &out, why, sizeof why), -1);
    CHECK_CONTAINS(why, "expand beyond the limit");
    CHECK_EQ(budget, 10);
    budget = 12;
    CHECK_EQ(ms_strtab_expand(t.names, big, &budget, &out, why, sizeof why), 0);
    CHECK_STR(out ? out : "", "onlyonlyonly");
    CHECK_EQ(budget, 0);
    free(out);
    json_decref(bad);
    json_decref(neg);
    json_decref(str);
    json_decref(mixed);
    json_decref(big);
    ms_strtab_free(&t);
}

static char *write_text(const ms_model *m, int stored, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    CHECK_EQ(stored ? ms_json_write_stored(f, m) : ms_json_write(f, m), 0);
    fclose(f);
    return text;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++) n++;
    return n;
}

/* A C++ function that every data bin's call path passes through, and a long file path. */
static const char *const FN = "std::_Rb_tree<std::__cxx11::basic_string<char, std::char_traits<char>, "
                              "std::allocator<char> >, std::pair<std::__cxx11::basic_string<char> const, "
                              "std::vector<std::pair<int, double> > > >::_M_emplace_hint_unique";
static const char *const FILE_PATH = "/usr/include/c++/12/bits/stl_tree_with_a_rather_long_directory_name.h";

static void long_names(ms_model *m)
{
    free(m->code[FX_BLK].name);
    m->code[FX_BLK].name = strdup(FN);
    free(m->code[FX_BLK].file);
    m->code[FX_BLK].file = strdup(FILE_PATH);
    free(m->files[0]);
    m->files[0] = strdup(FILE_PATH);
    for (size_t i = 0; i < m->ndata; i++) {
        char full[1024];
        snprintf(full, sizeof full, "main:12>%s:2461>%s:30>%s", FN, FN, m->data[i].name);
        free(m->data[i].full_name);
        m->data[i].full_name = strdup(full);
    }
}

static void test_stored_result(void)
{
    ms_model m, back;
    char err[512] = "";
    fixture_build(&m);
    size_t slen = 0, rlen = 0, blen = 0, short_slen = 0, short_rlen = 0;
    free(write_text(&m, 1, &short_slen));
    free(write_text(&m, 0, &short_rlen));
    long_names(&m);
    char *stored = write_text(&m, 1, &slen), *report = write_text(&m, 0, &rlen);
    /* the report repeats the name: the code bin, and twice per data bin's call path */
    CHECK_EQ(count(report, FN), 1 + 2 * m.ndata);
    CHECK_EQ(count(stored, FN), 1);
    CHECK_EQ(count(stored, FILE_PATH), 1);
    CHECK_EQ(count(stored, "\n"), 1); /* compact: one line */
    CHECK(strstr(stored, "\"version\":4,") != NULL);
    /* the long names cost the stored result their length once (and the few new pieces of the
     * call paths: "NewMatrix" gives way to two joints), the report their length each time */
    CHECK(slen - short_slen < strlen(FN) + strlen(FILE_PATH) + 40);
    CHECK(rlen - short_rlen > (2 * m.ndata + 1) * strlen(FN));

    CHECK_EQ(ms_json_read_buffer("stored", stored, slen, &back, err, sizeof err), 0);
    CHECK_STR(err, "");
    CHECK_STR(back.code[FX_BLK].name, FN);
    CHECK_STR(back.code[FX_BLK].file, FILE_PATH);
    CHECK(back.code[FX_CLEAR].file == NULL);
    CHECK_STR(back.files[0], FILE_PATH);
    for (size_t i = 0; i < m.ndata; i++) {
        CHECK_STR(back.data[i].full_name, m.data[i].full_name);
        CHECK_STR(back.data[i].name, m.data[i].name);
    }
    CHECK(back.data[FX_UNUSED].site == NULL);
    char *again = write_text(&back, 0, &blen); /* the same report as the model it came from */
    CHECK(blen == rlen && memcmp(again, report, rlen) == 0);
    ms_model_free(&back);
    free(again);

    /* damaged tables are refused, naming the field and the reason */
    json_error_t jerr;
    json_t *root = json_loadb(stored, slen, 0, &jerr);
    json_t *d0 = json_array_get(json_object_get(root, "data"), 0);
    size_t nnames = json_array_size(json_object_get(root, "names"));
    json_object_set_new(d0, "name", json_integer((json_int_t)nnames));
    char *bad = json_dumps(root, JSON_COMPACT);
    CHECK_EQ(ms_json_read_buffer("bad", bad, strlen(bad), &back, err, sizeof err), -1);
    char want[160];
    snprintf(want, sizeof want,
             "bad: corrupt result file: field data[0].name: %zu is not an index into names (it has %zu entries)",
             nnames, nnames);
    CHECK_STR(err, want);
    free(bad);
    json_object_set_new(d0, "name", json_integer(0));
    json_array_append_new(json_object_get(d0, "full_name"), json_string("x"));
    bad = json_dumps(root, JSON_COMPACT);
    CHECK_EQ(ms_json_read_buffer("bad", bad, strlen(bad), &back, err, sizeof err), -1);
    CHECK_CONTAINS(err, "field data[0].full_name: expected an index into names");
    free(bad);
    json_array_remove(json_object_get(d0, "full_name"), json_array_size(json_object_get(d0, "full_name")) - 1);
    json_array_set_new(json_object_get(root, "names"), 2, json_integer(3));
    bad = json_dumps(root, JSON_COMPACT);
    CHECK_EQ(ms_json_read_buffer("bad", bad, strlen(bad), &back, err, sizeof err), -1);
    CHECK_CONTAINS(err, "field names[2]: expected a string");
    free(bad);
    json_object_del(root, "names");
    bad = json_dumps(root, JSON_COMPACT);
    CHECK_EQ(ms_json_read_buffer("bad", bad, strlen(bad), &back, err, sizeof err), -1);
    CHECK_CONTAINS(err, "missing field names");
    free(bad);
    /* a reader of version 4 refuses a later version by its number */
    json_object_set_new(root, "version", json_integer(MS_MODEL_VERSION + 1));
    bad = json_dumps(root, JSON_COMPACT);
    CHECK_EQ(ms_json_read_buffer("newer", bad, strlen(bad), &back, err, sizeof err), -1);
    snprintf(want, sizeof want, "newer was written by a newer memspy (result version %d)", MS_MODEL_VERSION + 1);
    CHECK_STR(err, want);
    free(bad);
    json_decref(root);
    free(stored);
    free(report);
    ms_model_free(&m);
}

int main(void)
{
    test_dedup_and_round_trip();
    test_bad_references_refused();
    test_stored_result();
    return check_result();
}
