/* stub: replaced by the runtime work */
#include "raw.h"
