/* MTOOL's text report: Figure 2 of the paper (predicted time, measured time, memory overhead,
 * system time apart), the coverage and unexplained overhead of Table 2, then the mobjects
 * sorted by memory overhead. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../util/strbuf.h"
#include "../util/util.h"
#include "report.h"
#include "text_fmt.h"

static const char *base_name(const char *path)
{
    const char *s = path, *p;
    for (p = path; p && *p; p++)
        if (*p == '/') s = p + 1;
    return s ? s : "??";
}

static int by_inclusive(const void *a, const void *b)
{
    const ms_mobject *x = *(const ms_mobject *const *)a, *y = *(const ms_mobject *const *)b;
    return x->inclusive_measured_s < y->inclusive_measured_s   ? 1
           : x->inclusive_measured_s > y->inclusive_measured_s ? -1
                                                               : 0;
}

/* The procedures with their callees (the call graph's inclusive times), by measured time. */
static int report_inclusive(FILE *out, const ms_mtool_result *r, size_t top)
{
    size_t n = 0;
    const ms_mobject **p = calloc(r->nmobjects + 1, sizeof *p);
    if (!p) return -1;
    for (size_t i = 0; i < r->nmobjects; i++)
        if (r->mobjects[i].kind == MS_MOBJ_PROCEDURE && r->mobjects[i].has_inclusive) p[n++] = &r->mobjects[i];
    if (n) {
        qsort(p, n, sizeof *p, by_inclusive);
        fprintf(out, "\nProcedures with their callees (inclusive, from the call edges):\n");
        fprintf(out, "%-34s %10s %10s %9s\n", "function", "estimated", "measured", "overhead");
        double min_s = 5e-9 * (double)r->period_ns; /* as for the mobjects: enough samples */
        for (size_t i = 0; i < n && i < top; i++) {
            const ms_mobject *m = p[i];
            const char *fn = ms_term(m->function ? m->function : "??");
            if (strlen(fn) > 34) { /* a long name on lines of its own, wrapped, never cut */
                ms_fmt_name(out, "", fn, ms_fmt_width(out));
                fn = "";
            }
            fprintf(out, "%-34s %9.4fs %9.4fs ", fn, m->inclusive_estimated_s, m->inclusive_measured_s);
            if (m->inclusive_estimated_s > 0 && m->inclusive_measured_s >= min_s)
                fprintf(out, "%8.0f%%", 100.0 * (m->inclusive_measured_s / m->inclusive_estimated_s - 1));
            else
                fprintf(out, "%9s", "-");
            const char *why = "";
            for (size_t w = 0; w < m->nwarnings; w++) {
                if (!strcmp(m->warnings[w], MS_MOBJ_WARN_RECURSIVE)) why = "  (recursive: its call cycle)";
                if (!strcmp(m->warnings[w], MS_MOBJ_WARN_HEURISTIC)) why = "  (estimable by MTOOL's heuristics)";
                if (!strcmp(m->warnings[w], MS_MOBJ_WARN_SHARED)) why = "  (approximate: callees shared, Tot < TDES)";
            }
            fprintf(out, "%s\n", why);
        }
    }
    free(p);
    return ferror(out) ? -1 : 0;
}

/* The model check: each chain's cycles in the model and on the core; the chains where they
 * differ by more than MS_MTOOL_CHAIN_TOLERANCE: corrected (loop recurrences use the core's
 * latency) or a warning. */
static void model_check(FILE *out, const ms_mtool_result *r)
{
    if (!r->nchains) return;
    const char *cpu = r->cpu_model ? r->cpu_model : "?";
    fprintf(out, "Model check, cycles per dependent instruction (%s model / this core):", cpu);
    for (size_t i = 0; i < r->nchains; i++)
        fprintf(out, "  %s %.1f/%.1f", r->chains[i].insn, r->chains[i].model_cycles, r->chains[i].core_cycles);
    fputc('\n', out);
    int fixed = 0;
    for (size_t i = 0; i < r->nchains; i++) { /* the corrected ones on one line, then the warnings */
        const ms_mtool_chain *c = &r->chains[i];
        double off;
        if (ms_mtool_chain_misfit(c, &off) && c->corrected)
            fprintf(out, "%s %s %.1f (%s's %.1f)",
                    fixed++ ? "," : "Corrected: loops' dependency chains take this core's", c->insn, c->core_cycles,
                    cpu, c->model_cycles);
    }
    if (fixed) fputs("; the model's dispatch and resources otherwise (docs/mtool.md)\n", out);
    for (size_t i = 0; i < r->nchains; i++) {
        const ms_mtool_chain *c = &r->chains[i];
        double off;
        if (ms_mtool_chain_misfit(c, &off) && !c->corrected)
            fprintf(out,
                    "Warning: the %s model does not fit this core: a dependent %s takes %.1f cycles in it and "
                    "%.1f here (%+.0f%%): code bound by it is estimated %s (another model: --cpu; docs/mtool.md)\n",
                    cpu, c->insn, c->model_cycles, c->core_cycles, 100 * off, off > 0 ? "too slow" : "too fast");
    }
}

/* Whether any mobject had samples enough to be timed (else the overheads are all unexplained). */
static int any_timable(const ms_mtool_result *r)
{
    for (size_t i = 0; i < r->nmobjects; i++)
        if (r->mobjects[i].timable) return 1;
    return 0;
}

int ms_report_mtool(FILE *out, const ms_mtool_result *r, size_t top)
{
    double pct = r->measured_s > 0 ? 100.0 * r->memory_overhead_s / r->measured_s : 0;
    int corrected = 0;
    for (size_t i = 0; i < r->nchains; i++) corrected |= r->chains[i].corrected;
    fprintf(out, "MTOOL summary (CPU model %s%s, effective clock %.2f GHz, sampling every %.1f ms)%s\n",
            r->cpu_model ? r->cpu_model : "?", corrected ? " with this core's chain latencies" : "", r->clock_hz * 1e-9,
            (double)r->period_ns * 1e-6, r->incomplete ? "  [INCOMPLETE]" : "");
    fprintf(out, "  predicted time (ideal memory)  %10.3f s\n", r->predicted_s);
    fprintf(out, "  measured time (user)           %10.3f s\n", r->measured_s);
    fprintf(out, "  memory overhead                %10.3f s  (%.1f%% of measured)\n", r->memory_overhead_s, pct);
    fprintf(out, "  system time (apart)            %10.3f s\n", r->system_s);
    fprintf(out, "  memspy's runtime (apart)       %10.3f s\n", r->runtime_s);
    fprintf(out, "Measured %.1f%% of memory operations; unexplained overhead %.1f%%\n", 100.0 * r->covered_memops,
            100.0 * r->unexplained);
    if (r->nmobjects && !any_timable(r))
        fprintf(out,
                "Note: no loop or procedure ran long enough to be timed (a sample every %.1f ms of CPU time): run the "
                "program on a larger input or sample more often (--period-us)\n",
                (double)r->period_ns * 1e-6);
    model_check(out, r);
    fputc('\n', out);
    fprintf(out, "%-9s %-24s %-28s %10s %10s %9s %11s\n", "kind", "function", "source", "estimated", "measured",
            "overhead", "cyc/memop");
    for (size_t i = 0; i < r->nmobjects && i < top; i++) {
        const ms_mobject *m = &r->mobjects[i];
        char src[300];
        const char *fn = ms_term(m->function ? m->function : "??"),
                   *kind = m->kind == MS_MOBJ_LOOP ? "loop" : "procedure";
        snprintf(src, sizeof src, "%s:%d-%d", m->file ? ms_term(base_name(m->file)) : "??", m->line, m->end_line);
        if (strlen(fn) > 24 || strlen(src) > 28) { /* long names on lines of their own, wrapped */
            char first[16], *both = ms_strprintf("%s %s", fn, src);
            snprintf(first, sizeof first, "%-9s ", kind);
            ms_fmt_name(out, first, both ? both : fn, ms_fmt_width(out));
            free(both);
            src[0] = '\0';
            fn = kind = "";
        }
        fprintf(out, "%-9s %-24s %-28s %9.4fs %9.4fs ", kind, fn, src, m->estimated_s, m->measured_s);
        /* an object with hardly any memory operations (under one per 100 ideal cycles): its
         * difference is not the memory's, and per operation it is a meaningless large number */
        if (m->timable && (double)m->memops * 100.0 < m->estimated_s * r->clock_hz)
            fprintf(out, "%8.0f%% %11s\n", 100.0 * m->overhead, "(no memops)");
        else if (m->timable)
            fprintf(out, "%8.0f%% %11s\n", 100.0 * m->overhead, ms_fmt_extra_cycles(m->extra_cycles_per_memop).s);
        else
            fprintf(out, "%9s %11s  (%s)\n", "untimable", "-", m->nwarnings ? m->warnings[0] : "");
    }
    return ferror(out) ? -1 : report_inclusive(out, r, top);
}
