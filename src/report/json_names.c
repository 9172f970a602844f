/* Spellings of the model's enums in the result file (see json_names.h). */
#include "json_names.h"

const char *const ms_json_kind_names[4] = { "heap", "global", "stack", "other" };
const char *const ms_json_exit_names[3] = { "normal", "signal", "_exit" };
const char *const ms_json_policy_names[3] = { "lru", "plru", "random" };
const char *const ms_json_cause_names[MS_NCAUSES] = { "cold", "capacity", "conflict", "invalidation" };
const char *const ms_json_protocol_names[2] = { "mesi", "msi" };
const char *const ms_json_ref_kind_names[3] = { "Read", "Write", "ReadWrite" };
