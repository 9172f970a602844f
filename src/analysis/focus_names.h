/* `memspy run --focus`: the loop names checked against the loops of the run. */
#ifndef MEMSPY_ANALYSIS_FOCUS_NAMES_H
#define MEMSPY_ANALYSIS_FOCUS_NAMES_H
#include "../model/model.h"

/* Check each loop name of focus (comma-separated, format/focus_spec.h) against m's loops:
 * it must name one source loop (its versions and the loops nested in it go with it), and a
 * FILE:A-B name must not share its lines with a loop of another file (the runtime does not
 * know files and would have simulated both). Function names are not checked here (the run's
 * note names those that matched nothing). Returns 0, or -1 with *msg (malloc'd) saying which
 * name is wrong and listing the candidates; *msg NULL when out of memory. */
int ms_focus_check_loops(const ms_model *m, const char *focus, char **msg);

/* A loop's name as code bins write it, FUNC:loop@A-B (or @A), into buf. */
void ms_focus_loop_name(const ms_loop_stat *l, char *buf, size_t size);

#endif
