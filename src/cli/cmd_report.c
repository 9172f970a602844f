/* memspy report: show a saved result file as the matrix (default), as MemSpy's detailed
 * display for a selection of code segments and data bins, or as JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../report/report.h"
#include "cli.h"

#define MAX_TOP 1000ul
#define MAX_SUGGESTIONS 5

static const char USAGE[] =
    "Usage: memspy report RESULT [--code NAME]... [--data NAME]... [--top N] [--json]\n\n"
    "Without --code/--data, print the matrix of memory stall time by code segment and data\n"
    "bin. With them, print the detailed display for the combination of the named code\n"
    "segments and data bins (all of one kind when none of it is named). NAME is an exact\n"
    "short name, an exact full name, or a glob ('double*.*', 'Matrix.?').\n\n"
    "  --code NAME          select code segments (repeatable)\n"
    "  --data NAME          select data bins (repeatable)\n"
    "  --top N              rows and columns of the matrix before 'others' (default 8 x 6)\n"
    "  --json               print the result as JSON\n"
    "  -h, --help           this help\n";

/* Levenshtein distance, for suggesting names close to a mistyped one. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t *row = malloc((lb + 1) * sizeof *row);
    if (!row) return (size_t)-1;
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    size_t d = row[lb];
    free(row);
    return d;
}

typedef struct { size_t dist; size_t bin; } suggestion;

static int cmp_suggestion(const void *a, const void *b)
{
    const suggestion *x = a, *y = b;
    if (x->dist != y->dist) return x->dist < y->dist ? -1 : 1;
    return x->bin < y->bin ? -1 : x->bin > y->bin;
}

static const char *bin_name(const ms_model *m, int code, size_t i)
{
    return code ? m->code[i].name : m->data[i].name;
}

/* "memspy report: no data bin matches 'x'; closest: a, b, c". Returns MS_EXIT_USAGE. */
static int unknown_name(const ms_model *m, int code, const char *pattern)
{
    size_t n = code ? m->ncode : m->ndata;
    const char *what = code ? "code segment" : "data bin";
    suggestion *s = malloc((n ? n : 1) * sizeof *s);
    if (!s || n == 0) {
        free(s);
        return ms_cli_error("report", "no %s matches '%s' (the result has none)", what, pattern);
    }
    for (size_t i = 0; i < n; i++) s[i] = (suggestion){ edit_distance(pattern, bin_name(m, code, i)), i };
    qsort(s, n, sizeof *s, cmp_suggestion);
    fprintf(stderr, "memspy report: no %s matches '%s'; closest:", what, pattern);
    for (size_t i = 0; i < n && i < MAX_SUGGESTIONS; i++)
        fprintf(stderr, "%s %s", i ? "," : "", bin_name(m, code, s[i].bin));
    fputc('\n', stderr);
    free(s);
    return MS_EXIT_USAGE;
}

/* The union of the bins matching each pattern, without duplicates. Returns 0 or an exit status. */
static int resolve_names(const ms_model *m, int code, char **patterns, size_t npatterns,
                         uint32_t **out, size_t *nout)
{
    size_t nbins = code ? m->ncode : m->ndata;
    uint32_t *sel = malloc((nbins ? nbins : 1) * sizeof *sel), *hits = malloc((nbins ? nbins : 1) * sizeof *hits);
    char *taken = calloc(nbins ? nbins : 1, 1);
    size_t nsel = 0;
    int rc = 0;
    if (!sel || !hits || !taken) rc = ms_cli_error("report", "out of memory");
    for (size_t p = 0; rc == 0 && p < npatterns; p++) {
        size_t nhits = code ? ms_model_find_code(m, patterns[p], hits, nbins)
                            : ms_model_find_data(m, patterns[p], hits, nbins);
        if (nhits == 0) rc = unknown_name(m, code, patterns[p]);
        for (size_t i = 0; rc == 0 && i < nhits && i < nbins; i++) {
            if (taken[hits[i]]) continue;
            taken[hits[i]] = 1;
            sel[nsel++] = hits[i];
        }
    }
    free(hits);
    free(taken);
    if (rc) {
        free(sel);
        return rc;
    }
    *out = sel;
    *nout = nsel;
    return 0;
}

static int show(const char *path, char **codes, size_t ncodes, char **datas, size_t ndatas,
                int json, const ms_matrix_opts *mopts)
{
    ms_model m;
    char err[1024];
    if (ms_json_read(path, &m, err, sizeof err) < 0) return ms_cli_error("report", "%s", err);
    uint32_t *code_sel = NULL, *data_sel = NULL;
    size_t ncode_sel = 0, ndata_sel = 0;
    int rc = resolve_names(&m, 1, codes, ncodes, &code_sel, &ncode_sel);
    if (rc == 0) rc = resolve_names(&m, 0, datas, ndatas, &data_sel, &ndata_sel);
    if (rc == 0) {
        int out_rc;
        if (json) out_rc = ms_json_write(stdout, &m);
        else if (ncodes || ndatas) out_rc = ms_report_detail(stdout, &m, code_sel, ncode_sel, data_sel, ndata_sel);
        else out_rc = ms_report_matrix(stdout, &m, mopts);
        if (out_rc < 0 || fflush(stdout) != 0) rc = ms_cli_error("report", "cannot write the report");
    }
    free(code_sel);
    free(data_sel);
    ms_model_free(&m);
    return rc;
}

int ms_cmd_report(int argc, char **argv)
{
    enum { OPT_CODE = MS_OPT_FIRST_FREE, OPT_DATA, OPT_JSON, OPT_TOP };
    static const struct option longopts[] = {
        { "code", required_argument, NULL, OPT_CODE },
        { "data", required_argument, NULL, OPT_DATA },
        { "json", no_argument, NULL, OPT_JSON },
        { "top", required_argument, NULL, OPT_TOP },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    char **codes = calloc((size_t)argc + 1, sizeof *codes), **datas = calloc((size_t)argc + 1, sizeof *datas);
    size_t ncodes = 0, ndatas = 0;
    int json = 0, opt, rc = -1;
    ms_matrix_opts mopts = { 0, 0 };
    unsigned long top = 0;
    if (!codes || !datas) rc = ms_cli_error("report", "out of memory");
    opterr = 0;
    while (rc < 0 && (opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (opt) {
        case OPT_CODE: codes[ncodes++] = optarg; break;
        case OPT_DATA: datas[ndatas++] = optarg; break;
        case OPT_JSON: json = 1; break;
        case OPT_TOP:
            if (ms_cli_parse_positive(optarg, MAX_TOP, &top) < 0)
                rc = ms_cli_usage_error("report", "--top: '%s' is not a number in 1..%lu", optarg, MAX_TOP);
            mopts.top_code = mopts.top_data = (int)top;
            break;
        case 'h': fputs(USAGE, stdout); rc = 0; break;
        case ':': rc = ms_cli_usage_error("report", "option '%s' needs an argument", argv[optind - 1]); break;
        default: rc = ms_cli_usage_error("report", "unknown option '%s'", argv[optind - 1]); break;
        }
    }
    if (rc < 0) {
        if (optind >= argc) rc = ms_cli_usage_error("report", "missing RESULT file");
        else if (optind + 1 < argc) rc = ms_cli_usage_error("report", "unexpected argument '%s'", argv[optind + 1]);
        else rc = show(argv[optind], codes, ncodes, datas, ndatas, json, &mopts);
    }
    free(codes);
    free(datas);
    return rc;
}
