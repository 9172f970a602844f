/* The counters the exports write (CSV columns, callgrind events), in one table so that both
 * formats name and compute every number the same way. The columns are those of counters.def. */
#ifndef MEMSPY_REPORT_EXPORT_FIELDS_H
#define MEMSPY_REPORT_EXPORT_FIELDS_H
#include <stddef.h>
#include <stdint.h>
#include "../sim/sim.h"

/* One kind per line of counters.def that can have a column (MS_FIELD_<member or id>; per-level
 * ones MS_FIELD_L_*, multiprocessor ones MS_FIELD_MP_*, the causes MS_FIELD_CAUSE). */
typedef enum {
#define MS_COUNTER(member, ...) MS_FIELD_##member,
#define MS_COUNTER_DERIVED(id, ...) MS_FIELD_##id,
#define MS_LEVEL_COUNTER(member, ...) MS_FIELD_L_##member,
#define MS_LEVEL_DERIVED(id, ...) MS_FIELD_L_##id,
#define MS_LEVEL_CAUSES MS_FIELD_CAUSE,
#define MS_MP_EXPORT(id, ...) MS_FIELD_MP_##id,
#include "../sim/counters.def"
} ms_field_kind;

typedef struct {
    ms_field_kind kind;
    int level;      /* 0 = L1; unused for per-reference fields */
    int cause;      /* MS_CAUSE_* for MS_FIELD_CAUSE */
    char csv[32];   /* CSV column: "L1_misses", "L2_conflict", "stall" */
    char event[16]; /* callgrind event: "L1m", "Conflict", "L2Conflict", "Stall" */
    char desc[64];  /* long name: "L1 misses", "L2 conflict misses" */
} ms_export_field;

/* Most fields a hierarchy of MS_MAX_LEVELS levels has. */
enum {
    MS_EXPORT_MAX_FIELDS = 0
#define MS_COUNTER(...) +1
#define MS_COUNTER_DERIVED(...) +1
#define MS_LEVEL_COUNTER(...) +MS_MAX_LEVELS
#define MS_LEVEL_DERIVED(...) +MS_MAX_LEVELS
#define MS_LEVEL_CAUSES +MS_MAX_LEVELS *MS_NCAUSES
#define MS_MP_EXPORT(...) +1
#include "../sim/counters.def"
};

/* Fill out (room for MS_EXPORT_MAX_FIELDS) with the fields of a hierarchy of nlevels levels,
 * in counters.def's order: the HEAD columns (references, reads, writes); the MISSES columns
 * of every level (misses, read and write misses); per level, its miss causes and, below L1,
 * its BELOW_L1 columns (writebacks); the TAIL columns (stall, read stall, write stall); and,
 * when multiproc (the run had nprocs > 1), the multiprocessor columns (coherence misses, the
 * received invalidations: all, true sharing, false sharing). Returns how many. */
size_t ms_export_fields(int nlevels, int multiproc, ms_export_field *out);

/* The value of field f in counters c. */
uint64_t ms_export_value(const ms_export_field *f, const ms_counters *c);

#endif
