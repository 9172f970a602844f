/* Names shared by the JSON writer and reader, so that both spell every enum the same way. */
#ifndef MEMSPY_REPORT_JSON_NAMES_H
#define MEMSPY_REPORT_JSON_NAMES_H
#include "../model/model.h"

extern const char *const ms_json_kind_names[4];          /* indexed by ms_bin_kind */
extern const char *const ms_json_exit_names[3];          /* indexed by MS_EXIT_* */
extern const char *const ms_json_policy_names[3];        /* indexed by ms_policy */
extern const char *const ms_json_cause_names[MS_NCAUSES]; /* indexed by MS_CAUSE_* */
extern const char *const ms_json_protocol_names[2];      /* indexed by ms_protocol */
extern const char *const ms_json_ref_kind_names[3];      /* indexed by ms_ref_kind */

#define MS_JSON_NELEM(a) (sizeof(a) / sizeof((a)[0]))

#endif
