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
    { "run", ms_cmd_run, "run a memspy-instrumented program, save the result, print the matrix" },
    { "report", ms_cmd_report, "show a saved result: the matrix, a detailed bin view or JSON" },
    { "config", ms_cmd_config, "list cache presets or show a resolved cache hierarchy" },
};

static void print_usage(FILE *out)
{
    fputs("Usage: memspy COMMAND [OPTIONS] [ARGS]\n"
          "       memspy --help | --version\n\n"
          "Find memory bottlenecks by code segment and data object (MemSpy, 1992).\n"
          "Build the program with memspy-cc (or memspy-c++ / memspy-fortran), then:\n"
          "  memspy run -- ./prog args      profile it and print the stall matrix\n"
          "  memspy report memspy.result --data NAME --code NAME\n\n"
          "Commands:\n", out);
    for (size_t i = 0; i < sizeof SUBCOMMANDS / sizeof *SUBCOMMANDS; i++)
        fprintf(out, "  %-8s %s\n", SUBCOMMANDS[i].name, SUBCOMMANDS[i].help);
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
