/* memspy html: write a run (or the comparison of two) as one self-contained HTML file. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../report/html.h"
#include "../report/report.h"
#include "../util/util.h"
#include "cli.h"

static const char USAGE[] =
    "Usage: memspy html [RUN] [-o FILE] [--db PATH]\n"
    "       memspy html --diff RUN1 RUN2 [-o FILE] [--db PATH]\n\n"
    "Write one self-contained HTML file (no network access, opens offline in any browser):\n"
    "the totals, the matrix as a heat map sortable by its headers, MemSpy's detailed display\n"
    "of any cell or bin on a click, and the source files with each line shaded by its share\n"
    "of the stall time (read now from the paths recorded in the run). With --diff, the\n"
    "comparison of two runs instead. RUN is a run number of the database or a result file\n"
    "(default: the latest run). Open FILE#cell=R,C to show the detail of the matrix cell at\n"
    "row R, column C (0,0 is the top left).\n\n"
    "  -o, --output FILE    the HTML file (default report.html, diff.html with --diff; - = stdout)\n"
    "  --diff               compare RUN1 with RUN2\n" MS_DB_OPTION_HELP "  -h, --help           this help\n";

/* The heading of a run: "run 3" or the result file's path. */
static void run_title(char *buf, size_t len, const char *arg, int run_id)
{
    if (run_id > 0)
        snprintf(buf, len, "run %d", run_id);
    else
        snprintf(buf, len, "%s", arg ? arg : "latest run");
}

typedef struct {
    const char *db, *output;
    int diff;
    char *const *runs;
    int nruns;
} html_args;

/* Write the page into FILE (or stdout); FILE is replaced only by a complete page. */
static int write_page(const html_args *a, const ms_model *m, const char *titles[2])
{
    char err[512] = "";
    int to_stdout = strcmp(a->output, "-") == 0;
    ms_out_file file = { 0 };
    if (!to_stdout && ms_out_open(&file, a->output, err, sizeof err) < 0) return ms_cli_error("html", "%s", err);
    FILE *out = to_stdout ? stdout : file.f;
    int rc;
    if (!a->diff && m[0].mtool) {
        rc = ms_report_mtool_html(out, m[0].mtool, titles[0]);
    } else if (a->diff) {
        ms_diff d;
        char config[2][256];
        for (int r = 0; r < 2; r++) ms_model_config_summary(&m[r], config[r], sizeof config[r]);
        ms_diff_labels labels = { { titles[0], titles[1] }, { config[0], config[1] }, { m[0].origin, m[1].origin } };
        if (ms_model_diff(&m[0], &m[1], &d) < 0) {
            rc = -1;
            snprintf(err, sizeof err, "out of memory");
        } else {
            rc = ms_report_html_diff(out, &d, &labels, err, sizeof err);
            ms_diff_free(&d);
        }
    } else {
        rc = ms_report_html(out, &m[0], titles[0], err, sizeof err);
    }
    if (rc < 0) {
        ms_out_abort(&file);
        return ms_cli_error("html", "cannot write %s: %s", a->output, err);
    }
    if (to_stdout ? fflush(out) != 0 : ms_out_commit(&file, err, sizeof err) < 0)
        return ms_cli_error("html", "%s", to_stdout ? "cannot write to standard output" : err);
    return 0;
}

static int generate(const html_args *a)
{
    ms_model m[2];
    char title[2][512];
    const char *titles[2] = { title[0], title[1] };
    int loaded = 0, rc = 0;
    for (int r = 0; r < (a->diff ? 2 : 1) && rc == 0; r++) {
        int run_id;
        const char *arg = r < a->nruns ? a->runs[r] : NULL;
        ms_model_init(&m[r]);
        loaded++;
        if (ms_cli_load_run("html", a->db, arg, &m[r], &run_id) < 0)
            rc = MS_EXIT_USAGE;
        else if (a->diff && (rc = ms_cli_refuse_mtool("html", &m[r], arg)) != 0)
            ;
        else
            run_title(title[r], sizeof title[r], arg, run_id);
    }
    if (rc == 0) rc = write_page(a, m, titles);
    for (int r = 0; r < loaded; r++) ms_model_free(&m[r]);
    return rc;
}

int ms_cmd_html(int argc, char **argv)
{
    enum { OPT_DIFF = MS_OPT_FIRST_FREE };
    static const struct option longopts[] = {
        MS_DB_LONG_OPTION,
        { "output", required_argument, NULL, 'o' },
        { "diff", no_argument, NULL, OPT_DIFF },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    html_args a = { NULL, NULL, 0, NULL, 0 };
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        switch (opt) {
        case MS_OPT_DB: a.db = optarg; break;
        case 'o': a.output = optarg; break;
        case OPT_DIFF: a.diff = 1; break;
        case 'h': fputs(USAGE, stdout); return 0;
        case ':': return ms_cli_usage_error("html", "option '%s' needs an argument", argv[optind - 1]);
        default: return ms_cli_usage_error("html", "unknown option '%s'", argv[optind - 1]);
        }
    }
    a.runs = argv + optind;
    a.nruns = argc - optind;
    if (a.diff && a.nruns != 2) return ms_cli_usage_error("html", "--diff needs two runs: RUN1 RUN2");
    if (!a.diff && a.nruns > 1) return ms_cli_usage_error("html", "unexpected argument '%s'", argv[optind + 1]);
    if (!a.output) a.output = a.diff ? "diff.html" : "report.html";
    return generate(&a);
}
