/* The cache options shared by `memspy run` and `memspy config --show`: they are resolved and
 * validated before any program starts, and every error names the option and the field. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "../util/util.h"

#define MAX_CONFIG_FILE_BYTES (1 << 20)
#define MAX_MEM_LATENCY 1000000ul

int ms_cache_opts_take(ms_cache_opts *o, int opt, const char *arg)
{
    switch (opt) {
    case MS_OPT_PRESET: o->preset = arg; return 1;
    case MS_OPT_CACHE: o->cache = arg; return 1;
    case MS_OPT_MEM_LATENCY: o->mem_latency = arg; return 1;
    case MS_OPT_CONFIG_FILE: o->config_file = arg; return 1;
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
            snprintf(err, errlen, "--mem-latency: '%s' is not a whole number of cycles in 1..%lu",
                     o->mem_latency, MAX_MEM_LATENCY);
            return -1;
        }
        c.mem_latency = (uint32_t)v;
        c.preset[0] = '\0';
    }
    if (ms_config_validate(&c, sub, sizeof sub) < 0) {
        snprintf(err, errlen, "cache configuration: %s", sub);
        return -1;
    }
    *cfg = c;
    return 0;
}
