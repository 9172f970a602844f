/* Spellings of the model's enums in the result file (see json_names.h). */
#include "json_names.h"

const char *const ms_json_kind_names[4] = { "heap", "global", "stack", "other" };
const char *const ms_json_exit_names[4] = { "normal", "signal", "_exit", "exec" };
const char *const ms_json_policy_names[3] = { "lru", "plru", "random" };
#define MS_CAUSE(id, name, event, desc) name,
const char *const ms_json_cause_names[MS_NCAUSES] = {
#include "../sim/counters.def"
};
const char *const ms_json_protocol_names[2] = { "mesi", "msi" };
const char *const ms_json_ref_kind_names[3] = { "Read", "Write", "ReadWrite" };

#define MS_INVAL_COUNTER(f) { #f, offsetof(ms_inval_counters, f) },
const ms_json_field ms_json_inval_fields[] = {
#include "../sim/counters.def"
};
