/* Allocation destinations recorded by memspy's compiler plugin (raw section DESTS, records
 * described in src/rt/msplug_abi.h): where each call's pointer result is stored, per inline
 * level, matched to the frames of a return address; heap bins are named from them. */
#ifndef MEMSPY_ANALYSIS_DESTS_H
#define MEMSPY_ANALYSIS_DESTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "symbolize.h"

typedef struct ms_dests ms_dests;
typedef struct ms_dest ms_dest;

/* Parse the text records and the pcs of their calls' labels (pcs: two per record, before and
 * after the call; may be NULL; records in a format this reader does not know are skipped). *out is NULL when there are none. Returns 0,
 * or -1 when out of memory. */
int ms_dests_new(char *const *records, const uint64_t *pcs, size_t n, ms_dests **out);
void ms_dests_free(ms_dests *d);

/* The record of the call whose return address is ra and whose frames (innermost first, as the
 * symbolizer gives them for ra) are frames[0..nframes): same position at every level; of
 * several calls at one position, the one whose label is the last before ra. Without line
 * information (frames[0] has no file), the record whose labels enclose ra. NULL if none. */
const ms_dest *ms_dests_find(const ms_dests *d, const ms_frame *frames, size_t nframes, uint64_t ra);

/* As ms_dests_find, the record of argument arg of that call (a pointer to a pointer: what it
 * points to, where the callee stores an allocation through its parameter). NULL if none. */
const ms_dest *ms_dests_find_arg(const ms_dests *d, const ms_frame *frames, size_t nframes, uint64_t ra, int arg);

/* The index of the pointer parameter that level k's function stores the value through
 * (`*coder_ptr = malloc(...)`: the caller's argument names it), -1 if none. */
int ms_dest_out_param(const ms_dest *r, size_t k);

/* The name that level k (0: the call's own frame) of record r gives, MemSpy's style
 * ("double*.A" for a variable declared by the call's statement or a local pointer variable
 * declared before it, "A" for a global or any other variable, "s.x", "rows[]";
 * Fortran: the array, "field"; a variable that only carries the value into a slot that no
 * variable or field names (an interpreter's stack slot, a hash chain's head): the type it
 * points to, "Table"), malloc'd; NULL if the level names nothing (or no memory). */
char *ms_dest_name(const ms_dest *r, size_t k);

/* Whether level k's function is an allocation wrapper: the value leaves it (named or used at
 * an outer level, or it reaches a return statement) and the function does nothing else with
 * it (no access through it, no call it is passed to, no store of it in memory), or it stores
 * the value through a pointer parameter (whatever else it does): the name then comes from
 * further out. */
bool ms_dest_passed_out(const ms_dest *r, size_t k);

/* Whether level k's function keeps the value in a slot that no variable or field names (an
 * interpreter's stack slot, a hash chain's head): its name is then the type (ms_dest_name). */
bool ms_dest_in_slot(const ms_dest *r, size_t k);

/* Whether level k names at most a variable of its function (a local, not memory). */
bool ms_dest_local(const ms_dest *r, size_t k);

/* Whether the value of level k (or the object whose member level k names) may reach the
 * caller of level k's function: it reaches a return statement, level k names a member (of an
 * object the caller may keep), or an outer inline level follows; true without a record. A
 * name further out on the call path is the value's only where each level on the way lets it
 * out: past one that does not (Lua's interpreter loop, which keeps its tables in its stack),
 * the outer calls' records are about other values (`ci = luaD_precall(...)`). */
bool ms_dest_leaves(const ms_dest *r, size_t k);

/* A part of an aggregate returned by value (`buffer.start = start; return buffer;`, inner's
 * level k) that the caller stores somewhere named (outer's level j: `dstBuff = get(...)`,
 * `job->dst = get(...)`): the caller's destination with the part ("dstBuff.start"); else NULL. */
char *ms_dest_returned_part(const ms_dest *inner, size_t k, const ms_dest *outer, size_t j);

/* Whether level k names the variable that the struct a call returns by value goes to (a call
 * of a function returning a struct with a pointer member, `Status s = DB::Open(...)`: a
 * variable of no pointer type, nor a typedef that names one, where no inner level of the
 * record names anything), not a pointer result nor the object of a member function or whose
 * member an inner level names (`s` of `s.state_`). Such a name is a block's only as the part of the struct that
 * holds it (ms_dest_returned_part). */
bool ms_dest_aggregate(const ms_dest *r, size_t k);

/* Whether record r's levels name the object its call works on (a C++ constructor or member
 * function: `data_.append(piece)`), not the call's result. */
bool ms_dest_names_object(const ms_dest *r);

/* For a frame without line information (its inline levels unknown): the name of the first
 * level that is no wrapper's, else of any level (*passed_out then set); NULL if none. */
char *ms_dest_best_name(const ms_dest *r, bool *passed_out);

/* A member stored into an object that a caller keeps in a variable (`s->x = calloc(...)` in
 * a function whose result the caller stores in `particles`): the caller's variable with the
 * member's path ("particles.x"), when inner's level k is a member and outer's level j a
 * variable; else NULL, also for a member of the function's `this` where outer is another
 * call's record (`this.blocks_[]` in a method whose caller keeps its result in `p`: the object
 * the method works on, not the value it returns; an inline level's `this` is its caller's). */
char *ms_dest_member_of(const ms_dest *inner, size_t k, const ms_dest *outer, size_t j);

/* Tidy a type as gcc prints it into the way people write it: "struct S *" -> "S*",
 * "long int *" -> "long*", "const char *" -> "char*". malloc'd, NULL when out of memory. */
char *ms_dest_type(const char *gcc_type);

#endif
