/* Names of the findings' kinds (finding.h). */
#include "finding.h"

static const char *const kind_names[MS_FINDING_NKINDS] = {
    "self-interference", "cross-interference", "replacement", "cold", "false-sharing", "true-sharing",
};

const char *ms_finding_kind_name(ms_finding_kind k) { return k < MS_FINDING_NKINDS ? kind_names[k] : "?"; }
