/* memspy config: list the cache presets, or show the hierarchy a set of cache options gives. */
#include <stdio.h>
#include <string.h>

#include "../report/text_fmt.h"
#include "cli.h"

static const char USAGE[] = "Usage: memspy config --list\n"
                            "       memspy config [--show] [cache options]\n\n"
                            "  --list               the cache presets, with a description and their canonical spec\n"
                            "  --show               the resolved cache hierarchy of the cache options (default)\n"
                            "  -h, --help           this help\n\n" MS_CACHE_OPTIONS_HELP;

static int list_presets(void)
{
    for (const char *const *name = ms_config_preset_names(); *name; name++) {
        ms_hier_config cfg;
        char err[256], spec[512];
        if (ms_config_preset(*name, &cfg, err, sizeof err) < 0) return ms_cli_error("config", "%s", err);
        ms_config_format(&cfg, spec, sizeof spec);
        const char *desc = ms_config_preset_description(*name);
        printf("%-12s %s%s\n", *name, desc ? desc : "", strcmp(*name, MS_DEFAULT_PRESET) == 0 ? " [default]" : "");
        printf("%-12s %s\n", "", spec);
    }
    return 0;
}

/* The multiprocessor a multithreaded program is simulated on. */
static void show_multiprocessor(const ms_hier_config *cfg)
{
    printf("Multithreaded programs:\n  processors: ");
    if (cfg->nprocs)
        printf("%u", cfg->nprocs);
    else
        fputs("one per thread (at most " MS_STR(MS_MAX_PROCS) ")", stdout);
    if (ms_config_shared_from(cfg) < cfg->nlevels)
        printf(", L%d and below shared", cfg->shared_from + 1);
    else
        fputs(", every level private", stdout);
    if (cfg->llc_slice && ms_config_shared_from(cfg) < cfg->nlevels)
        printf(" (L%d: %s per processor simulated)", cfg->nlevels, ms_fmt_size(cfg->level[cfg->nlevels - 1].size).s);
    printf(", %s, ", cfg->protocol == MS_PROTO_MSI ? "MSI" : "MESI");
    if (cfg->coherence_unit)
        printf("%u-byte coherence unit", cfg->coherence_unit);
    else
        fputs("line-sized coherence unit", stdout);
    if (cfg->nnodes > 1) printf(", %u nodes (remote misses: %u cycles)", cfg->nnodes, ms_config_remote_latency(cfg));
    putchar('\n');
}

static int show_config(const ms_cache_opts *opts)
{
    ms_hier_config cfg;
    char err[512], spec[512];
    if (ms_cache_opts_resolve(opts, &cfg, err, sizeof err) < 0) return ms_cli_error("config", "%s", err);
    ms_config_format(&cfg, spec, sizeof spec);
    printf("Cache hierarchy (%s%s):\n", cfg.preset[0] ? "preset " : "custom", cfg.preset);
    ms_fmt_hierarchy(stdout, &cfg, "  ");
    show_multiprocessor(&cfg);
    printf("Canonical spec: %s\n", spec);
    return 0;
}

int ms_cmd_config(int argc, char **argv)
{
    enum { OPT_LIST = MS_OPT_FIRST_FREE, OPT_SHOW };
    static const struct option longopts[] = {
        { "list", no_argument, NULL, OPT_LIST },
        { "show", no_argument, NULL, OPT_SHOW },
        { "help", no_argument, NULL, 'h' },
        MS_CACHE_LONG_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    ms_cache_opts cache = { 0 };
    int list = 0, cache_given = 0, opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        if (ms_cache_opts_take(&cache, opt, optarg)) {
            cache_given = 1;
            continue;
        }
        switch (opt) {
        case OPT_LIST: list = 1; break;
        case OPT_SHOW: break;
        case 'h': fputs(USAGE, stdout); return 0;
        case ':': return ms_cli_usage_error("config", "option '%s' needs an argument", argv[optind - 1]);
        default: return ms_cli_usage_error("config", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) return ms_cli_usage_error("config", "unexpected argument '%s'", argv[optind]);
    if (list && cache_given) return ms_cli_usage_error("config", "--list takes no cache options");
    return list ? list_presets() : show_config(&cache);
}
