/* Error reporting and argument helpers shared by the subcommands. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "../util/util.h"
#include "cli.h"

/* The message quotes file names, arguments and bin names: its control characters are
 * escaped (tabs and line breaks kept) so that a hostile name cannot drive the terminal. */
static void vreport(const char *cmd, const char *fmt, va_list ap)
{
    char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0) msg = NULL;
    fprintf(stderr, "memspy%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    if (msg) {
        size_t n = ms_term_escape(NULL, 0, msg, 1);
        char *safe = malloc(n + 1);
        if (safe) ms_term_escape(safe, n + 1, msg, 1);
        fputs(safe ? safe : "out of memory", stderr);
        free(safe);
    } else {
        fputs("out of memory", stderr);
    }
    free(msg);
    fputc('\n', stderr);
}

int ms_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(cmd, fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try 'memspy%s%s --help'.\n", cmd ? " " : "", cmd ? cmd : "");
    return MS_EXIT_USAGE;
}

int ms_cli_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(cmd, fmt, ap);
    va_end(ap);
    return MS_EXIT_USAGE;
}

double ms_cli_seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

int ms_cli_parse_positive(const char *s, unsigned long max, unsigned long *out)
{
    if (!s || *s < '0' || *s > '9') return -1;
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v == 0 || v > max) return -1;
    *out = v;
    return 0;
}

int ms_cli_db_options(const char *cmd, int argc, char **argv, const char *usage, const char **db_opt, int *done)
{
    static const struct option longopts[] = {
        { "help", no_argument, NULL, 'h' },
        MS_DB_LONG_OPTION,
        { NULL, 0, NULL, 0 },
    };
    int opt;
    *done = 0;
    *db_opt = NULL;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (opt) {
        case MS_OPT_DB: *db_opt = optarg; break;
        case 'h':
            fputs(usage, stdout);
            *done = 1;
            return 0;
        case ':': return ms_cli_usage_error(cmd, "option '%s' needs an argument", argv[optind - 1]);
        default: return ms_cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    return 0;
}
