/* MTOOL's procedures with their callees (issue 13): inclusive estimated and measured times
 * from the counting run's call edges, gprof's rule. Pure: no I/O. */
#ifndef MEMSPY_ANALYSIS_MTOOL_CALLS_H
#define MEMSPY_ANALYSIS_MTOOL_CALLS_H
#include <stddef.h>
#include <stdint.h>
#include "../model/mtool.h"

/* A call edge between two functions (names as the procedures are named), with its count. */
typedef struct {
    const char *caller, *callee;
    uint64_t count;
} ms_mtool_edge;

/* Give every procedure mobject of r its inclusive times: its own, plus each callee's inclusive
 * time shared by the calls this procedure made to it among all the calls it received (gprof's
 * rule). The procedures of a recursive cycle are one unit: each gets the cycle's inclusive
 * time and the warning MS_MOBJ_WARN_RECURSIVE. Edges naming no procedure are ignored.
 * Returns 0, or -1 when out of memory (r unchanged). */
int ms_mtool_inclusive(ms_mtool_result *r, const ms_mtool_edge *edges, size_t nedges);

#endif
