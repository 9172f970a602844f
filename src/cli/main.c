/* memspy: the command-line entry point. Dispatches to one subcommand per file. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct {
    const char *name;
    ms_cli_command run;
    const char *help;
} subcommand;

static const subcommand SUBCOMMANDS[] = {
    { "run", ms_cmd_run, "run a memspy-instrumented program, store the run, print the matrix" },
    { "resim", ms_cmd_resim, "re-simulate a recording (run --record DIR) under another hierarchy" },
    { "whatif", ms_cmd_whatif, "predict a change of data layout (pad, align, offset) from a recording" },
    { "report", ms_cmd_report, "the matrix of a stored run (or result file), or JSON" },
    { "config", ms_cmd_config, "list cache presets or show a resolved cache hierarchy" },
    { "runs", ms_cmd_runs, "list the runs stored in the run database" },
    { "show", ms_cmd_show, "the detailed display of a bin or combination of bins of a run" },
    { "fullname", ms_cmd_fullname, "print the full name (with call path) of a bin" },
    { "rename", ms_cmd_rename, "rename a bin in a run and the program's later runs" },
    { "combine", ms_cmd_combine, "combine bins into one in a run and the program's later runs" },
    { "export", ms_cmd_export, "write a run as JSON, CSV or callgrind (KCachegrind) format" },
    { "annotate", ms_cmd_annotate, "show a source file with per-line references, misses and stall" },
    { "diff", ms_cmd_diff, "compare two runs bin by bin: what got better or worse" },
    { "html", ms_cmd_html, "write a self-contained HTML report (heat map, details, source)" },
    { "mtool", ms_cmd_mtool, "MTOOL: loops and procedures by memory overhead (ideal vs measured time)" },
    { "import", ms_cmd_import, "store result files (e.g. runs the database could not take) as runs" },
};

static void print_usage(FILE *out)
{
    fputs("Usage: memspy COMMAND [OPTIONS] [ARGS]\n"
          "       memspy --help | --version\n\n"
          "Find memory bottlenecks by code segment and data object (MemSpy, 1992).\n"
          "Build the program with memspy-cc (or memspy-c++ / memspy-fortran), then:\n"
          "  memspy run -- ./prog args      profile it and print the stall matrix\n"
          "  memspy show --data NAME --code NAME   detail of the latest run\n"
          "  memspy runs                    the stored runs (./memspy.db, --db or $MEMSPY_DB)\n\n"
          "Commands:\n",
          out);
    for (size_t i = 0; i < sizeof SUBCOMMANDS / sizeof *SUBCOMMANDS; i++)
        fprintf(out, "  %-9s %s\n", SUBCOMMANDS[i].name, SUBCOMMANDS[i].help);
    fputs("\nRun 'memspy COMMAND --help' for the options of a command.\n", out);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return MS_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        print_usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("memspy %s\n", MEMSPY_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof SUBCOMMANDS / sizeof *SUBCOMMANDS; i++)
        if (strcmp(cmd, SUBCOMMANDS[i].name) == 0) return SUBCOMMANDS[i].run(argc - 1, argv + 1);
    fprintf(stderr, "memspy: unknown %s '%s'\n\n", cmd[0] == '-' ? "option" : "command", cmd);
    print_usage(stderr);
    return MS_EXIT_USAGE;
}
