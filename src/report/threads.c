/* The multiprocessor reports: the per-processor table (references, misses split into
 * uniprocessor and coherence misses, invalidations by class, replay waits) and ccSIM's
 * per-reference table (Table 3). Coherence misses here are L1 misses caused by an
 * invalidation, so that they are a part of the L1 misses shown beside them. */
#include <stdlib.h>
#include <string.h>

#include "../modelio/json_names.h"
#include "report.h"
#include "text_fmt.h"
#include "../util/util.h"

#define DEFAULT_TOP_REFS 20
#define THREADS_WIDTH 12

/* "0,4,8" (cut with "..." when longer than the column). */
static void format_threads(char *buf, size_t len, const ms_proc_stat *p)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t t = 0; t < p->nthreads && used < len; t++) {
        int n = snprintf(buf + used, len - used, "%s%u", t ? "," : "", p->threads[t]);
        if (n < 0 || (size_t)n >= len - used) {
            snprintf(buf + (len > 4 ? len - 4 : 0), len > 4 ? 4 : len, "...");
            return;
        }
        used += (size_t)n;
    }
    if (p->nthreads == 0) snprintf(buf, len, "-");
}

static void print_proc_row(FILE *out, const char *cpu, const char *threads, const ms_counters *c, uint64_t wait)
{
    const ms_inval_counters *v = &c->inval;
    uint64_t misses = ms_counters_misses(c, 0), coh = ms_counters_l1_coherence(c);
    fprintf(out, "%4s %-*s %10s %8s %8s %9s %8s %8s %8s %8s %8s %8s %8s %8s\n", cpu, THREADS_WIDTH, threads,
            ms_fmt_count(ms_counters_refs(c)).s, ms_fmt_count(misses).s, ms_fmt_count(misses - coh).s,
            ms_fmt_count(coh).s, ms_fmt_count(v->received).s, ms_fmt_count(v->true_in).s,
            ms_fmt_count(v->true_across).s, ms_fmt_count(v->false_in).s, ms_fmt_count(v->false_across).s,
            ms_fmt_count(v->with_lock).s, ms_fmt_count(v->followed_by_miss).s, ms_fmt_count(wait).s);
}

/* The Wait column of cpu: in the timed order the simulated cycles it waited (the waiting-time
 * profile), in the others the replay steps its threads spent blocked. */
static uint64_t proc_wait(const ms_model *m, const ms_proc_stat *p)
{
    if (!m->waiting.present) return p->wait_turns;
    for (size_t i = 0; i < m->waiting.nprofile; i++)
        if (m->waiting.profile[i].cpu == p->cpu) return m->waiting.profile[i].waiting;
    return 0;
}

int ms_report_procs(FILE *out, const ms_model *m)
{
    if (m->nprocs <= 1 || m->nprocs_stat == 0) {
        fputs("This run was simulated on one processor: there is no per-processor breakdown.\n", out);
        return ferror(out) ? -1 : 0;
    }
    fputs("PER-PROCESSOR STATISTICS\n", out);
    ms_fmt_multiprocessor(out, &m->config, m->nprocs, m->interleave, "");
    fputs("Misses are L1 misses: uniprocessor ones would also happen on one processor, coherence ones\n"
          "follow an invalidation. Invalidations are those received, by class (ccSIM): true/false\n"
          "sharing x in region/across regions; Lock = in region with a lock held; Miss = followed by\n"
          "a coherence miss. ",
          out);
    fputs(m->waiting.present ? "Wait = simulated cycles the processor spent waiting (memspy report --waiting).\n\n"
                             : "Wait = replay steps the processor's threads spent blocked.\n\n",
          out);
    fprintf(out, "%4s %-*s %10s %8s %8s %9s %8s %8s %8s %8s %8s\n", "", THREADS_WIDTH, "", "", "", "", "", "Invalid.",
            "True", "True", "False", "False");
    fprintf(out, "%4s %-*s %10s %8s %8s %9s %8s %8s %8s %8s %8s %8s %8s %8s\n", "CPU", THREADS_WIDTH, "Threads", "Refs",
            "Misses", "Uniproc", "Coherence", "Total", "In", "Across", "In", "Across", "Lock", "Miss", "Wait");
    ms_counters all;
    memset(&all, 0, sizeof all);
    uint64_t wait = 0;
    for (size_t i = 0; i < m->nprocs_stat; i++) {
        const ms_proc_stat *p = &m->procs[i];
        char cpu[16], threads[THREADS_WIDTH + 1];
        snprintf(cpu, sizeof cpu, "%u", p->cpu);
        format_threads(threads, sizeof threads, p);
        print_proc_row(out, cpu, threads, &p->c, proc_wait(m, p));
        ms_counters_add(&all, &p->c);
        wait += proc_wait(m, p);
    }
    print_proc_row(out, "all", "", &all, wait);
    return ferror(out) ? -1 : 0;
}

/* The rows to show: the model's rows, or with by_cpu == 0 the rows summed over processors
 * (cpu set to UINT32_MAX), in the model's order. */
static ms_reference_stat *reference_rows(const ms_model *m, int by_cpu, size_t *n)
{
    ms_reference_stat *rows = malloc((m->nrefs ? m->nrefs : 1) * sizeof *rows);
    if (!rows) return NULL;
    if (m->nrefs) memcpy(rows, m->refs, m->nrefs * sizeof *rows);
    *n = m->nrefs;
    if (!by_cpu) {
        for (size_t i = 0; i < *n; i++) rows[i].cpu = UINT32_MAX;
        *n = ms_references_fold(rows, *n);
    }
    if (*n) qsort(rows, *n, sizeof *rows, ms_reference_order);
    return rows;
}

int ms_report_references(FILE *out, const ms_model *m, const ms_refs_opts *opts)
{
    int top = opts && opts->top > 0 ? opts->top : DEFAULT_TOP_REFS;
    int by_cpu = opts && opts->by_cpu;
    if (m->nprocs <= 1) {
        fputs("This run was simulated on one processor: per-reference coherence statistics need threads.\n", out);
        return ferror(out) ? -1 : 0;
    }
    size_t n = 0;
    ms_reference_stat *rows = reference_rows(m, by_cpu, &n);
    if (!rows) return -1;
    size_t shown = n < (size_t)top ? n : (size_t)top;
    fprintf(out, "PER-REFERENCE STATISTICS (top %zu of %zu, %s)\n", shown, n,
            by_cpu ? "per processor" : "summed over processors");
    fputs("Ref = data bin and access kind; misses are L1 misses; % Coher. = coherence misses among them;\n"
          "invalidations are those received by the reference's copies.\n\n",
          out);
    fprintf(out, "%-20s %-24s %s%8s %6s %6s %8s %8s %8s %8s %8s\n", "", "", by_cpu ? "    " : "", "", "Miss", "%",
            "Invalid.", "True", "True", "False", "False");
    fprintf(out, "%-20s %-24s %s%8s %6s %6s %8s %8s %8s %8s %8s\n", "Line", "Ref", by_cpu ? " CPU" : "", "Misses",
            "Ratio", "Coher.", "Total", "In", "Across", "In", "Across");
    for (size_t i = 0; i < shown; i++) {
        const ms_reference_stat *r = &rows[i];
        const char *file = r->file < m->nfiles && m->files[r->file] ? m->files[r->file] : "??";
        const char *base = strrchr(file, '/');
        const char *data = r->data < m->ndata && m->data[r->data].name ? m->data[r->data].name : "?";
        const char *kind =
            (unsigned)r->kind < MS_JSON_NELEM(ms_json_ref_kind_names) ? ms_json_ref_kind_names[r->kind] : "?";
        char loc[256], ref[256], cpu[16] = "";
        snprintf(loc, sizeof loc, "%s:%d", ms_term(base ? base + 1 : file), r->line);
        snprintf(ref, sizeof ref, "%s %s", ms_term(data), kind);
        if (by_cpu) snprintf(cpu, sizeof cpu, "%4u", r->cpu);
        if (strlen(loc) > 20 || strlen(ref) > 24) { /* long names on lines of their own, wrapped */
            char both[520];
            snprintf(both, sizeof both, "%s %s", loc, ref);
            ms_fmt_name(out, "", both, ms_fmt_width(out));
            loc[0] = ref[0] = '\0';
        }
        uint64_t misses = ms_counters_misses(&r->c, 0);
        const ms_inval_counters *v = &r->c.inval;
        fprintf(out, "%-20s %-24s %s%8s %6.3f %6.1f %8s %8s %8s %8s %8s\n", loc, ref, cpu, ms_fmt_count(misses).s,
                ms_ratio(misses, ms_counters_refs(&r->c)), ms_pct(ms_counters_l1_coherence(&r->c), misses),
                ms_fmt_count(v->received).s, ms_fmt_count(v->true_in).s, ms_fmt_count(v->true_across).s,
                ms_fmt_count(v->false_in).s, ms_fmt_count(v->false_across).s);
    }
    free(rows);
    return ferror(out) ? -1 : 0;
}
