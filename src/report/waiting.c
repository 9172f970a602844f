/* The waiting-time reports: Carnival's WT Map (every synchronisation point's waiting, share
 * and classes, with each processor's time) and the characterization of one point (what the
 * late processors executed more than the waiting ones). */
#include <stdio.h>
#include <string.h>

#include "report.h"

static double pct(uint64_t part, uint64_t whole) { return whole ? 100.0 * (double)part / (double)whole : 0.0; }

static const char *base(const char *path)
{
    const char *s = path ? strrchr(path, '/') : NULL;
    return s ? s + 1 : path ? path : "??";
}

static int no_waiting(FILE *out)
{
    fputs("This run was not replayed in the timed order: it has no waiting-time analysis.\n"
          "Replay it with `memspy resim RUN_DIR --interleave timed` or run it with --interleave timed.\n",
          out);
    return ferror(out) ? -1 : 0;
}

/* "on OBJECT, called from FUNCTION FILE:LINE" for a point with an object name or inlined into
 * a caller (a synchronisation wrapper's points told apart); 0 when it has neither. */
static int point_object(const ms_wait_source *w, char *buf, size_t len)
{
    if (!w->object_name && !w->via_function) return 0;
    char via[256] = "";
    if (w->via_function)
        snprintf(via, sizeof via, "%scalled from %s %s:%d", w->object_name ? ", " : "", w->via_function,
                 base(w->via_file), w->via_line);
    snprintf(buf, len, "%s%s%s", w->object_name ? "on " : "", w->object_name ? w->object_name : "", via);
    return 1;
}

int ms_report_waiting(FILE *out, const ms_model *m, int top)
{
    const ms_waiting *wt = &m->waiting;
    if (!wt->present) return no_waiting(out);
    if (top <= 0) top = 20;
    fprintf(out, "Waiting time (timed replay): %llu cycles in %zu synchronisation points%s\n",
            (unsigned long long)wt->total_cycles, wt->nsources,
            wt->approximate ? " (APPROXIMATE: no block counts, compute estimated per reference)" : "");
    if (wt->work_cost) fprintf(out, "block cycles: %s\n", wt->work_cost);
    fputs("\nProcessor time (cycles)\n  cpu      compute        stall      waiting         sync   waiting%\n", out);
    int idle = 0;
    for (size_t i = 0; i < wt->nprofile; i++) {
        const ms_wait_profile *p = &wt->profile[i];
        uint64_t all = p->compute + p->stall + p->waiting + p->sync;
        fprintf(out, "  %3u %12llu %12llu %12llu %12llu %9.1f%%%s\n", p->cpu, (unsigned long long)p->compute,
                (unsigned long long)p->stall, (unsigned long long)p->waiting, (unsigned long long)p->sync,
                pct(p->waiting, all), p->idle ? "  idle thread" : "");
        idle |= p->idle;
    }
    if (idle)
        fputs("  (an idle thread did almost no work in the run: its waiting is for the others' work or the run's\n"
              "  end, not an imbalance of the work; class IT)\n",
              out);
    fputs("\nWT Map: waiting per synchronisation point (LI load imbalance, IP insufficient parallelism,\n"
          "CC communication/contention, IT an idle thread's waiting)\n"
          "  #  kind       location                         waits       cycles  share     LI     IP     CC     IT"
          "  most extra work\n",
          out);
    for (size_t i = 0; i < wt->nsources && (int)i < top; i++) {
        const ms_wait_source *w = &wt->sources[i];
        char loc[64];
        snprintf(loc, sizeof loc, "%s %s:%d", w->function ? w->function : "??", base(w->file), w->line);
        char why[128] = "-";
        if (w->nexplanation) {
            const ms_wait_explanation *x = &w->explanation[0];
            snprintf(why, sizeof why, "%s %s:%d (+%llu)", x->loop ? x->loop : x->function, base(x->file), x->line,
                     (unsigned long long)x->extra_count);
        }
        fprintf(out, "%3zu  %-10s %-32s %6llu %12llu %5.1f%% %5.1f%% %5.1f%% %5.1f%% %5.1f%%  %s\n", i + 1, w->kind,
                loc, (unsigned long long)w->instances, (unsigned long long)w->cycles, pct(w->cycles, wt->total_cycles),
                pct(w->classes[MS_WAITCLASS_LOAD_IMBALANCE], w->cycles),
                pct(w->classes[MS_WAITCLASS_INSUFFICIENT_PARALLELISM], w->cycles),
                pct(w->classes[MS_WAITCLASS_COMMUNICATION], w->cycles),
                pct(w->classes[MS_WAITCLASS_IDLE_THREAD], w->cycles), why);
        char on[512];
        if (point_object(w, on, sizeof on)) fprintf(out, "                 %s\n", on);
    }
    return ferror(out) ? -1 : 0;
}

/* Does the point match LOCATION: "#N" (its rank), FUNCTION, FILE:LINE or FUNCTION:LINE? */
static int matches(const ms_wait_source *w, size_t rank, const char *loc)
{
    char buf[512];
    if (loc[0] == '#') {
        snprintf(buf, sizeof buf, "#%zu", rank + 1);
        return strcmp(buf, loc) == 0;
    }
    if (w->function && strcmp(w->function, loc) == 0) return 1;
    snprintf(buf, sizeof buf, "%s:%d", w->function ? w->function : "??", w->line);
    if (strcmp(buf, loc) == 0) return 1;
    snprintf(buf, sizeof buf, "%s:%d", base(w->file), w->line);
    if (strcmp(buf, loc) == 0) return 1;
    snprintf(buf, sizeof buf, "%s:%d", w->file ? w->file : "??", w->line);
    return strcmp(buf, loc) == 0;
}

int ms_report_wait_detail(FILE *out, const ms_model *m, const char *location, char *err, size_t errlen)
{
    const ms_waiting *wt = &m->waiting;
    if (!wt->present) {
        snprintf(err, errlen, "the run was not replayed in the timed order (--interleave timed)");
        return -1;
    }
    size_t shown = 0;
    for (size_t i = 0; i < wt->nsources; i++) {
        const ms_wait_source *w = &wt->sources[i];
        if (!matches(w, i, location)) continue;
        shown++;
        fprintf(out, "#%zu %s at %s (%s:%d), object %#llx: %llu waits, %llu cycles (%.1f%% of all waiting)\n", i + 1,
                w->kind, w->function ? w->function : "??", w->file ? w->file : "??", w->line,
                (unsigned long long)w->object, (unsigned long long)w->instances, (unsigned long long)w->cycles,
                pct(w->cycles, wt->total_cycles));
        char on[512];
        if (point_object(w, on, sizeof on)) fprintf(out, "  %s\n", on);
        for (int c = 0; c < MS_WAITCLASSES; c++)
            fprintf(out, "  %-26s %12llu cycles %5.1f%%\n", ms_waitclass_name(c), (unsigned long long)w->classes[c],
                    pct(w->classes[c], w->cycles));
        if (w->classes[MS_WAITCLASS_IDLE_THREAD])
            fputs("  (idle_thread: the waiting of threads that did almost no work in the run, for the others' work\n"
                  "  or the run's end: not an imbalance of the work)\n",
                  out);
        uint64_t extra = 0;
        for (size_t j = 0; j < w->nexplanation; j++)
            extra += w->explanation[j].extra_cycles + w->explanation[j].stall_cycles;
        fputs("  longer path (what the late processor executed more than the waiting one since their\n"
              "  previous synchronisation, and where it stalled more):\n"
              "        extra count   extra cycles   stall cycles  share  where\n",
              out);
        for (size_t j = 0; j < w->nexplanation && j < 20; j++) {
            const ms_wait_explanation *x = &w->explanation[j];
            fprintf(out, "    %15llu %14llu %14llu %5.1f%%  %s %s:%d%s%s\n", (unsigned long long)x->extra_count,
                    (unsigned long long)x->extra_cycles, (unsigned long long)x->stall_cycles,
                    pct(x->extra_cycles + x->stall_cycles, extra), x->function, base(x->file), x->line,
                    x->loop ? " in " : "", x->loop ? x->loop : "");
        }
        fputs("  equivalence classes of paths (instances whose late path did the same extra work):\n", out);
        for (size_t j = 0; j < w->npaths && j < 10; j++) {
            const ms_wait_path *q = &w->paths[j];
            fprintf(out, "    %6llu waits %14llu cycles %5.1f%%  led by %s %s:%d%s%s\n",
                    (unsigned long long)q->instances, (unsigned long long)q->cycles, pct(q->cycles, w->cycles),
                    q->function, base(q->file), q->line, q->loop ? " in " : "", q->loop ? q->loop : "");
        }
    }
    if (!shown) {
        snprintf(err, errlen, "no synchronisation point matches '%s' (give #N, FUNCTION, FUNCTION:LINE or FILE:LINE)",
                 location);
        return -1;
    }
    return ferror(out) ? -1 : 0;
}
