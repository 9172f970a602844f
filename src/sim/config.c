/* Cache-hierarchy configuration: the preset table, the --cache spec grammar, config files,
 * validation and the canonical text form passed to the runtime. Pure: no I/O, no globals
 * beyond constant tables. */
#include "config.h"
#include "../util/util.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    const char *name;
    const char *description;
    const char *cache; /* level spec in the --cache grammar */
    uint32_t mem_latency;
    int shared_from, llc_slice; /* for threads (ms_hier_config) */
} preset_def;

static const preset_def PRESETS[] = {
    { "x86",
      "L1 32K/8-way, L2 1M/16-way, L3 2M/16-way per processor (threads: private L1-L2, L3 shared, "
      "2M x processors), 64 B lines, LRU, memory 200",
      "L1=32K:8:64:4:lru,L2=1M:16:64:14:lru,L3=2M:16:64:50:lru", 200, 2, 1 },
    { "x86-l2", "L1 32K/8-way + L2 1M/16-way, 64 B lines, LRU, memory 200 (Cachegrind D1/LL-like)",
      "L1=32K:8:64:4:lru,L2=1M:16:64:14:lru", 200, 0, 0 },
    { "memspy92", "the MemSpy paper: one 32K direct-mapped level, 64 B lines, every miss stalls 50",
      "L1=32K:1:64:0:lru", 50, 0, 0 },
    { "cachegrind", "Cachegrind's D1 32K:8:64 + LL 8M:16:64, LRU, memory 200", "L1=32K:8:64:4:lru,L2=8M:16:64:14:lru",
      200, 0, 0 },
};
enum { NPRESETS = sizeof PRESETS / sizeof PRESETS[0] };

static const char *const PRESET_NAMES[] = { "x86", "x86-l2", "memspy92", "cachegrind", NULL };

static const char *const POLICY_NAMES[] = { "lru", "plru", "random" };

/* Limit on the lines of one level: node indices of the fully associative shadow are 32-bit. */
#define MAX_LINES_PER_LEVEL (1ull << 28)

static int is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

static const preset_def *find_preset(const char *name)
{
    for (int i = 0; i < NPRESETS; i++)
        if (strcmp(PRESETS[i].name, name) == 0) return &PRESETS[i];
    return NULL;
}

const char *const *ms_config_preset_names(void) { return PRESET_NAMES; }

const char *ms_config_preset_description(const char *name)
{
    const preset_def *p = find_preset(name);
    return p ? p->description : NULL;
}

static int parse_cache_unvalidated(const char *spec, ms_hier_config *out, char *err, size_t errlen);

int ms_config_preset(const char *name, ms_hier_config *out, char *err, size_t errlen)
{
    const preset_def *p = find_preset(name);
    if (!p) {
        char known[128] = "";
        for (int i = 0; i < NPRESETS; i++) {
            if (i) strncat(known, ", ", sizeof known - strlen(known) - 1);
            strncat(known, PRESETS[i].name, sizeof known - strlen(known) - 1);
        }
        return ms_errorf(err, errlen, "unknown preset '%s' (known: %s)", name, known);
    }
    ms_hier_config cfg;
    memset(&cfg, 0, sizeof cfg);
    if (parse_cache_unvalidated(p->cache, &cfg, err, errlen) != 0) return -1;
    cfg.mem_latency = p->mem_latency;
    cfg.shared_from = p->shared_from;
    cfg.llc_slice = p->llc_slice;
    snprintf(cfg.preset, sizeof cfg.preset, "%s", p->name);
    *out = cfg;
    return 0;
}

int ms_config_parse_size(const char *s, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)*s)) return -1;
    uint64_t v = 0;
    for (; isdigit((unsigned char)*s); s++) {
        if (v > (UINT64_MAX - 9) / 10) return -1;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    unsigned shift = 0;
    switch (*s) {
    case 'k':
    case 'K':
        shift = 10;
        s++;
        break;
    case 'm':
    case 'M':
        shift = 20;
        s++;
        break;
    case 'g':
    case 'G':
        shift = 30;
        s++;
        break;
    default: break;
    }
    if (*s == 'b' || *s == 'B') s++;
    if (*s != '\0' || (shift && v > (UINT64_MAX >> shift))) return -1;
    *out = v << shift;
    return 0;
}

/* Parse a decimal uint32 occupying all of s. */
static int parse_u32(const char *s, uint32_t *out)
{
    uint64_t v = 0;
    if (!isdigit((unsigned char)*s)) return -1;
    for (; isdigit((unsigned char)*s); s++) {
        v = v * 10 + (uint64_t)(*s - '0');
        if (v > UINT32_MAX) return -1;
    }
    if (*s) return -1;
    *out = (uint32_t)v;
    return 0;
}

/* Parse one level "SIZE:WAYS:LINE:LATENCY[:policy]" (no surrounding spaces). */
static int parse_level(const char *text, int index, ms_level_config *lv, char *err, size_t errlen)
{
    char buf[128];
    if (strlen(text) >= sizeof buf) return ms_errorf(err, errlen, "L%d: level spec too long", index + 1);
    strcpy(buf, text);
    char *field[6];
    int n = 0;
    for (char *p = buf;; p++) {
        if (n == 6) break;
        field[n++] = p;
        p = strchr(p, ':');
        if (!p) break;
        *p = '\0';
    }
    if (n < 4 || n > 5)
        return ms_errorf(err, errlen, "L%d: expected SIZE:WAYS:LINE:LATENCY[:lru|plru|random], got '%s'", index + 1,
                         text);
    ms_level_config v;
    memset(&v, 0, sizeof v);
    if (ms_config_parse_size(field[0], &v.size) != 0)
        return ms_errorf(err, errlen, "L%d size '%s' is not a size (e.g. 32K, 1M, 1536)", index + 1, field[0]);
    if (parse_u32(field[1], &v.ways) != 0)
        return ms_errorf(err, errlen, "L%d ways '%s' is not a number", index + 1, field[1]);
    if (parse_u32(field[2], &v.line) != 0)
        return ms_errorf(err, errlen, "L%d line '%s' is not a number", index + 1, field[2]);
    if (parse_u32(field[3], &v.latency) != 0)
        return ms_errorf(err, errlen, "L%d latency '%s' is not a number", index + 1, field[3]);
    v.policy = MS_POLICY_LRU;
    if (n == 5) {
        int found = 0;
        for (int p = 0; p < 3; p++)
            if (strcmp(field[4], POLICY_NAMES[p]) == 0) {
                v.policy = (ms_policy)p;
                found = 1;
            }
        if (!found)
            return ms_errorf(err, errlen, "L%d policy '%s' is unknown (lru, plru, random)", index + 1, field[4]);
    }
    *lv = v;
    return 0;
}

/* Copy s[0..n) into buf with surrounding whitespace removed. */
static void copy_trimmed(char *buf, size_t buflen, const char *s, size_t n)
{
    while (n && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n && isspace((unsigned char)s[n - 1])) n--;
    if (n >= buflen) n = buflen - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
}

/* Parse "Lk=LEVEL" where k is 1-based; returns the 0-based index or -1. */
static int parse_level_assignment(const char *item, ms_level_config *lv, char *err, size_t errlen)
{
    const char *eq = strchr(item, '=');
    if (!eq || eq - item != 2 || (item[0] != 'L' && item[0] != 'l') || item[1] < '1' || item[1] > '0' + MS_MAX_LEVELS)
        return ms_errorf(err, errlen, "expected L1=..., L2=... or L3=..., got '%s'", item);
    int index = item[1] - '1';
    char body[128];
    copy_trimmed(body, sizeof body, eq + 1, strlen(eq + 1));
    if (parse_level(body, index, lv, err, errlen) != 0) return -1;
    return index;
}

static int parse_cache_unvalidated(const char *spec, ms_hier_config *out, char *err, size_t errlen)
{
    ms_hier_config cfg = *out;
    int n = 0;
    const char *p = spec;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[160];
        copy_trimmed(item, sizeof item, p, len);
        if (n == MS_MAX_LEVELS) return ms_errorf(err, errlen, "at most %d levels (L1, L2, L3)", MS_MAX_LEVELS);
        ms_level_config lv;
        int index = parse_level_assignment(item, &lv, err, errlen);
        if (index < 0) return -1;
        if (index != n)
            return ms_errorf(err, errlen, "levels must be given in order L1, L2, L3 (got L%d where L%d was expected)",
                             index + 1, n + 1);
        cfg.level[n++] = lv;
        if (!comma) break;
        p = comma + 1;
    }
    for (int i = n; i < MS_MAX_LEVELS; i++) memset(&cfg.level[i], 0, sizeof cfg.level[i]);
    cfg.nlevels = n;
    cfg.preset[0] = '\0';
    cfg.shared_from = 0; /* a custom hierarchy: every level private, sizes as given */
    cfg.llc_slice = 0;
    *out = cfg;
    return 0;
}

int ms_config_parse_cache(const char *spec, ms_hier_config *out, char *err, size_t errlen)
{
    ms_hier_config cfg = *out;
    if (parse_cache_unvalidated(spec, &cfg, err, errlen) != 0 || ms_config_validate(&cfg, err, errlen) != 0) return -1;
    *out = cfg;
    return 0;
}

/* The multiprocessor fields (zero = default; see config.h). Levels are already valid. */
static int validate_multiprocessor(const ms_hier_config *cfg, char *err, size_t errlen)
{
    if (cfg->nprocs > MS_MAX_PROCS)
        return ms_errorf(err, errlen, "processors %u is more than %d", cfg->nprocs, MS_MAX_PROCS);
    if (cfg->shared_from < 0 || cfg->shared_from > cfg->nlevels)
        return ms_errorf(err, errlen, "shared level %d is not in 0..%d", cfg->shared_from, cfg->nlevels);
    int nprivate = ms_config_shared_from(cfg);
    if (cfg->coherence_unit) {
        if (!is_pow2(cfg->coherence_unit))
            return ms_errorf(err, errlen, "coherence unit %u is not a power of two", cfg->coherence_unit);
        for (int k = 0; k < nprivate; k++)
            if (cfg->coherence_unit < cfg->level[k].line)
                return ms_errorf(err, errlen, "coherence unit %u is smaller than the L%d line %u", cfg->coherence_unit,
                                 k + 1, cfg->level[k].line);
    }
    if ((unsigned)cfg->protocol > MS_PROTO_MSI)
        return ms_errorf(err, errlen, "protocol %d is unknown", (int)cfg->protocol);
    if (cfg->nnodes > MS_MAX_PROCS || (cfg->nprocs && cfg->nnodes > cfg->nprocs))
        return ms_errorf(err, errlen, "nodes %u is more than the processors (%u)", cfg->nnodes,
                         cfg->nprocs ? cfg->nprocs : MS_MAX_PROCS);
    if (cfg->remote_latency && cfg->remote_latency < cfg->level[0].latency)
        return ms_errorf(err, errlen, "remote latency %u is below L1 latency %u", cfg->remote_latency,
                         cfg->level[0].latency);
    if (cfg->llc_slice != 0 && cfg->llc_slice != 1)
        return ms_errorf(err, errlen, "last-level slice flag %d is not 0 or 1", cfg->llc_slice);
    if (cfg->utilisation != 0 && cfg->utilisation != 1)
        return ms_errorf(err, errlen, "utilisation flag %d is not 0 or 1", cfg->utilisation);
    return 0;
}

int ms_config_validate(const ms_hier_config *cfg, char *err, size_t errlen)
{
    if (cfg->nlevels < 1 || cfg->nlevels > MS_MAX_LEVELS)
        return ms_errorf(err, errlen, "number of levels %d is not in 1..%d", cfg->nlevels, MS_MAX_LEVELS);
    for (int i = 0; i < cfg->nlevels; i++) {
        const ms_level_config *lv = &cfg->level[i];
        int k = i + 1;
        if (lv->line < 8 || !is_pow2(lv->line))
            return ms_errorf(err, errlen, "L%d line %u is not a power of two >= 8", k, lv->line);
        if (lv->ways < 1) return ms_errorf(err, errlen, "L%d ways must be at least 1", k);
        if (lv->size == 0) return ms_errorf(err, errlen, "L%d size must not be 0", k);
        uint64_t set_bytes = (uint64_t)lv->line * lv->ways;
        if (lv->size % set_bytes != 0)
            return ms_errorf(err, errlen, "L%d size %llu is not a multiple of line*ways (%llu)", k,
                             (unsigned long long)lv->size, (unsigned long long)set_bytes);
        uint64_t sets = lv->size / set_bytes;
        if (!is_pow2(sets))
            return ms_errorf(err, errlen, "L%d sets (size/(line*ways)) %llu is not a power of two", k,
                             (unsigned long long)sets);
        if (lv->size / lv->line > MAX_LINES_PER_LEVEL)
            return ms_errorf(err, errlen, "L%d size %llu has more than %llu lines", k, (unsigned long long)lv->size,
                             MAX_LINES_PER_LEVEL);
        if ((unsigned)lv->policy > MS_POLICY_RANDOM)
            return ms_errorf(err, errlen, "L%d policy %d is unknown", k, (int)lv->policy);
        if (lv->policy == MS_POLICY_PLRU && !is_pow2(lv->ways))
            return ms_errorf(err, errlen, "L%d ways %u must be a power of two for plru", k, lv->ways);
        if (i > 0 && lv->line < cfg->level[i - 1].line)
            return ms_errorf(err, errlen, "L%d line %u is smaller than L%d line %u", k, lv->line, k - 1,
                             cfg->level[i - 1].line);
        if (lv->latency < cfg->level[0].latency)
            return ms_errorf(err, errlen, "L%d latency %u is below L1 latency %u", k, lv->latency,
                             cfg->level[0].latency);
    }
    if (cfg->mem_latency < cfg->level[0].latency)
        return ms_errorf(err, errlen, "memory latency %u is below L1 latency %u", cfg->mem_latency,
                         cfg->level[0].latency);
    if (memchr(cfg->preset, '\0', sizeof cfg->preset) == NULL)
        return ms_errorf(err, errlen, "preset name is not terminated");
    return validate_multiprocessor(cfg, err, errlen);
}

/* Write a size with the largest exact K/M/G suffix. */
static int format_size(char *buf, size_t buflen, uint64_t size)
{
    static const char suffix[] = "GMK";
    for (int i = 0; i < 3; i++) {
        unsigned shift = (unsigned)(30 - 10 * i);
        if (size >= (1ull << shift) && size % (1ull << shift) == 0)
            return snprintf(buf, buflen, "%llu%c", (unsigned long long)(size >> shift), suffix[i]);
    }
    return snprintf(buf, buflen, "%llu", (unsigned long long)size);
}

/* snprintf-style appender: keeps the total length even when buf is too small. */
typedef struct {
    char *buf;
    size_t cap, len;
} text_out;

static void append(text_out *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = t->len < t->cap ? t->cap - t->len : 0;
    int n = vsnprintf(room ? t->buf + t->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0) t->len += (size_t)n;
}

int ms_config_format(const ms_hier_config *cfg, char *buf, size_t buflen)
{
    text_out t = { buf, buflen, 0 };
    if (buflen) buf[0] = '\0';
    for (int i = 0; i < cfg->nlevels && i < MS_MAX_LEVELS; i++) {
        const ms_level_config *lv = &cfg->level[i];
        char size[32];
        format_size(size, sizeof size, lv->size);
        unsigned policy = (unsigned)lv->policy <= MS_POLICY_RANDOM ? (unsigned)lv->policy : 0;
        append(&t, "%sL%d=%s:%u:%u:%u:%s", i ? "," : "", i + 1, size, lv->ways, lv->line, lv->latency,
               POLICY_NAMES[policy]);
    }
    append(&t, ";mem=%u", cfg->mem_latency);
    if (cfg->preset[0]) append(&t, ";preset=%s", cfg->preset);
    if (cfg->nprocs) append(&t, ";procs=%u", cfg->nprocs);
    if (cfg->shared_from) append(&t, ";shared=%d", cfg->shared_from);
    if (cfg->coherence_unit) append(&t, ";unit=%u", cfg->coherence_unit);
    if (cfg->protocol != MS_PROTO_MESI) append(&t, ";proto=%s", cfg->protocol == MS_PROTO_MSI ? "msi" : "?");
    if (cfg->nnodes) append(&t, ";nodes=%u", cfg->nnodes);
    if (cfg->remote_latency) append(&t, ";remote=%u", cfg->remote_latency);
    if (cfg->llc_slice) append(&t, ";llc=slice");
    if (cfg->utilisation) append(&t, ";util=1");
    return (int)t.len;
}

/* Parse a protocol name ("mesi", "msi"). */
static int parse_protocol(const char *s, ms_protocol *out)
{
    if (strcmp(s, "mesi") == 0 || strcmp(s, "MESI") == 0)
        *out = MS_PROTO_MESI;
    else if (strcmp(s, "msi") == 0 || strcmp(s, "MSI") == 0)
        *out = MS_PROTO_MSI;
    else
        return -1;
    return 0;
}

/* Parse the last level's kind: "slice" (one processor's, llc_slice 1) or "whole" (0). */
static int parse_llc(const char *s, int *out)
{
    if (strcmp(s, "slice") != 0 && strcmp(s, "whole") != 0) return -1;
    *out = strcmp(s, "slice") == 0;
    return 0;
}

/* Parse a non-negative int (shared_from). */
static int parse_int(const char *s, int *out)
{
    uint32_t v;
    if (parse_u32(s, &v) != 0 || v > INT32_MAX) return -1;
    *out = (int)v;
    return 0;
}

/* Apply one "key=value" item of the canonical form's tail (after the levels). */
static int apply_full_item(const char *key, const char *value, ms_hier_config *cfg, char *err, size_t errlen)
{
    int bad;
    if (strcmp(key, "mem") == 0) {
        if (parse_u32(value, &cfg->mem_latency) != 0)
            return ms_errorf(err, errlen, "memory latency '%s' is not a number", value);
        return 0;
    }
    if (strcmp(key, "preset") == 0) {
        if (strlen(value) >= sizeof cfg->preset) return ms_errorf(err, errlen, "preset name '%s' too long", value);
        strcpy(cfg->preset, value);
        return 0;
    }
    if (strcmp(key, "procs") == 0)
        bad = parse_u32(value, &cfg->nprocs);
    else if (strcmp(key, "shared") == 0)
        bad = parse_int(value, &cfg->shared_from);
    else if (strcmp(key, "unit") == 0)
        bad = parse_u32(value, &cfg->coherence_unit);
    else if (strcmp(key, "proto") == 0)
        bad = parse_protocol(value, &cfg->protocol);
    else if (strcmp(key, "nodes") == 0)
        bad = parse_u32(value, &cfg->nnodes);
    else if (strcmp(key, "remote") == 0)
        bad = parse_u32(value, &cfg->remote_latency);
    else if (strcmp(key, "llc") == 0)
        bad = parse_llc(value, &cfg->llc_slice);
    else if (strcmp(key, "util") == 0)
        bad = parse_int(value, &cfg->utilisation);
    else
        return ms_errorf(err, errlen, "unknown configuration field '%s'", key);
    return bad ? ms_errorf(err, errlen, "configuration field %s value '%s' is not valid", key, value) : 0;
}

/* The canonical form: LEVELS ";mem=N" [";preset=NAME"] [";procs=P"] ... (any order after mem). */
int ms_config_parse_full(const char *text, ms_hier_config *out, char *err, size_t errlen)
{
    ms_hier_config cfg;
    memset(&cfg, 0, sizeof cfg);
    const char *mem = strstr(text, ";mem=");
    if (!mem) return ms_errorf(err, errlen, "configuration '%s' lacks ';mem='", text);
    char levels[512];
    if ((size_t)(mem - text) >= sizeof levels) return ms_errorf(err, errlen, "configuration too long");
    memcpy(levels, text, (size_t)(mem - text));
    levels[mem - text] = '\0';
    if (parse_cache_unvalidated(levels, &cfg, err, errlen) != 0) return -1;
    for (const char *item = mem + 1; item;) {
        const char *semi = strchr(item, ';');
        size_t len = semi ? (size_t)(semi - item) : strlen(item);
        char buf[128];
        if (len >= sizeof buf) return ms_errorf(err, errlen, "configuration field '%.40s...' too long", item);
        memcpy(buf, item, len);
        buf[len] = '\0';
        char *eq = strchr(buf, '=');
        if (!eq) return ms_errorf(err, errlen, "configuration field '%s' lacks '='", buf);
        *eq = '\0';
        if (apply_full_item(buf, eq + 1, &cfg, err, errlen) != 0) return -1;
        item = semi ? semi + 1 : NULL;
    }
    if (ms_config_validate(&cfg, err, errlen) != 0) return -1;
    *out = cfg;
    return 0;
}

/* Config-file keys of the multiprocessor fields: *known = 0 if key is none of them. Returns
 * -1 on a bad value. */
static int apply_multiprocessor_key(const char *key, const char *value, ms_hier_config *cfg, int *known)
{
    *known = 1;
    uint64_t unit;
    if (strcmp(key, "procs") == 0) return parse_u32(value, &cfg->nprocs);
    if (strcmp(key, "shared") == 0) return parse_int(value, &cfg->shared_from);
    if (strcmp(key, "coherence-unit") == 0) {
        if (ms_config_parse_size(value, &unit) != 0 || unit > UINT32_MAX) return -1;
        cfg->coherence_unit = (uint32_t)unit;
        return 0;
    }
    if (strcmp(key, "protocol") == 0) return parse_protocol(value, &cfg->protocol);
    if (strcmp(key, "nodes") == 0) return parse_u32(value, &cfg->nnodes);
    if (strcmp(key, "remote-latency") == 0) return parse_u32(value, &cfg->remote_latency);
    if (strcmp(key, "llc") == 0) return parse_llc(value, &cfg->llc_slice);
    *known = 0;
    return 0;
}

/* Apply one "key = value" line of a config file. */
static int apply_config_key(const char *key, const char *value, int lineno, ms_hier_config *cfg, char *err,
                            size_t errlen)
{
    char sub[200];
    int known;
    if (strcmp(key, "preset") == 0) {
        if (ms_config_preset(value, cfg, sub, sizeof sub) != 0)
            return ms_errorf(err, errlen, "line %d: %s", lineno, sub);
    } else if (strcmp(key, "cache") == 0) {
        if (parse_cache_unvalidated(value, cfg, sub, sizeof sub) != 0)
            return ms_errorf(err, errlen, "line %d: %s", lineno, sub);
    } else if (strcmp(key, "mem-latency") == 0) {
        if (parse_u32(value, &cfg->mem_latency) != 0)
            return ms_errorf(err, errlen, "line %d: mem-latency '%s' is not a number", lineno, value);
        cfg->preset[0] = '\0';
    } else if ((key[0] == 'l' || key[0] == 'L') && key[1] >= '1' && key[1] <= '0' + MS_MAX_LEVELS && key[2] == '\0') {
        int index = key[1] - '1';
        if (index > cfg->nlevels)
            return ms_errorf(err, errlen, "line %d: L%d given but the configuration has only %d level(s)", lineno,
                             index + 1, cfg->nlevels);
        if (parse_level(value, index, &cfg->level[index], sub, sizeof sub) != 0)
            return ms_errorf(err, errlen, "line %d: %s", lineno, sub);
        if (index >= cfg->nlevels - 1) cfg->llc_slice = 0; /* the last level given whole */
        if (index == cfg->nlevels) cfg->nlevels = index + 1;
        cfg->preset[0] = '\0';
    } else if (apply_multiprocessor_key(key, value, cfg, &known) != 0) {
        return ms_errorf(err, errlen, "line %d: %s '%s' is not valid", lineno, key, value);
    } else if (!known) {
        return ms_errorf(err, errlen,
                         "line %d: unknown key '%s' (known: preset, cache, mem-latency, l1, l2, l3, "
                         "procs, shared, coherence-unit, protocol, nodes, remote-latency, llc)",
                         lineno, key);
    }
    return 0;
}

int ms_config_parse_text(const char *text, ms_hier_config *out, char *err, size_t errlen)
{
    ms_hier_config cfg = *out;
    int lineno = 0;
    for (const char *p = text; *p;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *next = end ? end + 1 : p + len;
        lineno++;
        const char *hash = memchr(p, '#', len);
        if (hash) len = (size_t)(hash - p);
        char line[256];
        copy_trimmed(line, sizeof line, p, len);
        p = next;
        if (line[0] == '\0') continue;
        char *eq = strchr(line, '=');
        if (!eq) return ms_errorf(err, errlen, "line %d: expected 'key = value', got '%s'", lineno, line);
        char key[32], value[224];
        copy_trimmed(key, sizeof key, line, (size_t)(eq - line));
        copy_trimmed(value, sizeof value, eq + 1, strlen(eq + 1));
        if (apply_config_key(key, value, lineno, &cfg, err, errlen) != 0) return -1;
    }
    if (ms_config_validate(&cfg, err, errlen) != 0) return -1;
    *out = cfg;
    return 0;
}

int ms_config_shared_from(const ms_hier_config *cfg)
{
    return cfg->shared_from > 0 && cfg->shared_from < cfg->nlevels ? cfg->shared_from : cfg->nlevels;
}

uint32_t ms_config_coherence_unit(const ms_hier_config *cfg)
{
    return cfg->coherence_unit ? cfg->coherence_unit : cfg->level[ms_config_shared_from(cfg) - 1].line;
}

uint32_t ms_config_remote_latency(const ms_hier_config *cfg)
{
    return cfg->remote_latency ? cfg->remote_latency : 2 * cfg->mem_latency;
}

void ms_config_scale_llc(ms_hier_config *cfg, uint32_t nprocs)
{
    int last = cfg->nlevels - 1;
    if (cfg->llc_slice && nprocs > 1 && last >= 0 && ms_config_shared_from(cfg) <= last) {
        ms_level_config *lv = &cfg->level[last];
        uint32_t pow2 = nprocs & (~nprocs + 1u); /* the largest power of two dividing nprocs */
        int fully_associative = (uint64_t)lv->ways * lv->line == lv->size;
        lv->size *= nprocs;
        lv->ways *= fully_associative ? nprocs : nprocs / pow2;
    }
    cfg->llc_slice = 0;
}
