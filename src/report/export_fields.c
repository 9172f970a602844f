/* The table of exported counters (see export_fields.h). */
#include <stdio.h>

#include "../model/model.h"
#include "export_fields.h"

/* Cause spellings: CSV column suffix, callgrind event, description. */
static const char *const CAUSE_CSV[MS_NCAUSES] = { "cold", "capacity", "conflict", "invalidation" };
static const char *const CAUSE_EVENT[MS_NCAUSES] = { "Cold", "Capacity", "Conflict", "Inval" };
static const char *const CAUSE_DESC[MS_NCAUSES] = { "cold (first-reference) misses", "capacity misses",
                                                    "conflict misses", "invalidation misses" };

/* Append one field to out[*n]. */
static void add(ms_export_field *out, size_t *n, ms_field_kind kind, int level, int cause,
                const char *csv, const char *event, const char *desc)
{
    ms_export_field *f = &out[(*n)++];
    f->kind = kind;
    f->level = level;
    f->cause = cause;
    snprintf(f->csv, sizeof f->csv, "%s", csv);
    snprintf(f->event, sizeof f->event, "%s", event);
    snprintf(f->desc, sizeof f->desc, "%s", desc);
}

typedef struct { ms_field_kind kind; const char *csv, *event, *desc; } field_names;

size_t ms_export_fields(int nlevels, int multiproc, ms_export_field *out)
{
    static const field_names refs[] = {
        { MS_FIELD_REFS, "refs", "Refs", "references (reads + writes)" },
        { MS_FIELD_READS, "reads", "Rd", "reads" },
        { MS_FIELD_WRITES, "writes", "Wr", "writes" },
    };
    static const field_names misses[] = {
        { MS_FIELD_MISSES, "misses", "m", "misses" },
        { MS_FIELD_READ_MISSES, "read_misses", "mr", "read misses" },
        { MS_FIELD_WRITE_MISSES, "write_misses", "mw", "write misses" },
    };
    static const field_names coherence[] = {
        { MS_FIELD_COHERENCE, "coherence_misses", "Coh", "coherence misses (all levels)" },
        { MS_FIELD_INVAL_RECEIVED, "invalidations", "Inv", "invalidations received" },
        { MS_FIELD_INVAL_TRUE, "invalidations_true", "InvTrue", "true-sharing invalidations received" },
        { MS_FIELD_INVAL_FALSE, "invalidations_false", "InvFalse", "false-sharing invalidations received" },
    };
    static const field_names stall[] = {
        { MS_FIELD_STALL, "stall", "Stall", "memory stall cycles" },
        { MS_FIELD_STALL_READ, "stall_read", "StallRd", "stall cycles of reads" },
        { MS_FIELD_STALL_WRITE, "stall_write", "StallWr", "stall cycles of writes" },
    };
    char csv[32], event[16], desc[64];
    size_t n = 0;
    if (nlevels < 0) nlevels = 0;
    if (nlevels > MS_MAX_LEVELS) nlevels = MS_MAX_LEVELS;
    for (size_t i = 0; i < sizeof refs / sizeof *refs; i++)
        add(out, &n, refs[i].kind, 0, 0, refs[i].csv, refs[i].event, refs[i].desc);
    for (int k = 0; k < nlevels; k++) {
        for (size_t i = 0; i < sizeof misses / sizeof *misses; i++) {
            snprintf(csv, sizeof csv, "L%d_%s", k + 1, misses[i].csv);
            snprintf(event, sizeof event, "L%d%s", k + 1, misses[i].event);
            snprintf(desc, sizeof desc, "L%d %s", k + 1, misses[i].desc);
            add(out, &n, misses[i].kind, k, 0, csv, event, desc);
        }
    }
    /* MemSpy's causes are those of L1 misses: their events carry no level prefix. */
    for (int k = 0; k < nlevels; k++) {
        char prefix[16] = "";
        if (k > 0) snprintf(prefix, sizeof prefix, "L%d", k + 1);
        for (int c = 0; c < MS_NCAUSES; c++) {
            snprintf(csv, sizeof csv, "L%d_%s", k + 1, CAUSE_CSV[c]);
            snprintf(event, sizeof event, "%s%s", prefix, CAUSE_EVENT[c]);
            snprintf(desc, sizeof desc, "L%d %s", k + 1, CAUSE_DESC[c]);
            add(out, &n, MS_FIELD_CAUSE, k, c, csv, event, desc);
        }
        if (k == 0) continue;   /* writebacks come from the level above: none into L1 */
        snprintf(csv, sizeof csv, "L%d_writebacks", k + 1);
        snprintf(event, sizeof event, "L%dWb", k + 1);
        snprintf(desc, sizeof desc, "dirty lines written back into L%d", k + 1);
        add(out, &n, MS_FIELD_WRITEBACKS, k, 0, csv, event, desc);
    }
    for (size_t i = 0; i < sizeof stall / sizeof *stall; i++)
        add(out, &n, stall[i].kind, 0, 0, stall[i].csv, stall[i].event, stall[i].desc);
    for (size_t i = 0; multiproc && i < sizeof coherence / sizeof *coherence; i++)
        add(out, &n, coherence[i].kind, 0, 0, coherence[i].csv, coherence[i].event, coherence[i].desc);
    return n;
}

uint64_t ms_export_value(const ms_export_field *f, const ms_counters *c)
{
    const ms_level_counters *l = &c->level[f->level];
    switch (f->kind) {
    case MS_FIELD_REFS: return ms_counters_refs(c);
    case MS_FIELD_READS: return c->reads;
    case MS_FIELD_WRITES: return c->writes;
    case MS_FIELD_MISSES: return ms_counters_misses(c, f->level);
    case MS_FIELD_READ_MISSES: return l->read_misses;
    case MS_FIELD_WRITE_MISSES: return l->write_misses;
    case MS_FIELD_CAUSE: return l->cause[f->cause];
    case MS_FIELD_WRITEBACKS: return l->writebacks;
    case MS_FIELD_STALL: return ms_counters_stall(c);
    case MS_FIELD_STALL_READ: return c->stall_read;
    case MS_FIELD_STALL_WRITE: return c->stall_write;
    case MS_FIELD_COHERENCE: return ms_counters_coherence_misses(c);
    case MS_FIELD_INVAL_RECEIVED: return c->inval.received;
    case MS_FIELD_INVAL_TRUE: return c->inval.true_in + c->inval.true_across;
    case MS_FIELD_INVAL_FALSE: return c->inval.false_in + c->inval.false_across;
    }
    return 0;
}
