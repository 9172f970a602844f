/* Names shared by the JSON writer and reader, so that both spell every enum the same way. */
#ifndef MEMSPY_MODELIO_JSON_NAMES_H
#define MEMSPY_MODELIO_JSON_NAMES_H
#include <stddef.h>
#include <stdint.h>

#include "../model/model.h"

extern const char *const ms_json_kind_names[4];           /* indexed by ms_bin_kind */
extern const char *const ms_json_exit_names[4];           /* indexed by MS_EXIT_* */
extern const char *const ms_json_policy_names[3];         /* indexed by ms_policy */
extern const char *const ms_json_cause_names[MS_NCAUSES]; /* indexed by MS_CAUSE_* */
extern const char *const ms_json_protocol_names[2];       /* indexed by ms_protocol */
extern const char *const ms_json_ref_kind_names[3];       /* indexed by ms_ref_kind */

/* The primary invalidation counters, in the file's order (counters.def): key and offset in
 * ms_inval_counters (the object "inval" of every counters object, and the "inval." events). */
typedef struct {
    const char *name;
    size_t offset;
} ms_json_field;
#define MS_INVAL_COUNTER(member) +1
extern const ms_json_field ms_json_inval_fields[0
#include "../sim/counters.def"
];

/* The counter of field f in v, and its value. */
static inline uint64_t *ms_json_inval_field(ms_inval_counters *v, const ms_json_field *f)
{
    return (uint64_t *)(void *)((char *)v + f->offset);
}

static inline uint64_t ms_json_inval_value(const ms_inval_counters *v, const ms_json_field *f)
{
    return *(const uint64_t *)(const void *)((const char *)v + f->offset);
}

#define MS_JSON_NELEM(a) (sizeof(a) / sizeof((a)[0]))

#endif
