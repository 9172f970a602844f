/* The string table of a stored result (result version 3 for blocks and loops, version 4 for
 * every name): each distinct string is written once, in the top-level "names" array, and
 * referred to by its index there. A call path ("main:42>f:17>heap@a.c:9") is written as the
 * list of its pieces' indices (its frames' functions and ":LINE>" joints), so that a long
 * C++ function name that many call paths pass through is still written once. A text is
 * therefore JSON null, an index, or an array of indices whose strings, joined, give it back
 * exactly. */
#ifndef MEMSPY_MODELIO_STRTAB_H
#define MEMSPY_MODELIO_STRTAB_H
#include <jansson.h>
#include <stddef.h>

/* The writer's table: "names" and, to find a string's index, an object keyed by string. */
typedef struct {
    json_t *names, *index;
    int failed; /* an allocation failed: the table (and the file) is incomplete */
} ms_strtab;

/* Start an empty table. Returns 0, or -1 when out of memory. */
int ms_strtab_init(ms_strtab *t);
void ms_strtab_free(ms_strtab *t);

/* s as its index in the table (added on first use), JSON null for NULL; new reference (NULL
 * and t->failed set when out of memory). */
json_t *ms_strtab_ref(ms_strtab *t, const char *s);

/* s as a list of piece indices when it is a call path (it has a ":LINE>" joint), else as
 * ms_strtab_ref. */
json_t *ms_strtab_path(ms_strtab *t, const char *s);

/* The text v stands for in the table names (an array of strings): v is an index or an array
 * of indices. The bytes produced are taken from *budget (a reader's bound on how far the
 * table may expand a file). Returns 0 with *out malloc'ed, or -1 with why naming the
 * problem ("7 is not an index into names (it has 3 entries)", "not an index into names", ...). */
int ms_strtab_expand(const json_t *names, const json_t *v, size_t *budget, char **out, char *why, size_t whylen);

#endif
