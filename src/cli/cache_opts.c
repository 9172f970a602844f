/* The cache options shared by `memspy run` and `memspy config --show`: they are resolved and
 * validated before any program starts, and every error names the option and the field. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "../analysis/codebins.h"
#include "../drive/drive.h"
#include "../util/util.h"

#define MAX_CONFIG_FILE_BYTES (1 << 20)
#define MAX_MEM_LATENCY 1000000ul
#define MAX_SIM_THREADS 256ul

int ms_cache_opts_take(ms_cache_opts *o, int opt, const char *arg)
{
    switch (opt) {
    case MS_OPT_PRESET: o->preset = arg; return 1;
    case MS_OPT_CACHE: o->cache = arg; return 1;
    case MS_OPT_MEM_LATENCY: o->mem_latency = arg; return 1;
    case MS_OPT_CONFIG_FILE: o->config_file = arg; return 1;
    case MS_OPT_PROCS: o->procs = arg; return 1;
    case MS_OPT_NODES: o->nodes = arg; return 1;
    case MS_OPT_UNIT: o->unit = arg; return 1;
    case MS_OPT_PROTOCOL: o->protocol = arg; return 1;
    case MS_OPT_SHARED: o->shared = arg; return 1;
    case MS_OPT_REMOTE_LATENCY: o->remote_latency = arg; return 1;
    case MS_OPT_INTERLEAVE: o->interleave = arg; return 1;
    case MS_OPT_SIM_THREADS: o->sim_threads = arg; return 1;
    case MS_OPT_CODE_GRANULARITY: o->code_granularity = arg; return 1;
    case MS_OPT_LOOP_SHARE: o->loop_share = arg; return 1;
    case MS_OPT_UTILISATION: o->utilisation = 1; return 1;
    default: return 0;
    }
}

/* The text of a config file, or NULL with err set. */
static char *read_config_file(const char *path, char *err, size_t errlen)
{
    char *text;
    ms_read_status st = ms_read_file(path, MAX_CONFIG_FILE_BYTES, &text, NULL);
    if (st == MS_READ_OPEN)
        snprintf(err, errlen, "--config %s: %s", path, strerror(errno));
    else if (st != MS_READ_OK)
        snprintf(err, errlen, "--config %s: %s", path,
                 st == MS_READ_NOMEM ? "out of memory" : "unreadable or larger than 1 MiB");
    return st == MS_READ_OK ? text : NULL;
}

int ms_cache_opts_resolve(const ms_cache_opts *o, ms_hier_config *cfg, char *err, size_t errlen)
{
    char sub[256];
    ms_hier_config c;
    memset(&c, 0, sizeof c);
    if (ms_config_preset(o->preset ? o->preset : MS_DEFAULT_PRESET, &c, sub, sizeof sub) < 0) {
        snprintf(err, errlen, "--preset: %s", sub);
        return -1;
    }
    if (o->config_file) {
        char *text = read_config_file(o->config_file, err, errlen);
        if (!text) return -1;
        int rc = ms_config_parse_text(text, &c, sub, sizeof sub);
        free(text);
        if (rc < 0) {
            snprintf(err, errlen, "--config %s: %s", o->config_file, sub);
            return -1;
        }
    }
    if (o->cache && ms_config_parse_cache(o->cache, &c, sub, sizeof sub) < 0) {
        snprintf(err, errlen, "--cache: %s", sub);
        return -1;
    }
    if (o->mem_latency) {
        unsigned long v;
        if (ms_cli_parse_positive(o->mem_latency, MAX_MEM_LATENCY, &v) < 0) {
            snprintf(err, errlen, "--mem-latency: '%s' is not a whole number of cycles in 1..%lu", o->mem_latency,
                     MAX_MEM_LATENCY);
            return -1;
        }
        c.mem_latency = (uint32_t)v;
        c.preset[0] = '\0';
    }
    if (ms_cache_opts_apply_mp(o, &c, err, errlen) < 0) return -1;
    *cfg = c;
    return 0;
}

int ms_cache_opts_hier_given(const ms_cache_opts *o)
{
    return o->preset || o->config_file || o->cache || o->mem_latency;
}

/* A whole number in 1..max for option `name`, or -1 with err. */
static int take_number(const char *name, const char *arg, unsigned long max, uint32_t *out, char *err, size_t errlen)
{
    unsigned long v;
    if (ms_cli_parse_positive(arg, max, &v) < 0) {
        snprintf(err, errlen, "%s: '%s' is not a whole number in 1..%lu", name, arg, max);
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

int ms_cache_opts_apply_mp(const ms_cache_opts *o, ms_hier_config *cfg, char *err, size_t errlen)
{
    char sub[256];
    ms_hier_config c = *cfg;
    if (o->procs && take_number("--procs", o->procs, MS_MAX_PROCS, &c.nprocs, err, errlen) < 0) return -1;
    if (o->nodes && take_number("--nodes", o->nodes, MS_MAX_PROCS, &c.nnodes, err, errlen) < 0) return -1;
    if (o->remote_latency &&
        take_number("--remote-latency", o->remote_latency, MAX_MEM_LATENCY, &c.remote_latency, err, errlen) < 0)
        return -1;
    if (o->unit) {
        uint64_t v;
        if (ms_config_parse_size(o->unit, &v) < 0 || v == 0 || v > (1u << 20) || (v & (v - 1))) {
            snprintf(err, errlen, "--coherence-unit: '%s' is not a power-of-two size up to 1M (e.g. 64, 4K)", o->unit);
            return -1;
        }
        c.coherence_unit = (uint32_t)v;
    }
    if (o->protocol) {
        if (strcasecmp(o->protocol, "mesi") == 0)
            c.protocol = MS_PROTO_MESI;
        else if (strcasecmp(o->protocol, "msi") == 0)
            c.protocol = MS_PROTO_MSI;
        else {
            snprintf(err, errlen, "--protocol: '%s' is neither mesi nor msi", o->protocol);
            return -1;
        }
    }
    if (o->shared) {
        const char *s = o->shared;
        if ((s[0] == 'L' || s[0] == 'l') && s[1] >= '2' && s[1] <= '0' + c.nlevels && !s[2]) {
            c.shared_from = s[1] - '1';
        } else if (strcasecmp(s, "none") == 0) {
            c.shared_from = 0; /* every level private */
        } else {
            snprintf(err, errlen, "--shared: '%s' is neither none nor a level below L1 of this hierarchy (L2..L%d)", s,
                     c.nlevels);
            return -1;
        }
    }
    if (o->utilisation) c.utilisation = 1;
    if (ms_config_validate(&c, sub, sizeof sub) < 0) {
        snprintf(err, errlen, "cache configuration: %s", sub);
        return -1;
    }
    *cfg = c;
    return 0;
}

int ms_cache_opts_interleave(const ms_cache_opts *o, ms_interleave *mode, char *err, size_t errlen)
{
    *mode = MS_INTERLEAVE_DEFAULT; /* timed for a threaded program, interleaved for one thread */
    if (o->interleave && ms_interleave_parse(o->interleave, mode) != 0) {
        snprintf(err, errlen, "--interleave: '%s' is none of interleaved, piped, timed", o->interleave);
        return -1;
    }
    uint32_t n = 0;
    if (o->sim_threads && take_number("--sim-threads", o->sim_threads, MAX_SIM_THREADS, &n, err, errlen) < 0) return -1;
    ms_drive_set_sim_threads(n);
    return 0;
}

int ms_cache_opts_code_bins(const ms_cache_opts *o, char *err, size_t errlen)
{
    ms_code_granularity g = MS_CODE_FUNCTION;
    if (o->code_granularity && ms_code_granularity_parse(o->code_granularity, &g) < 0) {
        snprintf(err, errlen, "--code-granularity: '%s' is none of function, loop, line", o->code_granularity);
        return -1;
    }
    double share = 10;
    if (o->loop_share) {
        char *end;
        share = strtod(o->loop_share, &end);
        if (end == o->loop_share || *end || !(share >= 0 && share <= 100)) {
            snprintf(err, errlen, "--loop-share: '%s' is not a percentage (0..100)", o->loop_share);
            return -1;
        }
    }
    ms_drive_set_code_bins((int)g, share / 100);
    return 0;
}
