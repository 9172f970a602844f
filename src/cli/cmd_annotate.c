/* memspy annotate: a source file of a run with per-line references, L1 misses and stall,
 * each line's share of the stall shaded in a terminal and given as a column otherwise. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../report/report.h"
#include "cli.h"

static const char USAGE[] =
    "Usage: memspy annotate [RUN] FILE [--color auto|always|never] [--db PATH]\n\n"
    "Print FILE's source with, for every line, the references it made, its L1 misses and its\n"
    "memory stall cycles in the run (the latest by default; RUN is a run number or a result\n"
    "file). Each line's share of the run's stall is a background shade from light to dark\n"
    "when standard output is a terminal, and a percentage column otherwise. FILE is matched\n"
    "against the run's source files by path, path suffix or basename.\n\n"
    "  --color WHEN         auto (default: shade if standard output is a terminal), always, never\n"
    MS_DB_OPTION_HELP
    "  -h, --help           this help\n";

int ms_cmd_annotate(int argc, char **argv)
{
    enum { OPT_COLOR = MS_OPT_FIRST_FREE };
    static const struct option longopts[] = {
        { "color", required_argument, NULL, OPT_COLOR },
        { "help", no_argument, NULL, 'h' },
        MS_DB_LONG_OPTION,
        { NULL, 0, NULL, 0 },
    };
    const char *db = NULL;
    ms_annotate_opts opts = { isatty(STDOUT_FILENO) };
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (opt) {
        case OPT_COLOR:
            if (strcmp(optarg, "always") == 0) opts.color = 1;
            else if (strcmp(optarg, "never") == 0) opts.color = 0;
            else if (strcmp(optarg, "auto") == 0) opts.color = isatty(STDOUT_FILENO);
            else return ms_cli_usage_error("annotate", "--color: '%s' is not auto, always or never", optarg);
            break;
        case MS_OPT_DB: db = optarg; break;
        case 'h': fputs(USAGE, stdout); return 0;
        case ':': return ms_cli_usage_error("annotate", "option '%s' needs an argument", argv[optind - 1]);
        default: return ms_cli_usage_error("annotate", "unknown option '%s'", argv[optind - 1]);
        }
    }
    int npos = argc - optind;
    if (npos < 1) return ms_cli_usage_error("annotate", "missing the source FILE");
    if (npos > 2) return ms_cli_usage_error("annotate", "unexpected argument '%s'", argv[optind + 2]);
    const char *run = npos == 2 ? argv[optind] : NULL, *file = argv[argc - 1];

    ms_model m;
    int run_id, rc = 0;
    char err[4096];
    ms_model_init(&m);
    if (ms_cli_load_run("annotate", db, run, &m, &run_id) < 0) return MS_EXIT_USAGE;
    if (ms_report_annotate(stdout, &m, file, &opts, err, sizeof err) < 0 || fflush(stdout) != 0)
        rc = ms_cli_error("annotate", "%s", ferror(stdout) ? "cannot write the annotated source" : err);
    ms_model_free(&m);
    return rc;
}
