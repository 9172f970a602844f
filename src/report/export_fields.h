/* The counters the exports write (CSV columns, callgrind events), in one table so that both
 * formats name and compute every number the same way. */
#ifndef MEMSPY_REPORT_EXPORT_FIELDS_H
#define MEMSPY_REPORT_EXPORT_FIELDS_H
#include <stddef.h>
#include <stdint.h>
#include "../sim/sim.h"

typedef enum {
    MS_FIELD_REFS, MS_FIELD_READS, MS_FIELD_WRITES,
    MS_FIELD_MISSES, MS_FIELD_READ_MISSES, MS_FIELD_WRITE_MISSES,
    MS_FIELD_CAUSE,          /* per level, `cause` = MS_CAUSE_* */
    MS_FIELD_WRITEBACKS,
    MS_FIELD_STALL, MS_FIELD_STALL_READ, MS_FIELD_STALL_WRITE,
    MS_FIELD_COHERENCE,      /* coherence misses, summed over levels (multiprocessor runs) */
    MS_FIELD_INVAL_RECEIVED, MS_FIELD_INVAL_TRUE, MS_FIELD_INVAL_FALSE,
} ms_field_kind;

typedef struct {
    ms_field_kind kind;
    int level;               /* 0 = L1; unused for per-reference fields */
    int cause;               /* MS_CAUSE_* for MS_FIELD_CAUSE */
    char csv[32];            /* CSV column: "L1_misses", "L2_conflict", "stall" */
    char event[16];          /* callgrind event: "L1m", "Conflict", "L2Conflict", "Stall" */
    char desc[64];           /* long name: "L1 misses", "L2 conflict misses" */
} ms_export_field;

/* Most fields a hierarchy of MS_MAX_LEVELS levels has. */
#define MS_EXPORT_MAX_FIELDS (10 + MS_MAX_LEVELS * (4 + MS_NCAUSES))

/* Fill out (room for MS_EXPORT_MAX_FIELDS) with the fields of a hierarchy of nlevels levels:
 * references, reads, writes; misses, read and write misses of every level; the miss causes
 * of every level and the writebacks into every level below L1; stall, read stall, write
 * stall; and, when multiproc (the run had nprocs > 1), coherence misses and the received
 * invalidations (all, true sharing, false sharing). Returns how many. */
size_t ms_export_fields(int nlevels, int multiproc, ms_export_field *out);

/* The value of field f in counters c. */
uint64_t ms_export_value(const ms_export_field *f, const ms_counters *c);

#endif
