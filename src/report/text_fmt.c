/* Formatting helpers of the text reports (see text_fmt.h). */
#include "text_fmt.h"
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "../modelio/json_names.h"
#include "../util/util.h"

ms_num ms_fmt_count(uint64_t v)
{
    ms_num n;
    if (v < 100000) {
        snprintf(n.s, sizeof n.s, "%llu", (unsigned long long)v);
        return n;
    }
    double x = (double)v / 1e6;
    const char *unit = "M";
    if (x >= 1000.0) {
        x /= 1000.0;
        unit = "G";
    }
    snprintf(n.s, sizeof n.s, x < 100.0 ? "%.2f%s" : "%.1f%s", x, unit);
    return n;
}

ms_num ms_fmt_extra_cycles(double per_memop)
{
    ms_num n;
    if (per_memop < 0)
        snprintf(n.s, sizeof n.s, "<0");
    else
        snprintf(n.s, sizeof n.s, "%.2f", per_memop);
    return n;
}

ms_num ms_fmt_size(uint64_t bytes)
{
    static const char units[] = "KMGT";
    ms_num n;
    int u = -1;
    while (u < 3 && bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(n.s, sizeof n.s, "%llu", (unsigned long long)bytes);
    else
        snprintf(n.s, sizeof n.s, "%llu%c", (unsigned long long)bytes, units[u]);
    return n;
}

double ms_pct(uint64_t part, uint64_t whole) { return whole ? 100.0 * (double)part / (double)whole : 0.0; }

double ms_ratio(uint64_t part, uint64_t whole) { return whole ? (double)part / (double)whole : 0.0; }

void ms_fmt_hierarchy(FILE *out, const ms_hier_config *cfg, const char *indent)
{
    for (int k = 0; k < cfg->nlevels && k < MS_MAX_LEVELS; k++) {
        const ms_level_config *l = &cfg->level[k];
        char assoc[32];
        if (l->line && l->ways && (uint64_t)l->ways * l->line == l->size)
            snprintf(assoc, sizeof assoc, "fully associative");
        else if (l->ways == 1)
            snprintf(assoc, sizeof assoc, "direct mapped");
        else
            snprintf(assoc, sizeof assoc, "%u-way", l->ways);
        unsigned p = (unsigned)l->policy;
        fprintf(out, "%sL%d: %s, %s, %u-byte lines, %u cycles, %s\n", indent, k + 1, ms_fmt_size(l->size).s, assoc,
                l->line, l->latency, p < MS_JSON_NELEM(ms_json_policy_names) ? ms_json_policy_names[p] : "?");
    }
    fprintf(out, "%smemory: %u cycles\n", indent, cfg->mem_latency);
}

void ms_fmt_causes(FILE *out, const ms_level_counters *l)
{
    uint64_t misses = l->read_misses + l->write_misses;
    for (int k = 0; k < MS_NCAUSES; k++)
        fprintf(out, "%s%s %.1f%%", k ? "  " : "", ms_json_cause_names[k], ms_pct(l->cause[k], misses));
    fputc('\n', out);
}

void ms_fmt_invalidations(FILE *out, const ms_inval_counters *v, const char *indent)
{
    uint64_t all = v->received, in_region = v->true_in + v->false_in;
    uint64_t t = v->true_in + v->true_across, f = v->false_in + v->false_across;
    fprintf(out, "%sTrue sharing: %s (%.1f%%)  -in region: %s  -across regions: %s\n", indent, ms_fmt_count(t).s,
            ms_pct(t, all), ms_fmt_count(v->true_in).s, ms_fmt_count(v->true_across).s);
    fprintf(out, "%sFalse sharing: %s (%.1f%%)  -in region: %s  -across regions: %s\n", indent, ms_fmt_count(f).s,
            ms_pct(f, all), ms_fmt_count(v->false_in).s, ms_fmt_count(v->false_across).s);
    fprintf(out, "%sIn region with a lock held: %s (%.1f%% of in-region)\n", indent, ms_fmt_count(v->with_lock).s,
            ms_pct(v->with_lock, in_region));
    fprintf(out, "%sFollowed by a coherence miss: %s (%.1f%%)\n", indent, ms_fmt_count(v->followed_by_miss).s,
            ms_pct(v->followed_by_miss, all));
}

void ms_fmt_multiprocessor(FILE *out, const ms_hier_config *cfg, uint32_t nprocs, const char *interleave,
                           const char *indent)
{
    int shared = ms_config_shared_from(cfg);
    fprintf(out, "%s%u processors, %s replay; private L1", indent, nprocs,
            interleave ? ms_term(interleave) : "recorded");
    if (shared > 1) fprintf(out, "-L%d", shared);
    if (shared < cfg->nlevels) fprintf(out, ", shared L%d", shared + 1);
    fprintf(out, "; %s, %u-byte coherence unit", cfg->protocol == MS_PROTO_MSI ? "MSI" : "MESI",
            ms_config_coherence_unit(cfg));
    if (cfg->nnodes > 1) fprintf(out, "; %u nodes, remote %u cycles", cfg->nnodes, ms_config_remote_latency(cfg));
    fputc('\n', out);
}

int ms_fmt_width(FILE *out)
{
    const char *env = getenv("COLUMNS");
    int cols = env ? atoi(env) : 0;
    if (cols >= 40) return cols;
    struct winsize ws;
    if (isatty(fileno(out)) && ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40) return ws.ws_col;
    return MS_TEXT_WIDTH;
}

/* Whether a name may be broken between p[b - 1] and p[b] (ms_fmt_name's rule). */
static int name_break(const char *p, int b)
{
    char before = p[b - 1], at = p[b];
    if (at == ' ') return 0; /* a continuation line never starts with a space */
    if (before == ' ' || before == ',' || (before == '>' && at != '>' && at != ':')) return 1;
    if (at == ':' && p[b + 1] == ':' && before != ':') return 1;
    return (at == '.' || at == '/' || at == '<' || at == '(') && before != ' ';
}

/* The one wrapping loop of the text reports: prose (name 0) breaks at spaces, which it drops,
 * its lines all indented as first is long; a name (name 1) breaks by name_break and drops
 * nothing, its continuation lines 4 columns further in. */
static void wrap(FILE *out, const char *first, const char *text, int width, int name)
{
    const char *p = ms_term(text ? text : "?");
    int indent = (int)strlen(first), next = name ? indent + 4 : indent;
    int avail = width - indent > 20 ? width - indent : 20;
    fputs(first, out);
    while ((int)strlen(p) > avail) {
        int cut = avail, low = name ? avail / 3 : 0;
        while (cut > low && !(name ? name_break(p, cut) : p[cut] == ' ')) cut--;
        if (cut <= low) cut = avail; /* no break point: cut at the width */
        fprintf(out, "%.*s\n%*s", cut, p, next, "");
        p += cut;
        while (!name && *p == ' ') p++;
        avail = width - next > 20 ? width - next : 20;
    }
    fprintf(out, "%s\n", p);
}

void ms_fmt_wrapped(FILE *out, const char *first, const char *text, int width) { wrap(out, first, text, width, 0); }

void ms_fmt_name(FILE *out, const char *first, const char *name, int width) { wrap(out, first, name, width, 1); }

static int selected(uint32_t i, const uint32_t *idx, size_t n)
{
    if (!n) return 1;
    for (size_t k = 0; k < n; k++)
        if (idx[k] == i) return 1;
    return 0;
}

/* Whether two findings give the same advice and the same command to check it: the report
 * says it once, under all their numbers ("  1, 3. ..."). */
static int same_advice(const ms_finding *a, const ms_finding *b)
{
    return strcmp(a->advice, b->advice) == 0 && strcmp(a->whatif, b->whatif) == 0;
}

void ms_fmt_findings(FILE *out, const ms_model *m, const uint32_t *codes, size_t ncodes, const uint32_t *datas,
                     size_t ndatas)
{
    int shown = 0;
    for (size_t i = 0; i < m->nfindings; i++) {
        const ms_finding *f = &m->findings[i];
        if (!selected(f->code, codes, ncodes) || !selected(f->data, datas, ndatas)) continue;
        char num[32];
        if (!shown++) fputs("FINDINGS\n", out);
        snprintf(num, sizeof num, "  %zu. ", i + 1);
        ms_fmt_wrapped(out, num, f->text, 100);
    }
    if (shown) fputc('\n', out);
    shown = 0;
    for (size_t i = 0; i < m->nfindings; i++) {
        const ms_finding *f = &m->findings[i];
        if (!f->advice[0] || !selected(f->code, codes, ncodes) || !selected(f->data, datas, ndatas)) continue;
        int said = 0; /* the same advice (and check) already given under an earlier number */
        for (size_t j = 0; j < i && !said; j++)
            said = same_advice(&m->findings[j], f) && selected(m->findings[j].code, codes, ncodes) &&
                   selected(m->findings[j].data, datas, ndatas);
        if (said) continue;
        char num[96];
        int len = snprintf(num, sizeof num, "  %zu", i + 1);
        for (size_t j = i + 1; j < m->nfindings; j++)
            if (same_advice(&m->findings[j], f) && selected(m->findings[j].code, codes, ncodes) &&
                selected(m->findings[j].data, datas, ndatas) && len < (int)sizeof num - 24)
                len += snprintf(num + len, sizeof num - (size_t)len, ", %zu", j + 1);
        snprintf(num + len, sizeof num - (size_t)len, ". ");
        if (!shown++) fputs("ADVICE\n", out);
        ms_fmt_wrapped(out, num, f->advice, 100);
        if (f->whatif[0]) ms_fmt_wrapped(out, "     check it: ", f->whatif, 300);
    }
    if (shown) fputc('\n', out);
}
