/* memspy annotate: a source file of a run with per-line references, L1 misses and stall,
 * each line's share of the stall shaded in a terminal and given as a column otherwise. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../report/report.h"
#include "cli.h"

static const char USAGE[] =
    "Usage: memspy annotate [RUN] FILE [--hot N [--context C]] [--color auto|always|never] [--db PATH]\n"
    "       memspy annotate [RUN] --hot N [--context C] [...]\n\n"
    "Print FILE's source with, for every line, the references it made, its L1 misses and its\n"
    "memory stall cycles in the run (the latest by default; RUN is a run number or a result\n"
    "file). Each line's share of the run's stall is a background shade from light to dark\n"
    "when standard output is a terminal, and a percentage column otherwise. FILE is matched\n"
    "against the run's source files by path, path suffix or basename. With --hot, only the N\n"
    "lines with the most stall and C lines around each (default 2); without FILE, the hottest\n"
    "lines of the whole run, file by file.\n\n"
    "  --hot N              only the N hottest lines, with context\n"
    "  --context C          lines shown before and after each hot line (default 2)\n"
    "  --color WHEN         auto (default: shade if standard output is a terminal), always, never\n" MS_DB_OPTION_HELP
    "  -h, --help           this help\n";

/* Whether a lone argument of `annotate --hot` is a run rather than a source file. */
static int names_run(const char *arg)
{
    size_t n = strlen(arg);
    if (ms_cli_is_run_number(arg)) return 1;
    int result_name = (n > 7 && strcmp(arg + n - 7, ".result") == 0) || (n > 5 && strcmp(arg + n - 5, ".json") == 0);
    return result_name && access(arg, R_OK) == 0;
}

int ms_cmd_annotate(int argc, char **argv)
{
    enum { OPT_COLOR = MS_OPT_FIRST_FREE, OPT_HOT, OPT_CONTEXT };
    static const struct option longopts[] = {
        { "color", required_argument, NULL, OPT_COLOR },
        { "hot", required_argument, NULL, OPT_HOT },
        { "context", required_argument, NULL, OPT_CONTEXT },
        { "help", no_argument, NULL, 'h' },
        MS_DB_LONG_OPTION,
        { NULL, 0, NULL, 0 },
    };
    const char *db = NULL;
    ms_annotate_opts opts = { isatty(STDOUT_FILENO), 0, 2 };
    unsigned long n;
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (opt) {
        case OPT_COLOR:
            if (strcmp(optarg, "always") == 0)
                opts.color = 1;
            else if (strcmp(optarg, "never") == 0)
                opts.color = 0;
            else if (strcmp(optarg, "auto") == 0)
                opts.color = isatty(STDOUT_FILENO);
            else
                return ms_cli_usage_error("annotate", "--color: '%s' is not auto, always or never", optarg);
            break;
        case OPT_HOT:
            if (ms_cli_parse_positive(optarg, 100000, &n) < 0)
                return ms_cli_usage_error("annotate", "--hot: '%s' is not a number in 1..100000", optarg);
            opts.hot = (int)n;
            break;
        case OPT_CONTEXT:
            if (strcmp(optarg, "0") == 0)
                n = 0;
            else if (ms_cli_parse_positive(optarg, 1000, &n) < 0)
                return ms_cli_usage_error("annotate", "--context: '%s' is not a number in 0..1000", optarg);
            opts.context = (int)n;
            break;
        case MS_OPT_DB: db = optarg; break;
        case 'h': fputs(USAGE, stdout); return 0;
        case ':': return ms_cli_usage_error("annotate", "option '%s' needs an argument", argv[optind - 1]);
        default: return ms_cli_usage_error("annotate", "unknown option '%s'", argv[optind - 1]);
        }
    }
    int npos = argc - optind;
    if (npos < 1 && !opts.hot) return ms_cli_usage_error("annotate", "missing the source FILE");
    if (npos > 2) return ms_cli_usage_error("annotate", "unexpected argument '%s'", argv[optind + 2]);
    /* With --hot and one argument, it is FILE unless it names a run: a run number, or an
     * existing file named *.result or *.json (`memspy annotate --hot 10 3`: run 3, all files). */
    const char *run = npos == 2 ? argv[optind] : NULL, *file = npos ? argv[argc - 1] : NULL;
    if (npos == 1 && opts.hot && names_run(file)) {
        run = file;
        file = NULL;
    }

    ms_model m;
    int run_id, rc = 0;
    char err[4096];
    ms_model_init(&m);
    if (ms_cli_load_run("annotate", db, run, &m, &run_id) < 0) return MS_EXIT_USAGE;
    if ((m.mtool ? ms_report_mtool_annotate(stdout, m.mtool, file, opts.hot, opts.context, err, sizeof err)
                 : ms_report_annotate(stdout, &m, file, &opts, err, sizeof err)) < 0 ||
        fflush(stdout) != 0)
        rc = ms_cli_error("annotate", "%s", ferror(stdout) ? "cannot write the annotated source" : err);
    ms_model_free(&m);
    return rc;
}
