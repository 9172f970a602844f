/* The table of exported counters (see export_fields.h), generated from counters.def. */
#include <stdio.h>

#include "../model/model.h"
#include "export_fields.h"

/* Cause spellings: CSV column suffix, callgrind event, description. */
#define MS_CAUSE(id, name, event, desc) name,
static const char *const CAUSE_CSV[MS_NCAUSES] = {
#include "../sim/counters.def"
};
#define MS_CAUSE(id, name, event, desc) event,
static const char *const CAUSE_EVENT[MS_NCAUSES] = {
#include "../sim/counters.def"
};
#define MS_CAUSE(id, name, event, desc) desc,
static const char *const CAUSE_DESC[MS_NCAUSES] = {
#include "../sim/counters.def"
};

/* Append one field to out[*n]; csv, event and desc are formats given the level number
 * (1 = L1), which those of counters that are not per level do not use. */
static void add(ms_export_field *out, size_t *n, ms_field_kind kind, int level, int cause, const char *csv,
                const char *event, const char *desc)
{
    ms_export_field *f = &out[(*n)++];
    f->kind = kind;
    f->level = level;
    f->cause = cause;
    snprintf(f->csv, sizeof f->csv, csv, level + 1);
    snprintf(f->event, sizeof f->event, event, level + 1);
    snprintf(f->desc, sizeof f->desc, desc, level + 1);
}

/* The counters (not per level) whose column is at `exp`. */
static void add_counters(ms_export_field *out, size_t *n, int exp)
{
#define MS_COUNTER(member, e, csv, event, desc) \
    if (MS_EXP_##e == exp) add(out, n, MS_FIELD_##member, 0, 0, csv, event, desc);
#define MS_COUNTER_DERIVED(id, e, csv, event, desc, expr) \
    if (MS_EXP_##e == exp) add(out, n, MS_FIELD_##id, 0, 0, csv, event, desc);
#include "../sim/counters.def"
}

size_t ms_export_fields(int nlevels, int multiproc, ms_export_field *out)
{
    size_t n = 0;
    if (nlevels < 0) nlevels = 0;
    if (nlevels > MS_MAX_LEVELS) nlevels = MS_MAX_LEVELS;
    add_counters(out, &n, MS_EXP_HEAD);
    for (int k = 0; k < nlevels; k++) {
#define MS_LEVEL_COUNTER(member, e, csv, event, desc) \
    if (MS_EXP_##e == MS_EXP_MISSES) add(out, &n, MS_FIELD_L_##member, k, 0, csv, event, desc);
#define MS_LEVEL_DERIVED(id, e, csv, event, desc, expr) \
    if (MS_EXP_##e == MS_EXP_MISSES) add(out, &n, MS_FIELD_L_##id, k, 0, csv, event, desc);
#include "../sim/counters.def"
    }
    /* MemSpy's causes are those of L1 misses: their events carry no level prefix. */
    for (int k = 0; k < nlevels; k++) {
        char csv[32], event[16], desc[64];
#define MS_LEVEL_CAUSES                                                            \
    for (int c = 0; c < MS_NCAUSES; c++) {                                         \
        snprintf(csv, sizeof csv, "L%%d_%s", CAUSE_CSV[c]);                        \
        snprintf(event, sizeof event, "%s%s", k > 0 ? "L%d" : "", CAUSE_EVENT[c]); \
        snprintf(desc, sizeof desc, "L%%d %s", CAUSE_DESC[c]);                     \
        add(out, &n, MS_FIELD_CAUSE, k, c, csv, event, desc);                      \
    }
#define MS_LEVEL_COUNTER(member, e, csv, event, desc) \
    if (MS_EXP_##e == MS_EXP_BELOW_L1 && k > 0) add(out, &n, MS_FIELD_L_##member, k, 0, csv, event, desc);
#define MS_LEVEL_DERIVED(id, e, csv, event, desc, expr) \
    if (MS_EXP_##e == MS_EXP_BELOW_L1 && k > 0) add(out, &n, MS_FIELD_L_##id, k, 0, csv, event, desc);
#include "../sim/counters.def"
    }
    add_counters(out, &n, MS_EXP_TAIL);
#define MS_MP_EXPORT(id, csv, event, desc, expr) \
    if (multiproc) add(out, &n, MS_FIELD_MP_##id, 0, 0, csv, event, desc);
#include "../sim/counters.def"
    return n;
}

uint64_t ms_export_value(const ms_export_field *f, const ms_counters *c)
{
    int k = f->level;
    const ms_level_counters *l = &c->level[k];
    switch (f->kind) {
        /* one case per line of counters.def; clang-format would join the macros */
        /* clang-format off */
#define MS_COUNTER(member, ...) case MS_FIELD_##member: return c->member;
#define MS_COUNTER_DERIVED(id, e, csv, event, desc, expr) case MS_FIELD_##id: return expr;
#define MS_LEVEL_COUNTER(member, ...) case MS_FIELD_L_##member: return l->member;
#define MS_LEVEL_DERIVED(id, e, csv, event, desc, expr) case MS_FIELD_L_##id: return expr;
#define MS_LEVEL_CAUSES case MS_FIELD_CAUSE: return l->cause[f->cause];
#define MS_MP_EXPORT(id, csv, event, desc, expr) case MS_FIELD_MP_##id: return expr;
#include "../sim/counters.def"
        /* clang-format on */
    }
    return 0;
}
