/* JSON result files: a lossless write/read/write round trip (byte-identical), and clear
 * errors, never a crash, for missing, truncated, foreign, newer and malformed files. */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "model_fixture.h"
#include "report/report.h"

static char dir[] = "/tmp/test_json.XXXXXX";

static char *path_in_dir(const char *name)
{
    static char buf[256];
    snprintf(buf, sizeof buf, "%s/%s", dir, name);
    return buf;
}

/* The JSON text of m (malloc'd). */
static char *to_json(const ms_model *m, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    CHECK_EQ(ms_json_write(f, m), 0);
    fclose(f);
    return text;
}

static void write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    fwrite(text, 1, len, f);
    fclose(f);
}

static int read_text(const char *text, size_t len, ms_model *m, char *err, size_t errlen)
{
    const char *path = path_in_dir("in.json");
    write_file(path, text, len);
    return ms_json_read(path, m, err, errlen);
}

static void test_round_trip(void)
{
    ms_model m, back;
    char err[512];
    fixture_build(&m);
    size_t len1, len2;
    char *first = to_json(&m, &len1);
    CHECK_EQ(read_text(first, len1, &back, err, sizeof err), 0);
    char *second = to_json(&back, &len2);
    CHECK_EQ(len2, len1);
    CHECK(len1 == len2 && memcmp(first, second, len1) == 0);

    /* Spot checks of what came back. */
    CHECK_STR(back.program, "./blkmm");
    CHECK_EQ(back.argc, 2);
    CHECK_STR(back.argv[1], "295");
    CHECK_EQ_INT(back.time, 1700000000);
    CHECK_EQ(back.pid, 4242);
    CHECK(back.wall_seconds == 1.25);
    CHECK_EQ(back.nnotes, 1);
    CHECK_STR(back.notes[0], "3 events dropped");
    CHECK(back.incomplete_reason == NULL);
    CHECK_EQ(back.config.nlevels, 2);
    CHECK_EQ(back.config.level[1].size, 1048576);
    CHECK_EQ(back.config.level[1].policy, MS_POLICY_PLRU);
    CHECK_EQ(back.config.mem_latency, 50);
    CHECK(memcmp(&back.totals, &m.totals, sizeof m.totals) == 0);
    CHECK_EQ(back.ncode, 3);
    CHECK(back.code[FX_CLEAR].file == NULL);
    CHECK_EQ(back.ndata, 4);
    CHECK_EQ(back.data[FX_UNUSED].kind, MS_BIN_GLOBAL);
    CHECK_STR(back.data[FX_Z].full_name, "main:12>NewMatrix:30>Matrix.Z");
    CHECK_EQ(back.ncells, 6);
    for (size_t i = 0; i < back.ncells && i < m.ncells; i++)
        CHECK(memcmp(&back.cells[i].c, &m.cells[i].c, sizeof m.cells[i].c) == 0);
    CHECK_EQ(back.cells[0].nevicted_by, 4);
    CHECK_EQ(back.cells[0].evicted_by[1].level, 1);
    CHECK_EQ(back.cells[0].evicted_by[1].count, 50);
    CHECK_EQ(back.nlines, 2);
    CHECK_EQ(back.lines[1].line, 43);
    CHECK_STR(back.files[0], "mm.c");

    /* The JSON holds the documented summary fields. */
    CHECK_CONTAINS(first, "\"format\": \"memspy-result\"");
    CHECK_CONTAINS(first, "\"L2.writebacks\"");
    CHECK_CONTAINS(first, "\"stall_share\": 0.85499999999999998");
    CHECK(strstr(first, "\"kind\": \"signal\"") == NULL);
    free(first);
    free(second);
    ms_model_free(&back);

    /* A signal exit and an incomplete run survive too. */
    m.exit_kind = MS_EXIT_SIGNAL;
    m.exit_value = 11;
    m.incomplete = true;
    m.incomplete_reason = strdup("killed by signal 11");
    first = to_json(&m, &len1);
    CHECK_EQ(read_text(first, len1, &back, err, sizeof err), 0);
    CHECK_EQ(back.exit_kind, MS_EXIT_SIGNAL);
    CHECK_EQ_INT(back.exit_value, 11);
    CHECK(back.incomplete);
    CHECK_STR(back.incomplete_reason, "killed by signal 11");
    free(first);
    ms_model_free(&back);
    ms_model_free(&m);
}

/* Every prefix of a valid file is rejected with a message, never accepted or crashed on. */
static void test_truncation(void)
{
    ms_model m, back;
    char err[512];
    fixture_build(&m);
    size_t len;
    char *text = to_json(&m, &len);
    size_t step = len / 97 + 1;
    int rejected = 0, tried = 0;
    for (size_t cut = 0; cut + 2 < len; cut += step) { /* keep the closing "}\n" out */
        tried++;
        if (read_text(text, cut, &back, err, sizeof err) != 0) {
            rejected++;
            CHECK(strstr(err, "in.json") != NULL);
        } else {
            ms_model_free(&back);
        }
    }
    CHECK_EQ(rejected, tried);
    CHECK_EQ(read_text(text, len / 2, &back, err, sizeof err), -1);
    CHECK_CONTAINS(err, "corrupt result file: ");
    CHECK_CONTAINS(err, " at line ");
    CHECK_CONTAINS(err, " column ");
    CHECK_EQ(read_text(text, 0, &back, err, sizeof err), -1);
    CHECK_CONTAINS(err, "is not a memspy result file");
    free(text);
    ms_model_free(&m);
}

static void expect_error(const char *text, const char *want)
{
    ms_model back;
    char err[512] = "";
    CHECK_EQ_INT(read_text(text, strlen(text), &back, err, sizeof err), -1);
    CHECK_CONTAINS(err, want);
}

static void test_foreign_and_newer(void)
{
    ms_model back;
    char err[512];
    CHECK_EQ_INT(ms_json_read(path_in_dir("missing.json"), &back, err, sizeof err), -1);
    CHECK_CONTAINS(err, "missing.json: No such file or directory");
    CHECK_EQ_INT(ms_json_read("/etc/passwd", &back, err, sizeof err), -1);
    CHECK_STR(err, "/etc/passwd is not a memspy result file");
    expect_error("{\"a\": 1}", "in.json is not a memspy result file");
    expect_error("[1, 2]", "in.json is not a memspy result file");
    expect_error("{\"format\": \"other\", \"version\": 1}", "is not a memspy result file");
    expect_error("{\"format\": \"memspy-result\", \"version\": 7}",
                 "in.json was written by a newer memspy (result version 7)");
    expect_error("{\"format\": \"memspy-result\"}", "invalid field version");
    expect_error("{\"format\": \"memspy-result\", \"version\": 1}", "missing field run");
    expect_error("{\"format\": \"memspy-result\", \"version\": 1, \"format\": \"x\"}", "duplicate");
}

/* Damaged fields of an otherwise valid file are named. */
static void test_bad_fields(void)
{
    ms_model m;
    fixture_build(&m);
    size_t len;
    char *text = to_json(&m, &len);
    struct {
        const char *from, *to, *want;
    } cases[] = {
        { "\"reads\": 1288", "\"reads\": -1", "field bins[0].reads: expected an integer in range" },
        { "\"reads\": 1288", "\"reads\": \"x\"", "field bins[0].reads: expected an integer" },
        { "\"stall_write\": 0,", "", "missing field bins[0].stall_write" },
        { "\"kind\": \"heap\"", "\"kind\": \"rock\"", "field data[0].kind: expected a known name" },
        { "\"policy\": \"lru\"", "\"policy\": 3", "field config.levels[0].policy" },
        { "\"data\": 1,", "\"data\": 9,", "field bins[0].data: expected a data bin id" },
        { "\"program\": \"./blkmm\"", "\"program\": 5", "field run.program: expected a string or null" },
        { "\"argv\": [", "\"argv\": [3, ", "field run.argv[0]: expected a string or null" },
        { "\"incomplete\": false", "\"incomplete\": 0", "field run.incomplete: expected true or false" },
        { "\"writebacks\": 0", "\"writebacks\": 1e3", "field totals.levels[0].writebacks: expected an integer" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *at = strstr(text, cases[i].from);
        CHECK(at != NULL);
        if (!at) continue;
        size_t pre = (size_t)(at - text), fl = strlen(cases[i].from), tl = strlen(cases[i].to);
        char *edited = malloc(len - fl + tl + 1);
        memcpy(edited, text, pre);
        memcpy(edited + pre, cases[i].to, tl);
        strcpy(edited + pre + tl, at + fl);
        expect_error(edited, cases[i].want);
        free(edited);
    }
    free(text);
    ms_model_free(&m);
}

int main(void)
{
    if (!mkdtemp(dir)) return 2;
    test_round_trip();
    test_truncation();
    test_foreign_and_newer();
    test_bad_fields();
    unlink(path_in_dir("in.json"));
    rmdir(dir);
    return check_result();
}
